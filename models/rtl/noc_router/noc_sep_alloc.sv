// Separable input-first allocator (Dally & Towles sec. 19.3), the hardware
// of models/noc/allocator.cpp SeparableInputFirstAllocator: every input's
// round-robin arbiter picks one of its requests, then every output's
// round-robin arbiter grants one of the inputs that picked it. An input's
// pointer moves past the output it was granted, an output's past the input
// it granted; pointers of inputs and outputs without a grant stay.
module noc_sep_alloc #(
    parameter int NI = 4,
    parameter int NO = 4
) (
    input  logic                   clk,
    input  logic                   rst,
    input  logic [NI-1:0][NO-1:0] req,
    output logic [NI-1:0][NO-1:0] gnt   // per input: the output granted, one-hot
);
  logic [NI-1:0][NO-1:0] in_from_q, pick;
  logic [NO-1:0][NI-1:0] out_from_q, picked_by, out_gnt;

  for (genvar i = 0; i < NI; i++) begin : g_in
    noc_rr_arbiter #(.N(NO)) arb (.req(req[i]), .from(in_from_q[i]), .gnt(pick[i]));
  end

  always_comb begin
    for (int o = 0; o < NO; o++)
      for (int i = 0; i < NI; i++) picked_by[o][i] = pick[i][o];
  end

  for (genvar o = 0; o < NO; o++) begin : g_out
    noc_rr_arbiter #(.N(NI)) arb (.req(picked_by[o]), .from(out_from_q[o]), .gnt(out_gnt[o]));
  end

  always_comb begin
    for (int i = 0; i < NI; i++)
      for (int o = 0; o < NO; o++) gnt[i][o] = out_gnt[o][i];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      in_from_q  <= '1;
      out_from_q <= '1;
    end else begin
      for (int i = 0; i < NI; i++)
        if (gnt[i] != '0) in_from_q[i] <= ~(gnt[i] | (gnt[i] - NO'(1)));
      for (int o = 0; o < NO; o++)
        if (out_gnt[o] != '0) out_from_q[o] <= ~(out_gnt[o] | (out_gnt[o] - NI'(1)));
    end
  end
endmodule
