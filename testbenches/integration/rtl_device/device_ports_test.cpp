// The pins of an rtl_device (models/rtl/device/device_ports.h): read from a
// Verilated header, checked against the AXI pin rules with the pin named in
// every refusal, and the glue that copies each pin the block has.
#include "rtl/device/device_ports.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using tessera::rtl::check_device_ports;
using tessera::rtl::DevicePort;
using tessera::rtl::DevicePortError;
using tessera::rtl::DeviceShape;
using tessera::rtl::parse_verilated_ports;

// A register slave with an 8-bit address and a 64-bit memory master with
// 4-bit IDs, as declarations of Verilator 5's generated header.
std::string header(const std::string& drop = "", const std::string& extra = "") {
  const std::vector<std::string> lines = {"VL_IN8(&aclk,0,0);",           "VL_IN8(&aresetn,0,0);",
                                          "VL_IN8(&s_axil_awvalid,0,0);", "VL_OUT8(&s_axil_awready,0,0);",
                                          "VL_IN8(&s_axil_awaddr,7,0);",  "VL_IN8(&s_axil_wvalid,0,0);",
                                          "VL_OUT8(&s_axil_wready,0,0);", "VL_IN(&s_axil_wdata,31,0);",
                                          "VL_IN8(&s_axil_wstrb,3,0);",   "VL_OUT8(&s_axil_bvalid,0,0);",
                                          "VL_IN8(&s_axil_bready,0,0);",  "VL_OUT8(&s_axil_bresp,1,0);",
                                          "VL_IN8(&s_axil_arvalid,0,0);", "VL_OUT8(&s_axil_arready,0,0);",
                                          "VL_IN8(&s_axil_araddr,7,0);",  "VL_OUT8(&s_axil_rvalid,0,0);",
                                          "VL_IN8(&s_axil_rready,0,0);",  "VL_OUT(&s_axil_rdata,31,0);",
                                          "VL_OUT8(&s_axil_rresp,1,0);",  "VL_OUT8(&m_axi_awvalid,0,0);",
                                          "VL_IN8(&m_axi_awready,0,0);",  "VL_OUT(&m_axi_awaddr,31,0);",
                                          "VL_OUT8(&m_axi_awlen,7,0);",   "VL_OUT8(&m_axi_awsize,2,0);",
                                          "VL_OUT8(&m_axi_awburst,1,0);", "VL_OUT8(&m_axi_awid,3,0);",
                                          "VL_OUT8(&m_axi_wvalid,0,0);",  "VL_IN8(&m_axi_wready,0,0);",
                                          "VL_OUT64(&m_axi_wdata,63,0);", "VL_OUT8(&m_axi_wstrb,7,0);",
                                          "VL_OUT8(&m_axi_wlast,0,0);",   "VL_IN8(&m_axi_bvalid,0,0);",
                                          "VL_OUT8(&m_axi_bready,0,0);",  "VL_IN8(&m_axi_bresp,1,0);",
                                          "VL_IN8(&m_axi_bid,3,0);",      "VL_OUT8(&m_axi_arvalid,0,0);",
                                          "VL_IN8(&m_axi_arready,0,0);",  "VL_OUT(&m_axi_araddr,31,0);",
                                          "VL_OUT8(&m_axi_arlen,7,0);",   "VL_OUT8(&m_axi_arsize,2,0);",
                                          "VL_OUT8(&m_axi_arburst,1,0);", "VL_OUT8(&m_axi_arid,3,0);",
                                          "VL_OUT8(&m_axi_arcache,3,0);", "VL_IN8(&m_axi_rvalid,0,0);",
                                          "VL_OUT8(&m_axi_rready,0,0);",  "VL_IN64(&m_axi_rdata,63,0);",
                                          "VL_IN8(&m_axi_rresp,1,0);",    "VL_IN8(&m_axi_rlast,0,0);",
                                          "VL_IN8(&m_axi_rid,3,0);",      "VL_OUT8(&irq,1,0);",
                                          "VL_OUT8(&busy,0,0);"};
  std::string text = "class Vdevice final : public VerilatedModel {\n  public:\n";
  for (const std::string& l : lines)
    if (drop.empty() || l.find("&" + drop + ",") == std::string::npos) text += "    " + l + "\n";
  return text + extra + "};\n";
}

std::string refusal(const std::string& text) {
  try {
    check_device_ports(parse_verilated_ports(text), "acc");
  } catch (const DevicePortError& e) {
    return e.what();
  }
  return "";
}

TEST(DevicePorts, ReadsEveryDeclarationWithItsDirectionAndWidth) {
  const auto ports = parse_verilated_ports(header("", "    VL_INW(&wide_in,127,0,4);\n"));
  ASSERT_EQ(ports.size(), 52u);
  EXPECT_EQ(ports[0].name, "aclk");
  EXPECT_TRUE(ports[0].input);
  EXPECT_EQ(ports[28].name, "m_axi_wdata");
  EXPECT_FALSE(ports[28].input);
  EXPECT_EQ(ports[28].width(), 64u);
  EXPECT_EQ(ports[51].name, "wide_in");
  EXPECT_EQ(ports[51].width(), 128u);
}

TEST(DevicePorts, ShapeOfACompleteBlock) {
  const DeviceShape s = check_device_ports(parse_verilated_ports(header()), "acc");
  EXPECT_EQ(s.s_addr_bits, 8u);
  EXPECT_EQ(s.m_data_bits, 64u);
  EXPECT_EQ(s.m_addr_bits, 32u);
  EXPECT_EQ(s.m_id_bits, 4u);
  EXPECT_EQ(s.irq_bits, 2u);
  EXPECT_TRUE(s.has_busy);
}

TEST(DevicePorts, AMissingPinIsNamed) {
  EXPECT_NE(refusal(header("s_axil_wstrb")).find("'s_axil_wstrb' is missing"), std::string::npos);
  EXPECT_NE(refusal(header("m_axi_rlast")).find("'m_axi_rlast' is missing"), std::string::npos);
  EXPECT_NE(refusal(header("aclk")).find("has no input 'aclk'"), std::string::npos);
  // IDs come as a set of four.
  EXPECT_NE(refusal(header("m_axi_rid")).find("'m_axi_rid' is missing"), std::string::npos);
}

TEST(DevicePorts, AWrongWidthOrDirectionIsNamed) {
  std::string t = header();
  t.replace(t.find("VL_IN(&s_axil_wdata,31,0);"), 26, "VL_IN16(&s_axil_wdata,15,0);");
  EXPECT_NE(refusal(t).find("pin 's_axil_wdata' is [15:0], 16 bits"), std::string::npos) << refusal(t);
  t = header();
  t.replace(t.find("VL_OUT8(&m_axi_wstrb,7,0);"), 26, "VL_OUT8(&m_axi_wstrb,3,0);");
  EXPECT_NE(refusal(t).find("pin 'm_axi_wstrb' is [3:0]"), std::string::npos) << refusal(t);
  t = header();
  t.replace(t.find("VL_IN8(&m_axi_arready,0,0);"), 27, "VL_OUT8(&m_axi_arready,0,0);");
  EXPECT_NE(refusal(t).find("pin 'm_axi_arready' is an output; it must be an input"), std::string::npos);
  t = header();
  t.replace(t.find("VL_IN64(&m_axi_rdata,63,0);"), 27, "VL_IN(&m_axi_rdata,31,0);");
  EXPECT_NE(refusal(t).find("'m_axi_rdata' is 32 bits; the read and write data have one width"), std::string::npos)
      << refusal(t);
}

TEST(DevicePorts, AnInputTesseraDoesNotDriveIsRefused) {
  EXPECT_NE(refusal(header("", "    VL_IN8(&mode,0,0);\n")).find("input 'mode' is not a pin Tessera drives"),
            std::string::npos);
  // An extra output is the block's own business.
  EXPECT_EQ(refusal(header("", "    VL_OUT8(&debug,3,0);\n")), "");
}

TEST(DevicePorts, ABlockWithNothingToBindIsRefused) {
  EXPECT_NE(refusal("VL_IN8(&aclk,0,0);\nVL_IN8(&aresetn,0,0);\nVL_OUT8(&led,0,0);\n").find("nothing to bind"),
            std::string::npos);
}

TEST(DevicePorts, GlueCopiesEachPinTheBlockHas) {
  const auto ports = parse_verilated_ports(header());
  const std::string glue = tessera::rtl::device_glue_source(ports, check_device_ports(ports, "acc"), "Vdevice", "acc");
  EXPECT_NE(glue.find("t.s_axil_awaddr = static_cast<std::remove_reference_t<decltype(t.s_axil_awaddr)>>(in->s_awaddr "
                      "& 0xffull);"),
            std::string::npos);
  EXPECT_NE(glue.find("t.m_axi_rdata = (uint64_t{in->m_rdata[1]} << 32) | in->m_rdata[0];"), std::string::npos);
  EXPECT_NE(glue.find("out->m_wdata[1] = static_cast<uint32_t>(t.m_axi_wdata >> 32);"), std::string::npos);
  EXPECT_NE(glue.find("{8, 64, 32, 4, 2, 1}"), std::string::npos);  // the shape
  EXPECT_EQ(glue.find("arcache"), std::string::npos);               // ignored outputs are not read
  EXPECT_EQ(glue.find("awprot"), std::string::npos);                // pins the block lacks are not written
}

}  // namespace
