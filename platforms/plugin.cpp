#include "platforms/plugin.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "platforms/component_registry.h"
#include "platforms/plugin_api.h"
#include "sim/config.h"

namespace tessera::platform {

namespace {
std::vector<std::string>& loaded() {
  static std::vector<std::string> list;
  return list;
}
}  // namespace

const char* plugin_abi() { return TESSERA_PLUGIN_ABI; }

const std::vector<std::string>& loaded_plugins() { return loaded(); }

void load_plugin(const std::string& path, const std::string& who) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path canonical = fs::canonical(path, ec);
  if (ec || !fs::is_regular_file(canonical))
    throw sim::ConfigError(fmt::format("{}: plugin '{}' is not a file", who, path));
  for (const std::string& p : loaded())
    if (p == canonical.string()) return;
  // Its static initialisers run here: the registrations are queued, and
  // taken into the registry below.
  void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw sim::ConfigError(fmt::format("{}: cannot load plugin '{}': {}", who, path, dlerror()));
  using AbiFn = const char* (*)();
  const auto abi = reinterpret_cast<AbiFn>(dlsym(handle, "tessera_plugin_abi"));
  if (!abi)
    throw sim::ConfigError(fmt::format(
        "{}: '{}' is not a Tessera plugin (it has no tessera_plugin_abi: one source file must say TESSERA_PLUGIN())",
        who, path));
  if (std::string(abi()) != plugin_abi())
    throw sim::ConfigError(
        fmt::format("{}: plugin '{}' was built for another Tessera ({}; this one is {}): rebuild "
                    "it against this build (find_package(Tessera))",
                    who, path, abi(), plugin_abi()));
  loaded().push_back(canonical.string());
  try {
    builtin_components();  // takes the plugin's component types
  } catch (const std::logic_error& e) {
    throw sim::ConfigError(fmt::format("{}: plugin '{}': {}", who, path, e.what()));
  }
}

}  // namespace tessera::platform
