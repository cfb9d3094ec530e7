#include "platforms/components/common.h"

#include "cpu/hart.h"

#include <stdexcept>
#include <vector>

namespace tessera::platform {

namespace {
// Constructed on first use: registrations run during static initialisation,
// in an order the language leaves open (the registry is keyed by name, so
// the order does not matter).
std::vector<ComponentType (*)()>& registrations() {
  static std::vector<ComponentType (*)()> list;
  return list;
}
}  // namespace

ComponentRegistration::ComponentRegistration(ComponentType (*describe)()) { registrations().push_back(describe); }

const ComponentRegistry& builtin_components() {
  // Tessera's types at the first call; a plugin's when it has been loaded
  // (its registrations run in dlopen, platforms/plugin.h).
  static ComponentRegistry registry;
  static size_t taken = 0;
  for (auto& list = registrations(); taken < list.size();) registry.add(list[taken++]());
  return registry;
}

void no_such_binding(const Component& c, const std::string& socket) {
  throw std::logic_error(fmt::format("instance '{}': socket '{}' cannot be bound here", c.name(), socket));
}

std::optional<int64_t> int_attribute(const NetlistInstance& inst, const std::string& key, int64_t lo, int64_t hi) {
  const auto it = inst.attributes.find(key);
  if (it == inst.attributes.end()) return std::nullopt;
  const auto v = sim::parse_integer(it->second);
  if (!v || *v < lo || *v > hi)
    throw sim::ConfigError(fmt::format("{}: instance '{}': {} '{}' is not an integer in [{}, {}]",
                                       inst.attribute_where.at(key), inst.name, key, it->second, lo, hi));
  return v;
}

std::optional<std::pair<uint64_t, uint64_t>> memory_range(const NetlistInstance& inst) {
  const uint64_t base = static_cast<uint64_t>(int_attribute(inst, "base", 0, 0xffffffffLL).value_or(kGlobalBase));
  const auto size_mb = int_attribute(inst, "size_mb", 1, 4096);
  const uint64_t size = size_mb ? static_cast<uint64_t>(*size_mb) << 20 : (1ULL << 32) - base;
  return std::make_pair(base, size);
}

MmioWindows::MmioWindows(const sc_core::sc_module_name& name) : sc_module(name) {
  in.register_b_transport(this, &MmioWindows::b_transport);
}

void MmioWindows::add(const ComponentRegistry& registry, Component& target, const std::string& target_socket,
                      const std::string& who) {
  const ComponentType& type = *registry.find(target.instance().type);
  const auto range = type.address_range ? type.address_range(target.instance()) : std::nullopt;
  if (!range || range->first < cpu::kMmioBase || range->first + range->second > cpu::kMmioBase + cpu::kMmioSize)
    throw sim::ConfigError(
        fmt::format("{}: instance '{}' ({}) has no register window in the MMIO region [0x{:08x}, "
                    "0x{:08x}) for {}",
                    target.instance().where, target.name(), target.instance().type, cpu::kMmioBase,
                    cpu::kMmioBase + cpu::kMmioSize, who));
  windows_.emplace_back(static_cast<uint32_t>(range->first - cpu::kMmioBase), static_cast<uint32_t>(range->second));
  out.bind(*target.target_socket(target_socket));
}

bool MmioWindows::maps(uint32_t offset) const {
  for (const auto& [base, size] : windows_)
    if (offset - base < size) return true;
  return false;
}

void MmioWindows::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const auto offset = static_cast<uint32_t>(gp.get_address());
  for (size_t i = 0; i < windows_.size(); ++i) {
    if (offset - windows_[i].first >= windows_[i].second) continue;
    gp.set_address(offset - windows_[i].first);
    out[static_cast<int>(i)]->b_transport(gp, delay);
    gp.set_address(offset);
    return;
  }
  gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);  // the access faults
}

}  // namespace tessera::platform
