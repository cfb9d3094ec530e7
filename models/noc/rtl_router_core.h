// The Verilated router (models/rtl/noc_router/noc_router.sv) behind one
// interface, whatever configuration it was Verilated with: its pins for one
// cycle in plain words, and a step through rtl::RtlHarness
// (noc/rtl_router_verilated.h). The configurations are registered
// implementations (rtl/common/impl_registry.h), selected by
// noc.router_impl=rtl[:NAME].
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "noc/flit.h"
#include "noc/noc_params.h"
#include "noc/topology_grid.h"
#include "rtl/common/rtl_signals.h"

namespace tessera::sim {
class Waveform;
}
#include "rtl/common/wave_options.h"

namespace tessera::noc {

// Channel words of noc_router.sv.
namespace pins {
constexpr uint32_t kValid = 1u << 31;
constexpr int kVcShift = 19;
constexpr uint32_t kHead = 1u << 18;
constexpr uint32_t kTail = 1u << 17;
constexpr int kClassShift = 14;
constexpr int kDstYShift = 7;
constexpr uint8_t kCreditValid = 0x80;
inline uint32_t header(const Flit& f, const GridTopology& topo) {
  return kValid | static_cast<uint32_t>(f.vc) << kVcShift | (f.head() ? kHead : 0) | (f.tail() ? kTail : 0) |
         static_cast<uint32_t>(f.cls) << kClassShift | static_cast<uint32_t>(topo.y(f.dst)) << kDstYShift |
         static_cast<uint32_t>(topo.x(f.dst));
}
inline bool valid(uint32_t header) { return (header & kValid) != 0; }
inline int vc(uint32_t header) { return static_cast<int>(header >> kVcShift & 0x3f); }
}  // namespace pins

constexpr int kMaxRouterPorts = 5;

// The inputs of one cycle (what the harness logs to replay a waveform).
struct RouterPins {
  uint32_t hdr[kMaxRouterPorts] = {};     // flit header per input port
  uint32_t handle[kMaxRouterPorts] = {};  // payload: the adapter's handle of the flit record
  uint8_t cin[kMaxRouterPorts] = {};      // credit per output port
  uint8_t pos_x = 0, pos_y = 0, ring_k = 0;
  uint8_t atomic = 1;  // noc.atomic_vc
};

// The outputs after a step: flits on the output registers (switched two
// cycles before), credits (of flits switched one cycle before) and events of
// the cycle the step led into.
struct RouterOutputs {
  uint32_t hdr[kMaxRouterPorts] = {};
  uint32_t handle[kMaxRouterPorts] = {};
  uint8_t cout[kMaxRouterPorts] = {};
  uint8_t ev_switch = 0;
  uint16_t va_conflicts = 0, sa_conflicts = 0;
};

class RtlRouterCore {
 public:
  virtual ~RtlRouterCore() = default;
  virtual void step(const RouterPins& in, uint64_t cycle, RouterOutputs& out) = 0;
  // Writes the FST of the last rtl.wave_cycles steps; returns its path.
  virtual std::string dump_window(const std::string& file_stem) = 0;
  virtual const char* variant() const = 0;
  // Puts the router's signals in the chip's waveform under `scope`
  // ("chip.noc.r5.rtl"), sampled after every step, its packed per-port and
  // per-VC buses split (router_bus_splits); a cycle is period_ps long.
  virtual void trace(sim::Waveform& wave, const std::string& scope, uint64_t period_ps) = 0;
  // Steps for cycles before `now` (credits applied late) are recorded at now.
  virtual void set_trace_floor(uint64_t now) = 0;
};

// Which packed buses of noc_router.sv are arrays of per-port or per-VC
// fields, for the waveform (rtl::BusSplit): the pins per port, the input
// VCs' state per port and VC.
std::vector<rtl::BusSplit> router_bus_splits(int ports, int vcs, int payload_bits);
// The block kind Verilated routers register as, and how a registration
// builds its core (`variant`: the Verilated class, for reports).
inline constexpr const char* kRtlRouterKind = "noc_router";
// `vcs`: its VCs per port (the waveform splits per-VC buses by it).
using RtlRouterFactory = std::unique_ptr<RtlRouterCore> (*)(const char* variant, int vcs, const std::string& instance,
                                                            const rtl::WaveOptions& waves);

// Throws sim::ConfigError, naming the key and the supported values, unless
// the implementation p.router_impl_name has a configuration for `p`.
void check_rtl_router_support(const NocParams& p);
// The Verilated router for `p` (check_rtl_router_support first); `record`:
// keep what a mismatch waveform needs (lockstep).
std::unique_ptr<RtlRouterCore> make_rtl_router_core(const NocParams& p, const std::string& instance, bool record);

}  // namespace tessera::noc
