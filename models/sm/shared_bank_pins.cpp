#include "sm/shared_bank_pins.h"

#include <fmt/format.h>

#include "rtl/common/impl_registry.h"
#include "sim/config.h"

namespace tessera::sm {

namespace {

// What a run asks of the Verilated unit's parameters.
std::vector<rtl::ParamWant> wanted_params(const SmParams& p) {
  return {{"BANKS", "sm.shared_banks", std::to_string(p.shared_banks), {}},
          {"SHARED_BYTES", "sm.shared_bytes", std::to_string(p.shared_bytes), {}},
          {"ATOMIC_CYCLES", "sm.shared_atomic_cycles", std::to_string(p.shared_atomic_cycles), {}}};
}

const rtl::ImplEntry& selected(const SmParams& p) {
  return rtl::select_impl(kSharedBankKind, "sm.shared_impl", {p.shared_impl, p.shared_impl_name}, wanted_params(p));
}

}  // namespace

void check_shared_rtl_params(const SmParams& p) {
  const std::string mode = "sm.shared_impl=" + rtl::ImplChoice{p.shared_impl, p.shared_impl_name}.text();
  auto fail = [&](const std::string& key, const std::string& got, const std::string& supported) {
    throw sim::ConfigError(
        fmt::format("{}: {} is not supported with {} (the RTL bank unit is built for {})", key, got, mode, supported));
  };
  if (p.shared_bank_bytes != 4) fail("sm.shared_bank_bytes", std::to_string(p.shared_bank_bytes), "4");
  // The response comes after the last pass; the register is written then and
  // must not be readable earlier.
  if (p.shared_latency < 2) fail("sm.shared_latency", std::to_string(p.shared_latency), "2 or more");
  if (p.shared_atomic_latency < 3)
    fail("sm.shared_atomic_latency", std::to_string(p.shared_atomic_latency), "3 or more");
  // Banks, size and atomic cycles: a registered implementation of that name
  // must have been Verilated with them.
  selected(p);
}

std::unique_ptr<SharedBankPins> make_shared_bank_pins(const SmParams& p, SharedBankUnit& model,
                                                      const std::string& instance) {
  check_shared_rtl_params(p);
  const auto make = reinterpret_cast<SharedBankFactory>(selected(p).factory);
  return make(p, model, instance);
}

}  // namespace tessera::sm
