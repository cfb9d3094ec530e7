// Lane memory access through the SM engine: how each lane's address is
// decoded and what it reserves.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "isa/encoding.h"
#include "unit/sm/sm_harness.h"

using namespace tessera::sm;
using namespace tessera::sm::test;
namespace csr = tessera::isa::csr;
namespace f5 = tessera::isa::test::f5;

// One LR whose lanes 0..15 address shared memory and lanes 16..31 global
// memory, then an SC of 7 to the same words: each lane holds its own
// reservation in the memory it addressed, so every SC succeeds (rd = 0) and
// writes. Lane addresses without divergence: x8 = shared window ^ ((global ^
// shared window) & -(tid.x >> 4)) + tid.x * 4.
TEST(LaneMemory, LrReservesPerLaneWhenLanesSpanSharedAndGlobal) {
  constexpr uint32_t kGlobalXorShared = kData ^ kSharedWindow;  // 0xA0008000
  SmHarness h({csrr(5, csr::kTidX), enc::opimm(5, 6, 5, 4), enc::opimm(1, 7, 5, 2), lui(8, kSharedWindow >> 12),
               lui(11, kGlobalXorShared >> 12), enc::op(0, 0x20, 9, 0, 6), enc::op(7, 0, 10, 11, 9),
               enc::op(4, 0, 8, 8, 10), enc::op(0, 0, 8, 8, 7), enc::amo(f5::kLr, 12, 8, 0), addi(13, 0, 7),
               enc::amo(f5::kSc, 14, 8, 13), kExit});
  h.launch(32, 0, 64);
  h.run(1, 500);
  ASSERT_FALSE(h.run_control().stopped()) << h.run_control().message();
  ASSERT_TRUE(h.sm().idle());
  const Warp& w = h.sm().warps()[0];
  for (unsigned lane = 0; lane < 32; ++lane) EXPECT_EQ(w.threads[lane].x[14], 0u) << "lane " << lane;
  EXPECT_EQ(h.sm().lane_memory().shared_memory().load(3 * 4, 4), 7u);
  EXPECT_EQ(h.global().load(kData + 20 * 4, 4), 7u);
}

namespace {
// lui x5, `page`; sw x0, 0(x5); exit: the run stops with a report that
// contains `text`. Stopping a run also stops SystemC (RunControl::stop calls
// sc_stop, once per process), so each fault runs in a child process.
void expect_store_fault(uint32_t page, const std::string& text) {
  EXPECT_EXIT(
      {
        SmHarness h({lui(5, page), enc::store(2, 5, 0, 0), kExit});
        h.launch(32, 0);
        h.run(1, 20);
        const bool ok = h.run_control().stopped() && h.run_control().message().find(text) != std::string::npos;
        if (!ok) std::fprintf(stderr, "report: %s\n", h.run_control().message().c_str());
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}
}  // namespace

// Just below the local window is the stack guard: a stack that outgrew
// sm.local_bytes, reported as such.
TEST(LaneMemory, AccessBelowTheLocalWindowIsAStackOverflow) {
  expect_store_fault((kLocalWindow - 0x1000) >> 12, "stack overflow: access at 0x2ffff000");
}

TEST(LaneMemory, StoreIntoTheCodeIsRefused) {
  expect_store_fault(kCode >> 12, "store into the program's code at 0x80000000");
}

TEST(LaneMemory, SharedWindowBeyondTheBlocksAllocationNamesItsSize) {
  expect_store_fault(kSharedWindow >> 12,
                     "(the shared-memory window 0x20000000: this block's static shared variables are "
                     "[0x20000000, 0x20000000) and its dynamic area [0x20000000, 0x20000000); 0 bytes of shared "
                     "memory in all)");
}
