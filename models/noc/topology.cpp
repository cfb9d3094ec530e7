#include "noc/topology.h"

#include <fmt/format.h>

#include "noc/topology_dragonfly.h"
#include "noc/topology_fattree.h"
#include "noc/topology_flatfly.h"
#include "noc/topology_grid.h"
#include "sim/config.h"

namespace tessera::noc {

// Each topology registers itself from its own file; a topology added to the
// model adds its registration call here (docs/architecture.md, "Adding a
// topology"). Explicit calls, not static initialisers: the linker drops an
// object file of a static library that nothing references.
const std::vector<TopologyInfo>& topology_registry() {
  static const std::vector<TopologyInfo> registry = [] {
    std::vector<TopologyInfo> r;
    register_grid_topologies(r);
    register_fat_tree(r);
    register_flat_fly(r);
    register_dragonfly(r);
    return r;
  }();
  return registry;
}

const TopologyInfo& topology_info(const std::string& name) {
  std::string known;
  for (const TopologyInfo& t : topology_registry()) {
    if (t.name == name) return t;
    known += (known.empty() ? "" : "|") + t.name;
  }
  throw sim::ConfigError(fmt::format("noc.topology: '{}' is not a topology ({})", name, known));
}

std::unique_ptr<Topology> make_topology(const NocParams& p) { return topology_info(p.topology).make(p); }

}  // namespace tessera::noc
