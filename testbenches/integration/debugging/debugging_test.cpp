// Debugging (docs/debugging.md). Messages name the function and source line
// of every PC they show: a deadlock with __syncthreads() in a divergent
// branch names the barrier's line and the spin's, a fault names the store's
// line. The instruction trace (--trace-insts) has a line per warp
// instruction and per control-core instruction (the statistics' counts
// exactly), its filters select what they say, bad filters are refused, and
// tracing changes no statistic. Expected lines come from the sources'
// LINE: markers; expected counts from the run's own statistics JSON, which
// other tests check against hand-derived figures.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "host_time.h"
#include "isa/elf_loader.h"
#include "tessera_run.h"

namespace {

using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::RunResult;
using tessera::test::temp_path;

std::string dbg_fw(const std::string& name) { return DBG_FW_DIR + "/dbg_" + name + ".elf"; }
std::string fw(const std::string& name) { return FW_DIR + "/" + name + ".elf"; }

// The line of `file` (in this directory) marked "LINE: what".
int marked_line(const std::string& file, const std::string& what) {
  std::istringstream in(read_file(DBG_SRC_DIR + "/" + file));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find("LINE: " + what) != std::string::npos) return n;
  return 0;
}

TEST(DebugMessages, ADivergentBarrierDeadlockNamesTheBarrierAndTheSpin) {
  const int barrier = marked_line("barrier_deadlock.cu", "barrier"), spin = marked_line("barrier_deadlock.cu", "spin");
  ASSERT_NE(barrier, 0);
  ASSERT_NE(spin, 0);
  const RunResult r = run_tessera({"run", "sm1", dbg_fw("barrier_deadlock"), "--set", "watchdog.cycles=200000"});
  EXPECT_EQ(r.status, 5) << r.err;
  // The kernel by name; warp 0 at the barrier (the __syncthreads the
  // compiler inlined, on the user's line first); warp 1 in its spin.
  EXPECT_NE(r.err.find("kernel 'spin_past_barrier(int*)' (launch 0, at 0x"), std::string::npos) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("warp 0, lanes 0xffffffff, exited 0x00000000, lanes 0xffffffff wait at the barrier "
                        "0x[0-9a-f]{8} in spin_past_barrier\\(int\\*\\)\\+0x[0-9a-f]+ \\(barrier_deadlock\\.cu:" +
                        std::to_string(barrier) + "; __syncthreads at tessera\\.h:[0-9]+\\); no lane is ready to run")))
      << r.err;
  EXPECT_TRUE(
      std::regex_search(r.err, std::regex("warp 1, lanes 0xffffffff, exited 0x00000000; lanes 0xffffffff run "
                                          "next at 0x[0-9a-f]{8} in spin_past_barrier\\(int\\*\\)\\+0x[0-9a-f]+ "
                                          "\\(barrier_deadlock\\.cu:" +
                                          std::to_string(spin) + "\\): ")))
      << r.err;
}

TEST(DebugMessages, AFaultNamesTheFunctionAndLineOfTheStore) {
  const int store = marked_line("null_store.cu", "store");
  const RunResult r = run_tessera({"run", "sm1", dbg_fw("null_store")});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("at pc 0x[0-9a-f]{8} in scatter\\(int\\*\\)\\+0x[0-9a-f]+ "
                                                  "\\(null_store\\.cu:" +
                                                  std::to_string(store) + "\\), warp slot 1 .*thread \\(37,0,0\\)")))
      << r.err;
}

// The statistic at a dotted path of a --stats file.
uint64_t stat(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* at = &j;
  std::istringstream parts(path);
  std::string part;
  while (std::getline(parts, part, '.')) at = &(*at)[part];
  return at->get<uint64_t>();
}

struct Trace {
  std::vector<std::string> lines;  // without the header
  size_t count(const std::regex& re) const {
    size_t n = 0;
    for (const auto& l : lines) n += std::regex_search(l, re) ? 1 : 0;
    return n;
  }
};

Trace read_trace(const std::string& path) {
  Trace t;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') t.lines.push_back(line);
  return t;
}

TEST(InstTrace, EveryWarpAndCoreInstructionHasItsLine) {
  const std::string path = temp_path("vecadd.insts"), stats = temp_path("vecadd.json");
  const RunResult r = run_tessera({"run", "sm1", fw("vecadd"), "-q", "--stats", stats, "--trace-insts", path});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(read_file(stats));
  uint64_t warp_insts = 0;
  for (int s = 0; s < 4; ++s) warp_insts += stat(j, "chip.sm0.sched" + std::to_string(s) + ".issued_warp_insts");
  const Trace t = read_trace(path);
  EXPECT_EQ(t.count(std::regex("^ +[0-9]+ sm0\\.w[0-9]+ \\[0x[0-9a-f]{8}\\] 0x")), warp_insts);
  EXPECT_EQ(t.count(std::regex("^ +[0-9]+ cluster\\.core0 0x")), stat(j, "chip.cluster.core0.instructions"));
  // The first instruction is the entry's, named with its source line.
  const auto image = tessera::isa::load_elf(fw("vecadd"));
  ASSERT_FALSE(t.lines.empty());
  EXPECT_TRUE(std::regex_search(
      t.lines[0],
      std::regex(fmt::format("^ +[0-9]+ cluster\\.core0 0x{:08x} _start \\(crt0\\.S:[0-9]+\\) \\| ", image.entry))))
      << t.lines[0];
  // Loads and stores carry their address; the kernel's lines its name.
  EXPECT_GT(t.count(std::regex("\\| (lw|flw)\t.*\\| addr=0x[0-9a-f]{8}$")), 0u);
  EXPECT_GT(
      t.count(std::regex("sm0\\.w[0-9]+ \\[0x[0-9a-f]{8}\\] 0x[0-9a-f]{8} vecadd\\+0x[0-9a-f]+ \\(vecadd\\.c:[0-9]+")),
      0u);
}

TEST(InstTrace, VectorInstructionsAreDisassembledAsSuch) {
  // The scalar decoder calls them illegal; the trace names them.
  const std::string path = temp_path("vector.insts");
  const RunResult r = run_tessera({"run", "chip", VECTOR_FW_DIR + "/vector_cycles.elf", "-q", "--trace-insts", path,
                                   "--trace-insts-unit", "cluster.*"});
  ASSERT_EQ(r.status, 0) << r.err;
  const Trace t = read_trace(path);
  EXPECT_EQ(t.count(std::regex("\\| illegal\t")), 0u);
  EXPECT_GT(t.count(std::regex("\\| vsetvli\t")), 0u);
  EXPECT_GT(t.count(std::regex("\\| vle32\\.v\t")), 0u);
}

TEST(InstTrace, FiltersSelectUnitsCyclesFunctionsAndKernels) {
  const std::string path = temp_path("filtered.insts");
  RunResult r = run_tessera({"run", "sm1", fw("vecadd"), "-q", "--trace-insts", path, "--trace-insts-unit", "sm0.w1"});
  ASSERT_EQ(r.status, 0) << r.err;
  Trace t = read_trace(path);
  ASSERT_FALSE(t.lines.empty());
  EXPECT_EQ(t.count(std::regex("^ +[0-9]+ sm0\\.w1 ")), t.lines.size());

  r = run_tessera({"run", "sm1", fw("vecadd"), "-q", "--trace-insts", path, "--trace-insts-cycles", "1000:1999"});
  ASSERT_EQ(r.status, 0) << r.err;
  t = read_trace(path);
  ASSERT_FALSE(t.lines.empty());
  for (const auto& l : t.lines) {
    const uint64_t cycle = std::stoull(l);
    EXPECT_TRUE(cycle >= 1000 && cycle <= 1999) << l;
  }

  // A function's extent, from the ELF's symbols.
  r = run_tessera({"run", "sm1", fw("vecadd"), "-q", "--trace-insts", path, "--trace-insts-pc", "main"});
  ASSERT_EQ(r.status, 0) << r.err;
  t = read_trace(path);
  ASSERT_FALSE(t.lines.empty());
  EXPECT_EQ(t.count(std::regex(" cluster\\.core0 0x[0-9a-f]{8} main(\\+0x[0-9a-f]+)? \\(")), t.lines.size());

  // A kernel: SM lines only.
  r = run_tessera({"run", "sm1", fw("vecadd"), "-q", "--trace-insts", path, "--trace-insts-kernel", "vecadd"});
  ASSERT_EQ(r.status, 0) << r.err;
  t = read_trace(path);
  ASSERT_FALSE(t.lines.empty());
  EXPECT_EQ(t.count(std::regex("^ +[0-9]+ sm0\\.w[0-9]+ \\[")), t.lines.size());
}

TEST(InstTrace, BadFiltersAreRefusedBeforeTheRun) {
  const std::string path = temp_path("bad.insts");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--trace-insts-cycles", "10:5"}, "--trace-insts-cycles: '10:5' ends before it starts"},
      {{"--trace-insts-cycles", "x:5"}, "--trace-insts-cycles: 'x:5' is not a cycle window"},
      {{"--trace-insts-pc", "no_such_function"}, "--trace-insts-pc: 'no_such_function' is neither a range"},
      {{"--trace-insts-pc", "0x10:zz"}, "--trace-insts-pc: '0x10:zz' is not a range LO:HI of hex addresses"},
      {{"--trace-insts-kernel", "nope"}, "--trace-insts-kernel: the program has no kernel 'nope'"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {"run", "sm1", fw("vecadd"), "--trace-insts", path};
    argv.insert(argv.end(), args.begin(), args.end());
    const RunResult r = run_tessera(argv);
    EXPECT_EQ(r.status, 2) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  }
  const RunResult r = run_tessera({"run", "sm1", fw("vecadd"), "--trace-insts", fw("vecadd")});
  EXPECT_EQ(r.status, 2) << r.err;
}

class InstTraceChangesNothing : public ::testing::TestWithParam<std::string> {};

TEST_P(InstTraceChangesNothing, StatisticsWithTheTraceAreIdentical) {
  const std::string platform = GetParam();
  const std::string plain = temp_path(platform + "_plain.json"), traced = temp_path(platform + "_traced.json");
  const RunResult a = run_tessera({"run", platform, fw("sgemm"), "-q", "--stats", plain}, 300);
  const RunResult b = run_tessera(
      {"run", platform, fw("sgemm"), "-q", "--stats", traced, "--trace-insts", temp_path(platform + ".insts")}, 300);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(tessera::test::without_host_time(nlohmann::json::parse(read_file(plain))),
            tessera::test::without_host_time(nlohmann::json::parse(read_file(traced))));
}

INSTANTIATE_TEST_SUITE_P(TwoPlatforms, InstTraceChangesNothing, ::testing::Values("sm1", "chip"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
