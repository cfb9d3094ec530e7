#include <gtest/gtest.h>

#include "mem/cache_array.h"
#include "mem/store_buffer.h"
#include "sim/config.h"

namespace tessera::mem {
namespace {

TEST(CacheGeometry, DividesSizeIntoSets) {
  // 32 KiB / (4 ways * 64 B) = 128 sets.
  const auto g = CacheGeometry::make("cluster.l1d", 32 * 1024, 4, 64);
  EXPECT_EQ(g.sets, 128u);
}

TEST(CacheGeometry, SizeThatDoesNotDivideNamesTheKey) {
  // 3 KiB / (4 * 64 B) = 12 sets: not a power of two.
  try {
    CacheGeometry::make("cluster.l1d", 3 * 1024, 4, 64);
    FAIL() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cluster.l1d.size_kb"), std::string::npos) << e.what();
  }
  EXPECT_THROW(CacheGeometry::make("cluster.l1i", 1024, 3, 64), sim::ConfigError);  // 1024 / 192 is not whole
}

TEST(CacheGeometry, LineMustBePowerOfTwo) {
  try {
    CacheGeometry::make("cluster.l1i", 1024, 1, 48);
    FAIL() << "no error";
  } catch (const sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cluster.l1i.line_bytes"), std::string::npos) << e.what();
  }
}

TEST(CacheArray, VictimIsInvalidWayThenLeastRecentlyUsedUnreserved) {
  CacheArray a(CacheGeometry::make("c", 256, 2, 64));  // 2 sets
  // Lines 0x0, 0x80, 0x100 all map to set 0 (line / 64 is even).
  EXPECT_EQ(a.set_of(0x80), 0u);
  const int w0 = a.victim(0x0);
  a.line(w0) = CacheArray::Line{State::kS, 0x0, 5, false};
  const int w1 = a.victim(0x80);
  EXPECT_NE(w0, w1);  // the invalid way is used first
  a.line(w1) = CacheArray::Line{State::kM, 0x80, 9, false};
  EXPECT_EQ(a.victim(0x100), w0);  // stamp 5 < 9
  a.line(w0).reserved = true;
  EXPECT_EQ(a.victim(0x100), w1);  // a reserved way is never a victim
  a.line(w1).reserved = true;
  EXPECT_EQ(a.victim(0x100), -1);
  EXPECT_EQ(a.find(0x80), w1);
  EXPECT_EQ(a.state_of(0x100), State::kI);
}

TEST(StoreBuffer, YoungestCoveringStoreForwards) {
  StoreBuffer sb(4);
  sb.push({0x10, 4, 0x11223344});
  sb.push({0x12, 1, 0xaa});
  auto r = sb.forward(0x10, 2);  // bytes 0x10..0x11: only the word covers them
  EXPECT_EQ(r.kind, StoreBuffer::Forward::kHit);
  EXPECT_EQ(r.value, 0x3344u);
  r = sb.forward(0x12, 1);  // the younger byte store wins
  EXPECT_EQ(r.kind, StoreBuffer::Forward::kHit);
  EXPECT_EQ(r.value, 0xaau);
  // A word load overlapping the byte store is not covered by it: it waits.
  EXPECT_EQ(sb.forward(0x10, 4).kind, StoreBuffer::Forward::kPartial);
  EXPECT_EQ(sb.forward(0x20, 4).kind, StoreBuffer::Forward::kMiss);
  sb.push({0x30, 4, 1});
  sb.push({0x34, 4, 2});
  EXPECT_TRUE(sb.full());
  sb.pop();
  EXPECT_EQ(sb.front().addr, 0x12u);  // first in, first out
}

}  // namespace
}  // namespace tessera::mem
