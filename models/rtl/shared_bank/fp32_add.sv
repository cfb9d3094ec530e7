// IEEE 754 binary32 addition, round to nearest even, subnormal inputs and
// results kept (no flush to zero), every NaN result replaced by the
// canonical quiet NaN 0x7fc00000: bit-exact with the C++ executor's
// fp::canonicalize(a + b) on a host FPU in its default mode (atom.fadd).
// A function, so that a bank's ALU evaluates it only for atom.fadd. Three extra bits below the significand (guard, round,
// sticky) are enough for correct rounding of a sum (Goldberg, "What every
// computer scientist should know about floating-point arithmetic", 1991).
package fp32_add;
  localparam logic [31:0] CanonicalNan = 32'h7fc0_0000;
  localparam logic [31:0] Infinity = 32'h7f80_0000;

  function automatic logic [31:0] add(input logic [31:0] a, input logic [31:0] b);

    logic a_nan, b_nan, a_inf, b_inf;
    logic swap;
    logic [31:0] hi, lo;
    logic [8:0] e_hi, e_lo;  // biased; subnormals count as exponent 1
    logic [26:0] m_hi, m_lo, m_aligned;  // hidden bit at 26, three extra bits
    logic [8:0] shift;
    logic sticky;
    logic [27:0] sum;
    logic [26:0] norm;
    logic [8:0] e_norm;
    logic [4:0] lz;
    logic [8:0] lshift;
    logic round_up;
    logic [31:0] packed_mag;
    logic result_sign;

    a_nan = a[30:23] == 8'hff && a[22:0] != 0;
    b_nan = b[30:23] == 8'hff && b[22:0] != 0;
    a_inf = a[30:23] == 8'hff && a[22:0] == 0;
    b_inf = b[30:23] == 8'hff && b[22:0] == 0;

    // Order by magnitude: |hi| >= |lo|.
    swap = b[30:0] > a[30:0];
    hi = swap ? b : a;
    lo = swap ? a : b;
    e_hi = {1'b0, hi[30:23] == 0 ? 8'd1 : hi[30:23]};
    e_lo = {1'b0, lo[30:23] == 0 ? 8'd1 : lo[30:23]};
    m_hi = {hi[30:23] != 0, hi[22:0], 3'b000};
    m_lo = {lo[30:23] != 0, lo[22:0], 3'b000};

    // Align the smaller operand; bits shifted out collect in the sticky bit.
    shift = e_hi - e_lo;
    if (shift >= 9'd27) begin
      m_aligned = 27'd0;
      sticky = m_lo != 0;
    end else begin
      m_aligned = m_lo >> shift;
      sticky = (m_lo & ((27'd1 << shift) - 27'd1)) != 0;
    end
    m_aligned[0] = m_aligned[0] | sticky;

    result_sign = hi[31];
    lz = 5'd0;
    lshift = 9'd0;
    if (hi[31] == lo[31]) begin
      sum = {1'b0, m_hi} + {1'b0, m_aligned};
      if (sum[27]) begin
        norm = {sum[27:2], sum[1] | sum[0]};
        e_norm = e_hi + 9'd1;
      end else begin
        norm = sum[26:0];
        e_norm = e_hi;
      end
    end else begin
      sum = {1'b0, m_hi} - {1'b0, m_aligned};
      // Normalise left, but not below exponent 1 (the result stays subnormal).
      lz = 5'd27;
      for (int i = 0; i < 27; i++) begin
        if (sum[i]) lz = 5'(26 - i);
      end
      lshift = {4'd0, lz};
      if (lshift > e_hi - 9'd1) lshift = e_hi - 9'd1;
      norm = sum[26:0] << lshift;
      e_norm = e_hi - lshift;
      // An exact cancellation is +0 when rounding to nearest.
      if (sum[26:0] == 0) result_sign = 1'b0;
    end

    // Round to nearest, ties to even. (e_norm - 1) << 23 plus the significand
    // with its hidden bit packs normal and subnormal results alike, and a
    // carry out of the significand moves into the exponent.
    round_up = norm[2] && (norm[1] || norm[0] || norm[3]);
    packed_mag = (({23'd0, e_norm} - 32'd1) << 23) + {8'd0, norm[26:3]} + {31'd0, round_up};
    if (norm[26:3] == 0 && !round_up) packed_mag = 32'd0;
    if (packed_mag >= Infinity) packed_mag = Infinity;  // overflow rounds to infinity

    if (a_nan || b_nan || (a_inf && b_inf && a[31] != b[31])) return CanonicalNan;
    if (a_inf) return a;
    if (b_inf) return b;
    return {result_sign, packed_mag[30:0]};
  endfunction
endpackage
