// An input-queued, credit-based virtual-channel router: the hardware of
// models/noc/router.cpp for wormhole flow control, dimension-order routing
// (2-D mesh, or a ring with dateline VC halves), message classes splitting
// the VCs, separable input-first VC and switch allocation with round-robin
// arbiters, atomic or non-atomic VC allocation (the `atomic` pin) and a sink
// (no credits) on the local output.
// docs/cosim.md, "The NoC router in RTL" describes the pins and their timing.
//
// Pipeline of a head flit (rc = va = sa = st = 1, as the C++ defaults):
//   cycle t    the flit is in its VC buffer (written at the edge ending t-1);
//              route computation on the buffer's front entry;
//   cycle t+1  VC allocation (input VCs x output VCs);
//   cycle t+2  switch allocation (input ports x output ports, then round
//              robin among the granted port's VCs); the flit leaves its
//              buffer at the edge ending t+2;
//   cycle t+3  switch traversal into the output register; the credit for
//              the slot the flit left is on `cout` (a register) during t+3;
//   cycle t+4  the flit is on `out_*`; with a one-cycle link the next router
//              writes it into its buffer at the edge ending t+4.
// Body and tail flits of an active VC bid for the switch as soon as they are
// at the front of their buffer and the output VC has a credit.
//
// Every decision of a cycle depends only on registers (flits and credits
// are sampled at the clock edge), so `ev_*`, combinational functions of the
// state, are valid for the whole cycle; `out_*` and `cout` are registers.
//
// Channel words (fixed layout for every variant; a variant reads the fields
// its parameters need):
//   flit header (in_hdr/out_hdr, 32 bits per port): [6:0] destination x,
//     [13:7] destination y, [16:14] message class, [17] tail, [18] head,
//     [24:19] VC, [31] valid; the payload travels in a separate word;
//   credit (cin/cout, 8 bits per port): [5:0] VC, [7] valid.
// A variant compiled with TESSERA_MUTATION_EARLY_CREDIT (tests only) lets a
// credit be used in the cycle it arrives on `cin`, one cycle early.
module noc_router #(
    parameter int PORTS     = 5,    // 5: mesh (local, +x, -x, +y, -y); 3: ring (local, +x, -x)
    parameter int VCS       = 2,    // virtual channels per port, all classes
    parameter int DEPTH     = 8,    // flits per VC buffer
    parameter int CLASSES   = 1,    // message classes, VCS / CLASSES VCs each
    parameter int PAYLOAD_W = 128   // flit payload, bits
) (
    input logic clk,
    input logic rst,
    /* verilator lint_off UNUSED */
    // Position: a mesh router reads pos_x/pos_y, a ring router pos_x and
    // ring_k (routers on the ring); header fields beyond the variant's VC
    // and class counts are not read.
    input logic [6:0] pos_x,
    input logic [6:0] pos_y,
    input logic [6:0] ring_k,
    // 1: an output VC is allocated again only once its tail has left and
    // every credit is back (one packet per VC buffer); 0: once the tail has
    // left (noc.atomic_vc).
    input logic atomic,
    input logic [PORTS-1:0][31:0] in_hdr,
    input logic [PORTS-1:0][PAYLOAD_W-1:0] in_payload,
    input logic [PORTS-1:0][7:0] cin,  // credits from the router each output port feeds
    /* verilator lint_on UNUSED */
    output logic [PORTS-1:0][31:0] out_hdr,
    output logic [PORTS-1:0][PAYLOAD_W-1:0] out_payload,
    output logic [PORTS-1:0][7:0] cout,  // credits for the slots input ports' flits left at the last edge
    output logic [PORTS-1:0] ev_switch,  // per output port: a flit switched to it this cycle
    output logic [15:0] ev_va_conflicts,  // input VCs that requested an output VC and got none
    output logic [15:0] ev_sa_conflicts  // input VCs that requested the switch and did not move
);
  localparam int NVC = PORTS * VCS;
  localparam int VCW = VCS > 1 ? $clog2(VCS) : 1;
  localparam int PW = $clog2(PORTS);
  localparam int PER_CLASS = VCS / CLASSES;
  localparam int HALF = PER_CLASS / 2;
  localparam int CRW = $clog2(DEPTH + 1);
  localparam int HW = 19;  // header bits kept in the buffer: [18:0]
  localparam int EW = HW + PAYLOAD_W;
  localparam bit RING = PORTS == 3;
  localparam int SW = $clog2(NVC);

  localparam int H_TAIL = 17;
  localparam int H_VC = 19;
  localparam int H_VALID = 31;

  typedef enum logic [1:0] {
    IDLE,      // no packet, or a head waiting for route computation
    VC_ALLOC,  // routed: bidding for an output VC
    ACTIVE     // holds an output VC: its flits bid for the switch
  } vc_state_e;

  // ---------------------------------------------------------------- input VCs
  logic [NVC-1:0] push, pop, empty;
  logic [EW-1:0] front[NVC];

  for (genvar i = 0; i < NVC; i++) begin : g_buf
    localparam int P = i / VCS;
    localparam int V = i % VCS;
    assign push[i] = in_hdr[P][H_VALID] && in_hdr[P][H_VC+:VCW] == VCW'(V);
    noc_vc_fifo #(
        .W(EW),
        .DEPTH(DEPTH)
    ) buffer (
        .clk,
        .rst,
        .push(push[i]),
        .din({in_hdr[P][HW-1:0], in_payload[P]}),
        .pop(pop[i]),
        .front(front[i]),
        .empty(empty[i])
    );
  end

  vc_state_e state_q[NVC];
  logic [PW-1:0] port_q[NVC];  // routed output port (held while active)
  logic [VCS-1:0] vcs_q[NVC];  // output VCs the route allows
  logic [VCW-1:0] ovc_q[NVC];  // output VC held while active

  // Route computation on each buffer's front entry (dimension order; on a
  // ring the shorter way, a tie at half the ring going +, and the lower half
  // of the class's VCs while the packet still has to crosses the dateline).
  logic [PW-1:0] rc_port[NVC];
  logic [VCS-1:0] rc_vcs[NVC];
  always_comb begin
    for (int i = 0; i < NVC; i++) begin
      logic [6:0] dx, dy;
      logic [2:0] cls;
      logic [7:0] fwd;
      logic crosses;
      dx = front[i][PAYLOAD_W+:7];
      dy = front[i][PAYLOAD_W+7+:7];
      cls = front[i][PAYLOAD_W+14+:3];
      crosses = 1'b0;
      if (RING) begin
        fwd = dx >= pos_x ? {1'b0, dx - pos_x} : {1'b0, dx} + {1'b0, ring_k} - {1'b0, pos_x};
        if (fwd == '0) rc_port[i] = PW'(0);
        else if ({fwd, 1'b0} <= {2'b0, ring_k}) begin
          rc_port[i] = PW'(1);
          crosses = dx < pos_x;
        end else begin
          rc_port[i] = PW'(2);
          crosses = dx > pos_x;
        end
      end else begin
        fwd = '0;
        if (dx > pos_x) rc_port[i] = PW'(1);
        else if (dx < pos_x) rc_port[i] = PW'(2);
        else if (dy > pos_y) rc_port[i] = PW'(3);
        else if (dy < pos_y) rc_port[i] = PW'(4);
        else rc_port[i] = PW'(0);
      end
      for (int w = 0; w < VCS; w++) begin
        rc_vcs[i][w] = w / PER_CLASS == int'(cls);
        if (RING && rc_port[i] != PW'(0))
          rc_vcs[i][w] = rc_vcs[i][w] && ((w % PER_CLASS < HALF) == crosses);
      end
    end
  end

  // ------------------------------------------------------------- output VCs
  logic [NVC-1:0] owned_q, tail_sent_q;
  logic [CRW-1:0] credits_q[NVC];
  logic [NVC-1:0] credit_ok;  // the output VC may take a flit this cycle
  logic [NVC-1:0] vc_free;    // the output VC may be allocated this cycle
  always_comb begin
    for (int j = 0; j < NVC; j++) begin
      credit_ok[j] = j < VCS || credits_q[j] != '0;  // the local output is a sink
      vc_free[j] = !owned_q[j];
`ifdef TESSERA_MUTATION_EARLY_CREDIT
      // The bug: a credit counts in the cycle it arrives, before the edge
      // that registers it, for the switch and for releasing the VC.
      if (cin[j/VCS][7] && cin[j/VCS][VCW-1:0] == VCW'(j % VCS)) begin
        credit_ok[j] = 1'b1;
        if (tail_sent_q[j] && credits_q[j] == CRW'(DEPTH - 1)) vc_free[j] = 1'b1;
      end
`endif
    end
  end

  // ----------------------------------------------------------- VC allocation
  logic [NVC-1:0][NVC-1:0] va_req, va_gnt;
  logic [NVC-1:0] va_bid, va_won, va_taken;
  logic [VCW-1:0] va_vc[NVC];  // the output VC won, within the routed port
  always_comb begin
    va_taken = '0;
    for (int i = 0; i < NVC; i++) begin
      logic [NVC-1:0] mine;
      logic [VCS-1:0] slice;
      mine = NVC'(vcs_q[i]) << (int'(port_q[i]) * VCS);
      va_req[i] = state_q[i] == VC_ALLOC ? mine & vc_free : '0;
      va_bid[i] = va_req[i] != '0;
      va_won[i] = va_gnt[i] != '0;
      va_taken = va_taken | va_gnt[i];
      slice = VCS'(va_gnt[i] >> (int'(port_q[i]) * VCS));
      va_vc[i] = '0;
      for (int w = 0; w < VCS; w++) if (slice[w]) va_vc[i] = VCW'(w);
    end
  end

  noc_sep_alloc #(
      .NI(NVC),
      .NO(NVC)
  ) va (
      .clk,
      .rst,
      .req(va_req),
      .gnt(va_gnt)
  );

  // ------------------------------------------------------- switch allocation
  logic [NVC-1:0] sa_bid;
  logic [PORTS-1:0][PORTS-1:0] sa_req, sa_gnt;
  always_comb begin
    for (int p = 0; p < PORTS; p++) sa_req[p] = '0;
    for (int i = 0; i < NVC; i++) begin
      sa_bid[i] = state_q[i] == ACTIVE && !empty[i] && credit_ok[int'(port_q[i])*VCS+int'(ovc_q[i])];
      if (sa_bid[i]) sa_req[i/VCS][port_q[i]] = 1'b1;
    end
  end

  noc_sep_alloc #(
      .NI(PORTS),
      .NO(PORTS)
  ) sa (
      .clk,
      .rst,
      .req(sa_req),
      .gnt(sa_gnt)
  );

  // The granted input port sends the VC that comes first round robin among
  // its VCs bidding for the granted output (router.cpp traverse_switch).
  logic [PORTS-1:0][VCS-1:0] vc_cand, vc_pick, vc_from_q;
  logic [PORTS-1:0][7:0] credit_d;  // the credit of the flit each input port sends this cycle
  logic [PORTS-1:0] sw_valid;  // per output port
  logic [SW-1:0] sw_src[PORTS];  // the input VC switched to each output
  always_comb begin
    for (int p = 0; p < PORTS; p++)
      for (int v = 0; v < VCS; v++)
        vc_cand[p][v] = sa_bid[p*VCS+v] && sa_gnt[p][port_q[p*VCS+v]];
  end
  for (genvar p = 0; p < PORTS; p++) begin : g_vc_arb
    noc_rr_arbiter #(.N(VCS)) arb (.req(vc_cand[p]), .from(vc_from_q[p]), .gnt(vc_pick[p]));
  end
  always_comb begin
    sw_valid = '0;
    for (int o = 0; o < PORTS; o++) sw_src[o] = '0;
    for (int p = 0; p < PORTS; p++) begin
      logic [VCW-1:0] v;
      v = '0;
      for (int w = 0; w < VCS; w++) if (vc_pick[p][w]) v = VCW'(w);
      pop[p*VCS+:VCS] = vc_pick[p];
      credit_d[p] = {vc_pick[p] != '0, 1'b0, 6'(v)};
      for (int o = 0; o < PORTS; o++)
        if (sa_gnt[p][o]) begin
          sw_valid[o] = 1'b1;
          sw_src[o] = SW'(p * VCS + int'(v));
        end
    end
  end

  assign ev_switch = sw_valid;
  assign ev_va_conflicts = 16'($countones(va_bid)) - 16'($countones(va_won));
  assign ev_sa_conflicts = 16'($countones(sa_bid)) - 16'($countones(pop));

  // ---------------------------------------------------------------- registers
  logic [PORTS-1:0] st_valid_q;  // switch traversal stage
  logic [EW-1:0] st_flit_q[PORTS];
  logic [VCW-1:0] st_vc_q[PORTS];

  always_ff @(posedge clk) begin
    if (rst) begin
      for (int i = 0; i < NVC; i++) begin
        state_q[i] <= IDLE;
        port_q[i] <= '0;
        vcs_q[i] <= '0;
        ovc_q[i] <= '0;
        credits_q[i] <= CRW'(DEPTH);
      end
      owned_q <= '0;
      tail_sent_q <= '0;
      vc_from_q <= '1;
      st_valid_q <= '0;
      out_hdr <= '0;
      cout <= '0;
    end else begin
      for (int i = 0; i < NVC; i++) begin
        case (state_q[i])
          IDLE:
          if (!empty[i]) begin
            state_q[i] <= VC_ALLOC;
            port_q[i] <= rc_port[i];
            vcs_q[i] <= rc_vcs[i];
          end
          VC_ALLOC:
          if (va_won[i]) begin
            state_q[i] <= ACTIVE;
            ovc_q[i] <= va_vc[i];
          end
          default: if (pop[i] && front[i][PAYLOAD_W+H_TAIL]) state_q[i] <= IDLE;
        endcase
      end
      for (int j = 0; j < NVC; j++) begin
        logic sent, tail, credit;
        logic [CRW-1:0] credits;
        sent = sw_valid[j/VCS] && ovc_q[sw_src[j/VCS]] == VCW'(j % VCS);
        tail = sent && front[sw_src[j/VCS]][PAYLOAD_W+H_TAIL];
        credit = cin[j/VCS][7] && cin[j/VCS][VCW-1:0] == VCW'(j % VCS);
        if (j < VCS) begin
          // Local output: the network interface always has room; the VC is
          // free again once the tail has gone.
          owned_q[j] <= (owned_q[j] || va_taken[j]) && !tail;
        end else begin
          credits = credits_q[j] - CRW'(sent) + CRW'(credit);
          credits_q[j] <= credits;
          if (!atomic) begin
            // Non-atomic allocation: free once the tail has gone; the next
            // packet may follow it into the same buffer.
            owned_q[j] <= (owned_q[j] || va_taken[j]) && !tail;
            tail_sent_q[j] <= 1'b0;
          end else if ((tail_sent_q[j] || tail) && credits == CRW'(DEPTH)) begin
            // Atomic allocation: the tail has left and the buffer
            // downstream is empty again (allocated again at once only by
            // the early-credit mutant).
            owned_q[j] <= va_taken[j];
            tail_sent_q[j] <= 1'b0;
          end else begin
            owned_q[j] <= owned_q[j] || va_taken[j];
            tail_sent_q[j] <= tail_sent_q[j] || tail;
          end
        end
      end
      for (int p = 0; p < PORTS; p++)
        if (vc_pick[p] != '0) vc_from_q[p] <= ~(vc_pick[p] | (vc_pick[p] - VCS'(1)));
      // The credit leaves with the flit: on `cout` in the cycle the flit
      // traverses the switch, one after switch allocation.
      cout <= credit_d;
      for (int o = 0; o < PORTS; o++) begin
        st_valid_q[o] <= sw_valid[o];
        st_flit_q[o] <= front[sw_src[o]];
        st_vc_q[o] <= ovc_q[sw_src[o]];
        out_hdr[o] <= {st_valid_q[o], 6'b0, 6'(st_vc_q[o]), st_flit_q[o][PAYLOAD_W+:HW]};
        out_payload[o] <= st_flit_q[o][PAYLOAD_W-1:0];
      end
    end
  end
endmodule
