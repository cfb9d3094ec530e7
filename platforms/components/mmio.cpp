// The `mmio` component type: the MMIO block.
#include <fmt/format.h>

#include "cpu/hart.h"
#include "platforms/components/common.h"
#include "platforms/system_regs.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

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

ComponentType describe() {
  ComponentType t;
  t.name = "mmio";
  t.description = "the MMIO block at 0x1000_0000: console, exit, ROI and the dispatcher's registers";
  t.sockets = {{"regs", Kind::kTarget, 1, true, false, "accesses from the control cores"},
               {"dispatcher", Kind::kInitiator, 1, true, false, "the dispatcher's registers"}};
  t.report_order = 70;
  t.address_range = [](const NetlistInstance&) {
    return std::optional<std::pair<uint64_t, uint64_t>>({cpu::kMmioBase, cpu::kMmioSystemSize});
  };
  t.factory = make<Mmio>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
