// The `l2` component's class, which the crossbar and the network take
// their slices and interleaving from (built_as<L2>).
#pragma once

#include <fmt/format.h>

#include <memory>

#include "gpu/dispatcher.h"
#include "gpu/l2_system.h"
#include "platforms/components/common.h"
#include "sim/hit_rate.h"

namespace tessera::platform {

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

}  // namespace tessera::platform
