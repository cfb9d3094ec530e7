// adder_regs: a C++ model as a component type of a plugin. Three 32-bit
// registers at the instance's `base` in the MMIO region: A (0x0) and B
// (0x4), and SUM (0x8, read only) = A + B. Firmware reaches it like any
// device (cluster.mmio -> NAME.regs).
#include <tlm_utils/simple_target_socket.h>

#include <cstring>

#include "platforms/components/common.h"

namespace {

using tessera::platform::BuildContext;
using tessera::platform::Component;
using tessera::platform::ComponentType;
using tessera::platform::NetlistInstance;
using tessera::platform::SocketSpec;

class AdderRegs : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<AdderRegs> regs{"regs"};
  explicit AdderRegs(const sc_core::sc_module_name& name) : sc_module(name) {
    regs.register_b_transport(this, &AdderRegs::access);
  }

 private:
  void access(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    const uint64_t offset = gp.get_address();
    if (gp.get_data_length() != 4 || offset > 8 || offset % 4 != 0 || (gp.is_write() && offset == 8)) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);  // the core faults
      return;
    }
    uint32_t* reg = offset == 0 ? &a_ : &b_;
    if (gp.is_write()) {
      std::memcpy(reg, gp.get_data_ptr(), 4);
    } else {
      const uint32_t value = offset == 8 ? a_ + b_ : *reg;
      std::memcpy(gp.get_data_ptr(), &value, 4);
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  uint32_t a_ = 0, b_ = 0;
};

class Adder : public Component {
 public:
  Adder(const NetlistInstance& inst, BuildContext&) : Component(inst), model_(inst.name.c_str()) {}
  tessera::platform::TargetSocket* target_socket(const std::string& socket) override {
    return socket == "regs" ? &model_.regs : nullptr;
  }
  void bind(const std::string& socket, Component&, const std::string&) override {
    tessera::platform::no_such_binding(*this, socket);
  }

 private:
  AdderRegs model_;
};

ComponentType describe() {
  ComponentType t;
  t.name = "adder_regs";
  t.description = "registers A (0x0), B (0x4) and SUM = A + B (0x8) at base (a plugin's C++ model)";
  t.sockets = {{"regs", SocketSpec::Kind::kTarget, 1, true, false, "the control cores' accesses (cluster.mmio)"}};
  t.attributes = {{"base", "address of the registers in the MMIO region"}};
  t.address_range = [](const NetlistInstance& inst) -> std::optional<std::pair<uint64_t, uint64_t>> {
    const auto base = tessera::platform::int_attribute(inst, "base", 0, UINT32_MAX);
    if (!base) return std::nullopt;
    return std::make_pair(static_cast<uint64_t>(*base), uint64_t{12});
  };
  t.factory = tessera::platform::make<Adder>();
  return t;
}

const tessera::platform::ComponentRegistration kRegistration(describe);

}  // namespace
