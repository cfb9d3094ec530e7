// The `sm_cluster` component type: SMs sharing one parameter set.
#include <fmt/format.h>

#include "cpu/hart.h"
#include "platforms/components/common.h"
#include "sim/hit_rate.h"
#include "sm/global_atomics.h"
#include "sm/sm.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

constexpr int64_t kMaxSms = 256;  // of a cluster, and of the whole chip

unsigned sm_cluster_size(const NetlistInstance& inst, const sim::Config& cfg) {
  if (const auto n = int_attribute(inst, "count", 1, kMaxSms)) return static_cast<unsigned>(*n);
  return peek(cfg, inst, [](sim::Config& c) {
    return static_cast<unsigned>(c.get_int("gpu.num_sms", 1, 1, kMaxSms, "Streaming multiprocessors"));
  });
}

// Kernels' accesses to device registers (sms.mmio): in the SM's clock, at
// the SM's cycle, through the windows of the bound devices.
class KernelDevices final : public sc_core::sc_module, public sm::DeviceRegisters {
 public:
  KernelDevices(const sc_core::sc_module_name& name, const sim::ClockDomain& clock)
      : sc_module(name), windows("windows"), clock_(clock) {
    port_.bind(windows.in);
  }
  bool maps(uint32_t addr) const override { return cpu::is_mmio(addr) && windows.maps(addr - cpu::kMmioBase); }
  bool access(bool write, uint32_t addr, uint32_t* value, uint64_t now, uint64_t* ready) override {
    tlm::tlm_generic_payload gp;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(addr - cpu::kMmioBase);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(value));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    const sc_core::sc_time at = clock_.time_of(now), stamp = sc_core::sc_time_stamp();
    sc_core::sc_time delay = at > stamp ? at - stamp : sc_core::SC_ZERO_TIME;
    port_->b_transport(gp, delay);
    const sc_core::sc_time done = stamp + delay;
    const uint64_t cycle = clock_.cycle_at(done);
    *ready = clock_.time_of(cycle) < done ? cycle + 1 : cycle;  // the first SM cycle at or after the answer
    return gp.is_response_ok();
  }
  MmioWindows windows;

 private:
  tlm_utils::simple_initiator_socket<KernelDevices> port_{"port"};
  const sim::ClockDomain& clock_;
};

class SmCluster : public Component {
 public:
  SmCluster(const NetlistInstance& inst, BuildContext& ctx)
      : Component(inst), registry_(*ctx.registry), sm_clock_(*ctx.sm_clock) {
    unsigned total = 0;  // every cluster's SMs: what each SM reports as %nsmid
    std::string sizes;
    for (const auto& other : ctx.netlist->instances) {
      if (other.type != "sm_cluster") continue;
      const unsigned n = sm_cluster_size(other, *ctx.config);
      total += n;
      sizes += fmt::format("{}{}: {}", sizes.empty() ? "" : ", ", other.name, n);
    }
    // The limit of one cluster holds for the chip: checked before any SM
    // is built, so a netlist of many large clusters is refused, not run out
    // of memory.
    if (total > kMaxSms)
      throw sim::ConfigError(
          fmt::format("{}: the netlist's sm_cluster instances have {} SMs in all ({}); a chip has "
                      "at most {} (count, gpu.num_sms)",
                      ctx.netlist->origin, total, sizes, kMaxSms));
    auto& atomics = shared_atomics(ctx);
    sim::Config::Scope scope(*ctx.config, inst.name, inst.params);
    // gpu.num_sms is the size of a cluster without `count` (and read only then).
    const auto given = int_attribute(inst, "count", 1, kMaxSms);
    const int64_t count =
        given ? *given : ctx.config->get_int("gpu.num_sms", 1, 1, kMaxSms, "Streaming multiprocessors");
    params_ = sm::SmParams::from_config(*ctx.config);
    for (int64_t i = 0; i < count; ++i) {
      const unsigned id = ctx.counters["sm"]++;
      sm::Sm::Context sctx{*ctx.config, params_,    *ctx.sm_clock, *ctx.global, *ctx.program,
                           *ctx.run,    *ctx.stats, ctx.wave,      total,       atomics};
      sms_.push_back(std::make_unique<sm::Sm>(fmt::format("sm{}", id).c_str(), id, sctx));
      sms_.back()->set_timeline(ctx.timeline);
      if (ctx.inst_trace) sms_.back()->set_inst_trace(ctx.inst_trace);
      if (ctx.debugger) sms_.back()->set_debugger(ctx.debugger);
    }
  }
  static sm::GlobalAtomics& shared_atomics(BuildContext& ctx) {
    auto& slot = (*ctx.shared)["global_atomics"];
    if (!slot) slot = std::make_shared<sm::GlobalAtomics>("global_atomics", *ctx.global, *ctx.run);
    return *std::static_pointer_cast<sm::GlobalAtomics>(slot);
  }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
    if (socket == "mmio") {
      if (!devices_) {
        devices_ = std::make_unique<KernelDevices>((name() + "_mmio").c_str(), sm_clock_);
        for (auto& s : sms_) s->set_devices(devices_.get());
      }
      devices_->windows.add(registry_, target, target_socket_name, "the SMs' mmio");
      return;
    }
    if (socket != "mem") no_such_binding(*this, socket);
    for (auto& s : sms_) s->mem_socket.bind(*target.target_socket(target_socket_name));
  }
  // launch: each SM's launch port (sm::BlockLaunchIf).
  std::vector<sc_core::sc_interface*> interfaces(const std::string& socket) override {
    std::vector<sc_core::sc_interface*> out;
    if (socket == "launch")
      for (const auto& s : sms_) out.push_back(s.get());
    return out;
  }
  std::vector<const sc_core::sc_object*> models() const override {
    std::vector<const sc_core::sc_object*> out;
    for (const auto& s : sms_) out.push_back(s.get());
    return out;
  }
  void summarize(RunSummary& sum) const override {
    for (const auto& s : sms_) {
      sum.add("sms", 1);
      sum.add("warp_insts", s->warp_insts());
      sum.add("thread_insts", s->thread_insts());
      const auto l1 = s->l1_sector_totals();
      sum.add("l1_hits", l1.first);
      sum.add("l1_misses", l1.second);
    }
    // Every cluster adds these; each line shows once, summed over the clusters.
    sum.line(summary_order::kInstructions, "warp_insts",
             [](const RunSummary& t) { return fmt::format("  warp instructions    {:>14}\n", t.get("warp_insts")); });
    sum.line(summary_order::kInstructions, "thread_insts",
             [](const RunSummary& t) { return fmt::format("  thread instructions  {:>14}\n", t.get("thread_insts")); });
    sum.line(summary_order::kL1, "l1", [](const RunSummary& t) {
      const uint64_t hits = t.get("l1_hits"), misses = t.get("l1_misses");
      return fmt::format("  L1/texture sectors   {:>14}  ({:.1f}% hit; cached loads only)\n", hits + misses,
                         sim::hit_rate(hits, misses, 100.0));
    });
  }

 private:
  const ComponentRegistry& registry_;
  const sim::ClockDomain& sm_clock_;
  sm::SmParams params_{};
  std::vector<std::unique_ptr<sm::Sm>> sms_;
  std::unique_ptr<KernelDevices> devices_;  // when mmio is bound
};

ComponentType describe() {
  ComponentType t;
  t.name = "sm_cluster";
  t.description = "SMs sharing one parameter set (count: SMs, default gpu.num_sms); SMs are numbered across clusters";
  t.sockets = {{"mem", Kind::kInitiator, 1, true, false, "each SM's memory requests"},
               {"launch", Kind::kTarget, 1, true, false, "thread blocks from the dispatcher"},
               {"mmio", Kind::kInitiator, 0, false, false,
                "kernels' 32-bit loads and stores to the register windows of the devices bound here"}};
  t.attributes = {{"count", "SMs in the cluster (default gpu.num_sms)"}, {"nodes", "network nodes of the SMs"}};
  t.report_order = 30;
  t.endpoints = sm_cluster_size;
  t.memory = [](const NetlistInstance& inst, const sim::Config& cfg) {
    // Per SM (measured with 4 to 256 SMs, docs/performance.md "Host
    // memory"): 620 KiB of model, its shared memory, and the L1's tags
    // and state, an eighth of its capacity.
    return peek(cfg, inst, [&](sim::Config& c) {
      const auto p = sm::SmParams::from_config(c);
      const uint64_t l1 = static_cast<uint64_t>(
                              c.get_int("l1.size_kb", 24, 1, 1024, "Unified L1/texture cache per SM, KiB (all halves)"))
                          << 10;
      return MemoryEstimate{sm_cluster_size(inst, cfg) * ((620ull << 10) + p.shared_bytes + l1 / 8),
                            "count or gpu.num_sms, sm.shared_bytes, l1.size_kb"};
    });
  };
  t.factory = make<SmCluster>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
