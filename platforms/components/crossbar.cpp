// The `crossbar` component type: the SM <-> L2 crossbar.
#include <fmt/format.h>

#include "gpu/crossbar_interconnect.h"
#include "platforms/components/common.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

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
    gpu::CrossbarTargets& l2 = offered_at<gpu::CrossbarTargets>(ctx, *out.at(0), "the crossbar's L2 target");
    sim::Config::Scope scope(*ctx.config, inst.name, inst.params);
    xbar_ = std::make_unique<gpu::CrossbarInterconnect>(inst.name.c_str(), *ctx.config, l2.targets_clock(), requesters,
                                                        l2.targets(), l2, *ctx.stats);
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

ComponentType describe() {
  ComponentType t;
  t.name = "crossbar";
  t.description = "the SM <-> L2 crossbar (xbar.*): a bandwidth and a latency per port, each direction its own";
  t.sockets = {{"sm", Kind::kTarget, 0, true, false, "the SMs' memory requests, one port each"},
               {"out", Kind::kInitiator, 1, true, false, "the L2 (one port per slice)"}};
  t.report_order = 40;
  t.factory = make<Crossbar>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
