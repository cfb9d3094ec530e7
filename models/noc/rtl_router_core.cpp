#include "noc/rtl_router_core.h"

#include <fmt/format.h>

#include <type_traits>

#include "rtl/common/impl_registry.h"

namespace tessera::noc {

namespace {

// What a network asks of the Verilated router's parameters.
std::vector<rtl::ParamWant> wanted_params(const NocParams& p) {
  auto topology = [](const std::string& ports) { return ports == "3" ? std::string("ring") : std::string("mesh"); };
  auto bytes = [](const std::string& bits) { return std::to_string(std::stoi(bits) / 8); };
  return {{"PORTS", "noc.topology", std::to_string(GridTopology(p).ports()), topology},
          {"VCS", "noc.vcs", std::to_string(p.vcs), {}},
          {"CLASSES", "noc.classes", std::to_string(p.classes), {}},
          {"DEPTH", "noc.vc_buf", std::to_string(p.vc_buf), {}},
          {"PAYLOAD_W", "noc.flit_bytes", std::to_string(8 * p.flit_bytes), bytes}};
}

[[noreturn]] void unsupported(const std::string& key, const std::string& value, const std::string& supported) {
  throw sim::ConfigError(
      fmt::format("{}: the RTL router (noc.router_impl=rtl|lockstep) does not implement {}; it "
                  "supports {}",
                  key, value, supported));
}

}  // namespace

std::vector<rtl::BusSplit> router_bus_splits(int ports, int vcs, int payload_bits) {
  const auto pb = static_cast<unsigned>(payload_bits), nvc = static_cast<unsigned>(ports * vcs);
  const auto v = static_cast<unsigned>(vcs), np = static_cast<unsigned>(ports);
  std::vector<rtl::BusSplit> s = {
      // Pins ([PORTS-1:0][W-1:0]): port p in bits [p*W +: W].
      {"in_hdr", 32, "port"},
      {"in_payload", pb, "port"},
      {"cin", 8, "port"},
      {"out_hdr", 32, "port"},
      {"out_payload", pb, "port"},
      {"cout", 8, "port"},
      {"ev_switch", 1, "port"},
      // Per port: the credit each input sends, switch valid and traversal
      // per output, the candidate VCs of each input port ([PORTS][VCS]).
      {"noc_router.credit_d", 8, "port"},
      {"noc_router.sw_valid", 1, "port"},
      {"noc_router.st_valid_q", 1, "port"},
      {"noc_router.vc_cand", v, "port"},
      {"noc_router.vc_pick", v, "port"},
      {"noc_router.vc_from_q", v, "port"},
      // [PORTS][PORTS] requests: the outputs each input port wants.
      {"noc_router.sa_req", np, "in"},
      // [NVC][NVC] VC requests: the output VCs each input VC wants.
      {"noc_router.va_req", nvc, "port", v, "vc"},
  };
  // One bit per input VC (port p, VC v at bit p*VCS + v).
  for (const char* name : {"push", "pop", "empty", "owned_q", "tail_sent_q", "credit_ok", "vc_free", "va_bid", "va_won",
                           "va_taken", "sa_bid"})
    s.push_back(rtl::BusSplit{std::string("noc_router.") + name, 1, "port", v, "vc"});
  return s;
}

void check_rtl_router_support(const NocParams& p) {
  if (p.topology != "mesh" && p.topology != "ring") unsupported("noc.topology", p.topology, "mesh and ring");
  if (p.routing != "dor") unsupported("noc.routing", p.routing, "dor");
  if (p.allocator != AllocatorKind::kSeparableInputFirst)
    unsupported("noc.allocator", allocator_names()[static_cast<int>(p.allocator)], "separable_input_first");
  if (p.flow_control != FlowControl::kWormhole)
    unsupported("noc.flow_control", flow_control_names()[static_cast<int>(p.flow_control)], "wormhole");
  if (p.speedup != 1) unsupported("noc.speedup", std::to_string(p.speedup), "1");
  if (p.topology == "ring" && !p.dateline) unsupported("noc.dateline", "false", "true");
  if (p.topology == "ring" && p.wrap_rule != WrapRule::kPlusTie)
    unsupported("noc.wrap_rule", "random_tie", "plus_tie (or auto)");
  const struct {
    const char* key;
    int value;
  } stages[] = {{"noc.delay.rc", p.delay.rc},
                {"noc.delay.va", p.delay.va},
                {"noc.delay.sa", p.delay.sa},
                {"noc.delay.st", p.delay.st}};
  for (const auto& s : stages)
    if (s.value != 1)
      unsupported(s.key, std::to_string(s.value), "1 (noc.delay.link and noc.delay.credit may be any value)");
  // Ports, VCs, classes, buffers and flit width: a registered
  // implementation of that name must have been Verilated with them.
  rtl::select_impl(kRtlRouterKind, "noc.router_impl", {p.router_impl, p.router_impl_name}, wanted_params(p));
}

std::unique_ptr<RtlRouterCore> make_rtl_router_core(const NocParams& p, const std::string& instance, bool record) {
  check_rtl_router_support(p);
  const rtl::ImplEntry& e =
      rtl::select_impl(kRtlRouterKind, "noc.router_impl", {p.router_impl, p.router_impl_name}, wanted_params(p));
  const auto make = reinterpret_cast<RtlRouterFactory>(e.factory);
  return make(e.prefix.c_str(), p.vcs, instance, record ? p.rtl.waves : p.rtl.waves.without_recording());
}

}  // namespace tessera::noc
