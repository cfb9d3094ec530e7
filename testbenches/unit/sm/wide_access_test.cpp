// The SM's wide loads and stores and 64-bit atomics, in-process: one warp
// instruction moving 8 or 16 bytes per lane. Expected cycles derived by hand
// (docs/architecture.md "The SM", docs/firmware-abi.md "Wide memory
// instructions") with the default parameters: alu latency 6; shared latency
// 28 plus the default conflict curve, two cycles per pass after the first
// (sm.shared_conflict_cycles 2,6,14,30,62); shared atomic latency 36 and 2
// cycles per atomic pass; 32 banks of 4 bytes, so a 64-bit access is served
// as two half-warps and a 128-bit access as four quarter-warps, each at
// least one pass (CUDA C Programming Guide, "Shared Memory", 64-bit and
// 128-bit accesses). The harness sends a line request the cycle after it is
// queued and answers it 100 cycles later; readable from the cycle after.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "isa/encoding.h"
#include "unit/sm/sm_harness.h"

using namespace tessera::sm;
using namespace tessera::sm::test;
namespace csr = tessera::isa::csr;

namespace {

uint32_t ld_v2(uint32_t rd, uint32_t rs1, int32_t imm) { return enc::i(0x5B, 0, rd, rs1, imm); }
uint32_t ld_v4(uint32_t rd, uint32_t rs1, int32_t imm) { return enc::i(0x5B, 1, rd, rs1, imm); }
uint32_t st_v4(uint32_t rs2, uint32_t rs1, int32_t imm) { return enc::s(0x5B, 5, rs1, rs2, imm); }
uint32_t atom_add64(uint32_t rd, uint32_t rs1, uint32_t rs2) { return enc::r(0x2B, 3, 0, rd, rs1, rs2); }

// x6 = base + tid.x << shift, readable from cycle 19: csrr x5 in 1 (x5 at
// 7), lui x6 in 2 (at 8), slli x5 in 7 (at 13), add x6 in 13 (at 19); the
// access at +16 issues in 19.
std::vector<uint32_t> lane_address(uint32_t base_hi20, unsigned shift) {
  return {csrr(5, csr::kTidX), lui(6, base_hi20), enc::opimm(1, 5, 5, static_cast<int32_t>(shift)),
          enc::op(0, 0, 6, 6, 5)};
}

std::vector<uint32_t> with(std::vector<uint32_t> code, std::initializer_list<uint32_t> more) {
  code.insert(code.end(), more);
  return code;
}

constexpr uint32_t kShared = kSharedWindow >> 12;

}  // namespace

// ld.v2 of consecutive 8-byte elements (tid * 8): each half-warp's 16 lanes
// cover 32 distinct banks once, so 2 passes; the addi reading x11, the second
// register of the group, issues at 19 + 28 + 2 = 49.
TEST(WideShared, ConsecutiveLdV2TakesTwoHalfWarpPasses) {
  SmHarness h(with(lane_address(kShared, 3), {ld_v2(10, 6, 0), addi(8, 11, 0), kExit}));
  h.launch(32, 0, 256);
  for (uint32_t k = 0; k < 64; ++k) h.sm().lane_memory().shared_memory().set_word(k, 1000 + k);
  h.run(1, 80);
  EXPECT_EQ(h.issue_cycle(16), 19u);
  EXPECT_EQ(h.issue_cycle(20), 49u);
  EXPECT_EQ(h.sm().warps()[0].threads[5].x[10], 1010u);
  EXPECT_EQ(h.sm().warps()[0].threads[5].x[11], 1011u);
  EXPECT_EQ(h.sm().stats().to_json()["shared_conflict_passes"].get<uint64_t>(), 1u);
}

// ld.v4 of consecutive 16-byte elements: four quarter-warps of 8 lanes,
// each 32 banks once: 4 passes, readable at 19 + 28 + 6 = 53 (the addi reads
// x13, the last register of the group).
TEST(WideShared, ConsecutiveLdV4TakesFourQuarterWarpPasses) {
  SmHarness h(with(lane_address(kShared, 4), {ld_v4(10, 6, 0), addi(8, 13, 0), kExit}));
  h.launch(32, 0, 512);
  for (uint32_t k = 0; k < 128; ++k) h.sm().lane_memory().shared_memory().set_word(k, 2000 + k);
  h.run(1, 80);
  EXPECT_EQ(h.issue_cycle(20), 53u);
  const auto& t = h.sm().warps()[0].threads[31];
  EXPECT_EQ(t.x[10], 2124u);
  EXPECT_EQ(t.x[13], 2127u);
}

// ld.v2 with a 16-byte stride: lane i reads words 4i, 4i+1. In each
// half-warp lanes i and i+8 meet in the same two banks on different words:
// 2 passes per half-warp, 4 in all: readable at 19 + 28 + 6 = 53.
TEST(WideShared, StridedLdV2ConflictsAreCountedPerHalfWarp) {
  SmHarness h(with(lane_address(kShared, 4), {ld_v2(10, 6, 0), addi(8, 11, 0), kExit}));
  h.launch(32, 0, 512);
  h.run(1, 80);
  EXPECT_EQ(h.issue_cycle(20), 53u);
  EXPECT_EQ(h.sm().stats().to_json()["shared_conflict_passes"].get<uint64_t>(), 3u);
}

// ld.v4 with a 32-byte stride: in each quarter-warp lanes i and i+4 meet in
// the same four banks: 2 passes per quarter, 8 in all: 19 + 28 + 14 = 61.
TEST(WideShared, StridedLdV4ConflictsAreCountedPerQuarterWarp) {
  SmHarness h(with(lane_address(kShared, 5), {ld_v4(10, 6, 0), addi(8, 13, 0), kExit}));
  h.launch(32, 0, 1024);
  h.run(1, 80);
  EXPECT_EQ(h.issue_cycle(20), 61u);
}

// Every lane reads the same 8 bytes: one broadcast pass for each half-warp
// (the half-warps are separate requests), 2 passes, where a whole-warp
// arbiter would see 2 words in 2 banks and take one. lui x6 issues in 1
// (readable at 7), ld.v2 in 7, readable at 7 + 28 + 2 = 37.
TEST(WideShared, SameAddressLdV2IsOneBroadcastPassPerHalfWarp) {
  SmHarness h({lui(6, kShared), ld_v2(10, 6, 8), addi(8, 11, 0), kExit});
  h.launch(32, 0, 256);
  h.sm().lane_memory().shared_memory().set_word(3, 77);
  h.run(1, 80);
  EXPECT_EQ(h.issue_cycle(4), 7u);
  EXPECT_EQ(h.issue_cycle(8), 37u);
  EXPECT_EQ(h.sm().warps()[0].threads[30].x[11], 77u);
}

// Only lanes 0..7 active (an 8-thread block): one quarter-warp, one pass:
// readable at 19 + 28 = 47.
TEST(WideShared, QuarterWarpsWithoutActiveLanesTakeNoPass) {
  SmHarness h(with(lane_address(kShared, 4), {ld_v4(10, 6, 0), addi(8, 13, 0), kExit}));
  h.launch(8, 0, 512);
  h.run(1, 80);
  EXPECT_EQ(h.issue_cycle(20), 47u);
}

// atom.add64 on consecutive 8-byte counters: two half-warp passes of 2
// cycles each; the old value is readable at 19 + 36 + 2 * (2 - 1) = 57.
// x14 = -1 (issued in cycle 3, readable at 9), x15 = 0.
TEST(WideShared, AtomAdd64OnConsecutiveCountersTakesTwoAtomicPasses) {
  std::vector<uint32_t> code = lane_address(kShared, 3);
  code.insert(code.begin() + 2, addi(14, 0, -1));  // cycle 3; the rest shift by one cycle
  code.insert(code.end(), {atom_add64(16, 6, 14), addi(8, 17, 0), kExit});
  // csrr 1, lui 2, addi x14 3, slli 7 (x5 at 7), add 13, atom at 19.
  SmHarness h(code);
  h.launch(32, 0, 256);
  auto& smem = h.sm().lane_memory().shared_memory();
  for (uint32_t k = 0; k < 64; k += 2) {
    smem.set_word(k, 0x80000000u);  // 0x0000_0003_8000_0000
    smem.set_word(k + 1, 3);
  }
  h.run(1, 80);
  EXPECT_EQ(h.issue_cycle(20), 19u);
  EXPECT_EQ(h.issue_cycle(24), 57u);
  // 0x3_80000000 + 0xFFFFFFFF = 0x4_7FFFFFFF.
  EXPECT_EQ(smem.word(6), 0x7FFFFFFFu);
  EXPECT_EQ(smem.word(7), 4u);
  EXPECT_EQ(h.sm().warps()[0].threads[3].x[16], 0x80000000u);
  EXPECT_EQ(h.sm().warps()[0].threads[3].x[17], 3u);
}

// ld.v4 of consecutive 16-byte elements in global memory: 512 bytes, four
// 128-byte lines of four sectors each, one request per line, all sent in
// cycle 20 and answered in 120: the addi reading x13 issues in 121.
TEST(WideGlobal, ConsecutiveLdV4TouchesFourFullLines) {
  SmHarness h(with(lane_address(kData >> 12, 4), {ld_v4(10, 6, 0), addi(8, 13, 0), kExit}));
  for (uint32_t k = 0; k < 128; ++k) h.global().store(kData + 4 * k, 4, 5000 + k);
  h.launch(32, 0);
  h.run(1, 200);
  ASSERT_EQ(h.sent().size(), 4u);
  for (unsigned n = 0; n < 4; ++n) {
    EXPECT_EQ(h.sent()[n].first, 20u);
    EXPECT_EQ(h.sent()[n].second.line, kData + 128 * n);
    EXPECT_EQ(h.sent()[n].second.sectors, 0xFu);
    EXPECT_EQ(h.sent()[n].second.op, LineOp::kRead);
  }
  EXPECT_EQ(h.issue_cycle(20), 121u);
  EXPECT_EQ(h.sm().warps()[0].threads[9].x[10], 5036u);
  EXPECT_EQ(h.sm().warps()[0].threads[9].x[13], 5039u);
}

// ld.v2 of consecutive 8-byte elements: 256 bytes, two full lines.
TEST(WideGlobal, ConsecutiveLdV2TouchesTwoFullLines) {
  SmHarness h(with(lane_address(kData >> 12, 3), {ld_v2(10, 6, 0), addi(8, 11, 0), kExit}));
  h.launch(32, 0);
  h.run(1, 200);
  ASSERT_EQ(h.sent().size(), 2u);
  EXPECT_EQ(h.sent()[0].second.sectors, 0xFu);
  EXPECT_EQ(h.sent()[1].second.sectors, 0xFu);
  EXPECT_EQ(h.issue_cycle(20), 121u);
}

// st.v4 from x12..x15 (x12 = tid, x13..x15 constants): four write requests.
TEST(WideGlobal, StV4WritesEveryLaneGroup) {
  std::vector<uint32_t> code = lane_address(kData >> 12, 4);
  code.insert(code.end(), {addi(12, 5, 0), addi(13, 0, 7), addi(14, 0, 8), addi(15, 0, 9), st_v4(12, 6, 0), kExit});
  SmHarness h(code);
  h.launch(32, 0);
  h.run(1, 200);
  ASSERT_EQ(h.sent().size(), 4u);
  for (const auto& [cycle, r] : h.sent()) EXPECT_EQ(r.op, LineOp::kWrite);
  // lane 5: tid << 4 = 80 at x5, stored at kData + 80.
  EXPECT_EQ(h.global().load(kData + 80, 4), 80u);
  EXPECT_EQ(h.global().load(kData + 84, 4), 7u);
  EXPECT_EQ(h.global().load(kData + 92, 4), 9u);
}

// 32 lanes add 0xFFFFFFFF to one 64-bit counter: one line request carrying
// 32 atomic operations; the counter passes 2^32 and each lane gets the old
// value its turn saw, in lane order: lane k sees k * 0xFFFFFFFF.
TEST(WideGlobal, AtomAdd64CounterPassesTwoToThe32) {
  SmHarness h({lui(6, kData >> 12), addi(14, 0, -1), atom_add64(16, 6, 14), addi(8, 17, 0), kExit});
  h.launch(32, 0);
  h.run(1, 300);
  ASSERT_EQ(h.sent().size(), 1u);
  EXPECT_EQ(h.sent()[0].second.op, LineOp::kAtomic);
  EXPECT_EQ(h.sent()[0].second.atomic_ops, 32u);
  EXPECT_EQ(h.sent()[0].second.sectors, 0x1u);
  const uint64_t total = 32ull * 0xFFFFFFFFull;  // 0x1F_FFFFFFE0
  EXPECT_EQ(h.global().load(kData, 4), static_cast<uint32_t>(total));
  EXPECT_EQ(h.global().load(kData + 4, 4), static_cast<uint32_t>(total >> 32));
  for (unsigned lane : {0u, 1u, 17u, 31u}) {
    const uint64_t old = lane * 0xFFFFFFFFull;
    const auto& t = h.sm().warps()[0].threads[lane];
    EXPECT_EQ(t.x[16], static_cast<uint32_t>(old)) << "lane " << lane;
    EXPECT_EQ(t.x[17], static_cast<uint32_t>(old >> 32)) << "lane " << lane;
  }
}

// st.v4 then ld.v4 in the thread's local memory (the stack window). lui x6
// in 1 (x6 at 7); addi x12..x15 in 2..5 (x15 at 11); st.v4 in 11; ld.v4 in
// 15 (the LD/ST unit is busy 32/8 = 4 cycles); readable local_latency 30
// later: the addi reading x23 issues in 45.
TEST(WideLocal, StV4AndLdV4RoundTripThroughLocalMemory) {
  SmHarness h({lui(6, kLocalWindow >> 12), addi(12, 0, 11), addi(13, 0, 12), addi(14, 0, 13), addi(15, 0, 14),
               st_v4(12, 6, 0), ld_v4(20, 6, 0), addi(8, 23, 0), kExit});
  h.launch(32, 0);
  h.run(1, 80);
  EXPECT_EQ(h.issue_cycle(20), 11u);
  EXPECT_EQ(h.issue_cycle(24), 15u);
  EXPECT_EQ(h.issue_cycle(28), 45u);
  const auto& t = h.sm().warps()[0].threads[7];
  EXPECT_EQ(t.x[20], 11u);
  EXPECT_EQ(t.x[23], 14u);
  EXPECT_TRUE(h.sent().empty());  // local memory stays in the SM
}

// All 32 lanes atom.cas64 one shared 64-bit word from 0 to tid + 1: lanes
// run in order, so lane 0 swaps and every other lane sees 1. Each half-warp
// puts 16 read-modify-writes on each of the two words' banks: 16 passes per
// half-warp, 32 in all, 2 cycles each. lui x6 in 1, csrr x5 in 2 (x5 at 8),
// x14, x15 = 0 in 3, 4; x16 = x5 + 1 in 8; x17 = 0 in 9 (at 15); atom.cas64
// in 15; old value readable at 15 + 36 + 2 * 31 = 113.
TEST(WideShared, AtomCas64OnOneWordSerializesAndOnlyTheFirstLaneSwaps) {
  const uint32_t cas64 = enc::r4(0x2B, 7, 20, 6, 14, 16) | 1u << 25;  // atom.cas64 x20, x14, x16, (x6)
  SmHarness h({lui(6, kShared), csrr(5, csr::kTidX), addi(14, 0, 0), addi(15, 0, 0), addi(16, 5, 1), addi(17, 0, 0),
               cas64, addi(8, 21, 0), kExit});
  h.launch(32, 0, 256);
  h.run(1, 200);
  EXPECT_EQ(h.issue_cycle(24), 15u);
  EXPECT_EQ(h.issue_cycle(28), 113u);
  const auto& smem = h.sm().lane_memory().shared_memory();
  EXPECT_EQ(smem.word(0), 1u);
  EXPECT_EQ(smem.word(1), 0u);
  EXPECT_EQ(h.sm().warps()[0].threads[0].x[20], 0u);
  EXPECT_EQ(h.sm().warps()[0].threads[9].x[20], 1u);
  EXPECT_EQ(h.sm().warps()[0].threads[9].x[21], 0u);
}
