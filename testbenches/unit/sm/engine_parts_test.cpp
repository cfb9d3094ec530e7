// The SM engine's pure parts on their own: block slots (occupancy limits,
// first-fit shared memory), warp state (minimum-PC reconvergence, the
// block barrier) and the L1 (hits, MSHR merging, bypass when full).
#include <gtest/gtest.h>

#include "sim/config.h"
#include "sim/stats.h"
#include "sm/block_slots.h"
#include "sm/l1_cache.h"
#include "sm/warp_state.h"

using namespace tessera::sm;
using tessera::sim::Config;
using tessera::sim::StatGroup;

namespace {

SmParams params(const std::vector<std::string>& sets = {}) {
  Config cfg;
  for (const std::string& s : sets) cfg.set_override(s);
  return SmParams::from_config(cfg);
}

KernelLaunch launch(unsigned threads, uint32_t shared_bytes = 0, uint32_t regs = 32) {
  KernelLaunch k;
  k.grid = {8, 1, 1};
  k.block = {threads, 1, 1};
  k.shared_bytes = shared_bytes;
  k.regs_per_thread = regs;
  return k;
}

}  // namespace

// sm.max_blocks = 2: a third block waits for a slot, whatever else is free.
TEST(BlockSlots, BlockSlotLimit) {
  const SmParams p = params({"sm.max_blocks=2"});
  BlockSlots s(p);
  EXPECT_EQ(s.start(launch(32), 0), 0u);
  EXPECT_EQ(s.start(launch(32), 1), 1u);
  EXPECT_FALSE(s.can_accept(launch(32)));
  s.retire(0);
  EXPECT_TRUE(s.can_accept(launch(32)));
  EXPECT_EQ(s.start(launch(32), 2), 0u);  // the lowest free slot
}

// 2048 threads per SM: two blocks of 1024 fill it (64 warps too).
TEST(BlockSlots, ThreadAndWarpLimits) {
  const SmParams p = params();
  BlockSlots s(p);
  s.start(launch(1024), 0);
  s.start(launch(1024), 1);
  EXPECT_EQ(s.resident_threads(), 2048u);
  EXPECT_EQ(s.resident_warps(), 64u);
  EXPECT_FALSE(s.can_accept(launch(32)));
}

// 64 registers per thread x 32 = 2048 per warp (a multiple of the granule
// 256): 65536 registers hold 32 warps, i.e. two blocks of 512 threads.
TEST(BlockSlots, RegisterLimit) {
  const SmParams p = params();
  BlockSlots s(p);
  s.start(launch(512, 0, 64), 0);
  EXPECT_EQ(s.used_registers(), 16u * 2048u);
  EXPECT_TRUE(s.can_accept(launch(512, 0, 64)));
  s.start(launch(512, 0, 64), 1);
  EXPECT_FALSE(s.can_accept(launch(32, 0, 64)));
}

// 1000 bytes take 1008 (16-byte aligned), first fit from offset 0; freeing
// the middle extent leaves a hole that only a small enough block reuses;
// freeing every block merges the extents back into one.
TEST(BlockSlots, SharedMemoryFirstFitAndMerge) {
  const SmParams p = params({"sm.shared_bytes=4096"});
  BlockSlots s(p);
  const unsigned a = s.start(launch(32, 1000), 0);
  const unsigned b = s.start(launch(32, 1000), 1);
  const unsigned c = s.start(launch(32, 1000), 2);
  EXPECT_EQ(s[a].shared_base, 0u);
  EXPECT_EQ(s[b].shared_base, 1008u);
  EXPECT_EQ(s[c].shared_base, 2016u);
  // 4096 - 3024 = 1072 left at the end.
  EXPECT_FALSE(s.can_accept(launch(32, 1100)));
  s.retire(b);
  EXPECT_FALSE(s.can_accept(launch(32, 1100)));  // 1008 + 1072, but not contiguous
  EXPECT_TRUE(s.can_accept(launch(32, 1000)));
  const unsigned d = s.start(launch(32, 500), 3);
  EXPECT_EQ(d, b);                     // the lowest free block slot
  EXPECT_EQ(s[d].shared_base, 1008u);  // first fit: the hole
  s.retire(a);
  s.retire(c);
  s.retire(d);
  ASSERT_EQ(s.free_extents().size(), 1u);
  EXPECT_EQ(s.free_extents()[0], (std::pair<uint32_t, uint32_t>{0, 4096}));
}

namespace {
Warp warp_at(const std::vector<uint32_t>& pcs) {
  Warp w;
  w.resident = true;
  for (unsigned lane = 0; lane < pcs.size(); ++lane) {
    w.existing |= 1u << lane;
    w.threads[lane].pc = pcs[lane];
  }
  w.reconverge();
  return w;
}
}  // namespace

TEST(WarpState, IssuesForTheThreadsAtTheMinimumPc) {
  Warp w = warp_at({0x120, 0x100, 0x140, 0x100});
  EXPECT_EQ(w.pc, 0x100u);
  EXPECT_EQ(w.mask, 0b1010u);
  w.threads[1].pc = w.threads[3].pc = 0x120;  // they caught up: reconverged with lane 0
  w.reconverge();
  EXPECT_EQ(w.pc, 0x120u);
  EXPECT_EQ(w.mask, 0b1011u);
}

TEST(WarpState, ExitedAndWaitingThreadsDoNotRun) {
  Warp w = warp_at({0x100, 0x100, 0x200});
  w.exited = 0b001;
  w.at_barrier = 0b010;
  w.reconverge();
  EXPECT_EQ(w.pc, 0x200u);
  EXPECT_EQ(w.mask, 0b100u);
  w.exited = 0b101;
  w.reconverge();
  EXPECT_EQ(w.mask, 0u);  // nothing can run
}

// What the waveform's chip.smN.warpW.state shows of a warp.
TEST(WarpState, ActivityNamesWhatTheWarpWaitsFor) {
  EXPECT_EQ(warp_activity(Warp{}, nullptr), WarpActivity::kEmpty);
  Warp w = warp_at({0x100, 0x100, 0x100});
  tessera::isa::Inst add;  // x5 = x6 + x7: registers 5, 6, 7
  add.dst = 5;
  add.src[0] = 6;
  add.src[1] = 7;
  EXPECT_EQ(warp_activity(w, &add), WarpActivity::kActive);
  w.ready[9] = Warp::kPending;  // a load in flight to a register the instruction does not read
  EXPECT_EQ(warp_activity(w, &add), WarpActivity::kActive);
  w.ready[7] = 12;  // an arithmetic result not ready yet: a scoreboard wait, not memory
  EXPECT_EQ(warp_activity(w, &add), WarpActivity::kActive);
  w.ready[7] = Warp::kPending;
  EXPECT_EQ(warp_activity(w, &add), WarpActivity::kMemory);
  w.ready[7] = 0;
  tessera::isa::Inst st_v2 = add;  // a group of 2: src[1] names x7 and x8
  st_v2.group = 2;
  w.ready[8] = Warp::kPending;
  EXPECT_EQ(warp_activity(w, &add), WarpActivity::kActive);
  EXPECT_EQ(warp_activity(w, &st_v2), WarpActivity::kMemory);
  w.at_barrier = 0b011;
  w.exited = 0b100;
  w.reconverge();
  EXPECT_EQ(warp_activity(w, &add), WarpActivity::kBarrier);
  w.at_barrier = 0;
  w.exited = 0b111;
  w.reconverge();
  EXPECT_EQ(warp_activity(w, &add), WarpActivity::kExited);
}

// A block of two warps of 2 threads: the barrier opens when all 4 arrived.
TEST(WarpState, BarrierReleasesWhenEveryThreadOfTheBlockArrived) {
  std::vector<Warp> warps{warp_at({0x100, 0x100}), warp_at({0x100, 0x80})};
  Block b;
  b.resident = true;
  b.threads = 4;
  b.warps = {0, 1};
  warps[0].at_barrier = 0b11;
  warps[1].at_barrier = 0b01;
  b.waiting = 3;
  for (Warp& w : warps) w.reconverge();
  release_barrier_if_complete(0, b, warps);
  EXPECT_EQ(warps[0].mask, 0u);  // still waiting for lane 1 of warp 1
  warps[1].at_barrier |= 0b10;
  warps[1].threads[1].pc = 0x100;
  b.waiting = 4;
  release_barrier_if_complete(0, b, warps);
  EXPECT_EQ(b.waiting, 0u);
  EXPECT_EQ(warps[0].mask, 0b11u);
  EXPECT_EQ(warps[1].mask, 0b11u);
  EXPECT_EQ(warps[1].pc, 0x100u);
}

namespace {
// 2 halves of 1 KiB, 2 ways: 4 sets per half; 2 MSHRs per half.
L1Params l1_params() {
  L1Params p;
  p.bytes = 2048;
  p.halves = 2;
  p.ways = 2;
  p.hit_latency = 82;
  p.mshrs = 2;
  return p;
}
}  // namespace

TEST(L1Cache, MissWaitsInAnMshrThenHits) {
  StatGroup root("sm0");
  L1Cache l1(l1_params(), root);
  auto l = l1.load(0, 0x1000, 0b0011, 7);
  EXPECT_EQ(l.kind, L1Cache::Lookup::kMiss);
  EXPECT_EQ(l.fetch, 0b0011);
  // A second group wants sectors 1 and 2: sector 1 is on its way.
  l = l1.load(0, 0x1000, 0b0110, 8);
  EXPECT_EQ(l.kind, L1Cache::Lookup::kMiss);
  EXPECT_EQ(l.fetch, 0b0100);
  EXPECT_EQ(l1.half(0).merged_sectors, 1u);
  std::vector<unsigned> done;
  l1.fill(0, 0x1000, 0b0011, [&](unsigned g) { done.push_back(g); });
  EXPECT_EQ(done, (std::vector<unsigned>{7}));  // group 8 still waits for sector 2
  l1.fill(0, 0x1000, 0b0100, [&](unsigned g) { done.push_back(g); });
  EXPECT_EQ(done, (std::vector<unsigned>{7, 8}));
  EXPECT_EQ(l1.load(0, 0x1000, 0b0111, 9).kind, L1Cache::Lookup::kHit);
  EXPECT_EQ(l1.load(1, 0x1000, 0b0001, 9).kind, L1Cache::Lookup::kMiss);  // the other half has its own array
  EXPECT_EQ(l1.sector_totals(), (std::pair<uint64_t, uint64_t>{3, 2 + 2 + 1}));
}

TEST(L1Cache, EveryMshrBusyBypasses) {
  StatGroup root("sm0");
  L1Cache l1(l1_params(), root);
  EXPECT_EQ(l1.load(0, 0x1000, 1, 0).kind, L1Cache::Lookup::kMiss);
  EXPECT_EQ(l1.load(0, 0x2000, 1, 1).kind, L1Cache::Lookup::kMiss);
  EXPECT_EQ(l1.load(0, 0x3000, 1, 2).kind, L1Cache::Lookup::kBypass);
  EXPECT_EQ(l1.load(0, 0x1000, 2, 3).kind, L1Cache::Lookup::kMiss);  // a line in flight still merges
  EXPECT_EQ(l1.half(0).bypassed, 1u);
}

TEST(L1Cache, StoresInvalidateEveryHalf) {
  StatGroup root("sm0");
  L1Cache l1(l1_params(), root);
  l1.load(0, 0x1000, 1, 0);
  l1.load(1, 0x1000, 1, 1);
  l1.fill(0, 0x1000, 1, [](unsigned) {});
  l1.fill(1, 0x1000, 1, [](unsigned) {});
  l1.invalidate(0x1000, 1);
  EXPECT_EQ(l1.load(0, 0x1000, 1, 2).kind, L1Cache::Lookup::kMiss);
  EXPECT_EQ(l1.load(1, 0x1000, 1, 3).kind, L1Cache::Lookup::kMiss);
}

// The l1.* keys keep their names and defaults: 24 KiB in 2 halves, 4 ways.
TEST(L1Cache, DeclaresTheL1Keys) {
  Config cfg;
  const L1Params p = L1Params::from_config(cfg);
  EXPECT_EQ(p.bytes, 24u * 1024u);
  EXPECT_EQ(p.halves, 2u);
  EXPECT_EQ(p.ways, 4u);
  EXPECT_EQ(p.hit_latency, 82u);
  EXPECT_EQ(p.mshrs, 32u);
  EXPECT_FALSE(p.cache_global_loads);
}
