// Netlists: the instances: and bindings: sections, and every validation
// error, each naming the offending instance and its file:line. The registry
// is this test's own (a requester, a two-socket "bus", a memory with an
// address range, a network), so the checks prove the generic validation,
// not Tessera's registrations.
#include "platforms/netlist.h"

#include <gtest/gtest.h>

#include <string>

#include "platforms/component_registry.h"
#include "sim/config.h"

namespace {

using namespace tessera::platform;
using tessera::sim::Config;
using tessera::sim::ConfigError;
using Kind = SocketSpec::Kind;

template <class Fn>
std::string config_error(Fn&& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError thrown";
  return "";
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

std::optional<int64_t> attr(const NetlistInstance& inst, const std::string& key) {
  const auto it = inst.attributes.find(key);
  return it == inst.attributes.end() ? std::nullopt : tessera::sim::parse_integer(it->second);
}

ComponentRegistry test_registry() {
  ComponentRegistry r;
  ComponentType cpu;
  cpu.name = "cpu";
  cpu.sockets = {{"mem", Kind::kInitiator, 1, true, false, "memory requests"}};
  cpu.attributes = {{"count", "cores"}, {"nodes", "network nodes"}};
  cpu.endpoints = [](const NetlistInstance& i, const Config&) {
    return static_cast<unsigned>(attr(i, "count").value_or(1));
  };
  r.add(cpu);
  ComponentType mem;
  mem.name = "mem";
  mem.sockets = {{"port", Kind::kTarget, 0, true, false, "requests"}};
  mem.attributes = {{"base", ""}, {"size", ""}, {"nodes", ""}};
  mem.address_range = [](const NetlistInstance& i) -> std::optional<std::pair<uint64_t, uint64_t>> {
    return std::make_pair(static_cast<uint64_t>(attr(i, "base").value_or(0)),
                          static_cast<uint64_t>(attr(i, "size").value_or(0x100)));
  };
  r.add(mem);
  ComponentType net;
  net.name = "net";
  net.sockets = {{"in", Kind::kTarget, 0, true, true, ""}, {"out", Kind::kInitiator, 0, true, true, ""}};
  net.attributes = {{"size", "nodes"}};
  net.network_nodes = [](const NetlistInstance& i, const Config&) {
    return static_cast<int>(attr(i, "size").value_or(4));
  };
  net.size_parameters = "size";
  r.add(net);
  return r;
}

void validate(const std::string& text) {
  Config cfg;
  validate_netlist(parse_netlist(text, "t.yaml"), test_registry(), cfg);
}

const char* kGood =
    "platform: t\n"
    "instances:\n"
    "  c: {type: cpu, count: 2, params: {l1: {size_kb: 96}, sm.scheduler: lrr}}\n"
    "  m: {type: mem}\n"
    "bindings:\n"
    "  - c.mem -> m.port\n";

TEST(NetlistParse, ReadsInstancesAttributesParamsAndBindingsWithTheirLines) {
  const Netlist net = parse_netlist(kGood, "t.yaml");
  ASSERT_EQ(net.instances.size(), 2u);
  const NetlistInstance& c = net.instances[0];
  EXPECT_EQ(c.name, "c");
  EXPECT_EQ(c.type, "cpu");
  EXPECT_EQ(c.where, "t.yaml:3");
  EXPECT_EQ(c.attributes.at("count"), "2");
  EXPECT_EQ(c.params.at("l1.size_kb").first, "96");
  EXPECT_EQ(c.params.at("l1.size_kb").second, "t.yaml:3: instance 'c'");
  EXPECT_EQ(c.params.at("sm.scheduler").first, "lrr");
  ASSERT_EQ(net.bindings.size(), 1u);
  EXPECT_EQ(net.bindings[0].from.text(), "c.mem");
  EXPECT_EQ(net.bindings[0].to.text(), "m.port");
  EXPECT_EQ(net.bindings[0].where, "t.yaml:6");
  EXPECT_NO_THROW(validate(kGood));
}

TEST(NetlistParse, AFileWithoutInstancesIsAnEmptyNetlist) {
  EXPECT_TRUE(parse_netlist("gpu:\n  num_sms: 4\n", "t.yaml").empty());
}

TEST(NetlistParse, DuplicateInstanceNameNamesBothLines) {
  const std::string msg =
      config_error([] { parse_netlist("instances:\n  a: {type: cpu}\n  a: {type: mem}\n", "t.yaml"); });
  EXPECT_HAS(msg, "t.yaml:3: duplicate instance name 'a' (first at t.yaml:2)");
}

TEST(NetlistParse, BindingWithoutArrowOrDotIsRefused) {
  EXPECT_HAS(
      config_error([] { parse_netlist("instances:\n  a: {type: cpu}\nbindings:\n  - a.mem m.port\n", "t.yaml"); }),
      "t.yaml:4: a binding is 'INSTANCE.SOCKET -> INSTANCE.SOCKET'");
  EXPECT_HAS(
      config_error([] { parse_netlist("instances:\n  a: {type: cpu}\nbindings:\n  - a -> m.port\n", "t.yaml"); }),
      "binding end 'a' is not INSTANCE.SOCKET");
}

TEST(NetlistParse, InstanceWithoutTypeIsRefused) {
  EXPECT_HAS(config_error([] { parse_netlist("instances:\n  a: {count: 2}\n", "t.yaml"); }),
             "t.yaml:2: instance 'a' has no 'type'");
}

TEST(NetlistValidate, UnknownTypeNamesTheInstanceAndTheKnownTypes) {
  const std::string msg = config_error([] { validate("instances:\n  x: {type: gpu}\n"); });
  EXPECT_HAS(msg, "t.yaml:2: instance 'x': unknown component type 'gpu' (known types: cpu mem net)");
}

TEST(NetlistValidate, UnknownAttributeNamesTheInstance) {
  const std::string msg = config_error([] { validate("instances:\n  m: {type: mem, colour: red}\n"); });
  EXPECT_HAS(msg, "t.yaml:2: instance 'm': a mem has no attribute 'colour'");
}

TEST(NetlistValidate, UnknownSocketListsTheInstancesSockets) {
  const std::string msg = config_error(
      [] { validate("instances:\n  c: {type: cpu}\n  m: {type: mem}\nbindings:\n  - c.mem -> m.prot\n"); });
  EXPECT_HAS(msg, "t.yaml:5: instance 'm' (mem) has no socket 'prot' (its sockets: port (target))");
}

TEST(NetlistValidate, BindingToAnUnknownInstanceIsRefused) {
  const std::string msg =
      config_error([] { validate("instances:\n  c: {type: cpu}\nbindings:\n  - c.mem -> q.port\n"); });
  EXPECT_HAS(msg, "t.yaml:4: binding 'c.mem -> q.port': no instance 'q'");
}

TEST(NetlistValidate, BindingMustGoFromInitiatorToTarget) {
  const std::string msg = config_error(
      [] { validate("instances:\n  c: {type: cpu}\n  m: {type: mem}\nbindings:\n  - m.port -> c.mem\n"); });
  EXPECT_HAS(msg, "m.port is a target socket; a binding goes initiator -> target");
}

TEST(NetlistValidate, UnboundSocketNamesTheInstance) {
  const std::string msg = config_error([] { validate("instances:\n  c: {type: cpu}\n  m: {type: mem}\n"); });
  EXPECT_HAS(msg, "t.yaml:2: instance 'c' (cpu): initiator socket 'mem' (memory requests) is not bound");
}

TEST(NetlistValidate, SocketBoundTwiceWhereOneBindingIsAllowed) {
  const std::string msg = config_error([] {
    validate(
        "instances:\n  c: {type: cpu}\n  m: {type: mem}\n  n: {type: mem, base: 0x100}\nbindings:\n"
        "  - c.mem -> m.port\n  - c.mem -> n.port\n");
  });
  EXPECT_HAS(msg, "t.yaml:7: instance 'c': socket 'mem' is bound 2 times but allows 1 (first binding at t.yaml:6)");
}

TEST(NetlistValidate, OverlappingAddressRangesNameBothInstances) {
  // m: [0, 0x100), n: [0xf0, 0x1f0) overlap by 16 bytes.
  const std::string msg = config_error([] {
    validate(
        "instances:\n  c: {type: cpu}\n  m: {type: mem}\n  n: {type: mem, base: 0xf0}\n  d: {type: cpu}\n"
        "bindings:\n  - c.mem -> m.port\n  - d.mem -> n.port\n");
  });
  EXPECT_HAS(msg, "t.yaml:4: instance 'n': address range [0xf0, 0x1f0) overlaps instance 'm' [0x0, 0x100)");
}

TEST(NetlistValidate, AdjacentAddressRangesAreFine) {
  EXPECT_NO_THROW(
      validate("instances:\n  c: {type: cpu}\n  m: {type: mem}\n  n: {type: mem, base: 0x100}\n"
               "  d: {type: cpu}\nbindings:\n  - c.mem -> m.port\n  - d.mem -> n.port\n"));
}

const std::string kNetwork =
    "instances:\n"
    "  c: {type: cpu, count: 3}\n"
    "  d: {type: cpu}\n"
    "  n: {type: net, size: SIZE}\n"
    "  m: {type: mem}\n"
    "bindings:\n"
    "  - c.mem -> n.in\n"
    "  - d.mem -> n.in\n"
    "  - n.out -> m.port\n";

std::string with_size(const std::string& size) {
  std::string t = kNetwork;
  return t.replace(t.find("SIZE"), 4, size);
}

TEST(NetlistValidate, NetworkTooSmallForItsEndpoints) {
  // 3 + 1 requesters and 1 memory: 5 endpoints on 4 nodes.
  const std::string msg = config_error([] { validate(with_size("4")); });
  EXPECT_HAS(
      msg, "t.yaml:4: instance 'n' (network) has 4 nodes (size), too few for its endpoints: instance 'm' is at node 4");
  EXPECT_NO_THROW(validate(with_size("5")));
}

TEST(NetlistNodes, ImplicitNodesFollowBindingOrderRequestersFirst) {
  Config cfg;
  const Netlist net = parse_netlist(with_size("8"), "t.yaml");
  const auto nodes = network_nodes(net, test_registry(), cfg, *net.find("n"));
  EXPECT_EQ(nodes.at("c"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(nodes.at("d"), (std::vector<int>{3}));
  EXPECT_EQ(nodes.at("m"), (std::vector<int>{4}));
}

TEST(NetlistNodes, ExplicitNodesAreKeptAndOthersTakeTheLowestFree) {
  std::string text = with_size("8");
  text.replace(text.find("{type: cpu, count: 3}"), 21, "{type: cpu, count: 3, nodes: '1-2,7'}");
  Config cfg;
  const Netlist net = parse_netlist(text, "t.yaml");
  const auto nodes = network_nodes(net, test_registry(), cfg, *net.find("n"));
  EXPECT_EQ(nodes.at("c"), (std::vector<int>{1, 2, 7}));
  EXPECT_EQ(nodes.at("d"), (std::vector<int>{0}));
  EXPECT_EQ(nodes.at("m"), (std::vector<int>{3}));
}

TEST(NetlistNodes, ANodeOutsideTheNetworkOrTakenTwiceIsRefused) {
  std::string outside = with_size("8");
  outside.replace(outside.find("{type: mem}"), 11, "{type: mem, nodes: 8}");
  EXPECT_HAS(config_error([&] { validate(outside); }), "instance 'm' is at node 8");
  std::string twice = with_size("8");
  twice.replace(twice.find("{type: cpu}"), 11, "{type: cpu, nodes: 5}");
  twice.replace(twice.find("{type: mem}"), 11, "{type: mem, nodes: 5}");
  EXPECT_HAS(config_error([&] { validate(twice); }), "node 5 of network 'n' is already taken by instance 'd'");
  std::string count = with_size("8");
  count.replace(count.find("{type: cpu, count: 3}"), 21, "{type: cpu, count: 3, nodes: 0-1}");
  EXPECT_HAS(config_error([&] { validate(count); }), "nodes '0-1' names 2 nodes of network 'n' for 3 endpoints");
}

TEST(NetlistNodes, NodesOnAnInstanceOfNoNetworkAreRefused) {
  const std::string msg = config_error(
      [] { validate("instances:\n  c: {type: cpu, nodes: 3}\n  m: {type: mem}\nbindings:\n  - c.mem -> m.port\n"); });
  EXPECT_HAS(msg, "t.yaml:2: instance 'c' has nodes but is bound to no network");
}

TEST(NetlistNodes, NodeListSyntax) {
  EXPECT_EQ(parse_node_list("0-3,8", "x"), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(parse_node_list("5", "x"), (std::vector<int>{5}));
  EXPECT_HAS(config_error([] { parse_node_list("3-1", "x"); }), "'3-1' is not a node list");
  EXPECT_HAS(config_error([] { parse_node_list("a", "x"); }), "'a' is not a node list");
}

TEST(NetlistDot, EveryInstanceIsANodeAndEveryBindingAnEdge) {
  const std::string dot = netlist_dot(parse_netlist(kGood, "t.yaml"), "t");
  EXPECT_HAS(dot, "digraph \"t\" {");
  EXPECT_HAS(dot, "\"c\" [label=\"c\\ncpu\\ncount=2\\nl1.size_kb=96\\nsm.scheduler=lrr\"];");
  EXPECT_HAS(dot, "\"c\" -> \"m\" [label=\"mem -> port\"];");
}

}  // namespace
