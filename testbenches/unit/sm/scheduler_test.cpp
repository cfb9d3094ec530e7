// Warp scheduling policies (LRR, GTO, two-level) and the block footprint.
#include "sm/warp_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "sm/kernel_launch.h"
#include "sm/warp_schedulers/gto.h"
#include "sm/warp_schedulers/lrr.h"
#include "sm/warp_schedulers/two_level.h"

namespace {

using namespace tessera::sm;
using V = std::vector<uint16_t>;

V order_of(WarpScheduler& s, const V& warps) {
  V out{99, 98};  // stale contents must be replaced
  s.order(warps, out);
  return out;
}

// ---------------------------------------------------------------- factory

TEST(SchedulerFactory, NamesAndKinds) {
  EXPECT_EQ(scheduler_names(), (std::vector<std::string>{"lrr", "gto", "two_level"}));
  EXPECT_NE(dynamic_cast<LrrScheduler*>(make_scheduler("lrr", {}).get()), nullptr);
  EXPECT_NE(dynamic_cast<GtoScheduler*>(make_scheduler("gto", {}).get()), nullptr);
  EXPECT_NE(dynamic_cast<TwoLevelScheduler*>(make_scheduler("two_level", {}).get()), nullptr);
  EXPECT_THROW(make_scheduler("fifo", {}), std::invalid_argument);
}

// What every registered policy owes the issue stage, whatever its order:
// only resident warps, none twice, at least one when any is resident, and
// the same sequence from the same history. Runs over the registry, so a new
// policy is checked without editing this test.
TEST(SchedulerFactory, EveryPolicyOrdersOnlyResidentWarpsOnceAndDeterministically) {
  for (const WarpSchedulerKind& kind : warp_scheduler_kinds()) {
    SCOPED_TRACE(kind.name);
    EXPECT_NE(std::string(kind.summary), "");
    auto a = kind.make(WarpSchedulerOptions{2});
    auto b = kind.make(WarpSchedulerOptions{2});
    V resident{0, 3, 5, 6, 9};
    for (int cycle = 0; cycle < 40; ++cycle) {
      if (cycle == 20) resident = {3, 6, 9, 12};  // retirements and a new block
      const V oa = order_of(*a, resident);
      EXPECT_EQ(oa, order_of(*b, resident)) << "cycle " << cycle;
      ASSERT_FALSE(oa.empty()) << "cycle " << cycle;
      EXPECT_EQ(std::set<uint16_t>(oa.begin(), oa.end()).size(), oa.size()) << "cycle " << cycle;
      for (uint16_t w : oa) EXPECT_NE(std::find(resident.begin(), resident.end(), w), resident.end()) << w;
      // The warp to issue: cycle by cycle a different position of the order,
      // and every fourth cycle it waits on memory instead.
      const uint16_t chosen = oa[static_cast<size_t>(cycle) % oa.size()];
      if (cycle % 4 == 3) {
        a->long_latency_wait(chosen);
        b->long_latency_wait(chosen);
      } else {
        a->issued(chosen);
        b->issued(chosen);
      }
    }
  }
}

// ---------------------------------------------------------------- LRR

TEST(Lrr, StartsInSlotOrder) {
  LrrScheduler s;
  EXPECT_EQ(order_of(s, {0, 1, 2, 3}), (V{0, 1, 2, 3}));
}

TEST(Lrr, RotatesToStartAfterLastIssued) {
  LrrScheduler s;
  const V warps{0, 1, 2, 3};
  s.issued(1);
  EXPECT_EQ(order_of(s, warps), (V{2, 3, 0, 1}));
  s.issued(2);
  EXPECT_EQ(order_of(s, warps), (V{3, 0, 1, 2}));
  s.issued(3);
  EXPECT_EQ(order_of(s, warps), (V{0, 1, 2, 3}));
  s.issued(0);
  EXPECT_EQ(order_of(s, warps), (V{1, 2, 3, 0}));
}

TEST(Lrr, EveryWarpGetsATurn) {
  LrrScheduler s;
  const V warps{0, 4, 8, 12};
  V seen;
  for (int i = 0; i < 8; ++i) {
    const V o = order_of(s, warps);
    seen.push_back(o.front());
    s.issued(o.front());  // the first one always issues
  }
  EXPECT_EQ(seen, (V{0, 4, 8, 12, 0, 4, 8, 12}));
}

TEST(Lrr, UsesSlotOrderWhateverTheResidentListOrder) {
  LrrScheduler s;
  s.issued(5);
  EXPECT_EQ(order_of(s, {9, 1, 5, 3}), (V{9, 1, 3, 5}));
}

TEST(Lrr, LastIssuedWarpRetired) {
  LrrScheduler s;
  s.issued(2);
  EXPECT_EQ(order_of(s, {0, 1, 3}), (V{3, 0, 1}));
  s.issued(7);  // past the highest slot: wrap to the lowest
  EXPECT_EQ(order_of(s, {0, 1, 3}), (V{0, 1, 3}));
}

TEST(Lrr, EmptyList) {
  LrrScheduler s;
  s.issued(3);
  EXPECT_TRUE(order_of(s, {}).empty());
}

// ---------------------------------------------------------------- GTO

TEST(Gto, OldestFirstInitially) {
  GtoScheduler s;
  // The resident list is oldest first, whatever the slot numbers.
  EXPECT_EQ(order_of(s, {5, 2, 7, 0}), (V{5, 2, 7, 0}));
}

TEST(Gto, LastIssuedFirstThenOldest) {
  GtoScheduler s;
  const V warps{5, 2, 7, 0};
  s.issued(7);
  EXPECT_EQ(order_of(s, warps), (V{7, 5, 2, 0}));
  s.issued(7);  // greedy: stays first while it issues
  EXPECT_EQ(order_of(s, warps), (V{7, 5, 2, 0}));
  s.issued(0);
  EXPECT_EQ(order_of(s, warps), (V{0, 5, 2, 7}));
  s.issued(5);
  EXPECT_EQ(order_of(s, warps), (V{5, 2, 7, 0}));
}

TEST(Gto, LastIssuedRetiredFallsBackToOldest) {
  GtoScheduler s;
  s.issued(2);
  EXPECT_EQ(order_of(s, {5, 7, 0}), (V{5, 7, 0}));
}

TEST(Gto, NoDuplicates) {
  GtoScheduler s;
  s.issued(1);
  const V o = order_of(s, {0, 1, 2});
  EXPECT_EQ(o, (V{1, 0, 2}));
}

// ---------------------------------------------------------------- two-level

TEST(TwoLevel, ActiveSetHoldsTheOldestN) {
  TwoLevelScheduler s(2);
  EXPECT_EQ(order_of(s, {0, 1, 2, 3, 4}), (V{0, 1}));
}

TEST(TwoLevel, RoundRobinInsideActiveSet) {
  TwoLevelScheduler s(3);
  const V warps{0, 1, 2, 3, 4};
  EXPECT_EQ(order_of(s, warps), (V{0, 1, 2}));
  s.issued(0);
  EXPECT_EQ(order_of(s, warps), (V{1, 2, 0}));
  s.issued(1);
  EXPECT_EQ(order_of(s, warps), (V{2, 0, 1}));
  s.issued(2);
  EXPECT_EQ(order_of(s, warps), (V{0, 1, 2}));
}

TEST(TwoLevel, LongLatencyWaitDemotesAndAdmitsOldestPending) {
  TwoLevelScheduler s(2);
  const V warps{0, 1, 2, 3, 4};
  EXPECT_EQ(order_of(s, warps), (V{0, 1}));
  s.issued(1);
  s.long_latency_wait(1);
  // 1 leaves; 2 (the oldest pending) comes in.
  V o = order_of(s, warps);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(std::set<uint16_t>(o.begin(), o.end()), (std::set<uint16_t>{0, 2}));
  s.issued(0);
  s.long_latency_wait(0);
  o = order_of(s, warps);
  EXPECT_EQ(std::set<uint16_t>(o.begin(), o.end()), (std::set<uint16_t>{2, 3}));
}

TEST(TwoLevel, DemotedWarpsComeBackAfterOthers) {
  TwoLevelScheduler s(2);
  const V warps{0, 1, 2, 3};
  EXPECT_EQ(order_of(s, warps), (V{0, 1}));
  s.long_latency_wait(0);
  s.long_latency_wait(1);
  // The never-demoted 2 and 3 come in before the demoted 0 and 1, although
  // 0 and 1 are older.
  V o = order_of(s, warps);
  EXPECT_EQ(std::set<uint16_t>(o.begin(), o.end()), (std::set<uint16_t>{2, 3}));
  s.long_latency_wait(2);
  // Only 3 was never demoted: it stays; one demoted warp (the oldest) refills.
  o = order_of(s, warps);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(std::set<uint16_t>(o.begin(), o.end()), (std::set<uint16_t>{3, 0}));
}

TEST(TwoLevel, DemotedWarpReturnsWhenNothingElseIsPending) {
  TwoLevelScheduler s(2);
  const V warps{0, 1};
  EXPECT_EQ(order_of(s, warps), (V{0, 1}));
  s.long_latency_wait(0);
  V o = order_of(s, warps);
  EXPECT_EQ(std::set<uint16_t>(o.begin(), o.end()), (std::set<uint16_t>{0, 1}));
}

TEST(TwoLevel, RetiredWarpsLeaveAndAreReplaced) {
  TwoLevelScheduler s(2);
  EXPECT_EQ(order_of(s, {0, 1, 2, 3}), (V{0, 1}));
  V o = order_of(s, {1, 2, 3});  // 0 retired
  EXPECT_EQ(std::set<uint16_t>(o.begin(), o.end()), (std::set<uint16_t>{1, 2}));
}

TEST(TwoLevel, SlotReusedAfterDemotedWarpRetiredIsNotDemoted) {
  TwoLevelScheduler s(2);
  EXPECT_EQ(order_of(s, {0, 1, 2, 3}), (V{0, 1}));
  s.long_latency_wait(1);
  V o = order_of(s, {0, 2, 3});  // 1 retired while demoted
  EXPECT_EQ(std::set<uint16_t>(o.begin(), o.end()), (std::set<uint16_t>{0, 2}));
  // A new warp of another block takes slot 1 (newest, so last in the list).
  const V warps{0, 2, 3, 1};
  s.long_latency_wait(0);
  s.long_latency_wait(2);
  // 3 and the new 1 were never demoted: they come before the demoted 0 and 2.
  o = order_of(s, warps);
  EXPECT_EQ(std::set<uint16_t>(o.begin(), o.end()), (std::set<uint16_t>{3, 1}));
}

TEST(TwoLevel, WaitOfInactiveWarpIgnored) {
  TwoLevelScheduler s(1);
  EXPECT_EQ(order_of(s, {0, 1, 2}), (V{0}));
  s.long_latency_wait(2);  // pending, not active: no effect
  s.long_latency_wait(0);
  EXPECT_EQ(order_of(s, {0, 1, 2}), (V{1}));
  s.long_latency_wait(1);
  EXPECT_EQ(order_of(s, {0, 1, 2}), (V{2}));
}

TEST(TwoLevel, NeverMoreThanActiveSize) {
  TwoLevelScheduler s(4);
  V warps;
  for (uint16_t w = 0; w < 16; ++w) warps.push_back(w);
  for (int i = 0; i < 50; ++i) {
    const V o = order_of(s, warps);
    ASSERT_EQ(o.size(), 4u);
    EXPECT_EQ(std::set<uint16_t>(o.begin(), o.end()).size(), 4u);
    s.issued(o.front());
    if (i % 3 == 0) s.long_latency_wait(o.front());
  }
}

// ---------------------------------------------------------------- footprint

KernelLaunch launch(uint32_t bx, uint32_t by, uint32_t bz, uint32_t regs, uint32_t shared = 0) {
  KernelLaunch k;
  k.block = Dim3{bx, by, bz};
  k.regs_per_thread = regs;
  k.shared_bytes = shared;
  return k;
}

TEST(Footprint, RegistersRoundedPerWarpToGranule) {
  // 33 regs x 32 threads = 1056 per warp, rounded to 1280 (granule 256); 100 threads = 4 warps.
  const BlockFootprint f = footprint(launch(100, 1, 1, 33, 1000), 32, 256);
  EXPECT_EQ(f.threads, 100u);
  EXPECT_EQ(f.warps, 4u);
  EXPECT_EQ(f.registers, 4u * 1280u);
  EXPECT_EQ(f.shared_bytes, 1000u);
}

TEST(Footprint, ExactMultipleNotRounded) {
  const BlockFootprint f = footprint(launch(64, 2, 1, 64), 32, 256);
  EXPECT_EQ(f.threads, 128u);
  EXPECT_EQ(f.warps, 4u);
  EXPECT_EQ(f.registers, 4u * 2048u);
}

TEST(Footprint, PartialWarpChargesAWholeWarp) {
  const BlockFootprint f = footprint(launch(1, 1, 1, 1), 32, 256);
  EXPECT_EQ(f.threads, 1u);
  EXPECT_EQ(f.warps, 1u);
  EXPECT_EQ(f.registers, 256u);  // 32 registers rounded up to one granule
}

TEST(Footprint, GranuleOfOneIsExact) {
  const BlockFootprint f = footprint(launch(8, 4, 2, 37), 32, 1);
  EXPECT_EQ(f.threads, 64u);
  EXPECT_EQ(f.warps, 2u);
  EXPECT_EQ(f.registers, 2u * 37u * 32u);
}

TEST(Footprint, ThreeDimensionalBlock) {
  const BlockFootprint f = footprint(launch(10, 10, 10, 16), 32, 256);
  EXPECT_EQ(f.threads, 1000u);
  EXPECT_EQ(f.warps, 32u);
  EXPECT_EQ(f.registers, 32u * 512u);
}

TEST(Footprint, DefaultRegisterCountFillsTheFileAtFullOccupancy) {
  // Defaults: 64 regs/thread, granule 256, 65536 registers: 1024 threads fit exactly.
  const BlockFootprint f = footprint(launch(1024, 1, 1, 64), 32, 256);
  EXPECT_EQ(f.registers, 65536u);
}

// BUG (models/sm/kernel_launch.h, footprint()): regs_per_thread * warp_size
// and per_warp * warps are computed in uint32_t and wrap. DISP_REGS is a
// 32-bit MMIO register the firmware can set to anything, so 0x08000000
// registers per thread gives 0x08000000 * 32 = 2^32 -> 0 registers per warp,
// and Dispatcher::validate() accepts a launch that should be a bad launch
// ("more registers than one SM has", status 4).
TEST(Footprint, HugeRegisterCountDoesNotWrap) {
  const BlockFootprint f = footprint(launch(32, 1, 1, 0x08000000u), 32, 256);
  EXPECT_GT(f.registers, 65536u) << "register footprint wrapped around to " << f.registers;
}

}  // namespace
