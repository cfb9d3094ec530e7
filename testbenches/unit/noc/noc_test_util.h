// Helpers shared by the NoC unit tests: parameters through sim::Config (the
// same path the CLI takes) and single-packet runs.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

#include "noc/measurement.h"
#include "noc/network.h"
#include "noc/noc_params.h"
#include "noc/traffic.h"
#include "sim/config.h"

namespace tessera::noc::test {

using Settings = std::initializer_list<std::pair<std::string, std::string>>;

inline NocParams params(Settings settings) {
  sim::Config cfg;
  for (const auto& [k, v] : settings) cfg.set(k, v, "--set");
  return NocParams::from_config(cfg);
}

inline MeasureOptions measure(Settings settings) {
  sim::Config cfg;
  for (const auto& [k, v] : settings) cfg.set(k, v, "--set");
  return MeasureOptions::from_config(cfg);
}

// A burst: `per_node` packets of `flits` flits from every node to
// destinations drawn uniformly (Rng(seed)), all enqueued at once, run until
// every one is delivered (the watchdog throws on a deadlock). Returns the
// flit-hops minimal paths take: sum(flits x distance).
inline uint64_t drain_uniform_burst(Network& net, int per_node, int flits, uint64_t seed) {
  const int nodes = net.topology().nodes();
  Rng rng(seed);
  uint64_t hops = 0;
  for (int i = 0; i < per_node; ++i) {
    for (int src = 0; src < nodes; ++src) {
      Packet packet;
      packet.src = src;
      packet.dst = static_cast<int>(rng.below(static_cast<uint32_t>(nodes)));
      packet.flits = flits;
      hops += static_cast<uint64_t>(flits) * static_cast<uint64_t>(net.topology().distance(src, packet.dst));
      net.enqueue(packet);
    }
  }
  while (net.packets_delivered() < net.packets_enqueued()) net.step();
  return hops;
}

// Sends one packet into an empty network at cycle 0 and returns its delivery.
inline Delivery single_packet(const NocParams& p, int src, int dst, int flits) {
  Network net(p);
  Packet packet;
  packet.src = src;
  packet.dst = dst;
  packet.flits = flits;
  packet.create_cycle = 0;
  net.enqueue(packet);
  for (int cycle = 0; cycle < 100000; ++cycle) {
    net.step();
    if (!net.delivered().empty()) return net.delivered().front();
  }
  throw std::runtime_error("packet never delivered");
}

}  // namespace tessera::noc::test
