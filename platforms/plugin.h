// Loading plugins (platforms/plugin_api.h, docs/plugins.md): shared
// libraries whose static initialisers register component types and RTL
// device reference models with this process.
#pragma once

#include <string>
#include <vector>

namespace tessera::platform {

// The ABI tag this binary was built with (TESSERA_PLUGIN_ABI).
const char* plugin_abi();

// Loads `path` (once per process; a second load of the same file is a
// no-op) and checks its ABI tag. `who` says where it was named
// ("--plugin", "x.yaml:3: plugins"). Throws sim::ConfigError when the file
// cannot be loaded (with the loader's reason), has no tessera_plugin_abi,
// was built for another Tessera, or registers a component type that
// exists already.
void load_plugin(const std::string& path, const std::string& who);

// The plugins loaded so far, in load order.
const std::vector<std::string>& loaded_plugins();

}  // namespace tessera::platform
