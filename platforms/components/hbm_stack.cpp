// The `hbm_stack` component type: an HBM stack.
#include <fmt/format.h>

#include "dram/hbm_memory.h"
#include "gpu/dispatcher.h"
#include "platforms/components/common.h"
#include "sim/stats.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

class HbmStack : public Component {
 public:
  HbmStack(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
    // The only stack reports as chip.dram; several as chip.<instance>.dram.
    unsigned stacks = 0;
    for (const auto& other : ctx.netlist->instances) stacks += other.type == "hbm_stack";
    sim::StatGroup* parent = ctx.stats;
    if (stacks > 1) parent = (group_ = std::make_unique<sim::StatGroup>(inst.name, ctx.stats)).get();
    sim::Config::Scope scope(*ctx.config, inst.name, inst.params);
    hbm_ = std::make_unique<dram::HbmMemory>(inst.name.c_str(), *ctx.config, ctx.global, memory_range(inst)->first,
                                             *parent);
    hbm_->set_waveform(ctx.wave);
    hbm_->set_timeline(ctx.timeline);
  }
  TargetSocket* target_socket(const std::string& socket) override { return socket == "port" ? &hbm_->socket : nullptr; }
  void bind(const std::string& socket, Component&, const std::string&) override { no_such_binding(*this, socket); }
  std::vector<const sc_core::sc_object*> models() const override { return {hbm_.get()}; }
  void describe_device(gpu::DeviceInfo& info) const override {
    const dram::DramSpec& spec = hbm_->engine().spec();
    info.mem_clock_khz = static_cast<uint32_t>(hbm_->clock().mhz() * 1000.0 + 0.5);
    info.mem_bus_bits += spec.channels() * spec.org.pseudo_channels * spec.org.pc_width_bits;
    info.global_mib += static_cast<uint32_t>(memory_range(instance())->second >> 20);
  }
  void summarize(RunSummary& sum) const override {
    const auto& st = hbm_->engine().stats();
    const double ns = hbm_->clock().period().to_seconds() * 1e9;
    const std::string text = fmt::format(
        "  memory requests      {:>14}  ({}{}, {} reads; avg read {:.1f} ns)\n", st.requests,
        group_ ? name() + ": " : "", hbm_->engine().spec().name, st.read_requests,
        st.read_requests ? ns * static_cast<double>(st.read_latency_sum) / static_cast<double>(st.read_requests) : 0.0);
    sum.line(summary_order::kMemory, name(), [text](const RunSummary&) { return text; });
  }

 private:
  std::unique_ptr<sim::StatGroup> group_;
  std::unique_ptr<dram::HbmMemory> hbm_;
};

ComponentType describe() {
  ComponentType t;
  t.name = "hbm_stack";
  t.description = "an HBM stack (dram.*) serving [base, base + size_mb MiB) of global memory";
  t.sockets = {{"port", Kind::kTarget, 0, true, false, "requests from the L2 slices, a network or an address router"}};
  t.attributes = {{"base", "first address served (default 0x80000000)"},
                  {"size_mb", "MiB served (default: to the end of the address space)"},
                  {"nodes", "its node on a memory network"}};
  t.report_order = 60;
  t.address_range = memory_range;
  t.factory = make<HbmStack>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
