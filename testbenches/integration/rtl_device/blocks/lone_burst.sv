// A memory master that reads one burst of LEN + 1 beats of 8 bytes at ADDR
// by itself after reset (busy until its last beat): for the checks Tessera
// makes of each burst (global memory, 4 KiB boundaries).
/* verilator lint_off UNUSEDSIGNAL */  // the write channels and the data it reads
module lone_burst #(
    parameter logic [31:0] ADDR = 32'h8000_0000,
    parameter logic [ 7:0] LEN  = 8'd0
) (
    input  logic        aclk,
    input  logic        aresetn,
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
    output logic        busy
);
  typedef enum logic [1:0] {
    ASK,
    WAIT,
    DONE
  } state_t;
  state_t state;
  always_ff @(posedge aclk)
    if (!aresetn) state <= ASK;
    else if (state == ASK && m_axi_arready) state <= WAIT;
    else if (state == WAIT && m_axi_rvalid && m_axi_rlast) state <= DONE;
  assign m_axi_arvalid = state == ASK;
  assign m_axi_araddr = ADDR;
  assign m_axi_arlen = LEN;
  assign m_axi_arsize = 3'd3;
  assign m_axi_arburst = 2'b01;
  assign m_axi_rready = state == WAIT;
  assign m_axi_awvalid = 0;
  assign m_axi_awaddr = 0;
  assign m_axi_awlen = 0;
  assign m_axi_awsize = 0;
  assign m_axi_awburst = 0;
  assign m_axi_wvalid = 0;
  assign m_axi_wdata = 0;
  assign m_axi_wstrb = 0;
  assign m_axi_wlast = 0;
  assign m_axi_bready = 0;
  assign busy = state != DONE;
endmodule
