// The SM with its shared memory on the RTL bank unit (sm.shared_impl=rtl,
// lockstep): the engine's warp requests, its sign and zero extension of
// sub-word loads when the unit answers, atomics in lane order, and the same
// issue cycles as the C++ model's analytic timing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "unit/sm/sm_harness.h"

using namespace tessera::sm;
using namespace tessera::sm::test;
namespace f5 = tessera::isa::test::f5;

namespace {

// x5 = 0x80f18283 stored by every lane to shared word 0 (one broadcast
// pass); sub-word loads of it; amoadd of 1 by every lane; a load of the sum;
// x16 reads x15 so the warp waits for it before exit.
const std::vector<uint32_t> kProgram = {lui(8, kSharedWindow >> 12),
                                        lui(5, 0x80f18),
                                        addi(5, 5, 0x283),
                                        enc::store(2, 8, 5, 0),
                                        enc::load(0, 10, 8, 1),
                                        enc::load(4, 11, 8, 1),
                                        enc::load(1, 12, 8, 2),
                                        enc::load(5, 13, 8, 2),
                                        addi(6, 0, 1),
                                        enc::amo(f5::kAdd, 14, 8, 6),
                                        lw(15, 8, 0),
                                        addi(16, 15, 0),
                                        kExit};

struct Outcome {
  std::vector<Issue> issues;
  std::vector<std::array<uint32_t, 32>> regs;  // per lane, x0..x31
};

Outcome run(const std::string& impl) {
  SmHarness h(kProgram, {"sm.shared_impl=" + impl});
  h.launch(32, 0, 64);
  h.run(1, 2000);
  EXPECT_FALSE(h.run_control().stopped()) << h.run_control().message();
  EXPECT_TRUE(h.sm().idle()) << impl;
  Outcome r;
  r.issues = h.issues();
  for (unsigned lane = 0; lane < 32; ++lane) {
    std::array<uint32_t, 32> x{};
    for (unsigned i = 0; i < 32; ++i) x[i] = h.sm().warps()[0].threads[lane].x[i];
    r.regs.push_back(x);
  }
  return r;
}

}  // namespace

// lb of byte 1 (0x82): 0xffffff82; lbu: 0x82; lh of half 1 (0x80f1):
// 0xffff80f1; lhu: 0x80f1; amoadd: lane l reads 0x80f18283 + l; the word
// is then 0x80f18283 + 32 = 0x80f182a3.
TEST(SharedBankEngine, RtlAnswersGiveTheModelsRegistersAndIssueCycles) {
  const Outcome model = run("model");
  for (const std::string impl : {"rtl", "lockstep"}) {
    SCOPED_TRACE(impl);
    const Outcome got = run(impl);
    EXPECT_EQ(got.issues, model.issues);
    for (unsigned lane = 0; lane < 32; ++lane) {
      SCOPED_TRACE("lane " + std::to_string(lane));
      const auto& x = got.regs[lane];
      EXPECT_EQ(x, model.regs[lane]);
      EXPECT_EQ(x[10], 0xffffff82u);
      EXPECT_EQ(x[11], 0x82u);
      EXPECT_EQ(x[12], 0xffff80f1u);
      EXPECT_EQ(x[13], 0x80f1u);
      EXPECT_EQ(x[14], 0x80f18283u + lane);
      EXPECT_EQ(x[15], 0x80f182a3u);
    }
  }
}
