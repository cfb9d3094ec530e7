// The `l2` component type: the address-interleaved L2 slices.
#include <fmt/format.h>

#include <memory>

#include "gpu/dispatcher.h"
#include "gpu/l2_system.h"
#include "platforms/components/common.h"
#include "sim/hit_rate.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

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
        throw sim::ConfigError(
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
  void describe_device(gpu::DeviceInfo& info) const override { info.l2_bytes += l2_->capacity_bytes(); }
  TargetSocket* target_socket(const std::string& socket) override {
    return socket == "sm" ? &l2_->slice_socket : nullptr;
  }
  unsigned target_ports(const std::string&) const override { return l2_->slices(); }
  // What the interconnect in front takes while it is built: the slices'
  // count, clock, interleaving and room (gpu::CrossbarTargets).
  std::vector<sc_core::sc_interface*> interfaces(const std::string& socket) override {
    if (socket != "sm") return {};
    return {static_cast<gpu::CrossbarTargets*>(l2_.get())};
  }
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

unsigned l2_slices(const NetlistInstance& inst, const sim::Config& cfg) {
  return peek(cfg, inst, [](sim::Config& c) {
    return static_cast<unsigned>(c.get_int("l2.slices", 4, 1, 64, "L2 slices (address-interleaved)"));
  });
}

ComponentType describe() {
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
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
