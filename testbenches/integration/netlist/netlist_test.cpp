// Netlists through the real `tessera` binary: the heterogeneous platform
// runs a program with each cluster's own L1 and both HBM stacks serving;
// every kind of bad netlist ends with status 2 and a message that names the
// offending instance and its file:line; `tessera netlist --dot` prints the
// graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera_run.h"

using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::temp_path;

namespace {

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }
std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

// ---------------------------------------------------------------- chip_hetero

// Runs hetero_l1 on `path` and checks what does not depend on the memory path.
void check_hetero_l1(const std::string& path, const std::string& name) {
  const std::string stats = temp_path(name + ".json");
  const auto r = run_tessera({"run", path, fw("netlist_hetero_l1"), "--stats", stats, "-q"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_HAS(r.out, "PASS hetero_l1 (4 blocks)");
  const auto j = nlohmann::json::parse(read_file(stats));
  // The instance parameters reach the models: sm0, sm1 are `small`, sm2, sm3 `big`.
  const auto& params = j["config"]["parameters"];
  EXPECT_EQ(params["small:l1.size_kb"], "24");
  EXPECT_EQ(params["big:l1.size_kb"], "96");
  // One warp per SM (partition 0, so L1 half 0) sweeps the same 32 KiB
  // table 4 times: 32 KiB / 32 B = 1024 sectors per sweep, 4096 in all. A
  // 48 KiB half keeps the whole table after the first sweep: 1024 misses,
  // 3072 hits. A 12 KiB half holds under half of it, and LRU over a cyclic
  // sweep larger than the cache misses every time: 4096 misses.
  const auto& chip = j["chip"];
  for (const char* sm : {"sm0", "sm1"}) {
    EXPECT_EQ(chip[sm]["l1_half0"]["hit_sectors"], 0) << sm;
    EXPECT_EQ(chip[sm]["l1_half0"]["miss_sectors"], 4096) << sm;
  }
  for (const char* sm : {"sm2", "sm3"}) {
    EXPECT_EQ(chip[sm]["l1_half0"]["hit_sectors"], 3072) << sm;
    EXPECT_EQ(chip[sm]["l1_half0"]["miss_sectors"], 1024) << sm;
  }
  // The first stack [0x8000_0000, 0x8800_0000) serves the table once (the
  // L2 keeps it for the other SMs): 1024 sector reads, and one more for the
  // launch arguments on the host's stack. The second serves the 16 KiB
  // buffer at 0x8800_0000: 512 sector reads.
  EXPECT_EQ(chip["hbm0"]["dram"]["read_requests"], 1025);
  EXPECT_EQ(chip["hbm1"]["dram"]["read_requests"], 512);
  EXPECT_EQ(chip["hbm0"]["dram"]["address_errors"], 0);
  EXPECT_EQ(chip["hbm1"]["dram"]["address_errors"], 0);
}

// ---------------------------------------------------------------- bad netlists

// chip.yaml with `from` replaced by `to`, written to a file of its own.
std::string variant(const std::string& name, const std::string& from, const std::string& to,
                    const std::string& base = "chip") {
  std::string text = read_file(platform(base));
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  const std::string path = temp_path(name + ".yaml");
  std::ofstream(path) << text;
  return path;
}

// The 1-based line of `needle` in the file.
int line_of(const std::string& path, const std::string& needle) {
  const std::string text = read_file(path);
  const auto at = text.find(needle);
  return at == std::string::npos ? -1 : 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

void expect_config_error(const std::string& path, const std::vector<std::string>& parts) {
  const auto r = run_tessera({"run", path, fw("netlist_hetero_l1"), "-q"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_HAS(r.err, "tessera: error: ");
  for (const auto& part : parts) EXPECT_HAS(r.err, part);
}

TEST(BadNetlist, UnknownTypeNamesTheInstanceAndLine) {
  const std::string path =
      variant("unknown_type", "memory:     {type: fixed_memory}", "memory:     {type: fast_memory}");
  expect_config_error(path, {path + ":" + std::to_string(line_of(path, "fast_memory")),
                             "instance 'memory': unknown component type 'fast_memory'", "fixed_memory"});
}

TEST(BadNetlist, UnknownSocketListsTheInstancesSockets) {
  const std::string path = variant("unknown_socket", "- l2.mem -> memory.port", "- l2.mem -> memory.prt");
  expect_config_error(path, {path + ":" + std::to_string(line_of(path, "memory.prt")),
                             "instance 'memory' (fixed_memory) has no socket 'prt' (its sockets: port (target))"});
}

TEST(BadNetlist, UnboundSocketNamesTheInstance) {
  const std::string path = variant("unbound", "  - l2.mem -> memory.port\n", "");
  expect_config_error(path, {"instance 'l2' (l2): initiator socket 'mem'", "is not bound"});
}

TEST(BadNetlist, SocketBoundTwice) {
  const std::string path = variant("bound_twice", "  - mmio.dispatcher -> dispatcher.regs\n",
                                   "  - mmio.dispatcher -> dispatcher.regs\n  - mmio.dispatcher -> dispatcher.regs\n");
  expect_config_error(path, {"instance 'mmio': socket 'dispatcher' is bound 2 times but allows 1"});
}

TEST(BadNetlist, DuplicateInstanceName) {
  const std::string path = variant("duplicate", "  mmio:       {type: mmio}\n",
                                   "  mmio:       {type: mmio}\n  sms:        {type: sm_cluster}\n");
  expect_config_error(path, {"duplicate instance name 'sms'"});
}

TEST(BadNetlist, OverlappingAddressRanges) {
  // hbm1 starts inside hbm0's 128 MiB [0x8000_0000, 0x8800_0000).
  const std::string path =
      variant("overlap", "base: 0x88000000, size_mb: 128", "base: 0x87f00000, size_mb: 128", "chip_hetero");
  expect_config_error(path, {"instance 'hbm1': address range [0x87f00000, 0x8ff00000) overlaps instance 'hbm0' "
                             "[0x80000000, 0x88000000)"});
}

TEST(BadNetlist, EmptyInstancesIsNotTheDefaultChip) {
  const std::string text = read_file(platform("chip"));
  const std::string path = temp_path("empty_instances.yaml");
  std::ofstream(path) << text.substr(0, text.find("instances:\n")) << "instances: {}\n";
  expect_config_error(path, {path + ":" + std::to_string(line_of(path, "instances: {}")),
                             "'instances' is empty (leave it out for the default chip)"});
}

// The limit of 256 SMs holds for the whole chip, however many clusters
// share it: refused before any SM is built.
TEST(BadNetlist, ClustersOverTheChipsSmLimit) {
  const std::string path = variant("many_clusters", "  sms:        {type: sm_cluster}\n",
                                   "  sms:        {type: sm_cluster, count: 200}\n"
                                   "  more:       {type: sm_cluster, count: 100}\n");
  std::string text = read_file(path);
  for (const std::string binding : {"  - sms.mem -> xbar.sm\n", "  - dispatcher.sms -> sms.launch\n"}) {
    std::string more = binding;
    more.replace(more.find("sms."), 4, "more.");
    text.insert(text.find(binding) + binding.size(), more);
  }
  std::ofstream(path) << text;
  expect_config_error(path, {"the netlist's sm_cluster instances have 300 SMs in all (sms: 200, more: 100); a chip "
                             "has at most 256 (count, gpu.num_sms)"});
}

TEST(BadNetlist, NetworkTooSmallForItsEndpoints) {
  // 4 SMs and 4 L2 slices on a 2 x 2 mesh.
  const auto r = run_tessera({"run", platform("chip_noc"), fw("netlist_hetero_l1"), "--set", "noc.k=2", "-q"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_HAS(r.err, "instance 'noc' (network) has 4 nodes (noc.k x noc.m), too few for its endpoints");
}

// Found by fuzz_netlist: a network bound to itself, or to a network built
// after it, where its targets (the L2, or memories) belong, reached an
// instance not yet built (undefined behaviour). The dispatcher's launch
// port bound to what is not an SM cluster is refused by the port, naming
// the binding and both instances.
TEST(BadNetlist, AnInstanceNotBuiltBeforeItsUserCannotServeIt) {
  // chip_hetero's meshes made 4 x 4, so that the extra endpoint has a node.
  const auto with_binding = [](const std::string& name, const std::string& binding) {
    const std::string path =
        variant(name, "- memnoc.out -> hbm1.port", "- memnoc.out -> hbm1.port\n  - " + binding, "chip_hetero");
    std::string text = read_file(path);
    text.replace(text.find("  m: 2"), 6, "  m: 4");
    std::ofstream(path) << text;
    return path;
  };
  expect_config_error(with_binding("noc_to_itself", "noc.out -> noc.in"),
                      {"instance 'noc' (noc) cannot serve as the network's L2 target"});
  expect_config_error(with_binding("noc_to_memnoc", "noc.out -> memnoc.in"),
                      {"instance 'memnoc' (noc) cannot serve as the network's L2 target"});
  const std::string memory = variant("dispatcher_to_memory", "- mmio.dispatcher -> dispatcher.regs",
                                     "- mmio.dispatcher -> dispatcher.regs\n  - dispatcher.sms -> memory.port");
  expect_config_error(memory, {"binding 'dispatcher.sms -> memory.port': socket 'sms' of instance 'dispatcher' "
                               "(dispatcher) takes sm::BlockLaunchIf (an SM's launch port); instance 'memory' "
                               "(fixed_memory) offers none at 'port'"});
}

// Found by fuzz_netlist: vector.vlen=65536 passed the parameter's declared
// range, then the register file refused it with an internal error (status
// 70). The range is what the model holds.
TEST(BadNetlist, AVectorLengthTheModelCannotHoldIsAConfigurationError) {
  const auto r = run_tessera({"run", platform("chip"), fw("netlist_hetero_l1"), "-q", "--set", "vector.vlen=65536"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_HAS(r.err, "vector.vlen");
  EXPECT_HAS(r.err, "4096");
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

TEST(BadNetlist, AnInstanceParameterNoModelReadsNamesTheInstance) {
  const std::string path =
      variant("bad_param", "params: {l1: {size_kb: 96}}", "params: {l1: {size_kbb: 96}}", "chip_hetero");
  expect_config_error(path, {"instance 'big': parameter 'l1.size_kbb' is not one that instance 'big' reads (did "
                             "you mean 'l1.size_kb'?)"});
}

TEST(HeteroPlatform, ClustersKeepTheirOwnL1SizeAndBothHbmStacksServeThroughTheMemoryNetwork) {
  check_hetero_l1(platform("chip_hetero"), "hetero_l1");
  const auto j = nlohmann::json::parse(read_file(temp_path("hetero_l1.json")));
  // Every request either stack served crossed the memory network.
  const auto& chip = j["chip"];
  EXPECT_EQ(chip["memnoc"]["requests"].get<uint64_t>(),
            chip["hbm0"]["dram"]["requests"].get<uint64_t>() + chip["hbm1"]["dram"]["requests"].get<uint64_t>());
}

// The same chip with the stacks behind an address router beside the L2
// instead of the memory network: the same L1 and memory counts.
TEST(HeteroPlatform, AnAddressRouterServesTheStacksAsWell) {
  std::string text = read_file(platform("chip_hetero"));
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"  memnoc:     {type: noc}\n", "  router:     {type: address_router}\n"},
           {", nodes: 0}", "}"},
           {", nodes: 7}", "}"},
           {"l2.mem -> memnoc.in", "l2.mem -> router.in"},
           {"memnoc.out -> hbm0.port", "router.out -> hbm0.port"},
           {"memnoc.out -> hbm1.port", "router.out -> hbm1.port"}}) {
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  const std::string path = temp_path("hetero_router.yaml");
  std::ofstream(path) << text;
  check_hetero_l1(path, "hetero_router");
}

// `--set big:l1.size_kb=24` shrinks only big's L1: its SMs now miss every
// sweep as small's do (4096 misses, as derived above).
TEST(HeteroPlatform, SetCanChangeOneInstancesParameter) {
  const std::string stats = temp_path("hetero_set.json");
  const auto r = run_tessera(
      {"run", platform("chip_hetero"), fw("netlist_hetero_l1"), "--set", "big:l1.size_kb=24", "--stats", stats, "-q"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(read_file(stats));
  EXPECT_EQ(j["config"]["parameters"]["big:l1.size_kb"], "24");
  for (const char* sm : {"sm0", "sm1", "sm2", "sm3"}) {
    EXPECT_EQ(j["chip"][sm]["l1_half0"]["hit_sectors"], 0) << sm;
    EXPECT_EQ(j["chip"][sm]["l1_half0"]["miss_sectors"], 4096) << sm;
  }
}

// A parameter that one instance alone reads, set for that instance: the
// platform file's own value of it (chip.yaml's memory.latency) is a known
// parameter, not reported as unknown, and the instance takes its value.
TEST(InstanceSet, TheOnlyReaderOfAParameterCanBeSetAlone) {
  uint64_t cycles[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const std::string stats = temp_path("memory_set.json");
    std::vector<std::string> args{"run", platform("chip"), fw("netlist_hetero_l1"), "--stats", stats, "-q"};
    if (i == 1) args.insert(args.end(), {"--set", "memory:memory.latency=5"});
    const auto r = run_tessera(args);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const auto j = nlohmann::json::parse(read_file(stats));
    cycles[i] = j["summary"]["sim_cycles"].get<uint64_t>();
    if (i == 1) {
      EXPECT_EQ(j["config"]["parameters"]["memory:memory.latency"], "5");
    }
  }
  EXPECT_LT(cycles[1], cycles[0]);  // 5 cycles to memory instead of chip.yaml's latency
}

// The dispatcher checks launches against the SMs it launches on: an SM key
// set in its own scope changes nothing and is refused as one no model read
// there, whatever its value; the SMs' own limits decide what launches.
TEST(InstanceSet, AnSmKeyForTheDispatcherIsRefused) {
  for (const char* set : {"dispatcher:sm.scheduler=lrr", "dispatcher:sm.max_threads_per_block=64"}) {
    const auto r = run_tessera({"run", platform("chip"), fw("netlist_hetero_l1"), "-q", "--set", set});
    EXPECT_EQ(r.status, 2) << set << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("dispatcher"), std::string::npos) << set << "\n" << r.err;
    EXPECT_EQ(r.err.find("uncaught"), std::string::npos) << r.err;
  }
}

TEST(HeteroPlatform, ConfigListShowsEachInstancesOwnParameters) {
  const auto r = run_tessera({"config", "--list", "chip_hetero"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_HAS(r.out, "small:l1.size_kb");
  EXPECT_HAS(r.out, "big:l1.size_kb");
  EXPECT_HAS(r.out, "instance 'big'");
}

// ---------------------------------------------------------------- tessera netlist

TEST(NetlistCommand, DotHasEveryInstanceAndBinding) {
  const auto r = run_tessera({"netlist", "chip", "--dot"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_HAS(r.out, "digraph \"chip\" {");
  EXPECT_HAS(r.out, "\"sms\" -> \"xbar\" [label=\"mem -> sm\"];");
  EXPECT_HAS(r.out, "\"xbar\" -> \"l2\" [label=\"out -> sm\"];");
  EXPECT_HAS(r.out, "\"l2\" -> \"memory\" [label=\"mem -> port\"];");
  EXPECT_HAS(r.out, "\"mmio\" -> \"dispatcher\" [label=\"dispatcher -> regs\"];");
}

TEST(NetlistCommand, ABadNetlistIsAConfigError) {
  const std::string path = variant("netlist_cmd_bad", "- l2.mem -> memory.port", "- l2.mem -> nowhere.port");
  const auto r = run_tessera({"netlist", path});
  EXPECT_EQ(r.status, 2);
  EXPECT_HAS(r.err, "no instance 'nowhere'");
}

}  // namespace
