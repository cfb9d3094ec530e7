// The `rtl_device` component type: a user's SystemVerilog block, verilated
// on first use, bound by AXI to the chip (docs/rtl-devices.md).
#include <fmt/format.h>

#include <filesystem>

#include "cpu/hart.h"
#include "platforms/components/common.h"
#include "rtl/common/lockstep.h"
#include "rtl/device/rtl_device.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;
namespace fs = std::filesystem;

constexpr uint64_t kDefaultWindow = 0x1000;
constexpr uint16_t kFirstSourceId = 0x8000;  // MemExt::source of device requests: apart from SM numbers

std::string where_of(const NetlistInstance& inst, const std::string& key) {
  const auto it = inst.attribute_where.find(key);
  return it == inst.attribute_where.end() ? inst.where : it->second;
}

std::optional<std::pair<uint64_t, uint64_t>> register_window(const NetlistInstance& inst) {
  const auto base = int_attribute(inst, "base", 0, UINT32_MAX);
  if (!base) return std::nullopt;
  const auto size = int_attribute(inst, "size", 4, cpu::kMmioSize).value_or(kDefaultWindow);
  return std::make_pair(static_cast<uint64_t>(*base), static_cast<uint64_t>(size));
}

class Device : public Component {
 public:
  Device(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
    const std::string who = fmt::format("{}: instance '{}'", inst.where, inst.name);
    rtl::DeviceSource source;
    const fs::path netlist_dir = fs::path(ctx.netlist->origin).parent_path();
    const auto sources = inst.list_attributes.find("sources");
    if (sources == inst.list_attributes.end() || sources->second.empty())
      throw ConfigError(fmt::format("{}: an rtl_device needs sources: [its SystemVerilog files]", who));
    for (const std::string& s : sources->second) {
      const fs::path p(s);
      source.sources.push_back((p.is_absolute() ? p : netlist_dir / p).lexically_normal().string());
    }
    const auto top = inst.attributes.find("top");
    if (top == inst.attributes.end() || top->second.empty())
      throw ConfigError(fmt::format("{}: an rtl_device needs top: (its top module)", who));
    source.top = top->second;
    if (const auto params = inst.map_attributes.find("parameters"); params != inst.map_attributes.end())
      source.parameters = params->second;

    sim::Config& cfg = *ctx.config;
    rtl::DeviceBuildOptions build;
    build.cache_dir = cfg.get_string("rtl.device_cache", "",
                                     "Directory of the built RTL device libraries (empty: $TESSERA_RTL_CACHE, else "
                                     "~/.cache/tessera/rtl-devices)");
    build.quiet = !ctx.echo_console;
    auto lib = rtl::DeviceLibrary::load(source, build, who);

    const auto& shape = lib->api().shape;
    const auto bound = [&](const std::string& socket) {
      return !ctx.netlist->bindings_from(inst.name, socket).empty() ||
             !ctx.netlist->bindings_to(inst.name, socket).empty();
    };
    if (bound("regs") && shape.s_addr_bits == 0)
      throw ConfigError(fmt::format("{}: socket 'regs' is bound but top '{}' has no AXI4-Lite slave (s_axil_* pins)",
                                    who, source.top));
    if (bound("mem") && shape.m_data_bits == 0)
      throw ConfigError(
          fmt::format("{}: socket 'mem' is bound but top '{}' has no AXI4 master (m_axi_* pins)", who, source.top));
    if (!bound("mem") && shape.m_data_bits != 0)
      throw ConfigError(fmt::format(
          "{}: top '{}' has an AXI4 master (m_axi_* pins) but socket 'mem' is not bound (bind it to the crossbar's "
          "sm or the network's in)",
          who, source.top));
    if (bound("irq") && shape.irq_bits == 0)
      throw ConfigError(fmt::format("{}: socket 'irq' is bound but top '{}' has no output irq", who, source.top));
    if (bound("regs")) {
      const auto window = register_window(inst);
      if (!window)
        throw ConfigError(
            fmt::format("{}: an rtl_device whose regs are bound needs base: (its register window's "
                        "address in the MMIO region)",
                        who));
    }

    std::string clock_name = "cpu";
    if (const auto it = inst.attributes.find("clock"); it != inst.attributes.end()) clock_name = it->second;
    const sim::ClockDomain* clock = nullptr;
    if (clock_name == "cpu") {
      clock = ctx.cpu_clock;
    } else if (clock_name == "sm") {
      clock = ctx.sm_clock;
    } else {
      char* end = nullptr;
      const double mhz = std::strtod(clock_name.c_str(), &end);
      if (end == clock_name.c_str() || *end != '\0' || !(mhz >= 1.0 && mhz <= 100000.0))
        throw ConfigError(
            fmt::format("{}: instance '{}': clock '{}' is not cpu, sm or a frequency in MHz (1 to 100000)",
                        where_of(inst, "clock"), inst.name, clock_name));
      own_clock_ = std::make_unique<sim::ClockDomain>(inst.name, mhz);
      clock = own_clock_.get();
    }

    sim::Config::Scope scope(cfg, inst.name, inst.params);
    rtl::RtlDeviceParams p;
    p.max_reads = static_cast<uint32_t>(
        cfg.get_int("rtl_device.max_reads", 8, 1, 256, "Read bursts an rtl_device may have in flight"));
    p.max_writes = static_cast<uint32_t>(
        cfg.get_int("rtl_device.max_writes", 8, 1, 256, "Write bursts an rtl_device may have in flight"));
    p.reg_timeout = static_cast<uint32_t>(
        cfg.get_int("rtl_device.reg_timeout", 1000, 1, 100000000,
                    "Cycles an rtl_device may take to answer a register access before the run stops"));
    if (const auto it = inst.attributes.find("fst"); it != inst.attributes.end()) p.fst = it->second;
    p.coverage_block = "rtl_device:" + source.top;
    for (size_t i = 0; i < source.parameters.size(); ++i)
      p.coverage_block +=
          fmt::format("{}{}={}", i ? "," : "(", source.parameters[i].first, source.parameters[i].second);
    if (!source.parameters.empty()) p.coverage_block += ")";
    std::unique_ptr<rtl::DeviceReference> reference;
    if (const auto it = inst.attributes.find("reference"); it != inst.attributes.end()) {
      const rtl::DeviceReferenceFactory* factory = rtl::find_device_reference(it->second);
      if (!factory) {
        std::string known;
        for (const std::string& n : rtl::device_reference_names()) known += " " + n;
        throw ConfigError(
            fmt::format("{}: instance '{}': no RTL device reference '{}' is registered (registered:{}; "
                        "a plugin registers one: --plugin or the netlist's plugins:)",
                        where_of(inst, "reference"), inst.name, it->second, known.empty() ? " none" : known));
      }
      reference = (*factory)(source.parameters);
      if (p.fst.empty()) {
        const rtl::RtlOptions rtl_options = rtl::RtlOptions::from_config(cfg);
        rtl::check_wave_dir(rtl_options.waves.dir);
        fs::create_directories(rtl_options.waves.dir);
        p.fst = (fs::path(rtl_options.waves.dir) / (inst.name + "-lockstep.fst")).string();
      }
    }
    const unsigned index = ctx.counters["rtl_device"]++;
    device_ = std::make_unique<rtl::RtlDevice>(inst.name.c_str(), std::move(lib), *clock, *ctx.global, *ctx.run,
                                               *ctx.stats, p, static_cast<uint16_t>(kFirstSourceId + index),
                                               bound("regs"), bound("mem"), std::move(reference));
    if (ctx.wave) {
      device_->set_waveform(ctx.wave);
      if (own_clock_) ctx.wave->add_clock(*own_clock_);
    }
    device_->irq.on_bind([this](sim::InterruptIf& line) { line.sleep_while([this] { return device_->busy(); }); });
  }
  TargetSocket* target_socket(const std::string& socket) override {
    return socket == "regs" ? device_->regs() : nullptr;
  }
  sim::PortBinder* port(const std::string& socket) override { return socket == "irq" ? &device_->irq : nullptr; }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
    if (socket != "mem") no_such_binding(*this, socket);
    device_->mem_socket()->bind(*target.target_socket(target_socket_name));
  }
  std::vector<const sc_core::sc_object*> models() const override { return {device_.get()}; }
  std::string check_at_end() override { return device_->unmet_expectations(); }
  void summarize(RunSummary& sum) const override {
    const std::string key = "rtl_device_cycles." + name();
    sum.add(key, device_->cycles_stepped());
    sum.line(summary_order::kControl + 1, key, [key, n = name()](const RunSummary& t) {
      return fmt::format("  rtl device {:<10} {:>14}  cycles stepped\n", n, t.get(key));
    });
  }

 private:
  std::unique_ptr<sim::ClockDomain> own_clock_;
  std::unique_ptr<rtl::RtlDevice> device_;
};

ComponentType describe() {
  ComponentType t;
  t.name = "rtl_device";
  t.description =
      "a SystemVerilog block verilated on first use (sources, top, parameters): an AXI4-Lite register slave at "
      "base (regs), an AXI4 memory master (mem) and interrupt lines (irq); docs/rtl-devices.md";
  t.sockets = {{"regs", Kind::kTarget, 0, false, false,
                "register accesses: the control cores' (cluster.mmio) and the kernels' (sms.mmio)"},
               {"mem", Kind::kInitiator, 1, false, false, "memory requests: the crossbar's sm or the network's in"},
               {"irq", Kind::kInitiator, 0, false, false, "interrupts to the control cores (cluster.irq)"}};
  using A = AttributeSpec;
  t.attributes = {{"sources", "SystemVerilog files, relative to the netlist", A::Kind::kList},
                  {"top", "the top module"},
                  {"parameters", "top-level parameters (-G NAME=VALUE)", A::Kind::kMap},
                  {"clock", "cpu (default), sm, or a frequency in MHz"},
                  {"base", "address of the register window (in the MMIO region 0x1000_0000-0x10ff_ffff)"},
                  {"size", "bytes of the register window (default 4096)"},
                  {"fst", "an FST file of every signal of the block, in the cycles it is stepped"},
                  {"reference", "a C++ reference model (registered by a plugin) to run the block in lockstep with"}};
  t.report_order = 75;
  t.address_range = register_window;
  t.factory = make<Device>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
