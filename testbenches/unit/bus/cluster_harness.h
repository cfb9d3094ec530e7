// Runs single operations on a small cluster to completion, for directed
// tests. L1D and L1I: 1 KiB, 2 ways, 64-byte lines = 8 sets, so addresses
// 512 bytes apart share a set.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "bus/cluster.h"

namespace tessera::bus::test {

inline ClusterParams small_params(mem::Protocol p, uint32_t cores = 4) {
  ClusterParams c;
  c.cores = cores;
  c.protocol = p;
  c.l1d = mem::CacheGeometry::make("cluster.l1d", 1024, 2, 64);
  c.l1i = mem::CacheGeometry::make("cluster.l1i", 1024, 2, 64);
  c.deadlock_cycles = 10000;
  return c;
}

// Every protocol the cluster.protocol key accepts (mem::protocol_names()):
// a new protocol is tested the day it is added.
inline std::vector<mem::Protocol> all_protocols() {
  std::vector<mem::Protocol> all;
  for (const auto& name : mem::protocol_names()) all.push_back(mem::parse_protocol(name));
  return all;
}

constexpr uint64_t kSetStride = 512;
constexpr uint32_t kMemoryLatency = 30;

class Harness {
 public:
  explicit Harness(const ClusterParams& params, std::optional<mem::ProtocolTable> table = std::nullopt)
      : memory(0, 64 * 1024, kMemoryLatency), cluster(params, memory, nullptr, std::move(table)) {}

  uint32_t run(uint32_t core, const Op& op) {
    bool done = false;
    uint32_t value = 0;
    cluster.issue(core, op, [&](uint32_t v) {
      done = true;
      value = v;
    });
    while (!done && !cluster.failed()) cluster.advance_to(cluster.next_event_cycle());
    EXPECT_FALSE(cluster.failed()) << cluster.failure();
    return value;
  }
  uint32_t load(uint32_t core, uint64_t addr) { return run(core, Op{OpKind::kLoad, addr, 4, 0, AmoKind::kAdd}); }
  void store(uint32_t core, uint64_t addr, uint32_t v) { run(core, Op{OpKind::kStore, addr, 4, v, AmoKind::kAdd}); }
  uint32_t fetch(uint32_t core, uint64_t addr) { return run(core, Op{OpKind::kIfetch, addr, 4, 0, AmoKind::kAdd}); }
  // Drains store buffers and write-backs.
  void settle() {
    while (!cluster.idle() && !cluster.failed()) cluster.advance_to(cluster.next_event_cycle());
  }
  // Pushes `addr` out of the core's L1D with two loads to its set.
  void evict(uint32_t core, uint64_t addr) {
    load(core, addr + 8 * kSetStride);
    load(core, addr + 9 * kSetStride);
  }
  mem::State d(uint32_t core, uint64_t addr) const { return cluster.state_of(Cluster::l1d_agent(core), addr); }

  mem::SimpleMemory memory;
  Cluster cluster;
};

}  // namespace tessera::bus::test
