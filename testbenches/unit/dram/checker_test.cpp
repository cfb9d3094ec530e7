// The protocol checker flags each deliberately illegal command sequence,
// one sequence per rule, and accepts the same sequence when the second
// command comes exactly at the legal distance. Distances are the HBM2
// preset's (see timing_test.cpp): a checker that measured any of them one
// cycle off would fail one side of its pair.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "dram/checker.h"

namespace tessera::dram {
namespace {

using K = CommandKind;

Command cmd(uint64_t cycle, K kind, unsigned pc = 0, unsigned bg = 0, unsigned bank = 0, uint32_t row = 0) {
  Command c;
  c.cycle = cycle;
  c.kind = kind;
  c.pc = static_cast<uint8_t>(pc);
  c.bank_group = static_cast<uint8_t>(bg);
  c.bank = static_cast<uint8_t>(bank);
  c.row = row;
  return c;
}

DramSpec hbm2() {
  DramSpec s = load_preset("hbm2");
  validate(s);
  return s;
}

using Tweak = void (*)(Timing&);

// Runs `sequence` through a fresh checker; returns the rules it reported.
std::vector<std::string> check(const std::vector<Command>& sequence, Tweak tweak = nullptr) {
  DramSpec spec = hbm2();
  if (tweak) tweak(spec.timing);
  validate(spec);
  ProtocolChecker checker(spec);
  for (const auto& c : sequence) checker.on_command(c);
  std::vector<std::string> rules;
  for (const auto& v : checker.violations()) rules.push_back(v.rule);
  return rules;
}

struct RuleCase {
  const char* rule;
  std::vector<Command> legal;    // the second command exactly at the limit
  std::vector<Command> illegal;  // one cycle early (or a state error)
  // Separates a rule that the preset makes coincide with another.
  Tweak tweak = nullptr;
};

class CheckerRule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(CheckerRule, FlagsTheIllegalSequenceOnly) {
  const RuleCase& c = GetParam();
  EXPECT_TRUE(check(c.legal, c.tweak).empty()) << c.rule;
  const auto rules = check(c.illegal, c.tweak);
  ASSERT_EQ(rules.size(), 1u) << c.rule;
  EXPECT_EQ(rules[0], c.rule);
}

// ACT (bank 0, row 7) at cycle 0, then the second command.
const std::vector<RuleCase> kCases = {
    {"tRCDRD",
     {cmd(0, K::kAct, 0, 0, 0, 7), cmd(14, K::kRd, 0, 0, 0, 7)},
     {cmd(0, K::kAct, 0, 0, 0, 7), cmd(13, K::kRd, 0, 0, 0, 7)}},
    {"tRCDWR",
     {cmd(0, K::kAct, 0, 0, 0, 7), cmd(14, K::kWr, 0, 0, 0, 7)},
     {cmd(0, K::kAct, 0, 0, 0, 7), cmd(13, K::kWr, 0, 0, 0, 7)}},
    {"tRAS", {cmd(0, K::kAct), cmd(34, K::kPre)}, {cmd(0, K::kAct), cmd(33, K::kPre)}},
    {"tRP",
     {cmd(0, K::kAct), cmd(40, K::kPre), cmd(54, K::kAct)},
     {cmd(0, K::kAct), cmd(40, K::kPre), cmd(53, K::kAct)}},
    // tRC = tRAS + tRP in the preset; at 60 it binds alone.
    {"tRC",
     {cmd(0, K::kAct), cmd(34, K::kPre), cmd(60, K::kAct)},
     {cmd(0, K::kAct), cmd(34, K::kPre), cmd(59, K::kAct)},
     [](Timing& t) { t.tRC = 60; }},
    {"tRRD_S", {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1)}, {cmd(0, K::kAct, 0, 0), cmd(3, K::kAct, 0, 1)}},
    {"tRRD_L",
     {cmd(0, K::kAct, 0, 0, 0), cmd(6, K::kAct, 0, 0, 1)},
     {cmd(0, K::kAct, 0, 0, 0), cmd(5, K::kAct, 0, 0, 1)}},
    // tRRD_S 2 keeps the fifth ACT's tRRD_S bound (6 + 2) below tFAW (0 + 16).
    {"tFAW",
     {cmd(0, K::kAct, 0, 0), cmd(2, K::kAct, 0, 1), cmd(4, K::kAct, 0, 2), cmd(6, K::kAct, 0, 3),
      cmd(16, K::kAct, 0, 0, 1)},
     {cmd(0, K::kAct, 0, 0), cmd(2, K::kAct, 0, 1), cmd(4, K::kAct, 0, 2), cmd(6, K::kAct, 0, 3),
      cmd(15, K::kAct, 0, 0, 1)},
     [](Timing& t) { t.tRRD_S = 2; }},
    {"tCCD_L (RD)",
     {cmd(0, K::kAct), cmd(14, K::kRd), cmd(17, K::kRd)},
     {cmd(0, K::kAct), cmd(14, K::kRd), cmd(16, K::kRd)}},
    {"tCCD_L (WR)",
     {cmd(0, K::kAct), cmd(14, K::kWr), cmd(17, K::kWr)},
     {cmd(0, K::kAct), cmd(14, K::kWr), cmd(16, K::kWr)}},
    // tCCD_S equals the burst in the preset; 3 and 1 separate them.
    {"tCCD_S (RD)",
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kRd, 0, 0), cmd(23, K::kRd, 0, 1)},
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kRd, 0, 0), cmd(22, K::kRd, 0, 1)},
     [](Timing& t) { t.tCCD_S = 3; }},
    {"tCCD_S (WR)",
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kWr, 0, 0), cmd(23, K::kWr, 0, 1)},
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kWr, 0, 0), cmd(22, K::kWr, 0, 1)},
     [](Timing& t) { t.tCCD_S = 3; }},
    {"data bus: RD burst",
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kRd, 0, 0), cmd(22, K::kRd, 0, 1)},
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kRd, 0, 0), cmd(21, K::kRd, 0, 1)},
     [](Timing& t) { t.tCCD_S = 1; }},
    {"data bus: WR burst",
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kWr, 0, 0), cmd(22, K::kWr, 0, 1)},
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kWr, 0, 0), cmd(21, K::kWr, 0, 1)},
     [](Timing& t) { t.tCCD_S = 1; }},
    {"tWTR_L (CWL + BL + tWTR_L)",
     {cmd(0, K::kAct), cmd(14, K::kWr), cmd(28, K::kRd)},
     {cmd(0, K::kAct), cmd(14, K::kWr), cmd(27, K::kRd)}},  // 14 + 4 + 2 + 8
    {"tWTR_S (CWL + BL + tWTR_S)",
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kWr, 0, 0), cmd(32, K::kRd, 0, 1)},
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kWr, 0, 0), cmd(31, K::kRd, 0, 1)}},  // 20+4+2+6
    {"read-to-write turnaround (CL + BL + tRTRS - CWL)",
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kRd, 0, 0), cmd(34, K::kWr, 0, 1)},
     {cmd(0, K::kAct, 0, 0), cmd(4, K::kAct, 0, 1), cmd(20, K::kRd, 0, 0), cmd(33, K::kWr, 0, 1)}},  // 20+14+2+2-4
    {"tRTP",
     {cmd(0, K::kAct), cmd(40, K::kRd), cmd(45, K::kPre)},
     {cmd(0, K::kAct), cmd(40, K::kRd), cmd(44, K::kPre)}},
    {"tWR (CWL + BL + tWR)",
     {cmd(0, K::kAct), cmd(40, K::kWr), cmd(62, K::kPre)},
     {cmd(0, K::kAct), cmd(40, K::kWr), cmd(61, K::kPre)}},  // 40 + 4 + 2 + 16
    {"tRP before REFab",
     {cmd(0, K::kAct), cmd(34, K::kPre), cmd(48, K::kRefAb)},
     {cmd(0, K::kAct), cmd(34, K::kPre), cmd(47, K::kRefAb)}},
    {"tRFC", {cmd(0, K::kRefAb), cmd(350, K::kAct)}, {cmd(0, K::kRefAb), cmd(349, K::kAct)}},
    {"tRFCSB",
     {cmd(0, K::kRefSb, 0, 0, 0), cmd(160, K::kAct, 0, 0, 0)},
     {cmd(0, K::kRefSb, 0, 0, 0), cmd(159, K::kAct, 0, 0, 0)}},
    {"tRREFD",
     {cmd(0, K::kRefSb, 0, 0, 0), cmd(8, K::kAct, 0, 0, 1)},
     {cmd(0, K::kRefSb, 0, 0, 0), cmd(7, K::kAct, 0, 0, 1)}},
    {"row bus", {cmd(0, K::kAct, 0, 0), cmd(2, K::kPre, 0, 1)}, {cmd(0, K::kAct, 0, 0), cmd(1, K::kPre, 0, 1)}},
    // State rules: the legal form is the same sequence made legal.
    {"ACT to an open bank", {cmd(0, K::kAct), cmd(34, K::kPre), cmd(48, K::kAct)}, {cmd(0, K::kAct), cmd(48, K::kAct)}},
    {"column command to a closed bank", {cmd(0, K::kAct), cmd(14, K::kRd)}, {cmd(14, K::kRd)}},
    {"column command to a row that is not open",
     {cmd(0, K::kAct, 0, 0, 0, 3), cmd(14, K::kRd, 0, 0, 0, 3)},
     {cmd(0, K::kAct, 0, 0, 0, 3), cmd(14, K::kRd, 0, 0, 0, 4)}},
    {"REFab with a bank open",
     {cmd(0, K::kAct, 0, 2, 1), cmd(34, K::kPre, 0, 2, 1), cmd(48, K::kRefAb)},
     {cmd(0, K::kAct, 0, 2, 1), cmd(48, K::kRefAb)}},
    {"REFsb to an open bank",
     {cmd(0, K::kAct), cmd(34, K::kPre), cmd(48, K::kRefSb)},
     {cmd(0, K::kAct), cmd(48, K::kRefSb)}},
};

INSTANTIATE_TEST_SUITE_P(Rules, CheckerRule, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<RuleCase>& param) {
                           std::string name;
                           for (const char* p = param.param.rule; *p; ++p)
                             if (std::isalnum(static_cast<unsigned char>(*p))) name += *p;
                           return name + "_" + std::to_string(param.index);
                         });

TEST(Checker, FlagsTwoColumnCommandsInOneCycle) {
  // Different pseudo channels (separate data buses) but one column bus.
  const std::vector<Command> base{cmd(0, K::kAct, 0, 0), cmd(2, K::kAct, 1, 0)};
  auto legal = base, illegal = base;
  legal.push_back(cmd(20, K::kRd, 0, 0));
  legal.push_back(cmd(21, K::kRd, 1, 0));
  illegal.push_back(cmd(20, K::kRd, 0, 0));
  illegal.push_back(cmd(20, K::kRd, 1, 0));
  EXPECT_TRUE(check(legal).empty());
  EXPECT_EQ(check(illegal), (std::vector<std::string>{"column bus"}));
}

TEST(Checker, FlagsTooFewRefreshes) {
  // 20 tREFI (78000 cycles) with 11 REFab in PC 0 and 12 in every other PC:
  // every bank needs 20 - 8 postponed = 12.
  ProtocolChecker checker(hbm2());
  for (unsigned i = 0; i < 12; ++i) {  // in time order, as on the buses
    for (unsigned pc_index = i == 11 ? 1 : 0; pc_index < 16; ++pc_index) {
      Command c = cmd(3900ull * (i + 1) + 2 * pc_index, K::kRefAb, pc_index % 2);
      c.channel = static_cast<uint16_t>(pc_index / 2);
      checker.on_command(c);
    }
  }
  checker.finish(78000);
  ASSERT_EQ(checker.violation_count(), 1u);
  EXPECT_EQ(checker.violations()[0].rule, "refresh rate");
  EXPECT_NE(checker.violations()[0].detail.find("ch0 pc0"), std::string::npos);
}

TEST(Checker, PerBankRefreshesCountTowardsTheRate) {
  // 12 tREFI worth of REFsb (16 banks each) in every PC of a 20 tREFI run.
  ProtocolChecker checker(hbm2());
  for (unsigned i = 0; i < 12 * 16; ++i)  // in time order, as on the buses
    for (unsigned ch = 0; ch < 8; ++ch)
      for (unsigned pc = 0; pc < 2; ++pc) {
        Command c = cmd(200ull * (i + 1) + 2 * (ch * 2 + pc), K::kRefSb, pc, (i % 16) / 4, i % 4);
        c.channel = static_cast<uint16_t>(ch);
        checker.on_command(c);
      }
  checker.finish(78000);
  EXPECT_EQ(checker.violation_count(), 0u) << checker.violations()[0].rule << ": " << checker.violations()[0].detail;
}

}  // namespace
}  // namespace tessera::dram
