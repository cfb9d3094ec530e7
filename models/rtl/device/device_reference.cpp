#include "rtl/device/device_reference.h"

#include <map>
#include <stdexcept>

namespace tessera::rtl {

namespace {
std::map<std::string, DeviceReferenceFactory>& references() {
  static std::map<std::string, DeviceReferenceFactory> m;
  return m;
}
}  // namespace

DeviceReferenceRegistration::DeviceReferenceRegistration(std::string name, DeviceReferenceFactory factory) {
  if (!references().emplace(name, std::move(factory)).second)
    throw std::logic_error("RTL device reference '" + name + "' registered twice");
}

const DeviceReferenceFactory* find_device_reference(const std::string& name) {
  const auto it = references().find(name);
  return it == references().end() ? nullptr : &it->second;
}

std::vector<std::string> device_reference_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : references()) names.push_back(name);
  return names;
}

}  // namespace tessera::rtl
