// The shared-memory bank unit's C++ model (sm/shared_bank_unit.h): what a
// warp request does to the words and returns, and its pin-level timing.
// Numbers derived by hand from the rules in docs/cosim.md, "Shared-memory bank unit".
#include <gtest/gtest.h>

#include "sm/shared_bank_stimulus.h"
#include "sm/shared_bank_unit.h"

using namespace tessera::sm;

namespace {

constexpr uint32_t kAll = 0xffffffffu;

// Steps the unit with `req` presented until it is taken, then without
// requests until the response; returns the steps from the one that took
// it to the one after which the response is valid.
unsigned steps_to_response(SharedBankUnit& u, const BankRequest& req) {
  while (!u.ready()) u.step(nullptr);
  u.step(&req);
  unsigned n = 0;
  while (!u.resp_valid()) {
    u.step(nullptr);
    ++n;
  }
  return n;
}

}  // namespace

// Stride 1: every lane its own bank, 1 pass; the loads read what was stored.
TEST(SharedBankUnit, StrideOneStoreThenLoadIsOnePassEach) {
  SharedBankUnit u(32, 65536, 2);
  BankRequest st = strided_request(BankOp::kStore, kAll, 1);
  for (unsigned l = 0; l < 32; ++l) st.data[l] = 100 + l;
  BankResponse r;
  u.perform(st, r);
  EXPECT_EQ(r.passes, 1u);
  u.perform(strided_request(BankOp::kLoad, kAll, 1), r);
  EXPECT_EQ(r.passes, 1u);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(r.data[l], 100 + l);
}

// Stride 2: words 2l; lanes l and l+16 share bank 2l mod 32 => 2 passes.
TEST(SharedBankUnit, StrideTwoTakesTwoPasses) {
  SharedBankUnit u(32, 65536, 2);
  BankResponse r;
  u.perform(strided_request(BankOp::kLoad, kAll, 2), r);
  EXPECT_EQ(r.passes, 2u);
  EXPECT_EQ(r.broadcasts, 0u);
}

// Stride 32: every lane in bank 0, distinct words => 32 passes.
TEST(SharedBankUnit, StrideThirtyTwoTakesThirtyTwoPasses) {
  SharedBankUnit u(32, 65536, 2);
  BankResponse r;
  u.perform(strided_request(BankOp::kLoad, kAll, 32), r);
  EXPECT_EQ(r.passes, 32u);
}

// Every lane reads word 5: one pass, one broadcast, every lane gets it.
TEST(SharedBankUnit, OneWordForEveryLaneIsOneBroadcast) {
  SharedBankUnit u(32, 65536, 2);
  u.set_word(5, 0xabcd1234);
  BankResponse r;
  u.perform(strided_request(BankOp::kLoad, kAll, 0, 5), r);
  EXPECT_EQ(r.passes, 1u);
  EXPECT_EQ(r.broadcasts, 1u);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(r.data[l], 0xabcd1234u);
}

// Stores to one word merge byte by byte, the higher lane winning: lane 0
// writes all 4 bytes 0x11, lane 1 byte 1 = 0x22, lane 2 bytes 2-3 = 0x3333,
// lane 3 byte 1 = 0x44 => 0x33334411.
TEST(SharedBankUnit, StoresToOneWordMergeHigherLaneWins) {
  SharedBankUnit u(32, 65536, 2);
  BankRequest st = strided_request(BankOp::kStore, 0xf, 0, 7);
  st.be = {0xf, 0x2, 0xc, 0x2};
  st.data = {0x11111111, 0x00002200, 0x33330000, 0x00004400};
  BankResponse r;
  u.perform(st, r);
  EXPECT_EQ(u.word(7), 0x33334411u);
  EXPECT_EQ(r.passes, 1u);
}

// 32 amoadd of 1 to one word: lane l sees old value l; 32 passes (one lane
// per bank and pass), each of 2 cycles => busy 64 cycles.
TEST(SharedBankUnit, AtomicsToOneWordSerializeInLaneOrder) {
  SharedBankUnit u(32, 65536, 2);
  BankRequest a = strided_request(BankOp::kAdd, kAll, 0, 9);
  a.data.fill(1);
  BankResponse r;
  u.perform(a, r);
  EXPECT_EQ(r.passes, 32u);
  EXPECT_EQ(u.busy_cycles(a.op, r.passes), 64u);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(r.data[l], l);
  EXPECT_EQ(u.word(9), 32u);
}

// Atomics to 32 distinct banks: one pass.
TEST(SharedBankUnit, AtomicsToDistinctBanksTakeOnePass) {
  SharedBankUnit u(32, 65536, 2);
  BankResponse r;
  u.perform(strided_request(BankOp::kMax, kAll, 1), r);
  EXPECT_EQ(r.passes, 1u);
}

// atom.cas by lanes 0 and 1 on a word holding 3: lane 0 compares 3 (match,
// stores 8), lane 1 compares 3 (no match: the word is 8 now).
TEST(SharedBankUnit, CasSeesEarlierLanesResult) {
  SharedBankUnit u(32, 65536, 2);
  u.set_word(4, 3);
  BankRequest c = strided_request(BankOp::kCas, 0x3, 0, 4);
  c.data = {3, 3};
  c.swap = {8, 9};
  BankResponse r;
  u.perform(c, r);
  EXPECT_EQ(r.data[0], 3u);
  EXPECT_EQ(r.data[1], 8u);
  EXPECT_EQ(u.word(4), 8u);
}

// atom.inc with limit 2 wraps 0,1,2 -> 0; atom.dec with limit 2 goes 0 -> 2.
TEST(SharedBankUnit, IncWrapsAtTheLimitAndDecFromZeroLoads) {
  SharedBankUnit u(32, 65536, 2);
  BankRequest inc = strided_request(BankOp::kInc, 0x7, 0, 1);
  inc.data = {2, 2, 2};
  BankResponse r;
  u.perform(inc, r);
  EXPECT_EQ(r.data[2], 2u);
  EXPECT_EQ(u.word(1), 0u);
  BankRequest dec = strided_request(BankOp::kDec, 0x1, 0, 1);
  dec.data[0] = 2;
  u.perform(dec, r);
  EXPECT_EQ(u.word(1), 2u);
}

// atom.fadd: the smallest denormals add exactly (2 * 2^-149); +inf + -inf
// is the canonical NaN; -0 + -0 = -0.
TEST(SharedBankUnit, FaddKeepsDenormalsAndCanonicalisesNan) {
  SharedBankUnit u(32, 65536, 2);
  u.set_word(0, 0x00000001);
  u.set_word(1, 0x7f800000);
  u.set_word(2, 0x80000000);
  BankRequest f = strided_request(BankOp::kFadd, 0x7, 1);
  f.data = {0x00000001, 0xff800000, 0x80000000};
  BankResponse r;
  u.perform(f, r);
  EXPECT_EQ(u.word(0), 0x00000002u);
  EXPECT_EQ(u.word(1), 0x7fc00000u);
  EXPECT_EQ(u.word(2), 0x80000000u);
}

// Pin timing: a 1-pass load taken in step 0 answers after step 1; a 2-pass
// one after step 2; 32 atomics to one word after step 64.
TEST(SharedBankUnit, ResponseFollowsTheLastPass) {
  SharedBankUnit u(32, 65536, 2);
  EXPECT_EQ(steps_to_response(u, strided_request(BankOp::kLoad, kAll, 1)), 1u);
  EXPECT_EQ(steps_to_response(u, strided_request(BankOp::kLoad, kAll, 2)), 2u);
  EXPECT_EQ(steps_to_response(u, strided_request(BankOp::kAdd, kAll, 0)), 64u);
}

// Back to back: with two 2-pass requests always presented, the second is
// taken in step 2 (ready in the last pass of the first): responses after
// steps 2 and 4.
TEST(SharedBankUnit, BackToBackRequestsHaveNoBubble) {
  SharedBankUnit u(32, 65536, 2);
  const BankRequest req = strided_request(BankOp::kLoad, kAll, 2);
  std::vector<unsigned> resp_steps;
  unsigned taken = 0;
  for (unsigned s = 0; s < 8; ++s) {
    const bool ready = u.ready();
    u.step(taken < 2 ? &req : nullptr);
    if (ready && taken < 2) ++taken;
    if (u.resp_valid()) resp_steps.push_back(s);
  }
  EXPECT_EQ(resp_steps, (std::vector<unsigned>{2, 4}));
}

namespace {

struct StepWrites {
  unsigned step;
  std::vector<BankWrite> writes;
};

// Presents `req` once (the unit idle) and steps until the response; returns
// the RAM writes of every step after the taking one that made any.
std::vector<StepWrites> writes_of(SharedBankUnit& u, const BankRequest& req) {
  std::vector<StepWrites> out;
  u.step(&req);
  EXPECT_TRUE(u.writes().empty());
  for (unsigned s = 1; !u.resp_valid(); ++s) {
    u.step(nullptr);
    if (!u.writes().empty()) out.push_back({s, u.writes()});
  }
  return out;
}

}  // namespace

// Four atom.add of 1 to word 7 (bank 7, row 0), two cycles a pass: one pass
// per lane, the word written in each pass's second cycle (steps 2, 4, 6,
// 8) with 1, 2, 3, 4; the RAM holds each value from its step on.
TEST(SharedBankUnit, AtomicsWriteTheirBankPassByPass) {
  SharedBankUnit u(32, 65536, 2);
  BankRequest add = strided_request(BankOp::kAdd, 0xf, 0, 7);
  for (unsigned l = 0; l < 4; ++l) add.data[l] = 1;
  const auto w = writes_of(u, add);
  ASSERT_EQ(w.size(), 4u);
  for (unsigned p = 0; p < 4; ++p) {
    EXPECT_EQ(w[p].step, 2 * (p + 1));
    ASSERT_EQ(w[p].writes.size(), 1u);
    EXPECT_EQ(w[p].writes[0].bank, 7u);
    EXPECT_EQ(w[p].writes[0].row, 0u);
    EXPECT_EQ(w[p].writes[0].old, p);
    EXPECT_EQ(w[p].writes[0].value, p + 1);
  }
  EXPECT_EQ(u.ram_word(7, 0), 4u);
  EXPECT_EQ(u.word(7), 4u);
}

// A store of stride 2 to words 0..62 (banks 0, 2, ..., 30 twice): pass 1
// writes lanes 0..15 (rows 0), pass 2 lanes 16..31 (rows 1), sixteen banks
// each; the stored values are the lanes' data. A load writes nothing.
TEST(SharedBankUnit, StoresWriteEachBankOncePerPass) {
  SharedBankUnit u(32, 65536, 2);
  BankRequest st = strided_request(BankOp::kStore, kAll, 2);
  for (unsigned l = 0; l < 32; ++l) st.data[l] = 0x100 + l;
  const auto w = writes_of(u, st);
  ASSERT_EQ(w.size(), 2u);
  for (unsigned p = 0; p < 2; ++p) {
    EXPECT_EQ(w[p].step, p + 1);
    ASSERT_EQ(w[p].writes.size(), 16u);
    for (unsigned i = 0; i < 16; ++i) {
      const BankWrite& x = w[p].writes[i];
      EXPECT_EQ(x.bank, 2 * i);
      EXPECT_EQ(x.row, p);
      EXPECT_EQ(x.value, 0x100 + 16 * p + i);
    }
  }
  EXPECT_TRUE(writes_of(u, strided_request(BankOp::kLoad, kAll, 2)).empty());
}

// Stores of every lane to one word, byte enables of one byte each (lane l:
// byte l % 4): one pass, one write, each byte the highest lane's that
// enables it (lanes 28..31), and the words the pass makes are the ones
// perform() leaves in the data array.
TEST(SharedBankUnit, AStoreBroadcastMergesIntoOneWrite) {
  SharedBankUnit u(32, 65536, 2);
  BankRequest st = strided_request(BankOp::kStore, kAll, 0, 5);
  for (unsigned l = 0; l < 32; ++l) {
    st.be[l] = static_cast<uint8_t>(1u << (l % 4));
    st.data[l] = 0x01010101u * l;
  }
  const auto w = writes_of(u, st);
  ASSERT_EQ(w.size(), 1u);
  ASSERT_EQ(w[0].writes.size(), 1u);
  EXPECT_EQ(w[0].writes[0].value, 0x1f1e1d1cu);
  EXPECT_EQ(u.word(5), 0x1f1e1d1cu);
}

// Random requests of every kind: the RAM words after the writes of every
// step equal what perform() leaves in the data array once the request is
// answered, and no word is written that the request does not address.
TEST(SharedBankUnit, PassWritesEndInTheDataArraysWords) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    SharedBankUnit u(32, 4096, 2);
    BankStimulus stim(seed, 1024);
    for (unsigned n = 0; n < 3000; ++n) {
      const BankRequest req = stim.next();
      const auto w = writes_of(u, req);
      for (const StepWrites& s : w) {
        for (const BankWrite& x : s.writes) {
          const uint32_t word = x.row * 32 + x.bank;
          bool addressed = false;
          for (uint32_t m = req.mask; m; m &= m - 1) addressed |= req.word[__builtin_ctz(m)] == word;
          ASSERT_TRUE(addressed) << "seed " << seed << " request " << n << " word " << word;
        }
      }
      for (uint32_t m = req.mask; m; m &= m - 1) {
        const uint32_t word = req.word[__builtin_ctz(m)];
        ASSERT_EQ(u.ram_word(word % 32, word / 32), u.word(word)) << "seed " << seed << " request " << n;
      }
    }
  }
}
