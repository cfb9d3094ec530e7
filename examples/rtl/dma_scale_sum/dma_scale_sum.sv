// dma_scale_sum: a small DMA accelerator for Tessera's rtl_device.
//
// Firmware writes SRC, DST, COUNT and SCALE, then CTRL.start. The block
// reads COUNT 32-bit words from SRC over its AXI4 master, writes
// SCALE * x[i] (low 32 bits) to DST and sums x[i] into SUM. When it is
// done it sets STATUS.done and, with CTRL.irq_enable, raises irq until
// firmware writes 1 to STATUS.done. busy is high from start to done.
//
// Registers (AXI4-Lite, 32 bits, offsets in the device's window):
//   0x00 CTRL    W: bit 0 start, bit 1 irq_enable
//   0x04 STATUS  R: bit 0 busy, bit 1 done, bit 2 error; W: 1 to bit 1 clears done
//   0x08 SRC     R/W, 8-byte aligned (else STATUS.error)
//   0x0C DST     R/W, 8-byte aligned (else STATUS.error)
//   0x10 COUNT   R/W, words
//   0x14 SCALE   R/W
//   0x18 SUM     R: sum of the words read (low 32 bits)
//   0x1C ID      R: 0x0D5A_0001
// Other offsets answer SLVERR.
//
// Memory traffic: bursts of up to MAX_BEATS 64-bit beats (INCR), never
// across a 4 KiB boundary (AXI's rule); a read burst, then the write burst
// of the same words, then the next.
module dma_scale_sum #(
    parameter int MAX_BEATS = 16
) (
    input logic aclk,
    input logic aresetn,

    input  logic        s_axil_awvalid,
    output logic        s_axil_awready,
    input  logic [ 7:0] s_axil_awaddr,
    input  logic        s_axil_wvalid,
    output logic        s_axil_wready,
    input  logic [31:0] s_axil_wdata,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [ 3:0] s_axil_wstrb,  // whole-word registers
    /* verilator lint_on UNUSEDSIGNAL */
    output logic        s_axil_bvalid,
    input  logic        s_axil_bready,
    output logic [ 1:0] s_axil_bresp,
    input  logic        s_axil_arvalid,
    output logic        s_axil_arready,
    input  logic [ 7:0] s_axil_araddr,
    output logic        s_axil_rvalid,
    input  logic        s_axil_rready,
    output logic [31:0] s_axil_rdata,
    output logic [ 1:0] s_axil_rresp,

    output logic        m_axi_arvalid,
    input  logic        m_axi_arready,
    output logic [31:0] m_axi_araddr,
    output logic [ 7:0] m_axi_arlen,
    output logic [ 2:0] m_axi_arsize,
    output logic [ 1:0] m_axi_arburst,
    input  logic        m_axi_rvalid,
    output logic        m_axi_rready,
    input  logic [63:0] m_axi_rdata,
    input  logic [ 1:0] m_axi_rresp,
    input  logic        m_axi_rlast,
    output logic        m_axi_awvalid,
    input  logic        m_axi_awready,
    output logic [31:0] m_axi_awaddr,
    output logic [ 7:0] m_axi_awlen,
    output logic [ 2:0] m_axi_awsize,
    output logic [ 1:0] m_axi_awburst,
    output logic        m_axi_wvalid,
    input  logic        m_axi_wready,
    output logic [63:0] m_axi_wdata,
    output logic [ 7:0] m_axi_wstrb,
    output logic        m_axi_wlast,
    input  logic        m_axi_bvalid,
    output logic        m_axi_bready,
    input  logic [ 1:0] m_axi_bresp,

    output logic irq,
    output logic busy
);
  localparam int WORDS = 2 * MAX_BEATS;
  localparam logic [1:0] OKAY = 2'b00, SLVERR = 2'b10;

  typedef enum logic [2:0] {
    IDLE,
    RD_ADDR,
    RD_DATA,
    WR_ADDR,
    WR_DATA,
    WR_RESP
  } state_t;
  state_t state;

  logic [31:0] src, dst, count, scale, sum, remaining;
  logic irq_enable, done, error;
  logic [31:0] chunk;  // words in the current burst
  logic [ 7:0] beat;
  logic [31:0] data   [WORDS];

  // ---- registers ----
  wire write_fire = s_axil_awvalid && s_axil_wvalid && !s_axil_bvalid;
  wire read_fire = s_axil_arvalid && !s_axil_rvalid;
  assign s_axil_awready = write_fire;
  assign s_axil_wready  = write_fire;
  assign s_axil_arready = read_fire;

  function automatic logic [31:0] words_to_4k(input logic [11:0] offset);
    return (32'h1000 - {20'b0, offset}) >> 2;
  endfunction
  function automatic logic [31:0] min32(input logic [31:0] a, input logic [31:0] b);
    return a < b ? a : b;
  endfunction
  wire [31:0] next_chunk = min32(min32(remaining, WORDS), min32(words_to_4k(src[11:0]), words_to_4k(dst[11:0])));
  wire [ 7:0] beats = 8'((chunk + 1) >> 1);

  always_ff @(posedge aclk) begin
    if (!aresetn) begin
      s_axil_bvalid <= 0;
      s_axil_bresp <= OKAY;
      s_axil_rvalid <= 0;
      s_axil_rdata <= 0;
      s_axil_rresp <= OKAY;
      state <= IDLE;
      src <= 0;
      dst <= 0;
      count <= 0;
      scale <= 0;
      sum <= 0;
      remaining <= 0;
      irq_enable <= 0;
      done <= 0;
      error <= 0;
      chunk <= 0;
      beat <= 0;
    end else begin
      if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 0;
      if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 0;
      if (write_fire) begin
        s_axil_bvalid <= 1;
        s_axil_bresp  <= OKAY;
        case (s_axil_awaddr)
          8'h00:
          if (state == IDLE) begin
            irq_enable <= s_axil_wdata[1];
            if (s_axil_wdata[0]) begin
              done <= 0;
              error <= 0;
              sum <= 0;
              remaining <= count;
              if (src[2:0] != 0 || dst[2:0] != 0) begin
                error <= 1;
                done  <= 1;
              end else if (count == 0) done <= 1;
              else state <= RD_ADDR;
            end
          end
          8'h04: if (s_axil_wdata[1]) done <= 0;
          8'h08: src <= s_axil_wdata;
          8'h0C: dst <= s_axil_wdata;
          8'h10: count <= s_axil_wdata;
          8'h14: scale <= s_axil_wdata;
          default: s_axil_bresp <= SLVERR;
        endcase
      end
      if (read_fire) begin
        s_axil_rvalid <= 1;
        s_axil_rresp  <= OKAY;
        case (s_axil_araddr)
          8'h00: s_axil_rdata <= {30'b0, irq_enable, 1'b0};
          8'h04: s_axil_rdata <= {29'b0, error, done, state != IDLE};
          8'h08: s_axil_rdata <= src;
          8'h0C: s_axil_rdata <= dst;
          8'h10: s_axil_rdata <= count;
          8'h14: s_axil_rdata <= scale;
          8'h18: s_axil_rdata <= sum;
          8'h1C: s_axil_rdata <= 32'h0D5A_0001;
          default: begin
            s_axil_rdata <= 0;
            s_axil_rresp <= SLVERR;
          end
        endcase
      end

      // ---- the copy ----
      case (state)
        RD_ADDR: begin
          chunk <= next_chunk;
          beat  <= 0;
          if (m_axi_arvalid && m_axi_arready) state <= RD_DATA;
        end
        RD_DATA:
        if (m_axi_rvalid) begin
          data[2*beat] <= m_axi_rdata[31:0];
          data[2*beat+1] <= m_axi_rdata[63:32];
          sum <= sum + m_axi_rdata[31:0] + ({32'(beat) * 2 + 1} < chunk ? m_axi_rdata[63:32] : 32'b0);
          if (m_axi_rresp != OKAY) error <= 1;
          beat <= beat + 1;
          if (m_axi_rlast) begin
            beat  <= 0;
            state <= WR_ADDR;
          end
        end
        WR_ADDR: if (m_axi_awvalid && m_axi_awready) state <= WR_DATA;
        WR_DATA:
        if (m_axi_wready) begin
          beat <= beat + 1;
          if (m_axi_wlast) state <= WR_RESP;
        end
        WR_RESP:
        if (m_axi_bvalid) begin
          if (m_axi_bresp != OKAY) error <= 1;
          remaining <= remaining - chunk;
          src <= src + (chunk << 2);
          dst <= dst + (chunk << 2);
          if (remaining == chunk) begin
            state <= IDLE;
            done  <= 1;
          end else state <= RD_ADDR;
        end
        default: ;
      endcase
    end
  end

  // RD_ADDR holds arvalid from its second cycle, when chunk is set.
  logic rd_addr_ready;
  always_ff @(posedge aclk)
    if (!aresetn) rd_addr_ready <= 0;
    else rd_addr_ready <= state == RD_ADDR && !(m_axi_arvalid && m_axi_arready);

  assign m_axi_arvalid = state == RD_ADDR && rd_addr_ready;
  assign m_axi_araddr = src;
  assign m_axi_arlen = beats - 1;
  assign m_axi_arsize = 3'd3;
  assign m_axi_arburst = 2'b01;
  assign m_axi_rready = state == RD_DATA;
  assign m_axi_awvalid = state == WR_ADDR;
  assign m_axi_awaddr = dst;
  assign m_axi_awlen = beats - 1;
  assign m_axi_awsize = 3'd3;
  assign m_axi_awburst = 2'b01;
  assign m_axi_wvalid = state == WR_DATA;
  assign m_axi_wdata = {data[2*beat+1] * scale, data[2*beat] * scale};
  assign m_axi_wlast = state == WR_DATA && beat == beats - 1;
  assign m_axi_wstrb = (m_axi_wlast && chunk[0]) ? 8'h0F : 8'hFF;
  assign m_axi_bready = state == WR_RESP;
  assign irq = done && irq_enable;
  assign busy = state != IDLE;

  // Cover points, counted by `tessera run --rtl-coverage` beside the AXI
  // points Tessera counts at the pins (docs/rtl-devices.md, "Coverage"): a
  // burst's last beat carrying one word (an odd chunk), a chunk cut short
  // by a 4 KiB boundary, and a start refused for a misaligned address.
  odd_chunk: cover property (@(posedge aclk) m_axi_wvalid && m_axi_wready && m_axi_wlast && chunk[0]);
  cut_at_4k: cover property (@(posedge aclk) state == RD_ADDR && !rd_addr_ready && next_chunk < min32(remaining, WORDS));
  refused_start: cover property (@(posedge aclk) write_fire && s_axil_awaddr == 8'h00 && state == IDLE &&
                                s_axil_wdata[0] && (src[2:0] != 0 || dst[2:0] != 0));
endmodule
