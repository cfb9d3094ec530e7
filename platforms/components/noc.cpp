// The `noc` component type: the network-on-chip.
#include <fmt/format.h>

#include "gpu/crossbar_interconnect.h"
#include "noc/noc_interconnect.h"
#include "noc/noc_params.h"
#include "platforms/components/common.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

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
    const gpu::CrossbarTargets* l2 = nullptr;
    for (const auto* b : ctx.netlist->bindings_from(inst.name, "out")) {
      for (int n : nodes.at(b->to.instance)) targets.push_back(n);
      const NetlistInstance& to = *ctx.netlist->find(b->to.instance);
      const ComponentType& type = *ctx.registry->find(to.type);
      if (type.address_range) {
        ranges.push_back(*type.address_range(to));
      } else {
        l2 = &offered_at<gpu::CrossbarTargets>(ctx, *b, "the network's L2 target");
      }
    }
    if (l2 && !ranges.empty())
      throw ConfigError(
          fmt::format("{}: instance '{}' has the L2 and memories as targets; a network serves one or "
                      "the other",
                      inst.where, inst.name));
    noc::NocInterconnect::AddressMap map;
    if (l2) {
      map = [l2](uint64_t addr) { return static_cast<int>(l2->target_of(addr)); };
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

ComponentType describe() {
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
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
