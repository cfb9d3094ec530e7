// Netlists drawn from the registry of Tessera's models. The input's bytes
// pick a platform file's netlist (sm1, chip, chip52, chip_hbm, chip_noc,
// chip_hetero) and up to 12 mutations of it: an instance added (of a type
// from builtin_components()), removed or retyped; an attribute of its type
// set; a parameter set for one instance or for the platform (every
// parameter the default chip's models declare, with its default, the ends
// of its range, values just past them and its choices, or a value of the
// wrong kind); a binding added from an initiator socket to a target socket,
// or removed. Names, sockets and values are mostly real, sometimes not. The
// platform file must either be refused with a sim::ConfigError or pass
// everything that runs before a model is built (parse_netlist,
// validate_netlist, check_host_memory, build_order, network_nodes); one that
// passes is then built in a child process, as `tessera config --list`
// builds one, which must end the same way. A crash, any other exception, a
// sanitizer report or a hang is a finding.
//
// Each valid netlist is built in a child process (child_run.h); the
// parameters are collected once at start-up from a child that builds the
// default chip.
//
// TESSERA_FUZZ_VERBOSE=1 in the environment prints each input's netlist and
// what became of it.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <systemc>
#include <vector>

#include "child_run.h"
#include "fuzz_util.h"
#include "platforms/component_registry.h"
#include "platforms/platform.h"
#include "sim/config.h"

namespace {

using namespace tessera;
using fuzz::check;

// A model a valid netlist may build in the child: small enough that its
// elaboration under the sanitizers takes well under libFuzzer's -timeout.
constexpr uint64_t kBuildLimitMib = 64;

struct Param {
  std::string key;
  std::vector<std::string> values;  // the default, the range's ends, just past them, its choices
};

std::vector<Param> params;
bool verbose = false;

// Values that are wrong for almost every key or attribute: YAML structure,
// numbers out of every range, text.
const std::vector<std::string> kOddValues = {
    "0",         "-1",    "1",    "2",      "64",   "257",    "4096",   "0x80000000", "18446744073709551616",
    "1e99",      ".nan",  "true", "abc",    "\"\"", "[1, 2]", "{a: 1}", "0-3",        "3-0",
    "0-1000000", "1,2,2", "~",    "'x: y'", "-0x10"};

// The values the parameter declarations suggest: "[lo, hi]" gives lo, hi and
// one past each; "a|b|c" gives each choice.
std::vector<std::string> values_of(const sim::ParamSpec& spec) {
  std::vector<std::string> v{spec.default_value};
  if (spec.range.size() > 2 && spec.range.front() == '[') {
    const std::string inner = spec.range.substr(1, spec.range.size() - 2);
    const size_t comma = inner.find(',');
    if (comma != std::string::npos) {
      const std::string lo = inner.substr(0, comma), hi = inner.substr(comma + 2);
      v.insert(v.end(), {lo, hi, "-" + lo, hi + "1"});
    }
  } else {
    for (size_t start = 0; start <= spec.range.size();) {
      const size_t bar = std::min(spec.range.find('|', start), spec.range.size());
      v.push_back(spec.range.substr(start, bar - start));
      start = bar + 1;
    }
  }
  return v;
}

// Every parameter the default chip's models declare, from a child that
// builds it (SystemC elaborates once per process) and writes them to a pipe
// as "key\tvalue\tvalue...\n".
void collect_params() {
  int fds[2];
  check(pipe(fds) == 0, "pipe failed");
  const pid_t child = fork();
  check(child >= 0, "fork failed");
  if (child == 0) {
    close(fds[0]);
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    sim::Config cfg;
    cfg.load_yaml_file(TESSERA_FUZZ_PLATFORM);
    platform::RunOptions options;
    options.echo_console = false;
    platform::Platform chip(cfg, "", options);
    std::string out;
    for (const auto& [key, spec] : cfg.specs()) {
      out += key;
      for (const std::string& value : values_of(spec)) out += "\t" + value;
      out += "\n";
    }
    for (size_t done = 0; done < out.size();) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) _exit(1);
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    check(n > 0, "reading the parameters from the child failed");
    text.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int wstatus = 0;
  while (waitpid(child, &wstatus, 0) < 0) check(errno == EINTR, "waitpid failed");
  check(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0, "building the default chip to list its parameters failed");
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    Param p;
    for (size_t field = start; field < end;) {
      const size_t tab = std::min(text.find('\t', field), end);
      (p.key.empty() ? p.key : p.values.emplace_back()) = text.substr(field, tab - field);
      field = tab + 1;
    }
    params.push_back(std::move(p));
    start = end + 1;
  }
  check(params.size() > 50, "the default chip declared fewer than 50 parameters");
}

template <class T>
const T& pick(FuzzedDataProvider& in, const std::vector<T>& from) {
  return from[in.ConsumeIntegralInRange<size_t>(0, from.size() - 1)];
}

// The netlists the mutations start from: every platform file's (platforms/
// *.yaml; a file without instances: has the default chip's).
std::vector<platform::Netlist> bases;

void collect_bases() {
  for (const char* name : {"sm1", "chip", "chip52", "chip_hbm", "chip_noc", "chip_hetero"}) {
    sim::Config cfg;
    cfg.load_yaml_file(std::string(TESSERA_FUZZ_PLATFORM_DIR) + "/" + name + ".yaml");
    bases.push_back(platform::platform_netlist(cfg));
  }
}

// A value for an attribute or parameter: mostly one it could take, and
// with data left over (FuzzedDataProvider gives 0 when it runs out) the
// plausible ones come first.
std::string value_for(FuzzedDataProvider& in, const std::vector<std::string>& plausible) {
  if (!plausible.empty() && in.ConsumeIntegralInRange(0, 3) != 3) return pick(in, plausible);
  return pick(in, kOddValues);
}

// The platform file the input describes: a platform's netlist, then up to
// 12 mutations (an instance added, removed or retyped, an attribute or a
// parameter of an instance or of the platform set, a binding added or
// removed), each drawing names, sockets and values from the registry and
// the models' parameters.
std::string netlist_text(FuzzedDataProvider& in) {
  const auto& types = platform::builtin_components().types();
  std::vector<const platform::ComponentType*> type_list;
  for (const auto& [name, type] : types) type_list.push_back(&type);
  static const std::vector<std::string> plausible_attributes = {"1", "2",   "4",          "0-3",        "2-5", "0",
                                                                "7", "128", "0x80000000", "0x88000000", "256"};
  const auto type_of = [&](const std::string& name) -> const platform::ComponentType* {
    return types.count(name) ? &types.at(name) : nullptr;
  };

  platform::Netlist net = pick(in, bases);
  std::vector<std::pair<std::string, std::string>> top;  // platform-wide parameters
  for (int n = in.ConsumeIntegralInRange(0, 12); n > 0 && in.remaining_bytes() > 0; --n) {
    const int op = in.ConsumeIntegralInRange(0, 8);
    const size_t at = net.instances.empty() ? 0 : in.ConsumeIntegralInRange<size_t>(0, net.instances.size() - 1);
    platform::NetlistInstance* inst = net.instances.empty() ? nullptr : &net.instances[at];
    if (op == 0 || !inst) {  // an instance more
      platform::NetlistInstance added;
      added.name = in.ConsumeIntegralInRange(0, 15) == 15 ? pick(in, std::vector<std::string>{"sms", "x.y", "-", "a b"})
                                                          : "n" + std::to_string(net.instances.size());
      added.type = in.ConsumeIntegralInRange(0, 15) == 15 ? "nosuch" : pick(in, type_list)->name;
      net.instances.push_back(added);
    } else if (op == 1) {
      net.instances.erase(net.instances.begin() + static_cast<long>(at));
    } else if (op == 2) {
      inst->type = pick(in, type_list)->name;
    } else if (op == 3) {
      const platform::ComponentType* type = type_of(inst->type);
      const std::string attr = type && !type->attributes.empty() && in.ConsumeIntegralInRange(0, 7) != 7
                                   ? pick(in, type->attributes).name
                                   : "colour";
      inst->attributes[attr] = value_for(in, plausible_attributes);
    } else if (op == 4 || op == 5) {
      const Param& p = pick(in, params);
      const std::string value = value_for(in, p.values);
      if (op == 4)
        inst->params[p.key] = {value, ""};
      else
        top.emplace_back(p.key, value);
    } else if (op == 6 || op == 7) {  // a binding more, from an initiator to a target socket
      const auto end = [&](bool from) {
        const platform::NetlistInstance& i = pick(in, net.instances);
        const platform::ComponentType* type = type_of(i.type);
        std::vector<std::string> sockets;
        if (type)
          for (const auto& sock : type->sockets)
            if ((sock.kind == platform::SocketSpec::Kind::kInitiator) == from) sockets.push_back(sock.name);
        const bool odd = sockets.empty() || in.ConsumeIntegralInRange(0, 15) == 15;
        return platform::SocketRef{i.name, odd ? std::string("nosuch") : pick(in, sockets)};
      };
      const platform::SocketRef from = end(true), to = end(false);
      net.bindings.push_back({from, to, ""});
    } else if (!net.bindings.empty()) {
      net.bindings.erase(net.bindings.begin() +
                         static_cast<long>(in.ConsumeIntegralInRange<size_t>(0, net.bindings.size() - 1)));
    }
  }

  std::string text = "platform: fuzz\n";
  for (const auto& [key, value] : top) text += key + ": " + value + "\n";
  text += "instances:\n";
  for (const auto& i : net.instances) {
    text += "  " + i.name + ": {type: " + i.type;
    for (const auto& [key, value] : i.attributes) text += ", " + key + ": " + value;
    if (!i.params.empty()) {
      text += ", params: {";
      bool first = true;
      for (const auto& [key, value] : i.params) {
        text += (first ? "\"" : ", \"") + key + "\": " + value.first;
        first = false;
      }
      text += "}";
    }
    text += "}\n";
  }
  text += "bindings:\n";
  for (const auto& b : net.bindings) text += "  - " + b.from.text() + " -> " + b.to.text() + "\n";
  return text;
}

// Everything that runs before a model is built. False: refused.
bool validate(sim::Config& cfg) {
  try {
    const platform::ComponentRegistry& registry = platform::builtin_components();
    const platform::Netlist net = platform::platform_netlist(cfg);
    platform::validate_netlist(net, registry, cfg);
    platform::check_host_memory(net, registry, cfg, kBuildLimitMib << 20, "the harness's build limit");
    check(platform::build_order(net, registry).size() == net.instances.size(),
          "build_order lost or repeated an instance");
    for (const auto& inst : net.instances) {
      const platform::ComponentType* type = registry.find(inst.type);
      check(type != nullptr, "a validated netlist has an instance of an unknown type");
      if (type->network_nodes) platform::network_nodes(net, registry, cfg, inst);
    }
    return true;
  } catch (const sim::ConfigError& e) {
    check(std::strlen(e.what()) > 0, "a ConfigError without a message");
    if (verbose) std::fprintf(stderr, "fuzz_netlist: refused: %s\n", e.what());
    return false;
  }
}

// In the child: builds the model, as `tessera config --list` does.
void build(const std::string& path) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sim::Config cfg;
  try {
    cfg.load_yaml_file(path);
    platform::RunOptions options;
    options.echo_console = false;
    options.memory_limit_mb = kBuildLimitMib;
    platform::Platform chip(cfg, "", options);
    if (verbose) std::fprintf(stderr, "fuzz_netlist: built\n");
  } catch (const sim::ConfigError& e) {
    if (verbose) std::fprintf(stderr, "fuzz_netlist: refused while building: %s\n", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  verbose = std::getenv("TESSERA_FUZZ_VERBOSE") != nullptr;
  fuzz::init_child_runs();
  collect_params();
  collect_bases();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string text = netlist_text(in);
  if (verbose) std::fprintf(stderr, "fuzz_netlist: input\n%s", text.c_str());
  // Through a file, as `tessera run` reads a platform (a memfd path).
  static fuzz::MemFile file("fuzz_netlist.yaml");
  file.assign(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  sim::Config cfg;
  try {
    cfg.load_yaml_file(file.path());
  } catch (const sim::ConfigError& e) {
    if (verbose) std::fprintf(stderr, "fuzz_netlist: refused: %s\n", e.what());
    return 0;
  }
  if (!validate(cfg)) return 0;
  if (verbose) std::fprintf(stderr, "fuzz_netlist: valid; building it\n");

  fuzz::run_in_child([] { build(file.path()); }, "building the netlist");
  return 0;
}
