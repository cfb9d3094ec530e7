// Configuration harness: the input is a netlist (YAML text), optionally
// followed by NUL-separated `--set` assignments. The netlist is loaded the
// way `tessera run` loads a platform file (load_yaml_file), or with
// load_yaml_string when the first byte is odd; then the assignments are
// applied, a handful of parameters declared the way the models declare
// them, and check_all_used runs. A file's instances: and bindings: are
// parsed and validated against a small registry of the harness's own (a
// requester, a memory with an address range, a network). A ConfigError is
// the only acceptable failure; a value that is returned must be in its
// range.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "platforms/component_registry.h"
#include "platforms/netlist.h"
#include "sim/config.h"

namespace {

using tessera::fuzz::check;
using tessera::sim::Config;
using tessera::sim::ConfigError;

void declare_like_models(Config& cfg) {
  const int64_t sms = cfg.get_int("gpu.num_sms", 1, 1, 256, "Streaming multiprocessors");
  check(sms >= 1 && sms <= 256, "get_int returned a value outside its range");
  const int64_t seed = cfg.get_int("noc.seed", 1, 0, std::numeric_limits<int64_t>::max(), "Random seed");
  check(seed >= 0, "get_int returned a value outside its range");
  const int64_t lat = cfg.get_int("memory.latency", 200, -5, 100000, "Fixed global memory latency, cycles");
  check(lat >= -5 && lat <= 100000, "get_int returned a value outside its range");
  const double mhz = cfg.get_float("clock.sm_mhz", 1000.0, 1.0, 100000.0, "SM clock, MHz");
  check(std::isfinite(mhz) && mhz >= 1.0 && mhz <= 100000.0, "get_float returned a value outside its range");
  const double rate = cfg.get_float("noc.rate", 0.1, 0.0, 1.0, "Offered load");
  check(rate >= 0.0 && rate <= 1.0, "get_float returned a value outside its range");
  cfg.get_bool("sm.l1_cache_global", false, "Cache global loads in L1");
  cfg.get_string("noc.trace", "", "Trace file");
  const std::string sched = cfg.get_enum("sm.scheduler", "gto", {"lrr", "gto", "two_level"}, "Warp scheduler");
  check(sched == "lrr" || sched == "gto" || sched == "two_level", "get_enum returned a value outside its choices");
  cfg.get_enum("memory.model", "fixed", {"fixed", "hbm"}, "Global memory timing");
  cfg.check_all_used();
  for (const auto& [key, spec] : cfg.specs()) check(spec.key == key, "ParamSpec key differs from its map key");
}

const tessera::platform::ComponentRegistry& registry() {
  using namespace tessera::platform;
  static const ComponentRegistry r = [] {
    ComponentRegistry reg;
    ComponentType cpu;
    cpu.name = "sm_cluster";
    cpu.sockets = {{"mem", SocketSpec::Kind::kInitiator, 1, true, false, ""}};
    cpu.attributes = {{"count", ""}, {"nodes", ""}};
    cpu.endpoints = [](const NetlistInstance& i, const Config&) -> unsigned {
      const auto it = i.attributes.find("count");
      const auto n = it == i.attributes.end() ? std::optional<int64_t>(1) : tessera::sim::parse_integer(it->second);
      return n && *n >= 1 && *n <= 256 ? static_cast<unsigned>(*n) : 1;
    };
    reg.add(cpu);
    ComponentType mem;
    mem.name = "hbm_stack";
    mem.sockets = {{"port", SocketSpec::Kind::kTarget, 0, true, false, ""}};
    mem.attributes = {{"base", ""}, {"size_mb", ""}, {"nodes", ""}};
    mem.address_range = [](const NetlistInstance& i) -> std::optional<std::pair<uint64_t, uint64_t>> {
      const auto it = i.attributes.find("base");
      const auto base = it == i.attributes.end() ? std::optional<int64_t>(0) : tessera::sim::parse_integer(it->second);
      if (!base || *base < 0) return std::nullopt;
      return std::make_pair(static_cast<uint64_t>(*base), uint64_t{1} << 20);
    };
    reg.add(mem);
    ComponentType net;
    net.name = "noc";
    net.sockets = {{"in", SocketSpec::Kind::kTarget, 0, true, true, ""},
                   {"out", SocketSpec::Kind::kInitiator, 0, true, true, ""}};
    net.network_nodes = [](const NetlistInstance&, const Config&) { return 8; };
    reg.add(net);
    return reg;
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string yaml = input.substr(0, nul);
  std::vector<std::string> sets;
  for (size_t pos = nul; pos != std::string::npos && sets.size() < 8;) {
    const size_t next = input.find('\0', pos + 1);
    sets.push_back(input.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1));
    pos = next;
  }
  static tessera::fuzz::MemFile file("fuzz.yaml");
  Config cfg;
  try {
    if (size > 0 && (data[0] & 1) != 0) {
      cfg.load_yaml_string(yaml, "fuzz.yaml");
    } else {
      file.assign(reinterpret_cast<const uint8_t*>(yaml.data()), yaml.size());
      cfg.load_yaml_file(file.path());
    }
    for (const std::string& s : sets) cfg.set_override(s);
    declare_like_models(cfg);
    if (!cfg.netlist_origin().empty()) {
      const tessera::platform::Netlist net = tessera::platform::parse_netlist(cfg.netlist_text(), cfg.netlist_origin());
      tessera::platform::validate_netlist(net, registry(), cfg);
      for (const auto& inst : net.instances) check(!inst.type.empty(), "an instance without a type was accepted");
    }
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    check(!what.empty(), "empty ConfigError message");
  }
  return 0;
}
