// The engine's kernel-launch coherence point (Cluster::
// write_back_and_invalidate_all), without SystemC or firmware.
#include <gtest/gtest.h>

#include <cstring>

#include "bus/cluster.h"

namespace tessera::bus {
namespace {

constexpr uint32_t kLatency = 30;

ClusterParams params(mem::Protocol p) {
  ClusterParams c;
  c.cores = 2;
  c.protocol = p;
  c.l1d = mem::CacheGeometry::make("cluster.l1d", 1024, 2, 64);
  c.l1i = mem::CacheGeometry::make("cluster.l1i", 1024, 2, 64);
  return c;
}

struct Fixture {
  explicit Fixture(mem::Protocol p) : memory(0, 64 * 1024, kLatency), cluster(params(p), memory) {}
  uint32_t run(uint32_t core, OpKind kind, uint64_t addr, uint32_t value = 0) {
    bool done = false;
    uint32_t result = 0;
    cluster.issue(core, Op{kind, addr, 4, value, AmoKind::kAdd}, [&](uint32_t v) {
      done = true;
      result = v;
    });
    while (!done && !cluster.failed()) cluster.advance_to(cluster.next_event_cycle());
    EXPECT_FALSE(cluster.failed()) << cluster.failure();
    return result;
  }
  uint32_t memory_word(uint64_t addr) {
    uint8_t line[64];
    memory.read_line(addr & ~uint64_t{63}, line, 64);
    uint32_t v;
    std::memcpy(&v, line + (addr & 63), 4);
    return v;
  }
  mem::SimpleMemory memory;
  Cluster cluster;
};

TEST(CoherencePoint, DirtyLinesReachMemoryAndEveryCacheIsEmptied) {
  for (mem::Protocol p : {mem::Protocol::kMesi, mem::Protocol::kMoesi, mem::Protocol::kDragon}) {
    Fixture f(p);
    f.run(0, OpKind::kStore, 0x100, 11);  // dirty in core 0
    f.run(1, OpKind::kLoad, 0x200);       // clean in core 1
    f.run(1, OpKind::kIfetch, 0x300);     // in core 1's L1I
    EXPECT_EQ(f.memory_word(0x100), 0u) << "write-back cache: memory is stale before the point";
    ASSERT_TRUE(f.cluster.idle());
    // One dirty line; the clean ones are dropped without a write.
    EXPECT_EQ(f.cluster.write_back_and_invalidate_all(), 1u) << mem::protocol_name(p);
    EXPECT_EQ(f.memory_word(0x100), 11u);
    EXPECT_EQ(f.cluster.state_of(Cluster::l1d_agent(0), 0x100), mem::State::kI);
    EXPECT_EQ(f.cluster.state_of(Cluster::l1d_agent(1), 0x200), mem::State::kI);
    EXPECT_EQ(f.cluster.state_of(Cluster::l1i_agent(1), 0x300), mem::State::kI);
    // Memory changed behind the cluster (a kernel): the next load reads it,
    // and the checker, having forgotten its shadow, accepts the new value.
    const uint8_t line[64] = {42};
    f.memory.write_line(0x200, line, 64);
    EXPECT_EQ(f.run(1, OpKind::kLoad, 0x200), 42u);
    EXPECT_EQ(f.run(0, OpKind::kLoad, 0x100), 11u);
  }
}

TEST(CoherencePoint, RefusedWhileOperationsAreInFlight) {
  Fixture f(mem::Protocol::kMesi);
  f.cluster.issue(0, Op{OpKind::kLoad, 0x40, 4, 0, AmoKind::kAdd}, nullptr);
  EXPECT_THROW(f.cluster.write_back_and_invalidate_all(), std::logic_error);
}

}  // namespace
}  // namespace tessera::bus
