#include "rtl/device/device_ports.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>

namespace tessera::rtl {

std::vector<DevicePort> parse_verilated_ports(const std::string& header) {
  static const std::regex decl(R"(VL_(IN|OUT|INOUT)(?:8|16|64|W)?\(&(\w+),(\d+),(\d+)(?:,\d+)?\);)");
  std::vector<DevicePort> ports;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), decl); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    DevicePort p;
    p.name = m[2];
    p.input = m[1] == "IN";
    p.msb = static_cast<unsigned>(std::stoul(m[3]));
    p.lsb = static_cast<unsigned>(std::stoul(m[4]));
    if (m[1] == "INOUT") p.input = false;
    ports.push_back(p);
  }
  return ports;
}

namespace {

// How a pin's width is checked.
enum class Width { kFixed, kSlaveAddr, kMasterAddr, kData, kStrobe, kId, kIrq };

struct PinRule {
  const char* name;
  bool input;  // from the block's side
  Width width;
  unsigned bits;  // kFixed
  bool required;  // within its interface
  bool driven;    // an input Tessera drives, or an output it reads (else ignored)
};

// AXI4-Lite (ARM IHI 0022, B1.1) as a register slave.
const std::vector<PinRule>& slave_rules() {
  static const std::vector<PinRule> rules = {
      {"awvalid", true, Width::kFixed, 1, true, true},    {"awready", false, Width::kFixed, 1, true, true},
      {"awaddr", true, Width::kSlaveAddr, 0, true, true}, {"awprot", true, Width::kFixed, 3, false, true},
      {"wvalid", true, Width::kFixed, 1, true, true},     {"wready", false, Width::kFixed, 1, true, true},
      {"wdata", true, Width::kFixed, 32, true, true},     {"wstrb", true, Width::kFixed, 4, true, true},
      {"bvalid", false, Width::kFixed, 1, true, true},    {"bready", true, Width::kFixed, 1, true, true},
      {"bresp", false, Width::kFixed, 2, true, true},     {"arvalid", true, Width::kFixed, 1, true, true},
      {"arready", false, Width::kFixed, 1, true, true},   {"araddr", true, Width::kSlaveAddr, 0, true, true},
      {"arprot", true, Width::kFixed, 3, false, true},    {"rvalid", false, Width::kFixed, 1, true, true},
      {"rready", true, Width::kFixed, 1, true, true},     {"rdata", false, Width::kFixed, 32, true, true},
      {"rresp", false, Width::kFixed, 2, true, true},
  };
  return rules;
}

// AXI4 (A2) as a memory master: INCR, FIXED and WRAP bursts of up to 256
// beats; the cache, lock, protection, QoS, region and user signals are
// outputs Tessera ignores.
const std::vector<PinRule>& master_rules() {
  static const std::vector<PinRule> rules = {
      {"awvalid", false, Width::kFixed, 1, true, true},
      {"awready", true, Width::kFixed, 1, true, true},
      {"awaddr", false, Width::kMasterAddr, 0, true, true},
      {"awlen", false, Width::kFixed, 8, true, true},
      {"awsize", false, Width::kFixed, 3, true, true},
      {"awburst", false, Width::kFixed, 2, true, true},
      {"awid", false, Width::kId, 0, false, true},
      {"wvalid", false, Width::kFixed, 1, true, true},
      {"wready", true, Width::kFixed, 1, true, true},
      {"wdata", false, Width::kData, 0, true, true},
      {"wstrb", false, Width::kStrobe, 0, true, true},
      {"wlast", false, Width::kFixed, 1, true, true},
      {"bvalid", true, Width::kFixed, 1, true, true},
      {"bready", false, Width::kFixed, 1, true, true},
      {"bresp", true, Width::kFixed, 2, true, true},
      {"bid", true, Width::kId, 0, false, true},
      {"arvalid", false, Width::kFixed, 1, true, true},
      {"arready", true, Width::kFixed, 1, true, true},
      {"araddr", false, Width::kMasterAddr, 0, true, true},
      {"arlen", false, Width::kFixed, 8, true, true},
      {"arsize", false, Width::kFixed, 3, true, true},
      {"arburst", false, Width::kFixed, 2, true, true},
      {"arid", false, Width::kId, 0, false, true},
      {"rvalid", true, Width::kFixed, 1, true, true},
      {"rready", false, Width::kFixed, 1, true, true},
      {"rdata", true, Width::kData, 0, true, true},
      {"rresp", true, Width::kFixed, 2, true, true},
      {"rlast", true, Width::kFixed, 1, true, true},
      {"rid", true, Width::kId, 0, false, true},
  };
  return rules;
}

const char* const kIgnoredMasterOutputs[] = {"awlock", "awcache", "awprot", "awqos", "awregion", "awuser", "wuser",
                                             "arlock", "arcache", "arprot", "arqos", "arregion", "aruser"};

std::string width_text(unsigned bits) { return bits == 1 ? "1 bit" : fmt::format("{} bits", bits); }

}  // namespace

DeviceShape check_device_ports(const std::vector<DevicePort>& ports, const std::string& top) {
  std::map<std::string, const DevicePort*> by_name;
  for (const DevicePort& p : ports) by_name[p.name] = &p;
  const auto fail = [&](const std::string& what) { return DevicePortError(fmt::format("top '{}': {}", top, what)); };
  const auto expect_direction = [&](const DevicePort& p, bool input) {
    if (p.input != input)
      throw fail(fmt::format("pin '{}' is an {}; it must be an {}", p.name, p.input ? "input" : "output",
                             input ? "input" : "output"));
  };
  const auto expect_width = [&](const DevicePort& p, unsigned bits, const std::string& why) {
    if (p.lsb != 0 || p.width() != bits)
      throw fail(fmt::format("pin '{}' is [{}:{}], {}; {} is {} ([{}:0])", p.name, p.msb, p.lsb, width_text(p.width()),
                             why, width_text(bits), bits - 1));
  };

  DeviceShape shape;
  for (const char* pin : {"aclk", "aresetn"}) {
    const auto it = by_name.find(pin);
    if (it == by_name.end())
      throw fail(fmt::format("has no input '{}' (every rtl_device has aclk and aresetn, active low)", pin));
    expect_direction(*it->second, true);
    expect_width(*it->second, 1, fmt::format("'{}'", pin));
  }
  std::vector<std::string> known = {"aclk", "aresetn"};

  // One interface: present when any of its pins is; then complete.
  const auto check_interface = [&](const std::string& prefix, const std::vector<PinRule>& rules,
                                   const std::string& what) {
    const bool present = std::any_of(
        ports.begin(), ports.end(), [&](const DevicePort& p) { return p.name.compare(0, prefix.size(), prefix) == 0; });
    if (!present) return false;
    unsigned addr_bits = 0, id_bits = 0, data_bits = 0;
    std::string addr_pin, id_pin;
    for (const PinRule& r : rules) {
      const std::string name = prefix + r.name;
      known.push_back(name);
      const auto it = by_name.find(name);
      if (it == by_name.end()) {
        if (r.required)
          throw fail(fmt::format("{} pin '{}' is missing (the block has other {}* pins)", what, name, prefix));
        continue;
      }
      const DevicePort& p = *it->second;
      expect_direction(p, r.input);
      switch (r.width) {
        case Width::kFixed:
          expect_width(p, r.bits, fmt::format("{} '{}'", what, r.name));
          break;
        case Width::kSlaveAddr:
        case Width::kMasterAddr: {
          const unsigned max = r.width == Width::kSlaveAddr ? 32 : 64;
          if (p.lsb != 0 || p.width() > max)
            throw fail(
                fmt::format("pin '{}' is [{}:{}]; an address is [N-1:0] with N at most {}", p.name, p.msb, p.lsb, max));
          if (addr_bits && p.width() != addr_bits)
            throw fail(fmt::format("pin '{}' is {} but '{}' is {}; both addresses have one width", p.name,
                                   width_text(p.width()), addr_pin, width_text(addr_bits)));
          addr_bits = p.width();
          addr_pin = p.name;
          break;
        }
        case Width::kData:
          if (p.lsb != 0 ||
              (p.width() != 32 && p.width() != 64 && p.width() != 128 && p.width() != 256 && p.width() != 512))
            throw fail(fmt::format("pin '{}' is [{}:{}]; {} data is 32, 64, 128, 256 or 512 bits", p.name, p.msb, p.lsb,
                                   what));
          if (data_bits && p.width() != data_bits)
            throw fail(fmt::format("pin '{}' is {}; the read and write data have one width ({})", p.name,
                                   width_text(p.width()), width_text(data_bits)));
          data_bits = p.width();
          break;
        case Width::kStrobe:
          break;  // after the data width is known
        case Width::kId:
          if (p.lsb != 0 || p.width() > 32)
            throw fail(fmt::format("pin '{}' is [{}:{}]; an ID is [N-1:0] with N at most 32", p.name, p.msb, p.lsb));
          if (id_bits && p.width() != id_bits)
            throw fail(fmt::format("pin '{}' is {} but '{}' is {}; every ID has one width", p.name,
                                   width_text(p.width()), id_pin, width_text(id_bits)));
          id_bits = p.width();
          id_pin = p.name;
          break;
        case Width::kIrq:
          break;
      }
    }
    if (data_bits) expect_width(*by_name.at(prefix + "wstrb"), data_bits / 8, "the write strobe of " + what + " data");
    if (id_bits)
      for (const char* id : {"awid", "bid", "arid", "rid"})
        if (!by_name.count(prefix + id))
          throw fail(
              fmt::format("{} pin '{}{}' is missing (the block has '{}': with IDs, all four of awid, bid, "
                          "arid and rid)",
                          what, prefix, id, id_pin));
    if (prefix == "s_axil_") {
      shape.s_addr_bits = addr_bits;
    } else {
      shape.m_data_bits = data_bits;
      shape.m_addr_bits = addr_bits;
      shape.m_id_bits = id_bits;
    }
    return true;
  };
  check_interface("s_axil_", slave_rules(), "the AXI4-Lite register slave's");
  check_interface("m_axi_", master_rules(), "the AXI4 memory master's");
  for (const char* pin : kIgnoredMasterOutputs) known.push_back(std::string("m_axi_") + pin);

  if (const auto it = by_name.find("irq"); it != by_name.end()) {
    expect_direction(*it->second, false);
    if (it->second->lsb != 0 || it->second->width() > 32)
      throw fail(fmt::format("pin 'irq' is [{}:{}]; interrupt lines are [N-1:0] with N at most 32", it->second->msb,
                             it->second->lsb));
    shape.irq_bits = it->second->width();
    known.push_back("irq");
  }
  if (const auto it = by_name.find("busy"); it != by_name.end()) {
    expect_direction(*it->second, false);
    expect_width(*it->second, 1, "'busy'");
    shape.has_busy = true;
    known.push_back("busy");
  }
  for (const DevicePort& p : ports)
    if (p.input && std::find(known.begin(), known.end(), p.name) == known.end())
      throw fail(fmt::format(
          "input '{}' is not a pin Tessera drives (aclk, aresetn, s_axil_*, m_axi_*); tie it off in a wrapper "
          "module",
          p.name));
  if (!shape.s_addr_bits && !shape.m_data_bits && !shape.irq_bits)
    throw fail("has no s_axil_* register slave, no m_axi_* memory master and no irq: nothing to bind");
  return shape;
}

namespace {

// The ABI field of a pin: s_axil_X -> s_X, m_axi_X -> m_X.
std::string field_of(const std::string& pin) {
  if (pin.compare(0, 7, "s_axil_") == 0) return "s_" + pin.substr(7);
  if (pin.compare(0, 6, "m_axi_") == 0) return "m_" + pin.substr(6);
  return pin;
}

bool abi_field(const std::string& field) {
  static const char* const fields[] = {
      "s_awvalid", "s_wvalid",  "s_bready", "s_arvalid", "s_rready",  "s_wstrb",   "s_awaddr",  "s_wdata",
      "s_araddr",  "m_awready", "m_wready", "m_bvalid",  "m_bresp",   "m_arready", "m_rvalid",  "m_rresp",
      "m_rlast",   "m_bid",     "m_rid",    "m_rdata",   "s_awready", "s_wready",  "s_bvalid",  "s_bresp",
      "s_arready", "s_rvalid",  "s_rresp",  "s_rdata",   "m_awvalid", "m_awlen",   "m_awsize",  "m_awburst",
      "m_wvalid",  "m_wlast",   "m_bready", "m_arvalid", "m_arlen",   "m_arsize",  "m_arburst", "m_rready",
      "m_awaddr",  "m_araddr",  "m_wstrb",  "m_awid",    "m_arid",    "m_wdata",   "irq",       "busy"};
  return std::find(std::begin(fields), std::end(fields), field) != std::end(fields);
}

}  // namespace

std::string device_glue_source(const std::vector<DevicePort>& ports, const DeviceShape& shape,
                               const std::string& prefix, const std::string& top) {
  std::string apply, read;
  for (const DevicePort& p : ports) {
    const std::string field = field_of(p.name);
    if (!abi_field(field)) continue;  // aclk, aresetn, the ignored pins
    const unsigned w = p.width();
    if (p.input) {
      if (w > 64) {
        apply += fmt::format("  for (int i = 0; i < {}; ++i) t.{}[i] = in->{}[i];\n", (w + 31) / 32, p.name, field);
      } else if (field == "m_rdata" && w == 64) {
        apply += fmt::format("  t.{} = (uint64_t{{in->m_rdata[1]}} << 32) | in->m_rdata[0];\n", p.name);
      } else if (field == "m_rdata") {
        apply += fmt::format("  t.{} = in->m_rdata[0];\n", p.name);
      } else {
        const uint64_t mask = w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
        apply += fmt::format("  t.{} = static_cast<std::remove_reference_t<decltype(t.{})>>(in->{} & 0x{:x}ull);\n",
                             p.name, p.name, field, mask);
      }
    } else {
      if (w > 64) {
        read += fmt::format("  for (int i = 0; i < {}; ++i) out->{}[i] = t.{}[i];\n", (w + 31) / 32, field, p.name);
      } else if (field == "m_wdata" && w == 64) {
        read += fmt::format(
            "  out->m_wdata[0] = static_cast<uint32_t>(t.{0});\n  out->m_wdata[1] = static_cast<uint32_t>(t.{0} >> "
            "32);\n",
            p.name);
      } else if (field == "m_wdata") {
        read += fmt::format("  out->m_wdata[0] = t.{};\n", p.name);
      } else {
        read += fmt::format("  out->{} = static_cast<std::remove_reference_t<decltype(out->{})>>(t.{});\n", field,
                            field, p.name);
      }
    }
  }
  return fmt::format(R"(// Generated by Tessera for rtl_device top '{top}': the glue between the
// Verilated model {prefix} and rtl_device_abi.h. Do not edit.
#include <cstdint>
#include <memory>
#include <type_traits>

#include "{prefix}.h"
#include "rtl_device_abi.h"
#include "verilated.h"
#include "verilated_cov.h"
#include "verilated_fst_c.h"

namespace {{

struct Device {{
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<{prefix}> top;
  std::unique_ptr<VerilatedFstC> fst;
}};

{prefix}& model(void* d) {{ return *static_cast<Device*>(d)->top; }}

void edge(void* d) {{
  {prefix}& t = model(d);
  t.aclk = 1;
  t.eval();
}}

void* create(const char* name) {{
  auto* d = new Device;
  d->ctx = std::make_unique<VerilatedContext>();
  d->ctx->threads(1);
  d->ctx->traceEverOn(true);
  d->top = std::make_unique<{prefix}>(d->ctx.get(), name);
  {prefix}& t = *d->top;
  t.aresetn = 0;
  for (int i = 0; i < 2; ++i) {{
    t.aclk = 0;
    t.eval();
    edge(d);
  }}
  t.aresetn = 1;
  t.aclk = 0;
  t.eval();
  return d;
}}

void destroy(void* d) {{
  auto* dev = static_cast<Device*>(d);
  if (dev->fst) dev->fst->close();
  dev->top->final();
  delete dev;
}}

void eval(void* d, const tessera_rtl_device_inputs* in, tessera_rtl_device_outputs* out) {{
  {prefix}& t = model(d);
  t.aclk = 0;
{apply}  t.eval();
{read}}}

int trace_open(void* d, const char* path) {{
  auto* dev = static_cast<Device*>(d);
  dev->fst = std::make_unique<VerilatedFstC>();
  dev->top->trace(dev->fst.get(), 99);
  dev->fst->open(path);
  return dev->fst->isOpen() ? 0 : -1;
}}

void trace_dump(void* d, uint64_t time_ps) {{
  auto* dev = static_cast<Device*>(d);
  if (dev->fst) dev->fst->dump(time_ps);
}}

void trace_close(void* d) {{
  auto* dev = static_cast<Device*>(d);
  if (dev->fst) dev->fst->close();
  dev->fst.reset();
}}

int coverage_write(void* d, const char* path) {{
  static_cast<Device*>(d)->ctx->coveragep()->write(path);
  return 0;
}}

const tessera_rtl_device_api kApi = {{TESSERA_RTL_DEVICE_ABI_VERSION,
                                     "{top}",
                                     {{{s_addr}, {m_data}, {m_addr}, {m_id}, {irq}, {busy}}},
                                     create,
                                     destroy,
                                     eval,
                                     edge,
                                     trace_open,
                                     trace_dump,
                                     trace_close,
                                     coverage_write}};

}}  // namespace

extern "C" __attribute__((visibility("default"))) const tessera_rtl_device_api* tessera_rtl_device_api_v1() {{
  return &kApi;
}}
)",
                     fmt::arg("top", top), fmt::arg("prefix", prefix), fmt::arg("apply", apply), fmt::arg("read", read),
                     fmt::arg("s_addr", shape.s_addr_bits), fmt::arg("m_data", shape.m_data_bits),
                     fmt::arg("m_addr", shape.m_addr_bits), fmt::arg("m_id", shape.m_id_bits),
                     fmt::arg("irq", shape.irq_bits), fmt::arg("busy", shape.has_busy ? 1 : 0));
}

}  // namespace tessera::rtl
