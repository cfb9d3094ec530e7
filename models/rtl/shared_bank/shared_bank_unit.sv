// The shared-memory bank unit of an SM (docs/architecture.md, "The SM";
// docs/cosim.md, "Shared-memory bank unit"): BANKS banks of 4-byte words holding
// SHARED_BYTES, and an atomic ALU beside each bank. It takes one warp
// request (32 lanes, one operation) when req_ready is high and serves it in
// passes: in a pass every bank serves one word, the word of its lowest
// pending lane, to every pending lane that reads or writes that word (a
// broadcast), so a request needs as many passes as its busiest bank has
// distinct words. An atomic serves one lane per bank and pass, lanes of a
// bank in ascending order, and a pass takes ATOMIC_CYCLES cycles.
//
// Pin timing (one step = one clock cycle): a request presented while
// req_ready is high is taken at the rising edge; its passes take the next
// P (atomics: P * ATOMIC_CYCLES) cycles; req_ready is high again in the last
// of them, so requests follow each other without a bubble; resp_valid is
// high for one cycle after the last one, with each lane's read data (the old
// value for atomics, 0 for stores), the pass count and the broadcasts. A
// request with an empty mask takes one cycle and answers 0 passes.
//
// `ifdef TESSERA_MUTATION_NO_BROADCAST: a deliberately broken unit that
// serves one lane per bank and pass (no broadcast), for the lockstep test.
module shared_bank_unit #(
    parameter int BANKS = 32,
    parameter int SHARED_BYTES = 65536,
    parameter int ATOMIC_CYCLES = 2,
    localparam int Words = SHARED_BYTES / 4,
    localparam int WordBits = $clog2(Words),
    localparam int RowBits = WordBits - $clog2(BANKS)
) (
    input logic clk,
    input logic rst,

    input  logic                req_valid,
    output logic                req_ready,
    input  logic [         3:0] req_op,        // see the Op* codes below
    input  logic [        31:0] req_mask,      // active lanes
    input  logic [WordBits-1:0] req_word[32],  // word index (byte address / 4)
    input  logic [         3:0] req_be  [32],  // stores: byte enables
    input  logic [        31:0] req_data[32],  // store data (in byte lanes), atomic operand
    input  logic [        31:0] req_swap[32],  // atom.cas: the value stored on a match

    output logic        resp_valid,
    output logic [31:0] resp_mask,
    output logic [31:0] resp_data      [32],
    output logic [ 5:0] resp_passes,
    output logic [ 5:0] resp_broadcasts,

    // The bank RAMs' write ports, which lockstep compares with the model's
    // writes (docs/cosim.md, "Internal state"): in a cycle with ram_we[b]
    // high, bank b stores ram_wdata[b] at row ram_row[b] at the rising edge.
    output logic               ram_we   [BANKS],
    output logic [RowBits-1:0] ram_row  [BANKS],
    output logic [       31:0] ram_wdata[BANKS]
);
  // Operations (one per warp request).
  localparam logic [3:0] OpLoad = 4'd0;
  localparam logic [3:0] OpStore = 4'd1;
  localparam logic [3:0] OpSwap = 4'd2;
  localparam logic [3:0] OpAdd = 4'd3;
  localparam logic [3:0] OpXor = 4'd4;
  localparam logic [3:0] OpAnd = 4'd5;
  localparam logic [3:0] OpOr = 4'd6;
  localparam logic [3:0] OpMin = 4'd7;
  localparam logic [3:0] OpMax = 4'd8;
  localparam logic [3:0] OpMinu = 4'd9;
  localparam logic [3:0] OpMaxu = 4'd10;
  localparam logic [3:0] OpFadd = 4'd11;
  localparam logic [3:0] OpInc = 4'd12;
  localparam logic [3:0] OpDec = 4'd13;
  localparam logic [3:0] OpCas = 4'd14;

  localparam int Rows = Words / BANKS;
  localparam int BankBits = $clog2(BANKS);
  localparam int SubBits = ATOMIC_CYCLES > 1 ? $clog2(ATOMIC_CYCLES) : 1;

  // The request being served.
  logic busy_q;
  logic [3:0] op_q;
  logic [31:0] mask_q, pend_q;
  logic [WordBits-1:0] word_q[32];
  logic [3:0] be_q[32];
  logic [31:0] data_q[32], swap_q[32], rdata_q[32];
  logic [5:0] passes_q, bcast_q;
  logic [SubBits-1:0] sub_q;  // cycle within an atomic pass

  logic atomic;
  assign atomic = op_q != OpLoad && op_q != OpStore;

  // The cycle in which the pass's writes and reads happen: the last of an
  // atomic pass.
  logic pass_end;
  assign pass_end = !atomic || sub_q == SubBits'(ATOMIC_CYCLES - 1) || pend_q == 0;

  // The pass, computed lane by lane (32 steps rather than 32 per bank: the
  // same logic, cheaper to simulate). Per bank: its lowest pending lane
  // (`first`), the row it addresses, the lanes served (for loads and stores
  // every pending lane on the first lane's word, a broadcast; for atomics
  // the first lane alone), the word's old value and the value written back.
  logic [BankBits-1:0] bank_of[32];
  logic [4:0] first_by[BANKS];
  logic [BANKS-1:0] has_by;
  logic [RowBits-1:0] row_by[BANKS];
  logic [31:0] old_by[BANKS], new_by[BANKS];
  logic [5:0] nserved_by[BANKS];
  logic [31:0] served_all, pend_next;
  logic [31:0] rdata_next[32];
  logic [5:0] bcast_pass;
  logic finishing;

  for (genvar b = 0; b < BANKS; b++) begin : g_bank
    // Zero at power-up like the model's shared memory (initialised RAM).
    logic [31:0] mem[Rows];
    initial begin
      for (int r = 0; r < Rows; r++) mem[r] = 32'd0;
    end
    assign old_by[b] = mem[row_by[b]];
    assign ram_we[b] = busy_q && pass_end && has_by[b] && op_q != OpLoad;
    assign ram_row[b] = row_by[b];
    assign ram_wdata[b] = new_by[b];
    always_ff @(posedge clk) begin
      if (ram_we[b]) mem[ram_row[b]] <= ram_wdata[b];
    end
  end

  // The atomic ALU beside a bank.
  function automatic logic [31:0] alu(input logic [3:0] op, input logic [31:0] old, input logic [31:0] v,
                                      input logic [31:0] swap);
    case (op)
      OpSwap: return v;
      OpAdd: return old + v;
      OpXor: return old ^ v;
      OpAnd: return old & v;
      OpOr: return old | v;
      OpMin: return $signed(old) < $signed(v) ? old : v;
      OpMax: return $signed(old) > $signed(v) ? old : v;
      OpMinu: return old < v ? old : v;
      OpMaxu: return old > v ? old : v;
      OpFadd: return fp32_add::add(old, v);
      OpInc: return old >= v ? 32'd0 : old + 32'd1;
      OpDec: return (old == 0 || old > v) ? v : old - 32'd1;
      OpCas: return old == v ? swap : old;
      default: return old;
    endcase
  endfunction

  always_comb begin
    for (int l = 0; l < 32; l++) bank_of[l] = word_q[l][BankBits-1:0];
    for (int b = 0; b < BANKS; b++) begin
      first_by[b] = 5'd0;
      has_by[b] = 1'b0;
    end
    for (int l = 31; l >= 0; l--) begin
      if (pend_q[l]) begin
        first_by[bank_of[l]] = 5'(l);
        has_by[bank_of[l]] = 1'b1;
      end
    end
    for (int b = 0; b < BANKS; b++) row_by[b] = word_q[first_by[b]][WordBits-1:BankBits];
    served_all = 32'd0;
    for (int l = 0; l < 32; l++) begin
`ifdef TESSERA_MUTATION_NO_BROADCAST
      served_all[l] = pend_q[l] && first_by[bank_of[l]] == 5'(l);
`else
      served_all[l] = pend_q[l] && (atomic ? first_by[bank_of[l]] == 5'(l) : word_q[l] == word_q[first_by[bank_of[l]]]);
`endif
    end
  end

  always_comb begin
    // Stores to one word merge; ascending order lets the higher lane win
    // each byte. An atomic bank computes its first lane's read-modify-write.
    for (int b = 0; b < BANKS; b++) begin
      nserved_by[b] = 6'd0;
      new_by[b] = old_by[b];
      if (atomic && has_by[b]) new_by[b] = alu(op_q, old_by[b], data_q[first_by[b]], swap_q[first_by[b]]);
    end
    for (int l = 0; l < 32; l++) begin
      if (served_all[l]) begin
        nserved_by[bank_of[l]] = nserved_by[bank_of[l]] + 6'd1;
        if (!atomic) begin
          for (int k = 0; k < 4; k++) begin
            if (be_q[l][k]) new_by[bank_of[l]][8*k+:8] = data_q[l][8*k+:8];
          end
        end
      end
    end
    bcast_pass = 6'd0;
    for (int b = 0; b < BANKS; b++) bcast_pass = bcast_pass + (!atomic && nserved_by[b] > 6'd1 ? 6'd1 : 6'd0);
    for (int l = 0; l < 32; l++) begin
      rdata_next[l] = rdata_q[l];
      if (pass_end && served_all[l] && op_q != OpStore) rdata_next[l] = old_by[bank_of[l]];
    end
    pend_next = pass_end ? pend_q & ~served_all : pend_q;
    finishing = busy_q && pass_end && pend_next == 0;
    req_ready = !busy_q || finishing;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
      resp_valid <= 1'b0;
      resp_mask <= 32'd0;
      resp_passes <= 6'd0;
      resp_broadcasts <= 6'd0;
      pend_q <= 32'd0;
      sub_q <= '0;
      for (int l = 0; l < 32; l++) resp_data[l] <= 32'd0;
    end else begin
      resp_valid <= finishing;
      if (finishing) begin
        resp_mask <= mask_q;
        resp_data <= rdata_next;
        resp_passes <= passes_q + (served_all != 0 ? 6'd1 : 6'd0);
        resp_broadcasts <= bcast_q + bcast_pass;
      end
      if (busy_q) begin
        pend_q <= pend_next;
        rdata_q <= rdata_next;
        if (pass_end) begin
          sub_q <= '0;
          if (served_all != 0) passes_q <= passes_q + 6'd1;
          bcast_q <= bcast_q + bcast_pass;
        end else begin
          sub_q <= sub_q + SubBits'(1);
        end
        if (finishing) busy_q <= 1'b0;
      end
      if (req_valid && req_ready) begin
        busy_q <= 1'b1;
        op_q <= req_op;
        mask_q <= req_mask;
        pend_q <= req_mask;
        word_q <= req_word;
        be_q <= req_be;
        data_q <= req_data;
        swap_q <= req_swap;
        passes_q <= 6'd0;
        bcast_q <= 6'd0;
        sub_q <= '0;
        for (int l = 0; l < 32; l++) rdata_q[l] <= 32'd0;
      end
    end
  end
endmodule
