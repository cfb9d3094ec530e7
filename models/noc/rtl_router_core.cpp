#include "noc/rtl_router_core.h"

#include <fmt/format.h>

#include <type_traits>

#include "rtl/common/rtl_harness.h"
#include "rtl/common/rtl_wave.h"
#include "Vnoc_router_mesh_v2c1.h"
#include "Vnoc_router_mesh_v2c1_early_credit.h"
#include "Vnoc_router_mesh_v4c2.h"
#include "Vnoc_router_mesh_v4c2_early_credit.h"
#include "Vnoc_router_ring_v2c1.h"

namespace tessera::noc {

namespace {

// PORTS ports, WORDS 32-bit payload words per port.
template <class V, int PORTS, int WORDS>
class RtlRouterCoreT final : public RtlRouterCore {
 public:
  RtlRouterCoreT(const char* variant, int vcs, const std::string& instance, const rtl::WaveOptions& waves)
      : variant_(variant), vcs_(vcs), harness_(instance, &apply, waves) {}

  void step(const RouterPins& in, uint64_t cycle, RouterOutputs& out) override {
    harness_.step(in, cycle);
    const V& m = harness_.model();
    const uint64_t credits = m.cout;
    for (int p = 0; p < PORTS; ++p) {
      out.hdr[p] = m.out_hdr[p];
      out.handle[p] = m.out_payload[p * WORDS];
      out.cout[p] = static_cast<uint8_t>(credits >> (8 * p));
    }
    out.ev_switch = m.ev_switch;
    out.va_conflicts = m.ev_va_conflicts;
    out.sa_conflicts = m.ev_sa_conflicts;
  }
  std::string dump_window(const std::string& file_stem) override { return harness_.dump_window(file_stem); }
  const char* variant() const override { return variant_; }
  void trace(sim::Waveform& wave, const std::string& scope, uint64_t period_ps) override {
    wave_ = std::make_unique<rtl::RtlWave>(wave, scope, harness_.signals(), router_bus_splits(PORTS, vcs_, WORDS * 32),
                                           period_ps);
    harness_.trace_to(wave_.get());
  }
  void set_trace_floor(uint64_t now) override {
    if (wave_) wave_->set_floor(now);
  }

 private:
  static void apply(V& m, const RouterPins& in) {
    m.pos_x = in.pos_x;
    m.pos_y = in.pos_y;
    m.ring_k = in.ring_k;
    m.atomic = in.atomic;
    uint64_t credits = 0;
    for (int p = 0; p < PORTS; ++p) {
      m.in_hdr[p] = in.hdr[p];
      m.in_payload[p * WORDS] = in.handle[p];
      for (int w = 1; w < WORDS; ++w) m.in_payload[p * WORDS + w] = 0;
      credits |= static_cast<uint64_t>(in.cin[p]) << (8 * p);
    }
    m.cin = static_cast<std::remove_reference_t<decltype(m.cin)>>(credits);
  }

  const char* variant_;
  int vcs_;
  rtl::RtlHarness<V, RouterPins> harness_;
  std::unique_ptr<rtl::RtlWave> wave_;  // when the run traces this router
};

struct Variant {
  const char* name;  // the Verilated class
  int ports, vcs, classes, vc_buf, flit_bytes;
  bool early_credit;  // built with TESSERA_MUTATION_EARLY_CREDIT
  std::unique_ptr<RtlRouterCore> (*make)(const char* name, int vcs, const std::string& instance,
                                         const rtl::WaveOptions& w);
};

template <class V, int PORTS, int WORDS>
std::unique_ptr<RtlRouterCore> make_core(const char* name, int vcs, const std::string& instance,
                                         const rtl::WaveOptions& w) {
  return std::make_unique<RtlRouterCoreT<V, PORTS, WORDS>>(name, vcs, instance, w);
}

// Every configuration models/rtl/CMakeLists.txt verilates.
const Variant kVariants[] = {
    {"Vnoc_router_mesh_v2c1", 5, 2, 1, 8, 16, false, &make_core<Vnoc_router_mesh_v2c1, 5, 4>},
    {"Vnoc_router_mesh_v4c2", 5, 4, 2, 8, 32, false, &make_core<Vnoc_router_mesh_v4c2, 5, 8>},
    {"Vnoc_router_ring_v2c1", 3, 2, 1, 8, 16, false, &make_core<Vnoc_router_ring_v2c1, 3, 4>},
    {"Vnoc_router_mesh_v2c1_early_credit", 5, 2, 1, 8, 16, true, &make_core<Vnoc_router_mesh_v2c1_early_credit, 5, 4>},
    {"Vnoc_router_mesh_v4c2_early_credit", 5, 4, 2, 8, 32, true, &make_core<Vnoc_router_mesh_v4c2_early_credit, 5, 8>},
};

bool early_credit(const NocParams& p) { return p.rtl.mutation == "router_early_credit"; }

const Variant* find_variant(const NocParams& p, bool mutant) {
  const int ports = GridTopology(p).ports();
  for (const Variant& v : kVariants)
    if (v.ports == ports && v.vcs == p.vcs && v.classes == p.classes && v.vc_buf == p.vc_buf &&
        v.flit_bytes == p.flit_bytes && v.early_credit == mutant)
      return &v;
  return nullptr;
}

std::string variant_list(bool mutant) {
  std::string s;
  for (const Variant& v : kVariants) {
    if (v.early_credit != mutant) continue;
    if (!s.empty()) s += "; ";
    s += fmt::format("{} noc.vcs={} noc.classes={} noc.vc_buf={} noc.flit_bytes={}", v.ports == 3 ? "ring" : "mesh",
                     v.vcs, v.classes, v.vc_buf, v.flit_bytes);
  }
  return s;
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
  const bool mutant = early_credit(p);
  if (!find_variant(p, mutant)) {
    if (mutant && find_variant(p, false))
      throw sim::ConfigError(
          fmt::format("rtl.mutation: router_early_credit is built only for: {}", variant_list(true)));
    // Name the first parameter no configuration has, given the ones before.
    const int ports = GridTopology(p).ports();
    const char* key = "noc.flit_bytes";
    bool vcs = false, classes = false, buf = false;
    for (const Variant& v : kVariants) {
      vcs = vcs || (v.ports == ports && v.vcs == p.vcs);
      classes = classes || (v.ports == ports && v.vcs == p.vcs && v.classes == p.classes);
      buf = buf || (v.ports == ports && v.vcs == p.vcs && v.classes == p.classes && v.vc_buf == p.vc_buf);
    }
    if (!vcs) {
      key = "noc.vcs";
    } else if (!classes) {
      key = "noc.classes";
    } else if (!buf) {
      key = "noc.vc_buf";
    }
    throw sim::ConfigError(fmt::format(
        "{}: the RTL router is built for {}; noc.vcs={} noc.classes={} noc.vc_buf={} noc.flit_bytes={} on a {} is "
        "not one of them (models/rtl/CMakeLists.txt adds configurations)",
        key, variant_list(false), p.vcs, p.classes, p.vc_buf, p.flit_bytes, p.topology));
  }
}

std::unique_ptr<RtlRouterCore> make_rtl_router_core(const NocParams& p, const std::string& instance, bool record) {
  check_rtl_router_support(p);
  const Variant* v = find_variant(p, early_credit(p));
  return v->make(v->name, v->vcs, instance, record ? p.rtl.waves : p.rtl.waves.without_recording());
}

}  // namespace tessera::noc
