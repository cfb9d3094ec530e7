// A register slave whose write data is 16 bits: refused, naming s_axil_wdata.
module narrow_wdata (
    input  logic        aclk,
    input  logic        aresetn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic        s_axil_awvalid,
    input  logic [11:0] s_axil_awaddr,
    input  logic        s_axil_wvalid,
    input  logic [15:0] s_axil_wdata,
    input  logic [ 3:0] s_axil_wstrb,
    input  logic        s_axil_bready,
    input  logic        s_axil_arvalid,
    input  logic [11:0] s_axil_araddr,
    input  logic        s_axil_rready,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic        s_axil_awready,
    output logic        s_axil_wready,
    output logic        s_axil_bvalid,
    output logic [ 1:0] s_axil_bresp,
    output logic        s_axil_arready,
    output logic        s_axil_rvalid,
    output logic [31:0] s_axil_rdata,
    output logic [ 1:0] s_axil_rresp
);
  logic alive;
  always_ff @(posedge aclk) alive <= aresetn;
  assign s_axil_awready = 0;
  assign s_axil_wready = 0;
  assign s_axil_bvalid = 0;
  assign s_axil_bresp = 0;
  assign s_axil_arready = alive;  // takes the address, then says nothing
  assign s_axil_rvalid = 0;
  assign s_axil_rdata = 0;
  assign s_axil_rresp = 0;
endmodule
