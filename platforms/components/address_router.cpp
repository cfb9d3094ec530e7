// The `address_router` component type: routing memory requests by address range.
#include <fmt/format.h>

#include "platforms/address_router.h"
#include "platforms/components/common.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

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

ComponentType describe() {
  ComponentType t;
  t.name = "address_router";
  t.description =
      "routes memory requests to the memories bound to out by their address ranges (base, size_mb); "
      "adds no time";
  t.sockets = {{"in", Kind::kTarget, 0, true, false, "requests from the L2 slices"},
               {"out", Kind::kInitiator, 0, true, false, "the memories, each with an address range"}};
  t.report_order = 60;
  t.factory = make<Router>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
