// Transactions on the control cores of the chip (docs/htm.md): each abort
// reason, on the four versioning x detection corners, returns its status to
// tx.begin and leaves no trace in registers or memory (htm_aborts.c checks
// and prints each case); a tx.end outside a transaction is a guest fault.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tessera_run.h"

using tessera::test::run_tessera;
using tessera::test::RunResult;

namespace {

std::string fw(const std::string& name) { return std::string(HTM_FW_DIR) + "/" + name + ".elf"; }
std::string chip() { return std::string(PLATFORM_DIR) + "/chip.yaml"; }

struct Corner {
  const char* versioning;
  const char* detection;
};

class HtmAborts : public ::testing::TestWithParam<Corner> {};

TEST_P(HtmAborts, EveryReasonLeavesNoTrace) {
  const Corner c = GetParam();
  const RunResult r = run_tessera({"run", chip(), fw("htm_aborts"), "-q", "--set", "cluster.cores=2", "--set",
                                   std::string("htm.versioning=") + c.versioning, "--set",
                                   std::string("htm.detection=") + c.detection});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // The status of each reason (docs/firmware-abi.md), the register back at
  // its tx.begin value (0x5eed) and memory at its old value (100).
  for (const char* line :
       {"ABORT none status 0x0 register 0xbad memory 200", "ABORT explicit status 0x2a01 register 0x5eed memory 100",
        "ABORT mmio status 0x6 register 0x5eed memory 100", "ABORT nesting status 0x7 register 0x5eed memory 100",
        "ABORT capacity status 0x5 register 0x5eed memory 100", "ABORT conflict status 0x10003 memory 0",
        "PASS htm aborts"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  // The MMIO store inside the transaction never reached the console.
  EXPECT_EQ(r.out.find('!'), std::string::npos) << r.out;
  // Eager versioning overflows a one-entry undo log at the second word;
  // lazy versioning has no log and commits.
  const std::string log =
      std::string(c.versioning) == "eager" ? "ABORT log status 0x8 memory 0 0" : "ABORT log status 0x0 memory 1 2";
  EXPECT_NE(r.out.find(log), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Corners, HtmAborts,
                         ::testing::Values(Corner{"eager", "pessimistic"}, Corner{"lazy", "pessimistic"},
                                           Corner{"eager", "optimistic"}, Corner{"lazy", "optimistic"}),
                         [](const auto& param_info) {
                           return std::string(param_info.param.versioning) + "_" + param_info.param.detection;
                         });

TEST(HtmCore, TxEndOutsideATransactionIsAFault) {
  const RunResult r = run_tessera({"run", chip(), fw("htm_bad_end"), "-q"});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("core0: tx.end outside a transaction at pc 0x"), std::string::npos) << r.err;
}

TEST(HtmCore, AnUnknownCornerIsAConfigError) {
  const RunResult r = run_tessera({"run", chip(), fw("htm_aborts"), "-q", "--set", "htm.policy=committer-wins"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("htm.policy: committer-wins does not apply to pessimistic detection"), std::string::npos)
      << r.err;
}

}  // namespace
