// The L2 slice and the crossbar, cycle by cycle, with expected cycles
// derived from the timing rules in gpu/l2_slice.h and gpu/crossbar.h.
#include <gtest/gtest.h>

#include "gpu/crossbar.h"
#include "gpu/l2_slice.h"

using namespace tessera::gpu;
using tessera::sim::MemOp;

namespace {

// 4 KiB, 2 ways, 128-byte lines: 16 sets, so lines 2 KiB apart share a set.
L2Params params() {
  L2Params p;
  p.geometry = tessera::mem::SectorGeometry{4096, 2, 128, 1};
  p.hit_latency = 10;
  p.mshrs = 2;
  p.queue_depth = 4;
  p.atomic_cycles = 3;
  return p;
}

L2Request req(uint64_t handle, uint32_t line, uint8_t sectors, MemOp op = MemOp::kRead, unsigned atomic_ops = 0) {
  return L2Request{handle, line, sectors, op, atomic_ops};
}

std::vector<std::pair<uint64_t, uint64_t>> drain_answers(L2Slice& s) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& a : s.answers()) out.emplace_back(a.handle, a.cycle);
  s.answers().clear();
  return out;
}

using Answers = std::vector<std::pair<uint64_t, uint64_t>>;

}  // namespace

// A read of two absent sectors fetches exactly those two; the answer leaves
// hit_latency after the last one arrives. Read again: a hit.
TEST(L2Slice, MissFetchesOnlyTheMissingSectorsThenHits) {
  L2Slice s(params());
  s.push(req(1, 0x1000, 0x3), 0);
  s.cycle(0);
  ASSERT_EQ(s.to_memory().size(), 2u);
  EXPECT_EQ(s.to_memory()[0].addr, 0x1000u);
  EXPECT_EQ(s.to_memory()[1].addr, 0x1020u);
  EXPECT_FALSE(s.to_memory()[0].write);
  s.to_memory().clear();
  s.fill(0x1000, 50);
  EXPECT_TRUE(s.answers().empty());  // sector 1 still missing
  s.fill(0x1020, 60);
  EXPECT_EQ(drain_answers(s), (Answers{{1, 70}}));

  s.push(req(2, 0x1000, 0x3), 80);
  s.cycle(80);
  EXPECT_TRUE(s.to_memory().empty());
  EXPECT_EQ(drain_answers(s), (Answers{{2, 90}}));
  EXPECT_EQ(s.stats().hit_sectors, 2u);
  EXPECT_EQ(s.stats().miss_sectors, 2u);
}

TEST(L2Slice, SectorsAreFetchedOneByOne) {
  L2Slice s(params());
  s.push(req(1, 0x1000, 0x1), 0);
  s.cycle(0);
  s.fill(0x1000, 20);
  s.to_memory().clear();
  s.push(req(2, 0x1000, 0x3), 40);  // sector 0 present, sector 1 not
  s.cycle(40);
  ASSERT_EQ(s.to_memory().size(), 1u);
  EXPECT_EQ(s.to_memory()[0].addr, 0x1020u);
}

// Two reads of a line in flight: one memory read per sector, both answered
// when the sectors arrive.
TEST(L2Slice, MshrMergesMissesToALineInFlight) {
  L2Slice s(params());
  s.push(req(1, 0x2000, 0x1), 0);
  s.push(req(2, 0x2000, 0x1), 0);
  s.cycle(0);
  s.cycle(1);  // one request per cycle through the tag pipeline
  EXPECT_EQ(s.to_memory().size(), 1u);
  EXPECT_EQ(s.stats().mshr_merged_sectors, 1u);
  EXPECT_EQ(s.stats().miss_sectors, 1u);  // the merged sector is not a second miss
  EXPECT_EQ(s.stats().hit_sectors, 0u);
  s.fill(0x2000, 30);
  EXPECT_EQ(drain_answers(s), (Answers{{1, 40}, {2, 40}}));
}

// Two MSHRs: a third missing line waits at the head of the queue until a
// fill frees one.
TEST(L2Slice, FullMshrsHoldTheQueue) {
  L2Slice s(params());
  s.push(req(1, 0x1000, 0x1), 0);
  s.push(req(2, 0x1080, 0x1), 0);
  s.push(req(3, 0x1100, 0x1), 0);
  s.cycle(0);
  s.cycle(1);
  s.cycle(2);
  s.cycle(3);
  EXPECT_EQ(s.to_memory().size(), 2u);
  EXPECT_EQ(s.stats().mshr_full_cycles, 2u);  // cycles 2 and 3
  s.fill(0x1000, 4);
  s.cycle(5);
  EXPECT_EQ(s.to_memory().size(), 3u);
  EXPECT_EQ(s.to_memory()[2].addr, 0x1100u);
}

// Writes allocate without fetching and are acknowledged after hit_latency;
// the dirty sectors go to memory only when the line is evicted.
TEST(L2Slice, WriteBackOnEvictionOfDirtySectorsOnly) {
  L2Slice s(params());
  s.push(req(1, 0x0000, 0x5, MemOp::kWrite), 0);
  s.cycle(0);
  EXPECT_TRUE(s.to_memory().empty());
  EXPECT_EQ(drain_answers(s), (Answers{{1, 10}}));
  // Two more lines of set 0 (2 KiB apart) evict it.
  s.push(req(2, 0x0800, 0xf, MemOp::kWrite), 1);
  s.push(req(3, 0x1000, 0x1, MemOp::kWrite), 2);
  s.cycle(1);
  s.cycle(2);
  ASSERT_EQ(s.to_memory().size(), 2u);
  EXPECT_EQ(s.to_memory()[0].addr, 0x0000u);
  EXPECT_EQ(s.to_memory()[1].addr, 0x0040u);
  EXPECT_TRUE(s.to_memory()[0].write && s.to_memory()[1].write);
  EXPECT_EQ(s.stats().writebacks, 2u);
}

// A written sector is then a read hit.
TEST(L2Slice, WrittenSectorsHit) {
  L2Slice s(params());
  s.push(req(1, 0x0000, 0x1, MemOp::kWrite), 0);
  s.push(req(2, 0x0000, 0x1), 1);
  s.cycle(0);
  s.cycle(1);
  EXPECT_TRUE(s.to_memory().empty());
  EXPECT_EQ(drain_answers(s), (Answers{{1, 10}, {2, 11}}));
}

// The atomic unit: 3 cycles per lane operation, one request after another.
// Request 1 (4 ops) looked up at 0: data at 10, unit busy 10..22. Request 2
// (4 ops) looked up at 1: data at 11, waits for the unit, 22..34. A read hit
// at 2 is not held behind them: 12.
TEST(L2Slice, AtomicsSerializeInTheAtomicUnit) {
  L2Slice s(params());
  s.push(req(9, 0x3000, 0x1, MemOp::kWrite), 0);
  s.cycle(0);  // make the sector present
  drain_answers(s);
  s.push(req(1, 0x3000, 0x1, MemOp::kAtomic, 4), 100);
  s.push(req(2, 0x3000, 0x1, MemOp::kAtomic, 4), 100);
  s.push(req(3, 0x3000, 0x1), 100);
  s.cycle(100);
  s.cycle(101);
  s.cycle(102);
  EXPECT_EQ(drain_answers(s), (Answers{{3, 112}, {1, 122}, {2, 134}}));
  EXPECT_EQ(s.stats().atomic_ops, 8u);
}

TEST(L2Slice, QueueDepthBoundsTheInput) {
  L2Slice s(params());
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(s.can_accept());
    s.push(req(static_cast<uint64_t>(i), 0x1000, 0x1), 0);
  }
  EXPECT_FALSE(s.can_accept());
}

// Linear interleaving: line n in slice n mod 4, so a stride of 4 lines hits
// one slice. Hashed: the 2-bit fields of n xor-folded, so the same stride
// (n = 0, 4, 8, 12: fields 00, 01 00, 10 00, 11 00) visits every slice.
TEST(L2Interleave, HashingSpreadsPowerOfTwoStrides) {
  for (uint32_t n : {0u, 4u, 8u, 12u}) EXPECT_EQ(slice_for_line(n, 4, false), 0u);
  EXPECT_EQ(slice_for_line(0, 4, true), 0u);
  EXPECT_EQ(slice_for_line(4, 4, true), 1u);
  EXPECT_EQ(slice_for_line(8, 4, true), 2u);
  EXPECT_EQ(slice_for_line(12, 4, true), 3u);
  for (uint32_t n = 0; n < 64; ++n) EXPECT_LT(slice_for_line(n, 3, true), 3u);
}

// 40 bytes at 32 bytes/cycle take two cycles on both ports, then the
// latency; a second transfer to the same output starts when it is free.
TEST(Crossbar, PortsSerializeTransfersByBandwidth) {
  Crossbar x(2, 2, 32.0, 5);
  EXPECT_EQ(x.send(0, 1, 40, 10), 10u + 2 + 5);
  EXPECT_FALSE(x.output_free(1, 11));
  EXPECT_EQ(x.send(1, 1, 8, 10), 12u + 1 + 5);  // waits for output 1
  EXPECT_EQ(x.send(1, 0, 8, 10), 13u + 1 + 5);  // input 1 is busy until 13
}
