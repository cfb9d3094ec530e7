// The flit buffer of one input virtual channel: a circular buffer of DEPTH
// entries. Credit flow control guarantees a push never finds it full; a push
// and a pop in the same cycle are allowed (the pop takes the old front).
module noc_vc_fifo #(
    parameter int W     = 8,
    parameter int DEPTH = 8
) (
    input  logic         clk,
    input  logic         rst,
    input  logic         push,
    input  logic [W-1:0] din,
    input  logic         pop,
    output logic [W-1:0] front,
    output logic         empty
);
  localparam int AW = DEPTH > 1 ? $clog2(DEPTH) : 1;
  localparam int CW = $clog2(DEPTH + 1);

  logic [W-1:0] mem[DEPTH];
  logic [AW-1:0] rd_q, wr_q;
  logic [CW-1:0] count_q;

  assign front = mem[rd_q];
  assign empty = count_q == '0;

  function automatic logic [AW-1:0] next(input logic [AW-1:0] a);
    return a == AW'(DEPTH - 1) ? '0 : a + AW'(1);
  endfunction

  always_ff @(posedge clk) begin
    if (rst) begin
      rd_q    <= '0;
      wr_q    <= '0;
      count_q <= '0;
    end else begin
      if (push) begin
        mem[wr_q] <= din;
        wr_q <= next(wr_q);
      end
      if (pop) rd_q <= next(rd_q);
      count_q <= count_q + CW'(push) - CW'(pop);
    end
  end
endmodule
