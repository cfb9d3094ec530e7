// The `dispatcher` component type: the block dispatcher.
#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "platforms/components/common.h"
#include "sim/side_band_port.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

class BlockDispatcher : public Component {
 public:
  BlockDispatcher(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
    sim::Config::Scope scope(*ctx.config, inst.name, inst.params);
    dispatcher_ = std::make_unique<gpu::Dispatcher>(inst.name.c_str(), *ctx.sm_clock, *ctx.run, *ctx.stats);
    // A launch is checked against the SMs that run it (sm.max_threads_per_block,
    // sm.shared_bytes, ...): they are bound first, and their waveform signals
    // and timeline tracks are the dispatcher's too.
    bind_while_built(ctx, inst, "sms", dispatcher_->sms_port);
    dispatcher_->set_waveform(ctx.wave);
    dispatcher_->set_timeline(ctx.timeline);
    dispatcher_->set_program(ctx.image);
    dispatcher_->set_inst_trace(ctx.inst_trace);
    if (ctx.on_kernel) dispatcher_->set_kernel_observer(ctx.on_kernel);
  }
  void set_device_info(const gpu::DeviceInfo& info) override { dispatcher_->set_device_info(info); }
  TargetSocket* target_socket(const std::string& socket) override {
    return socket == "regs" ? &dispatcher_->regs_socket : nullptr;
  }
  sim::PortBinder* port(const std::string& socket) override {
    return socket == "irq" ? &dispatcher_->irq_port : nullptr;
  }
  void bind(const std::string& socket, Component&, const std::string&) override { no_such_binding(*this, socket); }
  std::vector<const sc_core::sc_object*> models() const override { return {dispatcher_.get()}; }
  void summarize(RunSummary& sum) const override {
    sum.add("kernel_cycles", dispatcher_->kernel_cycles());
    sum.add_real("kernel_host_seconds", dispatcher_->kernel_host_seconds());
    sum.line(summary_order::kKernels, "kernel_cycles", [](const RunSummary& t) {
      const uint64_t cycles = t.get("kernel_cycles");
      return fmt::format("  kernel cycles        {:>14}  (IPC {:.3f} warp insts/cycle while kernels ran)\n", cycles,
                         cycles ? static_cast<double>(t.get("warp_insts")) / static_cast<double>(cycles) : 0.0);
    });
  }

 private:
  std::unique_ptr<gpu::Dispatcher> dispatcher_;
};

ComponentType describe() {
  ComponentType t;
  t.name = "dispatcher";
  t.description = "the block dispatcher: places thread blocks of launched kernels on the SMs";
  t.sockets = {{"sms", Kind::kInitiator, 0, true, false, "the SM clusters it places blocks on"},
               {"irq", Kind::kInitiator, 1, true, false, "kernel-done interrupt to the control cores"},
               {"regs", Kind::kTarget, 1, true, false, "LAUNCH/STATUS registers from the MMIO block"}};
  t.sockets[0].bound_while_built = true;  // the SMs are built first
  t.report_order = 20;
  t.factory = make<BlockDispatcher>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
