// A Verilated noc_router behind RtlRouterCore (docs/cosim.md,
// "Implementations and how they are selected"), for any Verilated class V
// of the router's ports: the port count and payload width come from V's
// port types. The registration .cpp that tessera_add_rtl_block(...
// IMPLEMENTS noc_router) generates instantiates it for its class and
// registers it; nothing else includes this header (it includes
// Verilator's).
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "noc/rtl_router_core.h"
#include "rtl/common/impl_registry.h"
#include "rtl/common/rtl_harness.h"
#include "rtl/common/rtl_wave.h"

namespace tessera::noc {

namespace router_rtl {

// 32-bit words of a wide Verilated port.
template <class T>
struct WideWords;
template <std::size_t N>
struct WideWords<VlWide<N>> {
  static constexpr int value = static_cast<int>(N);
};
template <class V>
constexpr int ports_of() {
  return WideWords<std::remove_reference_t<decltype(std::declval<V&>().in_hdr)>>::value;
}
template <class V>
constexpr int payload_words_of() {
  return WideWords<std::remove_reference_t<decltype(std::declval<V&>().in_payload)>>::value / ports_of<V>();
}

// PORTS ports, WORDS 32-bit payload words per port.
template <class V, int PORTS = ports_of<V>(), int WORDS = payload_words_of<V>()>
class RtlRouterCoreT final : public RtlRouterCore {
 public:
  static_assert(PORTS <= kMaxRouterPorts, "noc_router with more ports than RouterPins carries");

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

}  // namespace router_rtl

// Registers V as the noc_router implementation `name`, Verilated with
// `params` (PORTS, VCS, DEPTH, CLASSES, PAYLOAD_W).
template <class V>
struct RtlRouterRegistration {
  RtlRouterRegistration(const char* name, const char* prefix, std::vector<std::pair<std::string, std::string>> params) {
    const RtlRouterFactory make = [](const char* variant, int vcs, const std::string& instance,
                                     const rtl::WaveOptions& w) {
      return std::unique_ptr<RtlRouterCore>(std::make_unique<router_rtl::RtlRouterCoreT<V>>(variant, vcs, instance, w));
    };
    rtl::register_impl({kRtlRouterKind, name, prefix, std::move(params), reinterpret_cast<void (*)()>(make)});
  }
};

}  // namespace tessera::noc
