// Executor, memory side: loads and stores, LR/SC, AMOs, the Tessera LDG and
// atomics, misaligned and faulting accesses.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "unit/isa/isa_test_util.h"

namespace tessera::isa::execute_mem_test {
namespace {

using namespace test;

constexpr uint32_t kA0 = 10, kA1 = 11, kA2 = 12, kA3 = 13;
constexpr uint32_t kData = 0x1200;  // writable word-aligned data in TestEnv

TEST(ExecuteMem, LoadsExtend) {
  Harness h;
  h.env.set_word(kData, 0x8081F2F3);  // bytes f3 f2 81 80
  h.t.x[kA1] = kData;
  struct Case {
    uint32_t f3;
    int32_t offset;
    uint32_t expected;
  };
  const Case cases[] = {
      {0, 0, 0xFFFFFFF3}, {0, 3, 0xFFFFFF80}, {4, 0, 0xF3},   {4, 3, 0x80},    // lb, lbu
      {1, 0, 0xFFFFF2F3}, {1, 2, 0xFFFF8081}, {5, 0, 0xF2F3}, {5, 2, 0x8081},  // lh, lhu
      {2, 0, 0x8081F2F3},                                                      // lw
  };
  for (const Case& c : cases) {
    h.step(enc::load(c.f3, kA0, kA1, c.offset));
    EXPECT_EQ(h.t.x[kA0], c.expected) << "funct3 " << c.f3 << " offset " << c.offset;
  }
  h.env.set_word(kData + 4, 0x00007F01);
  h.step(enc::load(0, kA0, kA1, 5));  // lb 0x7f: positive
  EXPECT_EQ(h.t.x[kA0], 0x7Fu);
  h.step(enc::load(1, kA0, kA1, 4));  // lh 0x7f01
  EXPECT_EQ(h.t.x[kA0], 0x7F01u);
  // Negative offsets.
  h.t.x[kA2] = kData + 2048;
  h.step(enc::load(2, kA0, kA2, -2048));
  EXPECT_EQ(h.t.x[kA0], 0x8081F2F3u);
  EXPECT_FALSE(h.env.last_load_read_only);
}

TEST(ExecuteMem, StoresWriteOnlyTheirBytes) {
  Harness h;
  h.env.set_word(kData, 0x11223344);
  h.t.x[kA1] = kData;
  h.t.x[kA2] = 0xAABBCCDD;
  h.step(enc::store(0, kA1, kA2, 1));  // sb at +1
  EXPECT_EQ(h.env.word(kData), 0x1122DD44u);
  h.step(enc::store(1, kA1, kA2, 2));  // sh at +2
  EXPECT_EQ(h.env.word(kData), 0xCCDDDD44u);
  h.step(enc::store(2, kA1, kA2, 4));  // sw at +4
  EXPECT_EQ(h.env.word(kData + 4), 0xAABBCCDDu);
  h.t.x[kA3] = kData + 0x808;
  h.step(enc::store(2, kA3, kA2, -2048));  // sw -2048(a3) = kData + 8
  EXPECT_EQ(h.env.word(kData + 8), 0xAABBCCDDu);
}

TEST(ExecuteMem, MisalignedAccessesTrapWithoutTouchingMemory) {
  Harness h;
  h.t.x[kA1] = kData + 1;
  h.t.x[kA2] = kData + 2;
  const ThreadState before = h.t;
  struct Case {
    uint32_t word;
    Trap trap;
    uint32_t addr;
  };
  const Case cases[] = {
      {enc::load(1, kA0, kA1, 0), Trap::kLoadMisaligned, kData + 1},      // lh
      {enc::load(5, kA0, kA1, 2), Trap::kLoadMisaligned, kData + 3},      // lhu
      {enc::load(2, kA0, kA2, 0), Trap::kLoadMisaligned, kData + 2},      // lw
      {enc::i(0x07, 2, kA0, kA2, 0), Trap::kLoadMisaligned, kData + 2},   // flw
      {enc::store(1, kA1, kA0, 0), Trap::kStoreMisaligned, kData + 1},    // sh
      {enc::store(2, kA2, kA0, 0), Trap::kStoreMisaligned, kData + 2},    // sw
      {enc::s(0x27, 2, kA2, kA0, 0), Trap::kStoreMisaligned, kData + 2},  // fsw
      {enc::amo(f5::kLr, kA0, kA2, 0), Trap::kLoadMisaligned, kData + 2},
      {enc::amo(f5::kSc, kA0, kA2, kA0), Trap::kStoreMisaligned, kData + 2},
      {enc::amo(f5::kAdd, kA0, kA2, kA0), Trap::kStoreMisaligned, kData + 2},
      {enc::i(0x2B, 2, kA0, kA1, 1), Trap::kLoadMisaligned, kData + 2},        // ldg.w
      {enc::r(0x2B, 6, 1, kA0, kA1, kA0), Trap::kStoreMisaligned, kData + 1},  // atom.inc
  };
  for (const Case& c : cases) {
    const ExecResult r = h.run(c.word);
    EXPECT_EQ(r.trap, c.trap) << std::hex << c.word;
    EXPECT_EQ(r.fault_addr, c.addr) << std::hex << c.word;
    EXPECT_TRUE(same_state(before, h.t));
  }
  EXPECT_EQ(h.env.loads + h.env.stores, 0);  // the env is never asked
  // Byte accesses are never misaligned.
  h.step(enc::load(0, kA0, kA1, 0));
  h.step(enc::store(0, kA1, kA0, 0));
}

TEST(ExecuteMem, AccessFaultsLeaveStateUnchanged) {
  Harness h;
  h.t.x[kA1] = 0x40000000;      // unmapped
  h.t.x[kA2] = TestEnv::kBase;  // read-only page
  h.env.set_word(TestEnv::kBase, 0x55);
  h.t.x[kA0] = 99;
  h.t.set_fs(kA0, 0x3F800000);
  const ThreadState before = h.t;
  struct Case {
    uint32_t word;
    Trap trap;
    uint32_t addr;
  };
  const Case cases[] = {
      {enc::load(2, kA0, kA1, 8), Trap::kLoadAccessFault, 0x40000008},
      {enc::i(0x07, 2, kA0, kA1, 0), Trap::kLoadAccessFault, 0x40000000},  // flw
      {enc::store(2, kA1, kA0, 0), Trap::kStoreAccessFault, 0x40000000},
      {enc::store(0, kA2, kA0, 3), Trap::kStoreAccessFault, TestEnv::kBase + 3},  // read-only
      {enc::s(0x27, 2, kA2, kA0, 0), Trap::kStoreAccessFault, TestEnv::kBase},
      {enc::amo(f5::kLr, kA0, kA1, 0), Trap::kLoadAccessFault, 0x40000000},
      {enc::amo(f5::kSc, kA0, kA1, kA0), Trap::kStoreAccessFault, 0x40000000},
      // AMO: the read succeeds on the read-only page, the write faults; a0 keeps 99.
      {enc::amo(f5::kSwap, kA0, kA2, kA0), Trap::kStoreAccessFault, TestEnv::kBase},
      {enc::amo(f5::kAdd, kA0, kA1, kA0), Trap::kStoreAccessFault, 0x40000000},
      {enc::i(0x2B, 2, kA0, kA1, 0), Trap::kLoadAccessFault, 0x40000000},            // ldg.w
      {enc::r(0x2B, 6, 0, kA0, kA2, kA0), Trap::kStoreAccessFault, TestEnv::kBase},  // atom.fadd
  };
  for (const Case& c : cases) {
    const ExecResult r = h.run(c.word);
    EXPECT_EQ(r.trap, c.trap) << std::hex << c.word;
    EXPECT_EQ(r.fault_addr, c.addr) << std::hex << c.word;
    EXPECT_TRUE(same_state(before, h.t));
  }
  EXPECT_EQ(h.env.word(TestEnv::kBase), 0x55u);
}

TEST(ExecuteMem, FloatLoadStoreKeepBits) {
  Harness h;
  h.env.set_word(kData, 0x7F800001);  // a signaling NaN: flw/fsw must not quiet it
  h.t.x[kA1] = kData;
  h.step(enc::i(0x07, 2, 5, kA1, 0));  // flw ft5,0(a1)
  EXPECT_EQ(h.t.fd(5), fp::box(0x7F800001u));
  h.step(enc::s(0x27, 2, kA1, 5, 12));  // fsw ft5,12(a1)
  EXPECT_EQ(h.env.word(kData + 12), 0x7F800001u);
}

TEST(ExecuteMem, LoadReservedStoreConditional) {
  Harness h;
  h.env.set_word(kData, 41);
  h.t.x[kA1] = kData;
  h.t.x[kA2] = 42;
  h.step(enc::amo(f5::kLr, kA0, kA1, 0, 2));  // lr.w.aq a0,(a1)
  EXPECT_EQ(h.t.x[kA0], 41u);
  h.step(enc::amo(f5::kSc, kA3, kA1, kA2, 1));  // sc.w.rl a3,a2,(a1): success -> 0
  EXPECT_EQ(h.t.x[kA3], 0u);
  EXPECT_EQ(h.env.word(kData), 42u);
  // The reservation is used up: a second sc fails (rd = 1), memory unchanged.
  h.t.x[kA2] = 43;
  h.step(enc::amo(f5::kSc, kA3, kA1, kA2));
  EXPECT_EQ(h.t.x[kA3], 1u);
  EXPECT_EQ(h.env.word(kData), 42u);
  // A store to the reserved word in between breaks the reservation.
  h.step(enc::amo(f5::kLr, kA0, kA1, 0));
  h.step(enc::store(2, kA1, kA2, 0));
  h.t.x[kA2] = 44;
  h.step(enc::amo(f5::kSc, kA3, kA1, kA2));
  EXPECT_EQ(h.t.x[kA3], 1u);
  EXPECT_EQ(h.env.word(kData), 43u);
}

TEST(ExecuteMem, EveryAmo) {
  struct Case {
    uint32_t f5;
    uint32_t mem, reg, expected_mem;
  };
  const Case cases[] = {
      {f5::kSwap, 5, 9, 9},
      {f5::kAdd, 0xFFFFFFFF, 2, 1},
      {f5::kXor, 0xF0F0, 0xFF00, 0x0FF0},
      {f5::kAnd, 0xF0F0, 0xFF00, 0xF000},
      {f5::kOr, 0xF0F0, 0xFF00, 0xFFF0},
      {f5::kMin, 0xFFFFFFFF, 1, 0xFFFFFFFF},  // signed: -1 < 1
      {f5::kMin, 3, 2, 2},
      {f5::kMax, 0xFFFFFFFF, 1, 1},
      {f5::kMax, 0x80000000, 0x7FFFFFFF, 0x7FFFFFFF},
      {f5::kMinu, 0xFFFFFFFF, 1, 1},  // unsigned
      {f5::kMinu, 3, 7, 3},
      {f5::kMaxu, 0xFFFFFFFF, 1, 0xFFFFFFFF},
      {f5::kMaxu, 0x80000000, 0x7FFFFFFF, 0x80000000},
  };
  for (const Case& c : cases) {
    for (uint32_t aqrl = 0; aqrl < 4; ++aqrl) {
      Harness h;
      h.env.set_word(kData, c.mem);
      h.t.x[kA1] = kData;
      h.t.x[kA2] = c.reg;
      h.step(enc::amo(c.f5, kA0, kA1, kA2, aqrl));
      EXPECT_EQ(h.t.x[kA0], c.mem) << "funct5 " << c.f5;  // rd gets the old value
      EXPECT_EQ(h.env.word(kData), c.expected_mem) << "funct5 " << c.f5;
      EXPECT_EQ(h.env.loads, 1);
      EXPECT_EQ(h.env.stores, 1);
    }
  }
  // rd == rs2: the old value lands in rd after the register was read.
  Harness h;
  h.env.set_word(kData, 10);
  h.t.x[kA1] = kData;
  h.t.x[kA2] = 5;
  h.step(enc::amo(f5::kAdd, kA2, kA1, kA2));
  EXPECT_EQ(h.t.x[kA2], 10u);
  EXPECT_EQ(h.env.word(kData), 15u);
}

TEST(ExecuteMem, LdgIsAReadOnlyLoad) {
  Harness h;
  h.env.set_word(kData, 0x8081F2F3);
  h.t.x[kA1] = kData;
  struct Case {
    uint32_t f3;
    int32_t offset;
    uint32_t expected;
  };
  const Case cases[] = {{0, 1, 0xFFFFFFF2}, {1, 2, 0xFFFF8081}, {2, 0, 0x8081F2F3}, {4, 3, 0x80}, {5, 0, 0xF2F3}};
  for (const Case& c : cases) {
    h.env.last_load_read_only = false;
    h.step(enc::i(0x2B, c.f3, kA0, kA1, c.offset));
    EXPECT_EQ(h.t.x[kA0], c.expected) << "ldg funct3 " << c.f3;
    EXPECT_TRUE(h.env.last_load_read_only);
  }
}

TEST(ExecuteMem, TesseraAtomics) {
  Harness h;
  h.t.x[kA1] = kData;
  // atom.fadd: 1.5 + 2.25 = 3.75 (0x40700000); rd gets the old 1.5 (0x3fc00000).
  h.env.set_word(kData, 0x3FC00000);
  h.t.x[kA2] = 0x40100000;
  h.step(enc::r(0x2B, 6, 0, kA0, kA1, kA2));
  EXPECT_EQ(h.t.x[kA0], 0x3FC00000u);
  EXPECT_EQ(h.env.word(kData), 0x40700000u);
  // atom.inc: old >= limit wraps to 0, else old + 1.
  h.env.set_word(kData, 4);
  h.t.x[kA2] = 5;
  h.step(enc::r(0x2B, 6, 1, kA0, kA1, kA2));
  EXPECT_EQ(h.t.x[kA0], 4u);
  EXPECT_EQ(h.env.word(kData), 5u);
  h.step(enc::r(0x2B, 6, 1, kA0, kA1, kA2));
  EXPECT_EQ(h.t.x[kA0], 5u);
  EXPECT_EQ(h.env.word(kData), 0u);
  h.env.set_word(kData, 0xFFFFFFFF);  // unsigned comparison: 0xffffffff >= 5
  h.step(enc::r(0x2B, 6, 1, kA0, kA1, kA2));
  EXPECT_EQ(h.env.word(kData), 0u);
  // atom.dec: old == 0 or old > limit gives limit, else old - 1.
  h.env.set_word(kData, 3);
  h.step(enc::r(0x2B, 6, 2, kA0, kA1, kA2));
  EXPECT_EQ(h.t.x[kA0], 3u);
  EXPECT_EQ(h.env.word(kData), 2u);
  h.env.set_word(kData, 0);
  h.step(enc::r(0x2B, 6, 2, kA0, kA1, kA2));
  EXPECT_EQ(h.env.word(kData), 5u);
  h.env.set_word(kData, 6);
  h.step(enc::r(0x2B, 6, 2, kA0, kA1, kA2));
  EXPECT_EQ(h.env.word(kData), 5u);
  // atom.cas a0,a2,a3,(a1): swaps only when the old value equals a2.
  h.env.set_word(kData, 100);
  h.t.x[kA2] = 100;
  h.t.x[kA3] = 200;
  h.step(enc::r4(0x2B, 7, kA0, kA1, kA2, kA3));
  EXPECT_EQ(h.t.x[kA0], 100u);
  EXPECT_EQ(h.env.word(kData), 200u);
  h.step(enc::r4(0x2B, 7, kA0, kA1, kA2, kA3));  // 200 != 100: no store
  EXPECT_EQ(h.t.x[kA0], 200u);
  EXPECT_EQ(h.env.word(kData), 200u);
}

TEST(ExecuteMem, AtomFaddCanonicalNan) {
  Harness h;
  h.t.x[kA1] = kData;
  h.env.set_word(kData, 0x7F800000);  // +inf
  h.t.x[kA2] = 0xFF800000;            // -inf: inf + -inf is invalid
  h.step(enc::r(0x2B, 6, 0, kA0, kA1, kA2));
  EXPECT_EQ(h.env.word(kData), 0x7FC00000u);
}

}  // namespace
}  // namespace tessera::isa::execute_mem_test
