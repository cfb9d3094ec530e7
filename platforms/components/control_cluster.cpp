// The `control_cluster` component type: the control cores.
#include <fmt/format.h>

#include "cpu/control_cluster.h"
#include "gpu/dispatcher.h"
#include "isa/elf_loader.h"
#include "platforms/components/common.h"
#include "platforms/system_regs.h"
#include "sim/side_band_port.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

// The firmware's linker script (tessera.ld) gives each control core's stack
// a guard region at its bottom; an ELF linked otherwise has none.
std::vector<cpu::StackGuard> stack_guards(const isa::ElfImage& image) {
  const auto top = image.symbol("__stack_top"), size = image.symbol("__stack_size"),
             hart_size = image.symbol("__hart_stack_size"), harts_bottom = image.symbol("__hart_stacks_bottom"),
             guard = image.symbol("__stack_guard_size");
  if (!top || !size || !hart_size || !harts_bottom || !guard || *guard == 0 || *hart_size == 0) return {};
  const uint32_t bottom0 = *top - *size;
  if (*guard >= *size || *guard >= *hart_size || *harts_bottom > bottom0) return {};
  // Every core slot the linker script lays out (cluster.cores may use fewer).
  const uint32_t cores = 1 + (bottom0 - *harts_bottom) / *hart_size;
  std::vector<cpu::StackGuard> guards;
  guards.push_back({bottom0, *guard,
                    fmt::format("control core 0's stack [0x{:08x}, 0x{:08x}), {} bytes (__stack_size in the linker "
                                "script; the guard is __stack_guard_size)",
                                bottom0, *top, *size)});
  for (uint32_t h = 1; h < cores; ++h) {
    const uint32_t hart_top = bottom0 - (h - 1) * *hart_size, hart_bottom = hart_top - *hart_size;
    guards.push_back({hart_bottom, *guard,
                      fmt::format("control core {}'s stack [0x{:08x}, 0x{:08x}), {} bytes (__hart_stack_size in the "
                                  "linker script; the guard is __stack_guard_size)",
                                  h, hart_bottom, hart_top, *hart_size)});
  }
  return guards;
}

class ControlCores : public Component {
 public:
  ControlCores(const NetlistInstance& inst, BuildContext& ctx) : Component(inst), registry_(*ctx.registry) {
    const uint32_t stack_top = ctx.image->symbol("__stack_top").value_or(0x84000000u);
    sim::Config::Scope scope(*ctx.config, inst.name, inst.params);
    // The dispatcher's LAUNCH and STATUS registers are the cluster's coherence points.
    cpu::ControlCluster::Context cctx{*ctx.config,
                                      *ctx.cpu_clock,
                                      *ctx.global,
                                      *ctx.program,
                                      *ctx.run,
                                      *ctx.stats,
                                      ctx.image->entry,
                                      stack_top,
                                      gpu::reg::kLaunch,
                                      gpu::reg::kStatus,
                                      stack_guards(*ctx.image),
                                      ctx.wave,
                                      ctx.program_argc,
                                      ctx.program_argv,
                                      kRoiRegister};
    cluster_ = std::make_unique<cpu::ControlCluster>(inst.name.c_str(), cctx);
    cluster_->set_timeline(ctx.timeline);
    if (ctx.inst_trace) cluster_->set_inst_trace(ctx.inst_trace);
    if (ctx.debugger) cluster_->set_debugger(ctx.debugger);
    ctx.cluster = cluster_.get();
  }
  // irq: kernel completion interrupts the cores; their WFI sleeps while a kernel runs.
  std::vector<sc_core::sc_interface*> interfaces(const std::string& socket) override {
    if (socket == "irq") return {&irq_};
    return {};
  }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
    if (socket != "mmio") no_such_binding(*this, socket);
    if (!decoder_) {
      decoder_ = std::make_unique<MmioWindows>((name() + "_mmio").c_str());
      cluster_->mmio_socket.bind(decoder_->in);
    }
    decoder_->add(registry_, target, target_socket_name, "the control cores' mmio");
  }
  std::vector<const sc_core::sc_object*> models() const override { return {cluster_.get()}; }
  void summarize(RunSummary& sum) const override {
    sum.add("control_insts", cluster_->instructions());
    sum.add("control_cores", cluster_->cores());
    sum.line(summary_order::kControl, "control_insts", [](const RunSummary& t) {
      const double host = t.get_real("host_seconds");
      return fmt::format("  control-core insts   {:>14}  ({} cores; {:.0f} insts/s)\n", t.get("control_insts"),
                         t.get("control_cores"), host > 0 ? static_cast<double>(t.get("control_insts")) / host : 0.0);
    });
  }

 private:
  // The cluster's interrupt line as a sim::InterruptIf.
  class Irq : public sim::InterruptIf {
   public:
    explicit Irq(std::unique_ptr<cpu::ControlCluster>& cluster) : cluster_(cluster) {}
    void raise() override { cluster_->interrupt(); }
    void sleep_while(std::function<bool()> busy) override { cluster_->add_wfi_condition(std::move(busy)); }

   private:
    std::unique_ptr<cpu::ControlCluster>& cluster_;
  };
  const ComponentRegistry& registry_;
  std::unique_ptr<cpu::ControlCluster> cluster_;
  std::unique_ptr<MmioWindows> decoder_;
  Irq irq_{cluster_};
};

ComponentType describe() {
  ComponentType t;
  t.name = "control_cluster";
  t.description = "coherent RISC-V control cores on a snooping bus (cluster.*)";
  t.sockets = {{"mmio", Kind::kInitiator, 0, true, false,
                "MMIO accesses: the system block (mmio) and the register windows of devices"},
               {"irq", Kind::kTarget, 0, true, false, "interrupts: the dispatcher's, and devices'"}};
  t.report_order = 10;
  t.memory = [](const NetlistInstance& inst, const sim::Config& cfg) {
    // The caches hold their data: 1.5 times their capacity per core.
    return peek(cfg, inst, [](sim::Config& c) {
      const bus::ClusterParams p = bus::ClusterParams::from_config(c);
      return MemoryEstimate{p.cores * (uint64_t{p.l1d.size_bytes} + p.l1i.size_bytes) * 3 / 2,
                            "cluster.cores, cluster.l1d.size_kb, cluster.l1i.size_kb"};
    });
  };
  t.factory = make<ControlCores>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
