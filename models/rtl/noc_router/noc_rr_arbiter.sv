// Round-robin arbiter (Dally & Towles, "Principles and Practices of
// Interconnection Networks", sec. 18.4): grants the requester that comes
// first at or after the pointer, wrapping around. The pointer is kept by the
// caller as a mask of the positions at or after it (all ones or all zeros:
// position 0), so the grant is a few word-wide operations; after a grant `g`
// the caller loads noc_rr_next(g), the positions after the winner, which
// moves the pointer past the winner exactly like the C++ allocators'
// `pointer = winner + 1`.
module noc_rr_arbiter #(
    parameter int N = 4
) (
    input  logic [N-1:0] req,
    input  logic [N-1:0] from,  // positions at or after the pointer
    output logic [N-1:0] gnt    // one-hot, or zero without requests
);
  logic [N-1:0] masked, pick;
  assign masked = req & from;
  assign pick   = (masked != '0) ? masked : req;
  // The lowest set bit of `pick`.
  assign gnt    = pick & (~pick + N'(1));
endmodule
