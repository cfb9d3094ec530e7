// The component types a netlist can instantiate, one registration per type.
// This is the only file that constructs and binds Tessera's concrete model
// classes; the parser, validation, build loop and reports work on
// platform::Component.
#include <fmt/format.h>

#include <algorithm>

#include "cpu/control_cluster.h"
#include "dram/hbm_memory.h"
#include "gpu/crossbar_interconnect.h"
#include "gpu/dispatcher.h"
#include "gpu/fixed_latency_memory.h"
#include "gpu/l2_system.h"
#include "isa/decoded_program.h"
#include "isa/elf_loader.h"
#include "noc/noc_interconnect.h"
#include "noc/noc_params.h"
#include "platforms/address_router.h"
#include "platforms/component.h"
#include "platforms/platform.h"
#include "platforms/system_regs.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/hit_rate.h"
#include "sim/run_control.h"
#include "sim/side_band_port.h"
#include "sim/stats.h"
#include "sm/global_atomics.h"
#include "sm/sm.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

[[noreturn]] void no_such_binding(const Component& c, const std::string& socket) {
  throw std::logic_error(fmt::format("instance '{}': socket '{}' cannot be bound here", c.name(), socket));
}

template <class T>
T& component_as(Component& c, const std::string& what) {
  auto* t = dynamic_cast<T*>(&c);
  if (!t)
    throw ConfigError(fmt::format("{}: instance '{}' ({}) cannot serve as {}", c.instance().where, c.name(),
                                  c.instance().type, what));
  return *t;
}

// The built instance `name` as a T, for `what`. What a constructor takes
// from another instance is built before it (build_order()); an instance that
// is not, bound where a network or the dispatcher expects an earlier kind
// (a network bound to itself, say), cannot serve either.
template <class T>
T& built_as(const BuildContext& ctx, const std::string& name, const std::string& what) {
  if (Component* c = ctx.find(name)) return component_as<T>(*c, what);
  const NetlistInstance* inst = ctx.netlist->find(name);
  throw ConfigError(fmt::format("{}: instance '{}' ({}) cannot serve as {}", inst ? inst->where : ctx.netlist->origin,
                                name, inst ? inst->type : "not an instance", what));
}

// The instance's scalar attribute as an integer.
std::optional<int64_t> int_attribute(const NetlistInstance& inst, const std::string& key, int64_t lo, int64_t hi) {
  const auto it = inst.attributes.find(key);
  if (it == inst.attributes.end()) return std::nullopt;
  const auto v = sim::parse_integer(it->second);
  if (!v || *v < lo || *v > hi)
    throw ConfigError(fmt::format("{}: instance '{}': {} '{}' is not an integer in [{}, {}]",
                                  inst.attribute_where.at(key), inst.name, key, it->second, lo, hi));
  return v;
}

// The platform's parameters as seen by one instance, without declaring them
// in the platform's Config (validation and planning look, models declare).
template <class F>
auto peek(const sim::Config& cfg, const NetlistInstance& inst, F read) {
  sim::Config copy = cfg;
  sim::Config::Scope scope(copy, inst.name, inst.params);
  return read(copy);
}

// ---------------------------------------------------------------- SM cluster

constexpr int64_t kMaxSms = 256;  // of a cluster, and of the whole chip

unsigned sm_cluster_size(const NetlistInstance& inst, const sim::Config& cfg) {
  if (const auto n = int_attribute(inst, "count", 1, kMaxSms)) return static_cast<unsigned>(*n);
  return peek(cfg, inst, [](sim::Config& c) {
    return static_cast<unsigned>(c.get_int("gpu.num_sms", 1, 1, kMaxSms, "Streaming multiprocessors"));
  });
}

class SmCluster : public Component {
 public:
  SmCluster(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
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
    }
  }
  static sm::GlobalAtomics& shared_atomics(BuildContext& ctx) {
    auto& slot = (*ctx.shared)["global_atomics"];
    if (!slot) slot = std::make_shared<sm::GlobalAtomics>("global_atomics", *ctx.global, *ctx.run);
    return *std::static_pointer_cast<sm::GlobalAtomics>(slot);
  }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
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
  sm::SmParams params_{};
  std::vector<std::unique_ptr<sm::Sm>> sms_;
};

// ---------------------------------------------------------------- L2 slices

class L2 : public Component {
 public:
  L2(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
    // The slices are reached through an interconnect bound to `sm`: the
    // crossbar (which asks the slices for room directly) or a network.
    bool network = false;
    for (const auto* b : ctx.netlist->bindings_to(inst.name, "sm")) {
      const NetlistInstance& from = *ctx.netlist->find(b->from.instance);
      const ComponentType& type = *ctx.registry->find(from.type);
      if (!type.network_nodes && from.type != "crossbar")
        throw ConfigError(
            fmt::format("{}: instance '{}' ({}) is bound to '{}.sm'; the L2 slices are reached through "
                        "an interconnect (a crossbar or a noc instance) between them",
                        b->where, from.name, from.type, inst.name));
      network = network || static_cast<bool>(type.network_nodes);
    }
    sim::Config::Scope scope(*ctx.config, inst.name, inst.params);
    l2_ = std::make_unique<gpu::L2System>(inst.name.c_str(), *ctx.config, network, *ctx.run, *ctx.stats);
    l2_->set_waveform(ctx.wave);
    l2_->set_timeline(ctx.timeline);
  }
  gpu::L2System& l2() { return *l2_; }
  void describe_device(gpu::DeviceInfo& info) const override { info.l2_bytes += l2_->capacity_bytes(); }
  TargetSocket* target_socket(const std::string& socket) override {
    return socket == "sm" ? &l2_->slice_socket : nullptr;
  }
  unsigned target_ports(const std::string&) const override { return l2_->slices(); }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
    if (socket != "mem") no_such_binding(*this, socket);
    for (unsigned s = 0; s < l2_->slices(); ++s) l2_->memory_socket(s).bind(*target.target_socket(target_socket_name));
  }
  std::vector<const sc_core::sc_object*> models() const override { return {l2_.get()}; }
  void summarize(RunSummary& sum) const override {
    const auto totals = l2_->sector_totals();
    sum.add("l2_hits", totals.hits);
    sum.add("l2_merged", totals.merged);
    sum.add("l2_misses", totals.misses);
    sum.line(summary_order::kL2, "l2", [](const RunSummary& t) {
      // A sector found already being fetched counts as a hit (its data is on
      // the way): the rate then does not depend on memory timing.
      const uint64_t merged = t.get("l2_merged"), found = t.get("l2_hits") + merged, misses = t.get("l2_misses");
      return fmt::format("  L2 sectors           {:>14}  ({:.1f}% hit, {} of them in flight; reads and atomics)\n",
                         found + misses, sim::hit_rate(found, misses, 100.0), merged);
    });
  }

 private:
  std::unique_ptr<gpu::L2System> l2_;
};

// ---------------------------------------------------------------- SM <-> L2 crossbar

class Crossbar : public Component {
 public:
  Crossbar(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
    unsigned requesters = 0;
    for (const auto* b : ctx.netlist->bindings_to(inst.name, "sm")) {
      const NetlistInstance& from = *ctx.netlist->find(b->from.instance);
      const ComponentType& type = *ctx.registry->find(from.type);
      requesters += type.endpoints ? type.endpoints(from, *ctx.config) : 1;
    }
    const auto out = ctx.netlist->bindings_from(inst.name, "out");
    L2& l2 = built_as<L2>(ctx, out.at(0)->to.instance, "the crossbar's L2 target");
    sim::Config::Scope scope(*ctx.config, inst.name, inst.params);
    xbar_ = std::make_unique<gpu::CrossbarInterconnect>(inst.name.c_str(), *ctx.config, l2.l2().clock(), requesters,
                                                        l2.l2().slices(), l2.l2(), *ctx.stats);
    xbar_->set_waveform(ctx.wave);
  }
  TargetSocket* target_socket(const std::string& socket) override {
    return socket == "sm" ? &xbar_->target_socket : nullptr;
  }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
    if (socket != "out") no_such_binding(*this, socket);
    for (unsigned s = 0; s < target.target_ports(target_socket_name); ++s)
      xbar_->initiator_socket.bind(*target.target_socket(target_socket_name));
  }
  std::vector<const sc_core::sc_object*> models() const override { return {xbar_.get()}; }

 private:
  std::unique_ptr<gpu::CrossbarInterconnect> xbar_;
};

unsigned l2_slices(const NetlistInstance& inst, const sim::Config& cfg) {
  return peek(cfg, inst, [](sim::Config& c) {
    return static_cast<unsigned>(c.get_int("l2.slices", 4, 1, 64, "L2 slices (address-interleaved)"));
  });
}

// ---------------------------------------------------------------- network-on-chip

class Noc : public Component {
 public:
  Noc(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
    const auto nodes = network_nodes(*ctx.netlist, *ctx.registry, *ctx.config, inst);
    std::vector<int> requesters, targets;
    for (const auto* b : ctx.netlist->bindings_to(inst.name, "in"))
      for (int n : nodes.at(b->from.instance)) requesters.push_back(n);
    // Targets: the L2 (its slices, by the L2's interleaving) or memories,
    // each with an address range.
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    L2* l2 = nullptr;
    for (const auto* b : ctx.netlist->bindings_from(inst.name, "out")) {
      for (int n : nodes.at(b->to.instance)) targets.push_back(n);
      const NetlistInstance& to = *ctx.netlist->find(b->to.instance);
      const ComponentType& type = *ctx.registry->find(to.type);
      if (type.address_range) {
        ranges.push_back(*type.address_range(to));
      } else {
        l2 = &built_as<L2>(ctx, b->to.instance, "the network's L2 target");
      }
    }
    if (l2 && !ranges.empty())
      throw ConfigError(
          fmt::format("{}: instance '{}' has the L2 and memories as targets; a network serves one or "
                      "the other",
                      inst.where, inst.name));
    noc::NocInterconnect::AddressMap map;
    if (l2) {
      map = [l2 = &l2->l2()](uint64_t addr) { return static_cast<int>(l2->slice_of(static_cast<uint32_t>(addr))); };
    } else {
      map = [ranges](uint64_t addr) {
        for (size_t t = 0; t < ranges.size(); ++t)
          if (addr >= ranges[t].first && addr - ranges[t].first < ranges[t].second) return static_cast<int>(t);
        return -1;  // answered with an address error
      };
    }
    sim::Config::Scope scope(*ctx.config, inst.name, inst.params);
    noc_ = std::make_unique<noc::NocInterconnect>(inst.name.c_str(), *ctx.config, requesters, targets, map, *ctx.stats,
                                                  ctx.run);
    noc_->set_waveform(ctx.wave);
  }
  TargetSocket* target_socket(const std::string& socket) override {
    return socket == "in" ? &noc_->target_socket : nullptr;
  }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
    if (socket != "out") no_such_binding(*this, socket);
    for (unsigned s = 0; s < target.target_ports(target_socket_name); ++s)
      noc_->initiator_socket.bind(*target.target_socket(target_socket_name));
  }
  std::vector<const sc_core::sc_object*> models() const override { return {noc_.get()}; }

 private:
  std::unique_ptr<noc::NocInterconnect> noc_;
};

// ---------------------------------------------------------------- memories

std::optional<std::pair<uint64_t, uint64_t>> memory_range(const NetlistInstance& inst);

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

std::optional<std::pair<uint64_t, uint64_t>> memory_range(const NetlistInstance& inst) {
  // Without base and size_mb a memory serves all of global memory.
  const uint64_t base = static_cast<uint64_t>(int_attribute(inst, "base", 0, 0xffffffffLL).value_or(kGlobalBase));
  const auto size_mb = int_attribute(inst, "size_mb", 1, 4096);
  const uint64_t size = size_mb ? static_cast<uint64_t>(*size_mb) << 20 : (1ULL << 32) - base;
  return std::make_pair(base, size);
}

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

// Routes each request to the memory whose address range holds it.
class Router : public Component {
 public:
  Router(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
    unsigned inputs = 0;
    for (const auto* b : ctx.netlist->bindings_to(inst.name, "in")) {
      const NetlistInstance& from = *ctx.netlist->find(b->from.instance);
      const ComponentType& type = *ctx.registry->find(from.type);
      inputs += type.endpoints ? type.endpoints(from, *ctx.config) : 1;
    }
    std::vector<AddressRouter::Range> ranges;
    for (const auto* b : ctx.netlist->bindings_from(inst.name, "out")) {
      const NetlistInstance& to = *ctx.netlist->find(b->to.instance);
      const ComponentType& type = *ctx.registry->find(to.type);
      const auto range = type.address_range ? type.address_range(to) : std::nullopt;
      if (!range)
        throw ConfigError(fmt::format("{}: instance '{}' routes by address, but instance '{}' has no address range",
                                      b->where, inst.name, to.name));
      ranges.push_back({range->first, range->second});
    }
    router_ = std::make_unique<AddressRouter>(inst.name.c_str(), inputs, ranges);
  }
  TargetSocket* target_socket(const std::string& socket) override { return socket == "in" ? &router_->in : nullptr; }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
    if (socket != "out") no_such_binding(*this, socket);
    for (unsigned i = 0; i < router_->inputs(); ++i) router_->out.bind(*target.target_socket(target_socket_name));
  }

 private:
  std::unique_ptr<AddressRouter> router_;
};

// ---------------------------------------------------------------- dispatcher, control cluster, MMIO

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
  ControlCores(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
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
    ctx.cluster = cluster_.get();
  }
  // irq: kernel completion interrupts the cores; their WFI sleeps while a kernel runs.
  std::vector<sc_core::sc_interface*> interfaces(const std::string& socket) override {
    if (socket == "irq") return {&irq_};
    return {};
  }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
    if (socket != "mmio") no_such_binding(*this, socket);
    cluster_->mmio_socket.bind(*target.target_socket(target_socket_name));
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
    void sleep_while(std::function<bool()> busy) override { cluster_->set_wfi_condition(std::move(busy)); }

   private:
    std::unique_ptr<cpu::ControlCluster>& cluster_;
  };
  std::unique_ptr<cpu::ControlCluster> cluster_;
  Irq irq_{cluster_};
};

class Mmio : public Component {
 public:
  Mmio(const NetlistInstance& inst, BuildContext& ctx) : Component(inst) {
    regs_ = std::make_unique<SystemRegs>(inst.name.c_str(), *ctx.cpu_clock, *ctx.run);
    regs_->set_echo(ctx.echo_console);
    regs_->on_roi(ctx.on_roi);
    ctx.regs = regs_.get();
  }
  TargetSocket* target_socket(const std::string& socket) override {
    return socket == "regs" ? &regs_->socket : nullptr;
  }
  void bind(const std::string& socket, Component& target, const std::string& target_socket_name) override {
    if (socket != "dispatcher") no_such_binding(*this, socket);
    regs_->dispatcher_socket.bind(*target.target_socket(target_socket_name));
  }

 private:
  std::unique_ptr<SystemRegs> regs_;
};

template <class T>
std::function<std::unique_ptr<Component>(const NetlistInstance&, BuildContext&)> make() {
  return [](const NetlistInstance& inst, BuildContext& ctx) { return std::make_unique<T>(inst, ctx); };
}

ComponentRegistry make_registry() {
  ComponentRegistry r;
  // The elaboration order follows the bindings (build_order()): bound_while_built
  // and built_first sockets say which instances are taken while another is built.
  // report_order: control cores, dispatcher, SMs first, then the memory side.
  {
    ComponentType t;
    t.name = "sm_cluster";
    t.description = "SMs sharing one parameter set (count: SMs, default gpu.num_sms); SMs are numbered across clusters";
    t.sockets = {{"mem", Kind::kInitiator, 1, true, false, "each SM's memory requests"},
                 {"launch", Kind::kTarget, 1, true, false, "thread blocks from the dispatcher"}};
    t.attributes = {{"count", "SMs in the cluster (default gpu.num_sms)"}, {"nodes", "network nodes of the SMs"}};
    t.report_order = 30;
    t.endpoints = sm_cluster_size;
    t.memory = [](const NetlistInstance& inst, const sim::Config& cfg) {
      // Per SM (measured with 4 to 256 SMs, docs/performance.md "Host
      // memory"): 620 KiB of model, its shared memory, and the L1's tags
      // and state, an eighth of its capacity.
      return peek(cfg, inst, [&](sim::Config& c) {
        const auto p = sm::SmParams::from_config(c);
        const uint64_t l1 = static_cast<uint64_t>(c.get_int("l1.size_kb", 24, 1, 1024,
                                                            "Unified L1/texture cache per SM, KiB (all halves)"))
                            << 10;
        return MemoryEstimate{sm_cluster_size(inst, cfg) * ((620ull << 10) + p.shared_bytes + l1 / 8),
                              "count or gpu.num_sms, sm.shared_bytes, l1.size_kb"};
      });
    };
    t.factory = make<SmCluster>();
    r.add(std::move(t));
  }
  {
    ComponentType t;
    t.name = "l2";
    t.description = "address-interleaved L2 slices (l2.*), reached through a crossbar or a network bound to sm";
    t.sockets = {{"sm", Kind::kTarget, 1, true, false, "the interconnect in front (one binding per slice)"},
                 {"mem", Kind::kInitiator, 1, true, false, "each slice's memory port"}};
    t.sockets[0].built_first = true;  // the crossbar and a network take its slices and interleaving
    t.attributes = {{"nodes", "network nodes of the slices"}};
    t.report_order = 50;
    t.endpoints = l2_slices;
    t.memory = [](const NetlistInstance& inst, const sim::Config& cfg) {
      // Tags and line state: an eighth of the capacity (measured to 1 GiB).
      return peek(cfg, inst, [](sim::Config& c) {
        const uint64_t bytes =
            static_cast<uint64_t>(c.get_int("l2.size_kb", 2048, 1, 1 << 20, "L2 capacity, KiB (all slices)")) << 10;
        return MemoryEstimate{bytes / 8, "l2.size_kb"};
      });
    };
    t.factory = make<L2>();
    r.add(std::move(t));
  }
  {
    ComponentType t;
    t.name = "crossbar";
    t.description = "the SM <-> L2 crossbar (xbar.*): a bandwidth and a latency per port, each direction its own";
    t.sockets = {{"sm", Kind::kTarget, 0, true, false, "the SMs' memory requests, one port each"},
                 {"out", Kind::kInitiator, 1, true, false, "the L2 (one port per slice)"}};
    t.report_order = 40;
    t.factory = make<Crossbar>();
    r.add(std::move(t));
  }
  {
    ComponentType t;
    t.name = "noc";
    t.description =
        "network-on-chip (noc.*) from requesters (in: SMs, or L2 slices) to targets (out: the L2 slices by its "
        "interleaving, or memories by their address ranges)";
    t.sockets = {{"in", Kind::kTarget, 0, true, true, "requesters, one node each"},
                 {"out", Kind::kInitiator, 0, true, true, "the L2 (one node per slice) or memories (one node each)"}};
    t.report_order = 40;
    t.size_parameters = "noc.k x noc.m";
    t.network_nodes = [](const NetlistInstance& inst, const sim::Config& cfg) {
      return peek(cfg, inst, [](sim::Config& c) { return noc::NocParams::from_config(c).nodes(); });
    };
    t.factory = make<Noc>();
    r.add(std::move(t));
  }
  {
    ComponentType t;
    t.name = "fixed_memory";
    t.description = "fixed-latency global memory (memory.latency, memory.bytes_per_cycle)";
    t.sockets = {{"port", Kind::kTarget, 0, true, false, "requests from the L2 slices"}};
    t.report_order = 60;
    t.address_range = memory_range;
    t.factory = make<FixedMemory>();
    r.add(std::move(t));
  }
  {
    ComponentType t;
    t.name = "hbm_stack";
    t.description = "an HBM stack (dram.*) serving [base, base + size_mb MiB) of global memory";
    t.sockets = {
        {"port", Kind::kTarget, 0, true, false, "requests from the L2 slices, a network or an address router"}};
    t.attributes = {{"base", "first address served (default 0x80000000)"},
                    {"size_mb", "MiB served (default: to the end of the address space)"},
                    {"nodes", "its node on a memory network"}};
    t.report_order = 60;
    t.address_range = memory_range;
    t.factory = make<HbmStack>();
    r.add(std::move(t));
  }
  {
    ComponentType t;
    t.name = "address_router";
    t.description =
        "routes memory requests to the memories bound to out by their address ranges (base, size_mb); "
        "adds no time";
    t.sockets = {{"in", Kind::kTarget, 0, true, false, "requests from the L2 slices"},
                 {"out", Kind::kInitiator, 0, true, false, "the memories, each with an address range"}};
    t.report_order = 60;
    t.factory = make<Router>();
    r.add(std::move(t));
  }
  {
    ComponentType t;
    t.name = "dispatcher";
    t.description = "the block dispatcher: places thread blocks of launched kernels on the SMs";
    t.sockets = {{"sms", Kind::kInitiator, 0, true, false, "the SM clusters it places blocks on"},
                 {"irq", Kind::kInitiator, 1, true, false, "kernel-done interrupt to the control cores"},
                 {"regs", Kind::kTarget, 1, true, false, "LAUNCH/STATUS registers from the MMIO block"}};
    t.sockets[0].bound_while_built = true;  // the SMs are built first
    t.report_order = 20;
    t.factory = make<BlockDispatcher>();
    r.add(std::move(t));
  }
  {
    ComponentType t;
    t.name = "control_cluster";
    t.description = "coherent RISC-V control cores on a snooping bus (cluster.*)";
    t.sockets = {{"mmio", Kind::kInitiator, 1, true, false, "MMIO accesses"},
                 {"irq", Kind::kTarget, 1, true, false, "interrupt from the dispatcher"}};
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
    r.add(std::move(t));
  }
  {
    ComponentType t;
    t.name = "mmio";
    t.description = "the MMIO block at 0x1000_0000: console, exit, ROI and the dispatcher's registers";
    t.sockets = {{"regs", Kind::kTarget, 1, true, false, "accesses from the control cores"},
                 {"dispatcher", Kind::kInitiator, 1, true, false, "the dispatcher's registers"}};
    t.report_order = 70;
    t.factory = make<Mmio>();
    r.add(std::move(t));
  }
  return r;
}

}  // namespace

const ComponentRegistry& builtin_components() {
  static const ComponentRegistry registry = make_registry();
  return registry;
}

}  // namespace tessera::platform
