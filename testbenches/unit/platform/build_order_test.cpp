// The elaboration order derived from the bindings (build_order()). It fixes
// SystemC's process order and so every cycle count: for each shipped
// platform, and each default chip, it must be the order the chip was built
// in before it was derived, when each type had a fixed rank (kOldRank
// below, ties in netlist order).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "platforms/component_registry.h"
#include "platforms/netlist.h"
#include "platforms/platform.h"
#include "sim/config.h"

namespace build_order_test {

using namespace tessera::platform;
using tessera::sim::Config;
using tessera::sim::ConfigError;
using Kind = SocketSpec::Kind;

// The build_order of each type before the order was derived
// (platforms/components.cpp at 04dbb28).
const std::map<std::string, int> kOldRank = {{"l2", 10},           {"crossbar", 15},   {"noc", 20},
                                             {"fixed_memory", 30}, {"hbm_stack", 30},  {"address_router", 30},
                                             {"sm_cluster", 40},   {"dispatcher", 50}, {"control_cluster", 60},
                                             {"mmio", 70}};

std::vector<std::string> names(const std::vector<const NetlistInstance*>& order) {
  std::vector<std::string> out;
  for (const auto* i : order) out.push_back(i->name);
  return out;
}

std::vector<std::string> old_order(const Netlist& net) {
  std::vector<const NetlistInstance*> order;
  for (const auto& i : net.instances) order.push_back(&i);
  std::stable_sort(order.begin(), order.end(), [](const NetlistInstance* a, const NetlistInstance* b) {
    return kOldRank.at(a->type) < kOldRank.at(b->type);
  });
  return names(order);
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(BuildOrder, EveryShippedPlatformIsBuiltInItsOldOrder) {
  int platforms = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PLATFORM_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    const Netlist net = parse_netlist(read(entry.path().string()), entry.path().string());
    ASSERT_FALSE(net.empty()) << entry.path();
    EXPECT_EQ(names(build_order(net, builtin_components())), old_order(net)) << entry.path();
    ++platforms;
  }
  EXPECT_EQ(platforms, 6);
}

TEST(BuildOrder, EveryDefaultChipIsBuiltInItsOldOrder) {
  for (const char* icnt : {"crossbar", "noc"})
    for (const char* memory : {"fixed", "hbm"}) {
      Config cfg;
      cfg.set("icnt.model", icnt, "test");
      cfg.set("memory.model", memory, "test");
      const Netlist net = parse_netlist(default_netlist(cfg), "default");
      EXPECT_EQ(names(build_order(net, builtin_components())), old_order(net)) << icnt << " " << memory;
    }
}

// The test's own registry: what it proves is the derivation, not Tessera's registrations.
ComponentRegistry registry() {
  ComponentRegistry r;
  ComponentType cache;
  cache.name = "cache";
  cache.sockets = {{"in", Kind::kTarget, 0, true, false, ""}, {"out", Kind::kInitiator, 0, false, false, ""}};
  cache.sockets[0].built_first = true;
  r.add(cache);
  ComponentType user;
  user.name = "user";
  user.sockets = {{"mem", Kind::kInitiator, 0, false, false, ""},
                  {"takes", Kind::kInitiator, 0, false, false, ""},
                  {"port", Kind::kTarget, 0, false, false, ""}};
  user.sockets[1].bound_while_built = true;
  r.add(user);
  return r;
}

TEST(BuildOrder, WhatAnInstanceTakesWhileBuiltComesFirstOthersKeepNetlistOrder) {
  const Netlist net = parse_netlist(
      "instances:\n  a: {type: user}\n  b: {type: user}\n  c: {type: cache}\n  d: {type: user}\n"
      "bindings:\n  - a.mem -> c.in\n  - b.takes -> d.port\n  - d.mem -> b.port\n",
      "t.yaml");
  // a after c (c.in is built_first); b after d (b.takes is bound_while_built);
  // d.mem -> b.port is a plain binding.
  EXPECT_EQ(names(build_order(net, registry())), (std::vector<std::string>{"c", "a", "d", "b"}));
}

TEST(BuildOrder, ACycleNamesItsInstances) {
  const Netlist net = parse_netlist(
      "instances:\n  x: {type: user}\n  p: {type: cache}\n  q: {type: cache}\n"
      "bindings:\n  - p.out -> q.in\n  - q.out -> p.in\n",
      "t.yaml");
  try {
    build_order(net, registry());
    ADD_FAILURE() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.yaml: instances 'p', 'q' each take another of them while they are built; no order builds them");
  }
}

// Each type registers itself from its own file (platforms/components/),
// which nothing else refers to: the whole-archive link must keep every one.
TEST(BuildOrder, EveryComponentFileRegistersItsType) {
  for (const auto& [type, rank] : kOldRank) EXPECT_NE(builtin_components().find(type), nullptr) << type;
  EXPECT_NE(builtin_components().find("rtl_device"), nullptr);  // newer than the ranks
  EXPECT_EQ(builtin_components().types().size(), kOldRank.size() + 1);
}

}  // namespace build_order_test
