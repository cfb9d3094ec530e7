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

// With eager versioning the caches write each old value to the undo log
// (txlogbase, txlogsize: CSRs the guest sets): a log they could not write is
// a guest fault at the outermost tx.begin, never an error of the simulator.
// Lazy versioning never writes the log and leaves it unchecked.
TEST(HtmCore, AnUnwritableUndoLogIsAGuestFault) {
  struct Case {
    const char *base, *size, *why;
  };
  for (const Case& c : {Case{"0", "4096", "is outside global memory [0x80000000, 0x90000000)"},
                        Case{"0x10000000", "4096", "is outside global memory"},
                        Case{"0xFFFFFFF8", "16", "[0xfffffff8, 0x100000008) is outside global memory"},
                        Case{"0x8FFFFFF0", "32", "is outside global memory"},
                        Case{"0x88000002", "64", "txlogbase 0x88000002 is not 4-byte aligned"},
                        Case{"0x80000000", "4096", "overlaps the program's code"}}) {
    const RunResult r =
        run_tessera({"run", chip(), fw("htm_bad_log"), "-q", "--set", "htm.versioning=eager", "--", c.base, c.size});
    EXPECT_EQ(r.status, 3) << c.base << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("core0: tx.begin with an undo log (txlogbase, txlogsize " + std::string(c.size) +
                         ") the core cannot write: "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(c.why), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" at pc 0x"), std::string::npos) << r.err;
  }
  for (const char* versioning : {"eager", "lazy"}) {
    const char* base = std::string(versioning) == "eager" ? "0x88000000" : "0";
    const RunResult r = run_tessera({"run", chip(), fw("htm_bad_log"), "-q", "--set",
                                     std::string("htm.versioning=") + versioning, "--", base, "4096"});
    EXPECT_EQ(r.status, 0) << versioning << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("committed 1"), std::string::npos) << r.out;
  }
}

TEST(HtmCore, AnUnknownCornerIsAConfigError) {
  const RunResult r = run_tessera({"run", chip(), fw("htm_aborts"), "-q", "--set", "htm.policy=committer-wins"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("htm.policy: committer-wins does not apply to pessimistic detection"), std::string::npos)
      << r.err;
}

}  // namespace
