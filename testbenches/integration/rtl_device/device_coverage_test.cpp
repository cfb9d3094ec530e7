// An rtl_device's cover points as pure logic (rtl/device/device_coverage.h):
// the AXI points a block of each shape declares, the burst-length buckets,
// and Verilator's coverage.dat parsed into the block's own points.
#include "rtl/device/device_coverage.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

using tessera::rtl::DeviceAxiCoverage;
using tessera::rtl::parse_verilator_coverage;

// A register slave alone with two interrupt lines: the register points and
// one rise per line; no burst or busy points.
TEST(DeviceCoverage, ABlockDeclaresThePointsOfTheInterfacesItHas) {
  tessera_rtl_device_shape regs_only{};
  regs_only.s_addr_bits = 8;
  regs_only.irq_bits = 2;
  EXPECT_EQ(DeviceAxiCoverage::point_names(regs_only),
            (std::vector<std::string>{"regs.read", "regs.write", "regs.error", "irq[0].rise", "irq[1].rise"}));
  tessera_rtl_device_shape master_busy{};
  master_busy.m_data_bits = 64;
  master_busy.has_busy = 1;
  const auto names = DeviceAxiCoverage::point_names(master_busy);
  ASSERT_EQ(names.size(), 19u);  // 18 memory points and busy.alone
  EXPECT_EQ(names.front(), "read.burst.1");
  EXPECT_EQ(names.back(), "busy.alone");
}

TEST(DeviceCoverage, BurstsCountByLength) {
  using C = DeviceAxiCoverage;
  EXPECT_EQ(C::burst_point(false, 1), C::kReadBurst1);
  EXPECT_EQ(C::burst_point(false, 2), C::kReadBurst2to4);
  EXPECT_EQ(C::burst_point(false, 4), C::kReadBurst2to4);
  EXPECT_EQ(C::burst_point(false, 5), C::kReadBurst5to16);
  EXPECT_EQ(C::burst_point(true, 16), C::kWriteBurst5to16);
  EXPECT_EQ(C::burst_point(true, 17), C::kWriteBurst17to256);
  EXPECT_EQ(C::burst_point(true, 256), C::kWriteBurst17to256);
}

// Hits land on the table's points in declaration order, irq lines after
// the fixed points; points of interfaces the block lacks are ignored.
TEST(DeviceCoverage, HitsGoToTheirPoints) {
  tessera_rtl_device_shape shape{};
  shape.s_addr_bits = 8;
  shape.irq_bits = 2;
  auto table = std::make_shared<tessera::rtl::CoverTable>(DeviceAxiCoverage::point_names(shape));
  DeviceAxiCoverage c(table, shape);
  c.hit(DeviceAxiCoverage::kRegWrite);
  c.hit(DeviceAxiCoverage::kRegWrite);
  c.hit(DeviceAxiCoverage::kReadBurst1);  // no master: not declared
  c.irq_rises(0b10);
  EXPECT_EQ(table->hits("regs.write"), 2u);
  EXPECT_EQ(table->hits("regs.read"), 0u);
  EXPECT_EQ(table->hits("irq[1].rise"), 1u);
  EXPECT_EQ(table->hits("irq[0].rise"), 0u);
}

// What Verilator 5 writes for `label: cover property` in the top, the same
// label in two instances of a submodule (merged: "u*"), and an unlabelled
// one; the root (the model's name) is dropped, line coverage skipped.
TEST(DeviceCoverage, VerilatorsCoverageFileGivesTheBlocksOwnPoints) {
  const std::string text =
      "# SystemC::Coverage-3\n"
      "C '\1f\2/src/t2.sv\1l\0024\1n\00212\1page\2v_user/t2\1o\2top_hit\1h\2acc0.t2.top_hit' 2\n"
      "C '\1f\2t2.sv\1l\0027\1n\00211\1page\2v_user/sub\1o\2in_sub\1h\2acc0.t2.u*.in_sub' 4\n"
      "C '\1f\2t2.sv\1l\0028\1n\0023\1page\2v_user/sub\1o\2cover\1h\2acc0.t2.u*' 17\n"
      "C '\1f\2t2.sv\1l\0029\1n\0023\1page\2v_line/sub\1o\2block\1h\2acc0.t2.u*' 5\n";
  const auto points = parse_verilator_coverage(text, "acc0");
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].name, "cover.t2.top_hit");
  EXPECT_EQ(points[0].count, 2u);
  EXPECT_EQ(points[1].name, "cover.t2.u*.in_sub");
  EXPECT_EQ(points[1].count, 4u);
  EXPECT_EQ(points[2].name, "cover.t2.u*@t2.sv:8");
  EXPECT_EQ(points[2].count, 17u);
}

TEST(DeviceCoverage, AMalformedCoverageFileIsAnErrorNamingTheLine) {
  for (const std::string bad : {"# x\nC '\1f\2a.sv' lots\n", "# x\nX nothing\n", "# x\nC '\1f' 3\n"}) {
    try {
      parse_verilator_coverage(bad, "acc0");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
