// A small block for the co-simulation harness's own tests: adds `value` to
// a running sum when `enable` is high; `count` counts the additions.
module accumulator #(
    parameter int WIDTH = 16
) (
    input  logic             clk,
    input  logic             rst,
    input  logic             enable,
    input  logic [WIDTH-1:0] value,
    output logic [WIDTH-1:0] sum,
    output logic [     31:0] count
);
  always_ff @(posedge clk) begin
    if (rst) begin
      sum   <= '0;
      count <= '0;
    end else if (enable) begin
      sum   <= sum + value;
      count <= count + 1;
    end
  end
endmodule
