// The `fixed_memory` component type: fixed-latency global memory.
#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/fixed_latency_memory.h"
#include "platforms/components/common.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

class FixedMemory : public Component {
 public:
  FixedMemory(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
    sim::Config::Scope scope(*ctx.config, inst.name, inst.params);
    memory_ = std::make_unique<gpu::FixedLatencyMemory>(inst.name.c_str(), *ctx.config, *ctx.global, *ctx.stats);
    memory_->set_waveform(ctx.wave);
  }
  TargetSocket* target_socket(const std::string& socket) override {
    return socket == "port" ? &memory_->socket : nullptr;
  }
  void bind(const std::string& socket, Component&, const std::string&) override { no_such_binding(*this, socket); }
  std::vector<const sc_core::sc_object*> models() const override { return {memory_.get()}; }
  void describe_device(gpu::DeviceInfo& info) const override {
    if (const auto range = memory_range(instance())) info.global_mib += static_cast<uint32_t>(range->second >> 20);
  }
  void summarize(RunSummary& sum) const override {
    sum.line(
        summary_order::kMemory, name(),
        [text = fmt::format("  memory requests      {:>14}  (fixed latency; avg {:.1f} memory cycles)\n",
                            memory_->requests(), memory_->avg_latency_cycles())](const RunSummary&) { return text; });
  }

 private:
  std::unique_ptr<gpu::FixedLatencyMemory> memory_;
};

ComponentType describe() {
  ComponentType t;
  t.name = "fixed_memory";
  t.description = "fixed-latency global memory (memory.latency, memory.bytes_per_cycle)";
  t.sockets = {{"port", Kind::kTarget, 0, true, false, "requests from the L2 slices"}};
  t.report_order = 60;
  t.address_range = memory_range;
  t.factory = make<FixedMemory>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
