// Routers whose decisions come from the Verilated RTL router
// (models/rtl/noc_router): RtlRouter in place of the C++ Router, and
// LockstepRouter running both on the same inputs and comparing their
// outputs every cycle (docs/cosim.md, "The NoC router in RTL").
//
// To the rest of the network both look like a Router: flits for an input
// port go into a queue (input()), credits for an output port into a
// mailbox channel (credit_mailbox()); both are taken in the cycle they are
// due. The Verilated router runs one clock edge behind the network's cycle:
// in cycle t it is stepped with the flits and credits due at t (they are in
// its registers during t, as in the model), and its outputs after the step
// are the decisions of cycle t (credits, events) and the flits it switched
// at t - 2 (on its output registers). Link and credit delays are applied
// here, as delivery cycles, so the RTL is independent of them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "noc/channel.h"
#include "noc/noc_params.h"
#include "noc/router.h"
#include "noc/router_coverage.h"
#include "noc/rtl_router_core.h"
#include "noc/topology_grid.h"
#include "sim/stats.h"

namespace tessera::noc {

class CosimRouter {
 public:
  CosimRouter(int id, const NocParams& p, const GridTopology& topo);
  virtual ~CosimRouter() = default;
  CosimRouter(const CosimRouter&) = delete;
  CosimRouter& operator=(const CosimRouter&) = delete;

  int id() const { return id_; }
  FlitTarget input(int port) { return FlitTarget{nullptr, 0, &inbox_[port]}; }
  OutputChannel* credit_mailbox(int port) { return &mailbox_[port]; }
  void connect_output(int port, FlitTarget target) { targets_[port] = target; }
  void connect_upstream(int in_port, OutputChannel* upstream) { upstream_[in_port] = upstream; }

  // Whether cycle `now` must be stepped: flits inside, or a flit or credit
  // due.
  bool has_work(uint64_t now) const;
  virtual void step(uint64_t now) = 0;
  // The RTL's signals in the chip's waveform under `scope` ("chip.noc.r5.rtl").
  void trace(sim::Waveform& wave, const std::string& scope, uint64_t period_ps) {
    core().trace(wave, scope, period_ps);
    traced_ = true;
  }

  void register_stats(sim::StatGroup& group) const;
  uint64_t flits_switched() const { return flits_switched_; }
  uint64_t link_flits() const { return link_flits_; }
  virtual void describe_waiting(uint64_t now, std::vector<std::string>& lines) const;

 protected:
  // The flits and credits due at `cycle`, taken from the queues.
  struct Due {
    const Flit* flit[kMaxRouterPorts] = {};  // per input port
    int credit[kMaxRouterPorts] = {};        // per output port: VC, or -1
  };
  void take_due(uint64_t cycle, Due& due);
  // The earliest credit due before `now` (after the network skipped idle
  // cycles), or UINT64_MAX.
  uint64_t overdue_credit(uint64_t now) const;
  // Pins for the flits and credits of `due`; gives each flit a handle.
  void to_pins(const Due& due, RouterPins& pins);
  // The flit record behind an output's handle (nullptr: not one in use).
  const Flit* record(uint32_t handle) const;
  void release(uint32_t handle);
  virtual bool holds_flits() const { return inside_ > 0; }
  virtual RtlRouterCore& core() = 0;
  // Before the steps of cycle `now`: steps for earlier cycles are recorded at now.
  void trace_floor(uint64_t now) {
    if (traced_) core().set_trace_floor(now);
  }

  int id_;
  const NocParams& p_;
  const GridTopology& topo_;
  int ports_;
  std::string instance_;
  std::vector<std::deque<Flit>> inbox_;   // per input port, in delivery order
  std::vector<OutputChannel> mailbox_;    // per output port: credits coming back
  std::vector<FlitTarget> targets_;       // per output port
  std::vector<OutputChannel*> upstream_;  // per input port
  std::vector<Flit> records_;             // by handle
  std::vector<uint32_t> free_handles_;
  std::vector<bool> in_use_;
  int inside_ = 0;  // flits given to the RTL and not yet out of it
  RouterPins base_pins_;
  uint64_t flits_switched_ = 0, link_flits_ = 0, va_conflicts_ = 0, sa_conflicts_ = 0;
  std::vector<Flit> taken_;                // storage for Due's flits
  std::unique_ptr<RouterCoverage> cover_;  // when coverage is collected (docs/cosim.md, "Coverage")
  bool traced_ = false;                    // its signals are in the chip's waveform
};

// The Verilated router in place of the C++ model.
class RtlRouter final : public CosimRouter {
 public:
  RtlRouter(int id, const NocParams& p, const GridTopology& topo);
  void step(uint64_t now) override;

 private:
  RtlRouterCore& core() override { return *core_; }
  std::unique_ptr<RtlRouterCore> core_;
  RouterOutputs out_;
};

// The C++ Router and the Verilated router side by side: both get the same
// flits and credits every cycle; the model's outputs go on into the
// network, and in every cycle its credits and events must equal the RTL's,
// and the flits it switched two cycles before must be on the RTL's output
// registers. The first difference throws rtl::LockstepMismatch.
class LockstepRouter final : public CosimRouter {
 public:
  LockstepRouter(int id, const NocParams& p, const GridTopology& topo, const RoutingFunction& routing);
  void step(uint64_t now) override;
  void describe_waiting(uint64_t now, std::vector<std::string>& lines) const override;

 private:
  struct Sent {
    uint64_t cycle;
    int port, vc;
    uint64_t packet_id;
    int index, size;
  };
  bool holds_flits() const override { return inside_ > 0 || model_.buffered() > 0 || !history_.empty(); }
  RtlRouterCore& core() override { return *core_; }
  // `switched`: per output port, the model's flit switched at now - 2.
  [[noreturn]] void mismatch(uint64_t now, const Due& due, const Sent* const* switched);
  std::string describe_rtl_flit(int port) const;

  Router model_;
  std::unique_ptr<RtlRouterCore> core_;
  RouterOutputs out_;
  std::vector<std::deque<Flit>> captured_flits_;  // per output port, from the model
  std::vector<OutputChannel> captured_credits_;   // per input port, from the model
  std::deque<Sent> history_;                      // the model's flits of the last cycles
  int model_credit_[kMaxRouterPorts] = {};        // the model's credit per input port this cycle (-1: none)
  uint64_t model_va_ = 0, model_sa_ = 0;          // the model's conflicts this cycle
};

}  // namespace tessera::noc
