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
#include "wave_reader.h"

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

// ---------------------------------------------------------------------------
// gdb on the chip (--gdb): Debian's gdb-multiarch in batch mode drives real
// runs through gdb_session.py, which starts tessera on a free port.

struct GdbRun {
  std::string gdb;  // everything gdb printed
  int gdb_status = -1, sim_status = -1;
  std::string sim_err;
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

GdbRun gdb_session(const std::string& platform, const std::string& elf, const std::vector<std::string>& commands,
                   const std::vector<std::string>& run_args = {}) {
  std::string cmd = "python3 " + shell_quote(DBG_SRC_DIR + "/gdb_session.py") + " " + shell_quote(TESSERA_BIN) + " " +
                    platform + " " + shell_quote(elf) + " --timeout " +
                    std::to_string(120 * tessera::test::timeout_scale());
  for (const auto& a : run_args) cmd += " " + shell_quote(a);
  cmd += " -- " + shell_quote("source " + DBG_SRC_DIR + "/../../../tools/tessera.gdb");
  for (const auto& c : commands) cmd += " " + shell_quote(c);
  const std::string out = tessera::test::command_output(cmd + " 2>&1");
  GdbRun r;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(out);
  } catch (const std::exception&) {
    ADD_FAILURE() << "gdb_session.py printed no JSON:\n" << out;
    return r;
  }
  if (j.contains("error")) ADD_FAILURE() << j.dump(2);
  r.gdb = j.value("gdb_out", "");
  r.gdb_status = j.value("gdb_status", -1);
  r.sim_status = j.value("sim_status", -1);
  r.sim_err = j.value("sim_err", "");
  return r;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(GdbSession, BreakInAKernelSelectALaneWatchSharedMemoryAndRunToTheEnd) {
  const int store = marked_line("gdb_kernel.cu", "shared store");
  ASSERT_NE(store, 0);
  const GdbRun r =
      gdb_session("sm1", dbg_fw("gdb_kernel"),
                  {"info threads", fmt::format("break gdb_kernel.cu:{}", store), "continue", "info threads", "p lane",
                   "lane 7", "p lane", "p v", "p $pc", "lanes", "monitor cycle", "delete",
                   // Block 0's tile[5]: written by lane 5 of the warp of block 0 only.
                   "watch *(int*)0x20000014", "continue", "delete", "continue"});
  ASSERT_EQ(r.gdb_status, 0) << r.gdb;
  // Before the first instruction: core 0 at _start, every core a thread.
  EXPECT_TRUE(has(r.gdb, "_start () at ")) << r.gdb;
  EXPECT_TRUE(
      std::regex_search(r.gdb, std::regex("1 +Thread 1 \"cluster\\.core0\" \\(running at 0x80000000 in _start")))
      << r.gdb;
  // The breakpoint in the kernel stops a warp, named by SM, slot and block.
  EXPECT_TRUE(std::regex_search(r.gdb, std::regex("Thread [0-9]+ \"sm0 warp [0-9]+ block \\([01],0,0\\)\" hit "
                                                  "Breakpoint 1, accumulate \\(.*gdb_kernel\\.cu:" +
                                                  std::to_string(store))))
      << r.gdb;
  // Lane 0's registers, then lane 7's: lane = threadIdx.x, v = 3 * lane.
  EXPECT_TRUE(has(r.gdb, "$1 = 0\n")) << r.gdb;
  EXPECT_TRUE(has(r.gdb, "lane 7\n$2 = 7\n$3 = 21\n")) << r.gdb;
  EXPECT_TRUE(std::regex_search(r.gdb, std::regex("lanes 0xffffffff, showing lane 7"))) << r.gdb;
  EXPECT_TRUE(std::regex_search(r.gdb, std::regex("[0-9]+ ps: SM cycle [0-9]+ \\(1000 MHz\\)"))) << r.gdb;
  // The watchpoint on shared memory: the store of 3 * 5 by the warp of block 0.
  EXPECT_TRUE(std::regex_search(r.gdb, std::regex("Thread [0-9]+ \"sm0 warp [0-9]+ block \\(0,0,0\\)\" hit Hardware "
                                                  "watchpoint 2: \\*\\(int\\*\\)0x20000014\n\nOld value = 0\nNew "
                                                  "value = 15")))
      << r.gdb;
  // The program runs to its end: main returns 0 when every value is right.
  EXPECT_TRUE(has(r.gdb, "[Inferior 1 (Remote target) exited normally]")) << r.gdb;
  EXPECT_EQ(r.sim_status, 0) << r.sim_err;
}

TEST(GdbSession, ACoreBreakpointReadsAndWritesGlobalMemoryAndWatchesAVariable) {
  const int sum = marked_line("gdb_kernel.cu", "sum");
  ASSERT_NE(sum, 0);
  // At the sum loop the kernel's results are in memory; data[0] changed by
  // gdb makes main's check fail (exit status 1); `total` is watched.
  const GdbRun r =
      gdb_session("chip", dbg_fw("gdb_kernel"),
                  {fmt::format("break gdb_kernel.cu:{}", sum), "continue", "p data[0]@4", "set var data[0] = 1000",
                   "p data[0]", "p $a0 = $a0", "watch total", "continue", "delete", "continue"});
  ASSERT_EQ(r.gdb_status, 0) << r.gdb;
  EXPECT_TRUE(std::regex_search(r.gdb, std::regex("Thread 1 \"cluster\\.core0\" hit Breakpoint 1, main \\(\\) at "
                                                  ".*gdb_kernel\\.cu:" +
                                                  std::to_string(sum))))
      << r.gdb;
  EXPECT_TRUE(has(r.gdb, "$1 = {8, 11, 14, 17}")) << r.gdb;
  EXPECT_TRUE(has(r.gdb, "$2 = 1000")) << r.gdb;
  // -O2 keeps the sum in a register and stores it once: 3296 - 8 + 1000.
  EXPECT_TRUE(has(r.gdb, "Hardware watchpoint 2: total\n\nOld value = 0\nNew value = 4288")) << r.gdb;
  EXPECT_TRUE(has(r.gdb, "[Inferior 1 (Remote target) exited with code 01]")) << r.gdb;
  EXPECT_EQ(r.sim_status, 1) << r.sim_err;
}

TEST(GdbSession, AFaultStopsTheFaultingLaneWithItsSignal) {
  const int store = marked_line("null_store.cu", "store");
  ASSERT_NE(store, 0);
  const GdbRun r = gdb_session("sm1", dbg_fw("null_store"), {"continue", "lanes", "p p", "p/x $pc", "continue"});
  ASSERT_EQ(r.gdb_status, 0) << r.gdb;
  // The run's message on gdb's console, then the signal in the lane that
  // faulted (thread 37: warp 1, lane 5).
  EXPECT_TRUE(has(r.gdb, "store access fault at unmapped address 0x00000000")) << r.gdb;
  EXPECT_TRUE(std::regex_search(
      r.gdb, std::regex("Thread [0-9]+ \"sm0 warp 1 block \\(0,0,0\\)\" received signal SIGSEGV, Segmentation fault")))
      << r.gdb;
  EXPECT_TRUE(has(r.gdb, "showing lane 5")) << r.gdb;
  EXPECT_TRUE(has(r.gdb, "= (int *) 0x0")) << r.gdb;
  EXPECT_TRUE(has(r.gdb, "Program terminated with signal SIGSEGV")) << r.gdb;
  EXPECT_EQ(r.sim_status, 3) << r.sim_err;
}

TEST(GdbSession, ALivelockStopsWithItsReportAndTheWarpsToLookAt) {
  const GdbRun r = gdb_session("sm1", dbg_fw("barrier_deadlock"), {"continue", "info threads", "continue"},
                               {"--set", "watchdog.cycles=200000"});
  ASSERT_EQ(r.gdb_status, 0) << r.gdb;
  EXPECT_TRUE(has(r.gdb, "livelock")) << r.gdb;
  EXPECT_TRUE(has(r.gdb, "received signal SIGINT")) << r.gdb;
  // Warp 0 waits at the barrier, warp 1 spins: both are threads to inspect.
  EXPECT_TRUE(
      std::regex_search(r.gdb, std::regex("\"sm0 warp 0 block \\(0,0,0\\)\" \\(lanes 0x00000000 run next at .*, "
                                          "0xffffffff at the barrier\\)")))
      << r.gdb;
  EXPECT_TRUE(std::regex_search(r.gdb, std::regex("\"sm0 warp 1 block \\(0,0,0\\)\" \\(lanes 0xffffffff run next at ")))
      << r.gdb;
  EXPECT_TRUE(has(r.gdb, "Program terminated with signal SIGINT")) << r.gdb;
  EXPECT_EQ(r.sim_status, 5) << r.sim_err;
}

// gdb attached and continuing changes no statistic: every instruction is
// looked at, none is held. (A stop that steps over a breakpoint holds the
// other threads while one steps: that changes timing, as on hardware.)
TEST(GdbSession, AttachedGdbChangesNoStatistic) {
  const std::string plain = temp_path("gdb_plain.json"), attached = temp_path("gdb_attached.json");
  const RunResult a = run_tessera({"run", "chip", fw("vecadd"), "-q", "--stats", plain}, 300);
  ASSERT_EQ(a.status, 0) << a.err;
  const GdbRun r = gdb_session("chip", fw("vecadd"), {"continue"}, {"-q", "--stats", attached});
  EXPECT_TRUE(has(r.gdb, "exited normally")) << r.gdb;
  ASSERT_EQ(r.sim_status, 0) << r.sim_err;
  EXPECT_EQ(tessera::test::without_host_time(nlohmann::json::parse(read_file(plain))),
            tessera::test::without_host_time(nlohmann::json::parse(read_file(attached))));
}

// The data race of counter_race.cu: a read watchpoint on the counter stops
// the first warp that reads it, in the racy line. (A write watchpoint
// reports the instruction after the store, the kernel's last line here.)
TEST(GdbSession, AWatchpointOnARacyCounterStopsAtTheRacyLine) {
  const int racy = marked_line("counter_race.cu", "racy update");
  ASSERT_NE(racy, 0);
  const GdbRun r = gdb_session("sm1", dbg_fw("counter_race"), {"rwatch counter", "continue", "delete", "continue"});
  ASSERT_EQ(r.gdb_status, 0) << r.gdb;
  EXPECT_TRUE(
      std::regex_search(r.gdb, std::regex("Thread [0-9]+ \"sm0 warp [0-9]+ block \\([01],0,0\\)\" hit Hardware read "
                                          "watchpoint 1: counter\n\nValue = 0\n"
                                          "(.|\n)*counter_race\\.cu:" +
                                          std::to_string(racy))))
      << r.gdb;
  EXPECT_TRUE(has(r.gdb, "exited with code 01")) << r.gdb;
  EXPECT_EQ(r.sim_status, 1) << r.sim_err;
}

TEST(GdbSession, KillStopsTheRunAndBadPortsAreRefused) {
  const GdbRun r = gdb_session("sm1", dbg_fw("gdb_kernel"), {"kill"});
  EXPECT_EQ(r.sim_status, 10) << r.sim_err;
  EXPECT_TRUE(has(r.sim_err, "killed from gdb")) << r.sim_err;
  const RunResult bad = run_tessera({"run", "sm1", dbg_fw("gdb_kernel"), "--gdb", "70000"});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_TRUE(has(bad.err, "--gdb")) << bad.err;
  // Fast-forward's functional part would pass breakpoints silently.
  const RunResult ff = run_tessera({"run", "sm1", dbg_fw("gdb_kernel"), "--gdb", "0", "--fast-forward"});
  EXPECT_EQ(ff.status, 2) << ff.err;
  EXPECT_TRUE(has(ff.err, "--fast-forward runs the cores functionally, where --gdb sees nothing")) << ff.err;
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

// A lock one path does not release (lock_leak.c): the livelock report names
// the line core 1 spins on, by its symbol and source line, and core 0's
// write that took the lock.
TEST(DebugMessages, ALockNotReleasedNamesTheSpinAndTheWriteThatTookTheLock) {
  const int take = marked_line("lock_leak.c", "take"), spin = marked_line("lock_leak.c", "spin");
  ASSERT_NE(take, 0);
  ASSERT_NE(spin, 0);
  const RunResult r = run_tessera({"run", "chip", dbg_fw("lock_leak"), "--set", "watchdog.cycles=200000"});
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("cluster\\.core1: its last load read line 0x[0-9a-f]{8} \\(lock\\) at pc 0x[0-9a-f]{8} in "
                        "push[.a-z0-9]*\\+0x[0-9a-f]+ \\(lock_leak\\.c:[0-9]+; acquire at lock_leak\\.c:" +
                        std::to_string(spin) +
                        "\\); the last control-core write to it was core0's, at cycle [0-9]+, pc 0x[0-9a-f]{8} in "
                        "push[.a-z0-9]*\\+0x[0-9a-f]+ \\(lock_leak\\.c:[0-9]+; acquire at lock_leak\\.c:" +
                        std::to_string(take) + "\\)")))
      << r.err;
}

// The flight recorder fires when main reports failure, not only on a fault.
TEST(DebugMessages, TheFlightRecorderFiresWhenMainReturnsNonZero) {
  const std::string dir = temp_path("flight_exit");
  const RunResult r =
      run_tessera({"run", "sm1", dbg_fw("counter_race"), "--flight-recorder", "2000", "--flight-dir", dir});
  EXPECT_EQ(r.status, 1) << r.err;
  const std::string fst = dir + "/dbg_counter_race-exit1.fst";
  EXPECT_TRUE(has(r.err,
                  "tessera: the program exited with status 1\n  flight recorder: the last 2000 sm cycles of "
                  "every traced signal are in " +
                      fst))
      << r.err;
  EXPECT_GT(read_file(fst).size(), 100u);
  const RunResult ok = run_tessera(
      {"run", "sm1", dbg_fw("gdb_kernel"), "--flight-recorder", "2000", "--flight-dir", temp_path("flight_ok")});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_FALSE(has(ok.err, "flight recorder")) << ok.err;
}

// --trigger store:SYMBOL: the first store that changes the counter (crt0's
// zeroing of .bss changes nothing) names the warp and the racy line, and a
// window of 500 cycles either side of it is written beside the exit's.
TEST(DebugMessages, AStoreTriggerNamesTheRacyStoreAndKeepsAWindowAroundIt) {
  const int racy = marked_line("counter_race.cu", "racy update");
  ASSERT_NE(racy, 0);
  const std::string dir = temp_path("flight_trigger");
  const RunResult r = run_tessera({"run", "sm1", dbg_fw("counter_race"), "--flight-recorder", "500", "--flight-dir",
                                   dir, "--trigger", "store:counter"});
  EXPECT_EQ(r.status, 1) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.err, m,
      std::regex("tessera: trigger: store to 0x[0-9a-f]{8} by sm0 warp 0 block \\(0,0,0\\) at pc 0x[0-9a-f]{8} in "
                 "count_items\\(int\\*, unsigned int\\)\\+0x[0-9a-f]+ \\(counter_race\\.cu:[0-9]+; bump at "
                 "counter_race\\.cu:" +
                 std::to_string(racy) + "\\) at SM cycle ([0-9]+); the 500 sm cycles before and after it are in " +
                 dir + "/dbg_counter_race-trigger\\.fst")))
      << r.err;
  const uint64_t cycle = std::stoull(m[1]);
  const auto wave = tessera::test::WaveFile::read(dir + "/dbg_counter_race-trigger.fst");
  // SM cycles are 1000 ps: the window is [cycle - 500, cycle + 500).
  const auto& changes = wave.changes("chip.sm0.barrier_warps");
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.front().time_ps, (cycle - 500) * 1000);
  EXPECT_LE(wave.end_time(), (cycle + 500) * 1000);
  EXPECT_GT(wave.end_time(), cycle * 1000);
  EXPECT_TRUE(has(r.err, dir + "/dbg_counter_race-exit1.fst")) << r.err;
}

TEST(DebugMessages, BadTriggersAreRefusedBeforeTheRun) {
  for (const auto& [spec, why] :
       std::vector<std::pair<std::string, std::string>>{{"store:nosuch", "the program has no symbol 'nosuch'"},
                                                        {"store:0x80000000:0", "length '0' is not a number of bytes"},
                                                        {"value:chip.sm0.nosuch==1", "no traced signal has this name"},
                                                        {"value:chip.sm0.barrier_warps", "expected SIGNAL==V"},
                                                        {"load:counter", "unknown kind"}}) {
    const RunResult r = run_tessera({"run", "sm1", dbg_fw("counter_race"), "--flight-recorder", "100", "--flight-dir",
                                     temp_path("bad_trigger"), "--trigger", spec});
    EXPECT_EQ(r.status, 2) << spec << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "--trigger " + spec.substr(0, spec.find("==")))) << r.err;
    EXPECT_TRUE(has(r.err, why)) << r.err;
  }
  const RunResult none = run_tessera({"run", "sm1", dbg_fw("counter_race"), "--trigger", "store:counter"});
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_TRUE(has(none.err, "give --flight-recorder N too")) << none.err;
}

TEST(DebugMessages, AValueTriggerOpensItsWindowWhenTheSignalTakesTheValue) {
  const std::string dir = temp_path("flight_value");
  const RunResult r =
      run_tessera({"run", "sm1", dbg_fw("barrier_deadlock"), "--set", "watchdog.cycles=200000", "--flight-recorder",
                   "300", "--flight-dir", dir, "--trigger", "value:chip.sm0.barrier_warps==1"});
  EXPECT_EQ(r.status, 5) << r.err;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.err, m,
                        std::regex("tessera: trigger: value:chip\\.sm0\\.barrier_warps==1 at SM cycle ([0-9]+); "
                                   "the 300 sm cycles before and after it are in " +
                                   dir + "/dbg_barrier_deadlock-trigger\\.fst")))
      << r.err;
  const auto wave = tessera::test::WaveFile::read(dir + "/dbg_barrier_deadlock-trigger.fst");
  const uint64_t at = std::stoull(m[1]) * 1000;
  EXPECT_EQ(wave.value_at("chip.sm0.barrier_warps", at), 1u);
  EXPECT_EQ(wave.value_at("chip.sm0.barrier_warps", at - 1000), 0u);
}

// `tessera waves --pc-filter ELF`, gtkwave's translate filter process: a
// value per line in, function+offset (file:line) out, anything else as it was.
TEST(WaveViews, ThePcFilterNamesCodeAddresses) {
  const int store = marked_line("null_store.cu", "store");
  const tessera::isa::ElfImage image = tessera::isa::load_elf(dbg_fw("null_store"));
  const auto scatter = image.symbol("_Z7scatterPi");
  ASSERT_TRUE(scatter.has_value());
  const std::string out =
      tessera::test::command_output(fmt::format("printf '{:08X}\\nxxxxxxxx\\n{:032b}\\n' | {} waves --pc-filter {}",
                                                *scatter + 0x14, image.entry, TESSERA_BIN, dbg_fw("null_store")));
  EXPECT_EQ(out, fmt::format("scatter(int*)+0x14 (null_store.cu:{})\nxxxxxxxx\n_start (crt0.S:29)\n", store)) << out;
}

// Every flight-recorder dump gets a gtkwave view beside it: gtkwave, started
// in another directory, opens it with the marker at the stop, the failing
// SM's signals labelled below the SM (sched1/pc), enums by name and PCs by
// function and line.
TEST(WaveViews, AFlightRecorderDumpHasAViewThatNamesTheCode) {
  for (const char* tool : {"xvfb-run", "xauth", "gtkwave"})
    ASSERT_EQ(std::system(fmt::format("command -v {} >/dev/null", tool).c_str()), 0)
        << tool << " is not installed (tools/tessera-setup installs xvfb, xauth and gtkwave)";
  const int store = marked_line("null_store.cu", "store");
  const std::string dir = temp_path("flight_view");
  const RunResult r =
      run_tessera({"run", "sm1", dbg_fw("null_store"), "--flight-recorder", "300", "--flight-dir", dir});
  ASSERT_EQ(r.status, 3) << r.err;
  const std::string view = dir + "/dbg_null_store-fault.gtkw";
  const std::string text = read_file(view);
  EXPECT_TRUE(has(text, "[dumpfile] \"" + dir + "/dbg_null_store-fault.fst\"")) << text;
  const auto end = tessera::test::WaveFile::read(dir + "/dbg_null_store-fault.fst").end_time();
  {
    std::ofstream tcl(dir + "/check.tcl");
    tcl << "set shown [gtkwave::getDisplayedSignals]\nputs \"COUNT [llength $shown]\"\n"
           "puts \"MARKER [gtkwave::getMarker]\"\n"
           "puts \"PC [gtkwave::getTraceValueAtMarkerFromName {sched1/pc[31:0]}]\"\n"
           "puts \"STALL [gtkwave::getTraceValueAtMarkerFromName {sched1/stall[2:0]}]\"\n"
           "gtkwave::/File/Quit\n";
  }
  const std::string out =
      tessera::test::command_output(fmt::format("cd / && timeout {} xvfb-run -a gtkwave -S {}/check.tcl {} 2>&1",
                                                120 * tessera::test::timeout_scale(), dir, view));
  EXPECT_FALSE(std::regex_search(out, std::regex("could not|cannot|not found|error", std::regex::icase))) << out;
  EXPECT_TRUE(has(out, fmt::format("MARKER {}\n", end))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("COUNT [1-9][0-9]*\n"))) << out;
  // The warp that faulted issued from scheduler 1 (slot 1): its PC by name.
  EXPECT_TRUE(std::regex_search(
      out, std::regex("PC scatter\\(int\\*\\)\\+0x[0-9a-f]+ \\(null_store\\.cu:" + std::to_string(store) + "\\)")))
      << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("STALL [a-z_]+\n"))) << out;
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
