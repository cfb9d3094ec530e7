// The `control_cluster` component type: the control cores.
#include <fmt/format.h>

#include "cpu/control_cluster.h"
#include "gpu/dispatcher.h"
#include "isa/elf_loader.h"
#include "platforms/components/common.h"
#include "platforms/system_regs.h"
#include "sim/side_band_port.h"

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

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
    const ComponentType& type = *registry_.find(target.instance().type);
    const auto range = type.address_range ? type.address_range(target.instance()) : std::nullopt;
    if (!range || range->first < cpu::kMmioBase || range->first + range->second > cpu::kMmioBase + cpu::kMmioSize)
      throw ConfigError(
          fmt::format("{}: instance '{}' ({}) has no register window in the MMIO region [0x{:08x}, "
                      "0x{:08x}) for the control cores' mmio",
                      target.instance().where, target.name(), target.instance().type, cpu::kMmioBase,
                      cpu::kMmioBase + cpu::kMmioSize));
    if (!decoder_) {
      decoder_ = std::make_unique<MmioDecoder>((name() + "_mmio").c_str());
      cluster_->mmio_socket.bind(decoder_->in);
    }
    decoder_->add(static_cast<uint32_t>(range->first - cpu::kMmioBase), static_cast<uint32_t>(range->second));
    decoder_->out.bind(*target.target_socket(target_socket_name));
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
  // The cores' MMIO accesses to the window of each instance bound to mmio:
  // the system block's, and each device's registers.
  class MmioDecoder : public sc_core::sc_module {
   public:
    tlm_utils::simple_target_socket<MmioDecoder> in{"in"};
    tlm_utils::multi_passthrough_initiator_socket<MmioDecoder> out{"out"};
    explicit MmioDecoder(const sc_core::sc_module_name& name) : sc_module(name) {
      in.register_b_transport(this, &MmioDecoder::b_transport);
    }
    // Offsets [base, base + size) of the region go to the next binding of `out`.
    void add(uint32_t base, uint32_t size) { windows_.push_back({base, size}); }

   private:
    void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
      const auto offset = static_cast<uint32_t>(gp.get_address());
      for (size_t i = 0; i < windows_.size(); ++i) {
        if (offset - windows_[i].first >= windows_[i].second) continue;
        gp.set_address(offset - windows_[i].first);
        out[static_cast<int>(i)]->b_transport(gp, delay);
        gp.set_address(offset);
        return;
      }
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);  // the core faults
    }
    std::vector<std::pair<uint32_t, uint32_t>> windows_;
  };

  const ComponentRegistry& registry_;
  std::unique_ptr<cpu::ControlCluster> cluster_;
  std::unique_ptr<MmioDecoder> decoder_;
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
