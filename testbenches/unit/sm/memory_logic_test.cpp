// The SM's memory-system logic, without simulation: the shared-memory bank
// arbiter, the coalescer, the sectored cache array and the MSHRs.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "mem/sector_cache.h"
#include "sim/config.h"
#include "sm/coalescer.h"
#include "sm/shared_banks.h"

using namespace tessera::sm;
using tessera::mem::MshrTable;
using tessera::mem::SectorCache;
using CacheGeometry = tessera::mem::SectorGeometry;  // the sectored caches of the L1 and L2

namespace {

constexpr uint32_t kAll = 0xffffffffu;

// Word indices of 32 lanes reading 4-byte elements at `stride` words.
std::array<uint32_t, 32> strided(unsigned stride) {
  std::array<uint32_t, 32> w{};
  for (unsigned i = 0; i < 32; ++i) w[i] = i * stride;
  return w;
}

}  // namespace

// 32 banks of 4-byte words: word i is in bank i mod 32.
TEST(BankArbiter, StrideOneIsConflictFree) { EXPECT_EQ(arbitrate_banks(strided(1), kAll, 32, false).passes, 1u); }

// Stride 2: lanes i and i+16 meet in bank 2i mod 32 on different words.
TEST(BankArbiter, StrideTwoIsATwoWayConflict) { EXPECT_EQ(arbitrate_banks(strided(2), kAll, 32, false).passes, 2u); }

// 3 is odd, so 3i mod 32 visits every bank once.
TEST(BankArbiter, StrideThreeIsConflictFree) { EXPECT_EQ(arbitrate_banks(strided(3), kAll, 32, false).passes, 1u); }

// Every lane in bank 0, each on its own word.
TEST(BankArbiter, StrideThirtyTwoIsAThirtyTwoWayConflict) {
  EXPECT_EQ(arbitrate_banks(strided(32), kAll, 32, false).passes, 32u);
}

// Stride 2^k for k = 0..5 gives 2^k-way conflicts.
TEST(BankArbiter, PowerOfTwoStridesConflictByTheirFactor) {
  for (unsigned ways : {1u, 2u, 4u, 8u, 16u, 32u})
    EXPECT_EQ(arbitrate_banks(strided(ways), kAll, 32, false).passes, ways);
}

TEST(BankArbiter, RandomPermutationIsConflictFree) {
  std::array<uint32_t, 32> w = strided(1);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::shuffle(w.begin(), w.end(), rng);
    EXPECT_EQ(arbitrate_banks(w, kAll, 32, false).passes, 1u);
  }
}

TEST(BankArbiter, AllLanesOnOneWordIsOneBroadcast) {
  const auto r = arbitrate_banks(strided(0), kAll, 32, false);
  EXPECT_EQ(r.passes, 1u);
  EXPECT_EQ(r.broadcasts, 1u);
}

// Lanes 0-15 read word 5, lanes 16-31 read word 37 (same bank, 5 mod 32):
// two words in one bank take two passes, each a broadcast.
TEST(BankArbiter, TwoBroadcastWordsInOneBankTakeTwoPasses) {
  std::array<uint32_t, 32> w{};
  for (unsigned i = 0; i < 32; ++i) w[i] = i < 16 ? 5 : 37;
  const auto r = arbitrate_banks(w, kAll, 32, false);
  EXPECT_EQ(r.passes, 2u);
  EXPECT_EQ(r.broadcasts, 2u);
}

TEST(BankArbiter, InactiveLanesDoNotCount) {
  EXPECT_EQ(arbitrate_banks(strided(32), 0x0000000fu, 32, false).passes, 4u);
  EXPECT_EQ(arbitrate_banks(strided(32), 0, 32, false).passes, 0u);
}

TEST(BankArbiter, BankCountIsAParameter) {
  // 16 banks: stride 1 over 32 lanes puts two words in each bank.
  EXPECT_EQ(arbitrate_banks(strided(1), kAll, 16, false).passes, 2u);
}

// Atomics: each lane's read-modify-write needs its own pass at its bank.
TEST(BankArbiter, AtomicsToOneWordSerialize) {
  EXPECT_EQ(arbitrate_banks(strided(0), kAll, 32, true).passes, 32u);
  EXPECT_EQ(arbitrate_banks(strided(0), 0x000000ffu, 32, true).passes, 8u);
}

TEST(BankArbiter, AtomicsToDistinctBanksProceedInParallel) {
  EXPECT_EQ(arbitrate_banks(strided(1), kAll, 32, true).passes, 1u);
  EXPECT_EQ(arbitrate_banks(strided(2), kAll, 32, true).passes, 2u);
}

// ---------------------------------------------------------------- coalescer

namespace {
unsigned sectors_for_stride(uint32_t base, unsigned stride_bytes, unsigned bytes = 4) {
  Coalescer c;
  for (unsigned i = 0; i < 32; ++i) c.add(base + i * stride_bytes, bytes);
  return c.sector_count();
}
}  // namespace

TEST(Coalescer, StrideOneWordsMakeFourSectors) {
  Coalescer c;
  for (unsigned i = 0; i < 32; ++i) c.add(0x80001000u + 4 * i, 4);
  ASSERT_EQ(c.lines().size(), 1u);
  EXPECT_EQ(c.lines()[0].line, 0x80001000u);
  EXPECT_EQ(c.lines()[0].sectors, 0xf);
  EXPECT_EQ(c.lines()[0].lanes, 32);
  EXPECT_EQ(c.sector_count(), 4u);
}

TEST(Coalescer, StrideTwoMakesEightSectors) { EXPECT_EQ(sectors_for_stride(0x80000000u, 8), 8u); }
TEST(Coalescer, StrideFourMakesSixteenSectors) { EXPECT_EQ(sectors_for_stride(0x80000000u, 16), 16u); }
TEST(Coalescer, StrideOfASectorMakesThirtyTwo) { EXPECT_EQ(sectors_for_stride(0x80000000u, 32), 32u); }
TEST(Coalescer, OneAddressIsOneSector) { EXPECT_EQ(sectors_for_stride(0x80000040u, 0), 1u); }

// Misaligned to the line: stride-1 words starting at byte 96 of a line cover
// sector 3 of it, the next line whole, and sectors 0-2 of the one after.
TEST(Coalescer, UnalignedStartSpansThreeLines) {
  Coalescer c;
  for (unsigned i = 0; i < 32; ++i) c.add(0x80000060u + 4 * i, 4);
  const auto& l = c.lines();
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].sectors, 0x8);
  EXPECT_EQ(l[1].sectors, 0x7);
  EXPECT_EQ(c.sector_count(), 4u);
}

TEST(Coalescer, RandomGatherMakesAtMostThirtyTwoSectorsInAddressOrder) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    Coalescer c;
    for (unsigned i = 0; i < 32; ++i) c.add(0x80000000u + 4 * (rng() % (1u << 20)), 4);
    EXPECT_LE(c.sector_count(), 32u);
    EXPECT_GE(c.sector_count(), 1u);
    const auto& l = c.lines();
    EXPECT_TRUE(std::is_sorted(l.begin(), l.end(), [](const auto& a, const auto& b) { return a.line < b.line; }));
  }
  // Far apart: every lane its own sector.
  Coalescer c;
  for (unsigned i = 31; i < 32; --i) c.add(0x80000000u + 4096 * i, 4);
  EXPECT_EQ(c.sector_count(), 32u);
  EXPECT_EQ(c.lines().front().line, 0x80000000u);
}

// ---------------------------------------------------------------- cache array

TEST(SectorCache, GeometryMustDivide) {
  CacheGeometry ok{12 * 1024, 4, 128};
  EXPECT_NO_THROW(ok.validate("l1.size_kb", "l1.ways"));
  EXPECT_EQ(ok.sets(), 24u);  // 12 KiB / (4 x 128): not a power of two
  CacheGeometry bad{12 * 1024, 5, 128};
  try {
    bad.validate("l1.size_kb", "l1.ways");
    FAIL() << "accepted 12 KiB in 5 ways";
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("l1.size_kb"), std::string::npos) << e.what();
  }
}

TEST(SectorCache, MissesThenHitsPerSector) {
  SectorCache c(CacheGeometry{4096, 2, 128});  // 16 sets x 2 ways
  EXPECT_EQ(c.lookup(0x1000, 0xf), 0);
  c.fill(0x1000, 0x3, false);
  EXPECT_EQ(c.lookup(0x1000, 0xf), 0x3);  // only the fetched sectors
  c.fill(0x1000, 0xc, false);
  EXPECT_EQ(c.lookup(0x1000, 0xf), 0xf);
  c.invalidate(0x1000, 0x1);
  EXPECT_EQ(c.lookup(0x1000, 0xf), 0xe);
  c.invalidate_all();
  EXPECT_EQ(c.lookup(0x1000, 0xf), 0);
}

TEST(SectorCache, LeastRecentlyUsedWayIsEvictedWithItsDirtySectors) {
  SectorCache c(CacheGeometry{4096, 2, 128});
  // 0x0000, 0x0800 and 0x1000 map to set 0 (16 sets x 128 B = 2 KiB apart).
  EXPECT_EQ(c.fill(0x0000, 0x1, true).dirty, 0);
  EXPECT_EQ(c.fill(0x0800, 0x2, false).dirty, 0);
  c.lookup(0x0000, 0x1);  // 0x0800 is now least recently used
  const auto v = c.fill(0x1000, 0x1, false);
  EXPECT_EQ(v.dirty, 0);  // 0x0800 was clean
  EXPECT_FALSE(c.contains(0x0800));
  const auto v2 = c.fill(0x1800, 0x1, false);  // evicts 0x0000, dirty sector 0
  EXPECT_EQ(v2.line, 0x0000u);
  EXPECT_EQ(v2.dirty, 0x1);
}

TEST(Mshr, MergesRequestsToALineInFlight) {
  MshrTable<int> m(2);
  auto& e = m.allocate(0x100);
  e.requested = 0x3;
  e.waiters.push_back({1, 0x1});
  auto* again = m.find(0x100);
  ASSERT_NE(again, nullptr);
  again->waiters.push_back({2, 0x3});
  m.allocate(0x200);
  EXPECT_TRUE(m.full());
  std::vector<int> done;
  m.arrive(0x100, 0x1, [&](int w) { done.push_back(w); });
  EXPECT_EQ(done, std::vector<int>{1});  // waiter 2 still needs sector 1
  m.arrive(0x100, 0x2, [&](int w) { done.push_back(w); });
  EXPECT_EQ(done, (std::vector<int>{1, 2}));
  EXPECT_EQ(m.find(0x100), nullptr);  // freed
  EXPECT_FALSE(m.full());
}
