// The vector unit's timing against the chapter's worked figures (shared
// seeds 003, after VMIPS: one lane, 64-element registers, start-up load and
// store 12, multiply 7, add 6) and against hand derivations of each rule.
#include <gtest/gtest.h>

#include <vector>

#include "vector/vector_timing.h"

namespace tessera::vector {
namespace {

// VMIPS as the chapter describes it (64-bit elements, 16 banks of 8-byte
// words busy 12 cycles), without chaining unless a test asks.
TimingParams vmips(Chaining chaining = Chaining::kNone) {
  TimingParams p;
  p.lanes = 1;
  p.banks = 16;
  p.bank_busy = 12;
  p.bank_word_bytes = 8;
  p.chaining = chaining;
  p.queue_depth = 64;
  return p;
}

VectorOp load(uint8_t vd, uint32_t vl, uint64_t base = 0, int64_t stride = 8) {
  VectorOp op;
  op.unit = Unit::kMemory;
  op.vl = vl;
  op.vd = vd;
  op.base = base;
  op.stride = stride;
  return op;
}

VectorOp store(uint8_t vs, uint32_t vl, uint64_t base = 0, int64_t stride = 8) {
  VectorOp op;
  op.unit = Unit::kMemory;
  op.is_store = true;
  op.vl = vl;
  op.vs[0] = vs;
  op.base = base;
  op.stride = stride;
  return op;
}

VectorOp arith(Unit unit, uint8_t vd, uint8_t vs1, uint8_t vs2, uint32_t vl) {
  VectorOp op;
  op.unit = unit;
  op.vl = vl;
  op.vd = vd;
  op.vs[0] = vs1;
  op.vs[1] = vs2;
  return op;
}

TEST(VectorTiming, DaxpyIsFourConvoysOfSixtyFourElementsWithoutChaining) {
  // LV V1,Rx | MULVS V2,V1,F0 + LV V3,Ry | ADDV V4,V2,V3 | SV Ry,V4: the
  // chapter's 4 convoys, 4 x 64 = 256 clocks plus each convoy's start-up:
  // (12 + 64) + (max(7, 12) + 64) + (6 + 64) + (12 + 64) = 298.
  VectorTiming v(vmips());
  const IssueResult lv1 = v.issue(load(1, 64, 0x1000), 0);
  const IssueResult mul = v.issue(arith(Unit::kMul, 2, 1, kNoReg, 64), 0);
  const IssueResult lv3 = v.issue(load(3, 64, 0x2000), 0);
  const IssueResult add = v.issue(arith(Unit::kAdd, 4, 2, 3, 64), 0);
  const IssueResult sv = v.issue(store(4, 64, 0x2000), 0);
  EXPECT_EQ(lv1.convoy, 1u);
  EXPECT_EQ(mul.convoy, 2u);
  EXPECT_EQ(lv3.convoy, 2u);
  EXPECT_EQ(add.convoy, 3u);
  EXPECT_EQ(sv.convoy, 4u);
  EXPECT_EQ(lv1.complete, 76u);
  EXPECT_EQ(mul.complete, 76u + 7 + 64);
  EXPECT_EQ(lv3.complete, 152u);
  EXPECT_EQ(add.complete, 152u + 6 + 64);
  EXPECT_EQ(sv.complete, 298u);
  EXPECT_EQ(v.drain(), 298u);
  const TimingStats s = v.stats();
  EXPECT_EQ(s.convoys, 4u);
  EXPECT_EQ(s.instructions, 5u);
  EXPECT_EQ(s.element_ops, 5u * 64);
  EXPECT_EQ(s.memory_elements, 3u * 64);
  EXPECT_EQ(s.chained_operands, 0u);
  EXPECT_EQ(s.busy_cycles, 298u);
}

TEST(VectorTiming, ChainingDaxpyTakesThreeChimes) {
  // With chaining the multiply joins the first load and the add the second:
  // LV + MULVS | LV + ADDV | SV. Convoy 1 ends with the multiply:
  // 12 (load) + 7 + 64 = 83; convoy 2 with the add: 83 + 12 + 6 + 64 = 165;
  // the store: 165 + 12 + 64 = 241.
  VectorTiming v(vmips(Chaining::kFlexible));
  EXPECT_EQ(v.issue(load(1, 64), 0).convoy, 1u);
  const IssueResult mul = v.issue(arith(Unit::kMul, 2, 1, kNoReg, 64), 0);
  EXPECT_EQ(mul.convoy, 1u);
  EXPECT_EQ(mul.chained, 1u);
  EXPECT_EQ(mul.start, 12u);
  EXPECT_EQ(mul.complete, 83u);
  EXPECT_EQ(v.issue(load(3, 64, 0x2000), 0).convoy, 2u);
  const IssueResult add = v.issue(arith(Unit::kAdd, 4, 2, 3, 64), 0);
  EXPECT_EQ(add.convoy, 2u);
  EXPECT_EQ(add.complete, 165u);
  const IssueResult sv = v.issue(store(4, 64, 0x2000), 0);
  EXPECT_EQ(sv.convoy, 3u);
  EXPECT_EQ(sv.complete, 241u);
  EXPECT_EQ(v.stats().convoys, 3u);
  EXPECT_EQ(v.stats().chained_operands, 2u);
}

TEST(VectorTiming, ChainedMultiplyAddIsSevenPlusSixPlusSixtyFour) {
  // The chapter's figure: MULV V1,V2,V3; ADDV V4,V1,V5 with 64 elements.
  // Unchained 7 + 64 + 6 + 64 = 141; chained 7 + 6 + 64 = 77.
  for (Chaining c : {Chaining::kNone, Chaining::kFixed, Chaining::kFlexible}) {
    VectorTiming v(vmips(c));
    v.issue(arith(Unit::kMul, 1, 2, 3, 64), 0);
    const IssueResult add = v.issue(arith(Unit::kAdd, 4, 1, 5, 64), 0);
    EXPECT_EQ(add.complete, c == Chaining::kNone ? 141u : 77u) << static_cast<int>(c);
    EXPECT_EQ(add.convoy, c == Chaining::kNone ? 2u : 1u);
  }
}

TEST(VectorTiming, StripMinedLoopOfTwoHundredElementsTakes784Cycles) {
  // A = B x s over n = 200 with MVL 64: strips of 200 mod 64 = 8, then
  // 64, 64, 64 (the VLR changes after the first strip). Each strip is three
  // unchained convoys LV | MULVS | SV, so Tstart = 12 + 7 + 12 = 31 per
  // strip, plus the chapter's Tloop = 15 cycles of scalar loop overhead
  // before each strip: T200 = 4 x (15 + 31) + 3 x 200 = 784 (3.9 per element).
  VectorTiming v(vmips());
  uint64_t t = 0;
  const std::vector<uint32_t> strips{8, 64, 64, 64};
  uint64_t a = 0x10000, b = 0x20000;
  for (uint32_t vl : strips) {
    const uint64_t ready = t + 15;
    v.issue(load(1, vl, b), ready);
    v.issue(arith(Unit::kMul, 2, 1, kNoReg, vl), ready);
    const IssueResult sv = v.issue(store(2, vl, a), ready);
    EXPECT_EQ(sv.complete - ready - 3 * vl, 31u) << "Tstart of the strip of " << vl;
    t = sv.complete;
    a += 8 * vl;
    b += 8 * vl;
  }
  EXPECT_EQ(t, 784u);
  EXPECT_EQ(v.stats().convoys, 12u);
}

TEST(VectorTiming, StrideHittingOneBankWaitsTheBankBusyTimePerElement) {
  // The textbook bank example: 8 banks, bank busy 6 cycles, memory latency
  // 12, 64 doubles. Stride 1: 12 + 64 = 76 cycles. Stride 32: every element
  // in the same bank, 12 + 1 + 6 x 63 = 391 cycles.
  TimingParams p = vmips();
  p.banks = 8;
  p.bank_busy = 6;
  p.bank_word_bytes = 8;
  {
    VectorTiming v(p);
    EXPECT_EQ(v.issue(load(1, 64, 0, 8), 0).complete, 76u);
    EXPECT_EQ(v.stats().bank_conflict_stalls, 0u);
  }
  {
    VectorTiming v(p);
    EXPECT_EQ(v.issue(load(1, 64, 0, 32 * 8), 0).complete, 391u);
    EXPECT_EQ(v.stats().bank_conflict_stalls, 63u * 5);  // each of 63 elements waits 6 - 1 cycles
  }
}

TEST(VectorTiming, StrideThirtyTwoOnSixteenBanksSerialisesOnOneBank) {
  // The chapter's case: stride 32 words on 16 banks (32 mod 16 = 0), bank
  // busy 12: element k enters at 12k, the last at 756; 756 + 12 + 1 = 769.
  TimingParams p = vmips();
  p.banks = 16;
  p.bank_busy = 12;
  p.bank_word_bytes = 4;
  VectorTiming v(p);
  EXPECT_EQ(v.issue(load(1, 64, 0, 32 * 4), 0).complete, 769u);
  // Stride 17 visits all 16 banks before it returns to one: no stall.
  VectorTiming w(p);
  EXPECT_EQ(w.issue(load(1, 64, 0, 17 * 4), 0).complete, 12u + 64);
  EXPECT_EQ(w.stats().bank_conflict_stalls, 0u);
}

TEST(VectorTiming, FewerBanksThanBankBusyCyclesStallUnitStride) {
  // The chapter's rule "banks >= latency": with 16 banks and 12 busy cycles a
  // unit-stride load never waits; with 8, each group of 8 elements waits
  // 12 - 8 = 4 cycles for the bank it starts with: 7 waits of 4, so the
  // last element enters at 63 + 28 = 91 and the load completes at 104.
  TimingParams p = vmips();
  p.bank_busy = 12;
  p.bank_word_bytes = 4;
  p.banks = 16;
  VectorTiming enough(p);
  EXPECT_EQ(enough.issue(load(1, 64, 0, 4), 0).complete, 76u);
  EXPECT_EQ(enough.stats().bank_conflict_stalls, 0u);
  p.banks = 8;
  VectorTiming few(p);
  EXPECT_EQ(few.issue(load(1, 64, 0, 4), 0).complete, 104u);
  EXPECT_EQ(few.stats().bank_conflict_stalls, 28u);
}

TEST(VectorTiming, GatherTakesItsBanksFromTheIndexedAddresses) {
  // Indexed access: four elements in bank 0, four spread over banks 1-4.
  TimingParams p = vmips();
  p.banks = 16;
  p.bank_busy = 12;
  p.bank_word_bytes = 4;
  VectorTiming v(p);
  const std::vector<uint64_t> same{0, 64, 128, 192};  // 16 words apart: bank 0
  VectorOp gather = load(1, 4);
  gather.vs[0] = 2;  // the index vector
  gather.addresses = same.data();
  // Entries at 0, 12, 24, 36: 36 + 12 + 1 = 49.
  EXPECT_EQ(v.issue(gather, 0).complete, 49u);
  VectorTiming w(p);
  const std::vector<uint64_t> spread{4, 8, 12, 16};
  gather.addresses = spread.data();
  EXPECT_EQ(w.issue(gather, 0).complete, 12u + 4);
}

TEST(VectorTiming, LanesDivideTheElementTime) {
  // 64 elements of a multiply over L lanes take 7 + 64 / L cycles.
  for (unsigned lanes : {1u, 2u, 4u, 8u}) {
    TimingParams p = vmips();
    p.lanes = lanes;
    VectorTiming v(p);
    EXPECT_EQ(v.issue(arith(Unit::kMul, 1, 2, 3, 64), 0).complete, 7u + 64 / lanes) << lanes << " lanes";
    EXPECT_EQ(v.stats().element_slots, 64u);
  }
  // 63 elements on 4 lanes: 16 cycles of element groups, the last one short.
  TimingParams p = vmips();
  p.lanes = 4;
  VectorTiming v(p);
  EXPECT_EQ(v.issue(arith(Unit::kAdd, 1, 2, 3, 63), 0).complete, 6u + 16);
  EXPECT_EQ(v.stats().element_slots, 64u);
}

TEST(VectorTiming, MaskedOffElementsStillTakeTheirSlot) {
  // The mask does not shorten the instruction, and it is one more register
  // read: with 3 read ports a masked add no longer fits beside a masked add.
  TimingParams p = vmips(Chaining::kFlexible);
  p.read_ports = 3;
  VectorTiming v(p);
  VectorOp masked = arith(Unit::kAdd, 1, 2, 3, 64);
  masked.masked = true;
  EXPECT_EQ(v.issue(masked, 0).complete, 6u + 64);
  const IssueResult mul = v.issue(arith(Unit::kMul, 4, 5, 6, 64), 0);
  EXPECT_EQ(mul.convoy, 2u) << "3 + 2 reads exceed the 3 read ports";
  EXPECT_EQ(mul.complete, 70u + 7 + 64);
}

TEST(VectorTiming, FixedChainingFeedsOneOperandFromOneProducer) {
  // ADDV V3,V1,V2 needs both V1 (MULV) and V2 (DIVV) of the running convoy:
  // flexible chaining takes both, fixed chaining only one.
  for (Chaining c : {Chaining::kFixed, Chaining::kFlexible}) {
    VectorTiming v(vmips(c));
    v.issue(arith(Unit::kMul, 1, 4, 5, 64), 0);
    v.issue(arith(Unit::kDiv, 2, 6, 7, 64), 0);
    const IssueResult add = v.issue(arith(Unit::kAdd, 3, 1, 2, 64), 0);
    // Flexible: its elements follow the later producer, the divide:
    // 20 + 6 + 64 = 90. Fixed: a new convoy after the divide (20 + 64 = 84).
    EXPECT_EQ(add.convoy, c == Chaining::kFixed ? 2u : 1u);
    EXPECT_EQ(add.complete, c == Chaining::kFixed ? 84u + 6 + 64 : 90u);
  }
  // Fixed: a second reader of the same result waits for the next convoy.
  VectorTiming v(vmips(Chaining::kFixed));
  v.issue(arith(Unit::kMul, 1, 4, 5, 64), 0);
  EXPECT_EQ(v.issue(arith(Unit::kAdd, 2, 1, 6, 64), 0).convoy, 1u);
  EXPECT_EQ(v.issue(load(8, 64), 0).convoy, 1u);
  VectorOp st = store(1, 64);
  EXPECT_EQ(v.issue(st, 0).convoy, 2u) << "the memory unit is taken, and V1 has its chained reader";
}

TEST(VectorTiming, OverwritingARegisterTheConvoyUsesEndsTheConvoy) {
  // Write after read and write after write are not chained.
  VectorTiming v(vmips(Chaining::kFlexible));
  v.issue(arith(Unit::kMul, 1, 2, 3, 64), 0);
  EXPECT_EQ(v.issue(arith(Unit::kAdd, 2, 4, 5, 64), 0).convoy, 2u);  // WAR on V2
  VectorTiming w(vmips(Chaining::kFlexible));
  w.issue(arith(Unit::kMul, 1, 2, 3, 64), 0);
  EXPECT_EQ(w.issue(arith(Unit::kAdd, 1, 4, 5, 64), 0).convoy, 2u);  // WAW on V1
}

TEST(VectorTiming, AccumulateChainsToTheLoadOfItsAccumulator) {
  // RVV SAXPY: vle32 v1 | vle32 v2 + vfmacc.vf v2,fa0,v1 | vse32 v2. The
  // multiply-accumulate reads and writes v2, which the second load of its
  // convoy writes: it chains, each element written after it was read. Convoy
  // 1: 12 + 64 = 76; the load of v2 enters at 76..139 and its results are
  // ready 12 later, so the vfmacc's elements enter at 88..151 and it
  // completes at 151 + 7 + 1 = 159; the store: 159 + 12 + 64 = 235.
  VectorTiming v(vmips(Chaining::kFlexible));
  v.issue(load(1, 64, 0x1000), 0);
  EXPECT_EQ(v.issue(load(2, 64, 0x2000), 0).convoy, 2u);
  VectorOp fma = arith(Unit::kMul, 2, 1, 2, 64);
  const IssueResult macc = v.issue(fma, 0);
  EXPECT_EQ(macc.convoy, 2u);
  EXPECT_EQ(macc.chained, 1u);
  EXPECT_EQ(macc.complete, 159u);
  EXPECT_EQ(v.issue(store(2, 64, 0x2000), 0).complete, 235u);
  // Without chaining the accumulate waits for the load: 4 convoys.
  VectorTiming u(vmips(Chaining::kNone));
  u.issue(load(1, 64, 0x1000), 0);
  u.issue(load(2, 64, 0x2000), 0);
  EXPECT_EQ(u.issue(fma, 0).convoy, 3u);
}

TEST(VectorTiming, ReductionIsNotChainedAndCombinesLanes) {
  // vredsum over 64 elements on 4 lanes: 16 element cycles + add latency 6,
  // then log2(4) = 2 combining steps of 6: 22 + 12 = 34. A reader of its
  // result waits for it in the next convoy.
  TimingParams p = vmips(Chaining::kFlexible);
  p.lanes = 4;
  VectorTiming v(p);
  VectorOp red = arith(Unit::kAdd, 1, 2, 3, 64);
  red.reduction = true;
  EXPECT_EQ(v.issue(red, 0).complete, 34u);
  const IssueResult use = v.issue(arith(Unit::kMul, 4, 1, 5, 64), 0);
  EXPECT_EQ(use.convoy, 2u);
  EXPECT_EQ(use.complete, 34u + 7 + 16);
}

TEST(VectorTiming, ZeroLengthInstructionTakesNoTime) {
  VectorTiming v(vmips());
  const IssueResult r = v.issue(arith(Unit::kAdd, 1, 2, 3, 0), 5);
  EXPECT_EQ(r.start, 5u);
  EXPECT_EQ(r.complete, 5u);
  EXPECT_EQ(v.stats().element_ops, 0u);
}

TEST(VectorTiming, FullIssueQueueHoldsTheScalarCoreBack) {
  // Queue depth 2, unchained dependent adds: each starts when the one before
  // completes (70 cycles apart), so the third is accepted only when the
  // first has started, the fourth when the second has (cycle 70).
  TimingParams p = vmips();
  p.queue_depth = 2;
  VectorTiming v(p);
  EXPECT_EQ(v.issue(arith(Unit::kAdd, 1, 2, 3, 64), 0).accepted, 0u);
  EXPECT_EQ(v.issue(arith(Unit::kAdd, 4, 1, 3, 64), 0).accepted, 0u);
  EXPECT_EQ(v.issue(arith(Unit::kAdd, 5, 4, 3, 64), 0).accepted, 0u);
  const IssueResult fourth = v.issue(arith(Unit::kAdd, 6, 5, 3, 64), 0);
  EXPECT_EQ(fourth.accepted, 70u);
  EXPECT_EQ(fourth.start, 210u);
}

VectorOp in_context(VectorOp op, uint8_t context) {
  op.context = context;
  return op;
}

TEST(VectorTiming, SharedUnitKeepsEachContextsRegistersApart) {
  // Two cores on one unit, flexible chaining. Core 0: MULV V1,V2,V3 (elements
  // ready at k + 7, completes 7 + 64 = 71). In one context ADDV V4,V1,V5
  // chains to it: element k enters at k + 7, completes 63 + 7 + 6 + 1 = 77.
  // Core 1's V1 is another register: its add neither chains nor waits, and
  // joins the convoy on the free add unit: 6 + 64 = 70.
  TimingParams p = vmips(Chaining::kFlexible);
  VectorTiming one(p);
  one.issue(arith(Unit::kMul, 1, 2, 3, 64), 0);
  const IssueResult chained = one.issue(arith(Unit::kAdd, 4, 1, 5, 64), 0);
  EXPECT_EQ(chained.chained, 1u);
  EXPECT_EQ(chained.complete, 77u);

  p.contexts = 2;
  VectorTiming shared(p);
  EXPECT_EQ(shared.issue(in_context(arith(Unit::kMul, 1, 2, 3, 64), 0), 0).complete, 71u);
  const IssueResult other = shared.issue(in_context(arith(Unit::kAdd, 4, 1, 5, 64), 1), 0);
  EXPECT_EQ(other.convoy, 1u);
  EXPECT_EQ(other.chained, 0u);
  EXPECT_EQ(other.start, 0u);
  EXPECT_EQ(other.complete, 70u);
  // Core 1 loading its V2 is no hazard either (core 0's MULV reads V2: in
  // one context that WAR ends the convoy, as
  // OverwritingARegisterTheConvoyUsesEndsTheConvoy shows); the memory unit
  // is free, so the load joins too. Its own V1, which its ADDV reads, would
  // end the convoy.
  EXPECT_EQ(shared.issue(in_context(load(2, 64, 0x1000), 1), 0).convoy, 1u);
  EXPECT_EQ(shared.issue(in_context(arith(Unit::kDiv, 1, 6, 7, 64), 1), 0).convoy, 2u);
}

TEST(VectorTiming, SharedUnitSerialisesContextsOnOneFunctionalUnit) {
  // Both cores add: one add unit, so core 1's add waits for the next convoy,
  // which starts when the first completes (6 + 64 = 70) and ends at 140.
  // The two cores together take as long as one core's two adds.
  TimingParams p = vmips(Chaining::kFlexible);
  p.contexts = 2;
  VectorTiming v(p);
  EXPECT_EQ(v.issue(in_context(arith(Unit::kAdd, 1, 2, 3, 64), 0), 0).complete, 70u);
  const IssueResult second = v.issue(in_context(arith(Unit::kAdd, 1, 2, 3, 64), 1), 0);
  EXPECT_EQ(second.convoy, 2u);
  EXPECT_EQ(second.start, 70u);
  EXPECT_EQ(second.complete, 140u);
  EXPECT_EQ(v.stats().convoys, 2u);
  EXPECT_EQ(v.stats().element_ops, 128u);
}

TEST(VectorTiming, BadParametersAreRefused) {
  TimingParams p;
  p.lanes = 0;
  EXPECT_THROW(VectorTiming{p}, std::invalid_argument);
  p.lanes = 1;
  p.contexts = 0;
  EXPECT_THROW(VectorTiming{p}, std::invalid_argument);
  p.contexts = 2;
  VectorTiming v(p);
  EXPECT_THROW(v.issue(in_context(arith(Unit::kAdd, 1, 2, 3, 4), 2), 0), std::invalid_argument);
}

}  // namespace
}  // namespace tessera::vector
