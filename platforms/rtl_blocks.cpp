#include "platforms/rtl_blocks.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "noc/cosim_router.h"
#include "noc/noc_params.h"
#include "noc/router_stimulus.h"
#include "noc/routing.h"
#include "noc/rtl_router_core.h"
#include "noc/topology_grid.h"
#include "sm/shared_bank_pins.h"
#include "sm/shared_bank_stimulus.h"
#include "sm/shared_bank_unit.h"
#include "sm/sm_params.h"

namespace tessera::platform {

namespace {

// Progress is offered every this many cycles.
constexpr uint64_t kProgressEvery = 4096;

// ------------------------------------------------- shared-memory bank unit

// The stimulus of testbenches/cosim/shared_bank_test.cpp: a request on the
// pins until the unit takes it, in runs of back-to-back and sparse arrival.
RtlTestResult run_shared_bank_unit(sim::Config& cfg, const RtlTestRun& run) {
  const sm::SmParams p = sm::SmParams::from_config(cfg);
  cfg.check_all_used();
  sm::SharedBankUnit model(p.shared_banks, p.shared_bytes, p.shared_atomic_cycles);
  auto pins = sm::make_shared_bank_pins(p, model, "rtl_test.shared_banks");
  sm::BankStimulus stim(run.seed, model.words());
  bool valid = false;
  sm::BankRequest req;
  uint64_t requests = 0;
  for (uint64_t c = 0; c < run.cycles; ++c) {
    if (!valid && stim.present()) {
      valid = true;
      req = stim.next();
    }
    const bool ready = pins->ready();
    pins->step(valid ? &req : nullptr, c);
    if (valid && ready) {
      valid = false;
      ++requests;
    }
    if (run.progress && (c + 1) % kProgressEvery == 0) run.progress(c + 1);
  }
  return RtlTestResult{fmt::format("{} requests", requests)};
}

// ------------------------------------------------------------ NoC router

// The LockstepRouter behind the random environment's interface.
class LockstepDut final : public noc::stimulus::Dut {
 public:
  LockstepDut(int id, const noc::NocParams& p, const noc::GridTopology& t, const noc::RoutingFunction& r)
      : router_(id, p, t, r) {}
  void connect(int port, noc::FlitTarget out, noc::OutputChannel* credits_to) override {
    router_.connect_output(port, out);
    router_.connect_upstream(port, credits_to);
  }
  void deliver(int port, const noc::Flit& f) override { router_.input(port).deliver(f); }
  void credit(int port, uint64_t ready, int vc) override { router_.credit_mailbox(port)->return_credit(ready, vc); }
  void step(uint64_t now) override {
    if (router_.has_work(now)) router_.step(now);
  }
  nlohmann::json stats() const override { return nlohmann::json::object(); }

 private:
  noc::LockstepRouter router_;
};

// The stimulus of testbenches/cosim/noc_router_test.cpp on one router of
// the network noc.* describes (rtl_test.router, default 5: (1,1) of a
// 4x4 mesh, every port used), with downstream buffers that drain at 0 to 100 % per 2,000-cycle
// phase, so that credit stalls come and go.
RtlTestResult run_noc_router(sim::Config& cfg, const RtlTestRun& run) {
  const noc::NocParams p = noc::NocParams::from_config(cfg);
  noc::check_rtl_router_support(p);
  const noc::GridTopology topo(p);
  const int id = static_cast<int>(cfg.get_int("rtl_test.router", std::min(5, topo.nodes() - 1), 0, topo.nodes() - 1,
                                              "tessera rtl-test noc_router: the router of the network under test"));
  cfg.check_all_used();
  const auto routing = noc::make_routing(p, topo);
  LockstepDut dut(id, p, topo, *routing);
  noc::stimulus::Traffic traffic;
  traffic.drain_min = 0;
  noc::stimulus::Environment env(p, topo, id, dut, run.seed, traffic);
  for (uint64_t now = 0; now < run.cycles; ++now) {
    env.step(now);
    env.flits.clear();  // lockstep compares; nothing to keep
    env.credits.clear();
    if (run.progress && (now + 1) % kProgressEvery == 0) run.progress(now + 1);
  }
  return RtlTestResult{fmt::format("{} packets, {} flits sent to router {}", env.packets, env.flits_sent, id)};
}

}  // namespace

const std::vector<RtlBlockTest>& rtl_block_tests() {
  static const std::vector<RtlBlockTest> blocks{
      {"shared_bank_unit", "the SM's shared-memory bank unit (models/rtl/shared_bank) against sm::SharedBankUnit",
       "sm.shared_impl", sm::kSharedBankKind, &run_shared_bank_unit},
      {"noc_router", "the NoC virtual-channel router (models/rtl/noc_router) against noc::Router", "noc.router_impl",
       noc::kRtlRouterKind, &run_noc_router},
  };
  return blocks;
}

}  // namespace tessera::platform
