// Program arguments (docs/firmware-abi.md, "Program arguments"): the words
// after `--` reach main(argc, argv) on control core 0, argv[0] being the
// ELF's file name and argv[argc] null; arguments that do not fit the
// argument block are refused before the run.
#include <gtest/gtest.h>

#include <string>

#include "tessera_run.h"

namespace {

using tessera::test::run_tessera;

const std::string kEcho = std::string(FW_DIR) + "/args_echo.elf";

TEST(ProgramArgs, MainGetsTheWordsAfterDoubleDash) {
  const auto r = run_tessera({"run", "sm1", kEcho, "-q", "--", "alpha", "two words", ""});
  EXPECT_EQ(r.status, 4) << r.err;  // main returns argc: the name and three arguments
  EXPECT_EQ(r.out, "argc 4\nargv[0] 'args_echo.elf'\nargv[1] 'alpha'\nargv[2] 'two words'\nargv[3] ''\n");
}

TEST(ProgramArgs, WithoutArgumentsArgvHoldsTheProgramNameOnly) {
  const auto r = run_tessera({"run", "sm1", kEcho, "-q"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out, "argc 1\nargv[0] 'args_echo.elf'\n");
}

TEST(ProgramArgs, OptionsAfterTheProgramStillApplyBeforeDoubleDash) {
  const auto r = run_tessera({"run", "chip", kEcho, "--set", "cluster.cores=2", "-q", "--", "--set", "x=1"});
  EXPECT_EQ(r.status, 3) << r.err;  // "--set" and "x=1" are the program's, not tessera's
  EXPECT_EQ(r.out, "argc 3\nargv[0] 'args_echo.elf'\nargv[1] '--set'\nargv[2] 'x=1'\n");
}

TEST(ProgramArgs, ArgumentsLargerThanTheBlockAreRefusedBeforeTheRun) {
  // 4 KiB block: 3 pointers (12 bytes), "args_echo.elf\0" (14) and 4071 bytes + NUL = 4098 > 4096.
  const auto r = run_tessera({"run", "sm1", kEcho, "-q", "--", std::string(4071, 'x')});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("arguments take 4098 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("__tessera_args_size) holds 4096"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  // 12 + 14 + 4070 = 4096 bytes fit exactly: the program runs (and returns argc, 2).
  const auto fits = run_tessera({"run", "sm1", kEcho, "-q", "--", std::string(4069, 'x')});
  EXPECT_EQ(fits.status, 2) << fits.err;
  EXPECT_EQ(fits.err, "");
  EXPECT_EQ(fits.out.rfind("argc 2\nargv[0] 'args_echo.elf'\nargv[1] 'xxx", 0), 0u) << fits.out.substr(0, 80);
}

TEST(ProgramArgs, LockBenchRunsOneLockOnOneCoreCount) {
  const auto r = run_tessera({"run", "chip", std::string(FIRMWARE_DIR) + "/lock_bench.elf", "-q", "--", "ticket", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("RESULT lock ticket cores 2 ", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find("RESULT", 1), std::string::npos) << r.out;  // one configuration only
  EXPECT_NE(r.out.find("PASS lock benchmark (2..2 cores, 100 acquires per core)"), std::string::npos) << r.out;
}

TEST(ProgramArgs, LockBenchNamesABadLockOrCoreCount) {
  const std::string elf = std::string(FIRMWARE_DIR) + "/lock_bench.elf";
  const auto lock = run_tessera({"run", "chip", elf, "-q", "--", "mcs"});
  EXPECT_EQ(lock.status, 2);
  EXPECT_EQ(lock.out, "lock_bench: unknown lock 'mcs' (tas, ttas, tas_backoff, ticket, array or all)\n");
  const auto cores = run_tessera({"run", "chip", elf, "-q", "--", "tas", "5"});
  EXPECT_EQ(cores.status, 2);
  EXPECT_EQ(cores.out, "lock_bench: CORES must be 1..4 (cluster.cores), not '5'\n");
}

}  // namespace
