// Waveform control of `tessera run`: FST through --vcd FILE.fst, the trace
// window and the ROI start, --trace-scope that must match, and the flight
// recorder, which writes the last N cycles when a run goes wrong.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "host_time.h"
#include "tessera_run.h"

namespace {

using tessera::test::command_output;
using tessera::test::run_tessera;
using tessera::test::RunResult;
using tessera::test::temp_path;

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }
std::string bad(const std::string& name) { return std::string(BAD_INPUT_DIR) + "/bad_input_" + name + ".elf"; }

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// A fresh scratch directory.
std::string temp_dir(const std::string& name) {
  const std::string dir = temp_path(name);
  command_output("rm -rf '" + dir + "' && mkdir -p '" + dir + "'");
  return dir;
}

// The VCD text of an FST file.
std::string fst_text(const std::string& path) { return command_output(std::string(FST2VCD) + " '" + path + "'"); }

// The time stamps (#N lines) of a VCD text, in order.
std::vector<unsigned long long> times_of(const std::string& vcd) {
  std::vector<unsigned long long> times;
  std::istringstream in(vcd);
  for (std::string line; std::getline(in, line);)
    if (line.size() > 1 && line[0] == '#') times.push_back(std::stoull(line.substr(1)));
  return times;
}

void expect_contains(const RunResult& r, const std::string& text) {
  EXPECT_NE(r.err.find(text), std::string::npos) << "stderr lacks: " << text << "\n--- stderr ---\n" << r.err;
}

// ---------------------------------------------------------------- formats

TEST(WaveFormat, ADotFstPathWritesAnFstFileThatGtkwaveToolsRead) {
  const std::string path = temp_path("vecadd.fst");
  const RunResult r = run_tessera({"run", "sm1", fw("vecadd"), "-q", "--vcd", path});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string head(4, '\0');
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fread(head.data(), 1, 4, f), 4u);
  std::fclose(f);
  EXPECT_NE(head.substr(0, 3), "$da") << "a VCD, not an FST";
  const std::string vcd = fst_text(path);
  EXPECT_NE(vcd.find("$scope module chip $end"), std::string::npos) << vcd.substr(0, 2000);
  EXPECT_NE(vcd.find("issued_warp"), std::string::npos);
  EXPECT_GT(times_of(vcd).size(), 10u);
}

TEST(WaveFormat, VcdAndFstOfOneRunHoldTheSameTimes) {
  const std::string vcd_path = temp_path("same.vcd"), fst_path = temp_path("same.fst");
  ASSERT_EQ(run_tessera({"run", "sm1", fw("vecadd"), "-q", "--vcd", vcd_path}).status, 0);
  ASSERT_EQ(run_tessera({"run", "sm1", fw("vecadd"), "-q", "--vcd", fst_path}).status, 0);
  const auto a = times_of(tessera::test::read_file(vcd_path)), b = times_of(fst_text(fst_path));
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
}

// ---------------------------------------------------------------- window, ROI, scopes

TEST(TraceWindow, OnlyTheWindowsCyclesAreWritten) {
  // sm1's SM clock runs at 1000 MHz: cycle c starts at c * 1000 ps. The
  // window covers 40 cycles from shortly before the 20th instant of the
  // whole run's waveform, and holds exactly the whole waveform's instants
  // inside it, framed by the window's start and end.
  const std::string full = temp_path("window_full.vcd"), path = temp_path("window.vcd");
  ASSERT_EQ(run_tessera({"run", "sm1", fw("vecadd"), "-q", "--vcd", full}).status, 0);
  const auto all = times_of(tessera::test::read_file(full));
  ASSERT_GT(all.size(), 100u);
  const unsigned long long start = all[20] / 1000 - 3, end = start + 40;
  const RunResult r = run_tessera({"run", "sm1", fw("vecadd"), "-q", "--vcd", path, "--trace-window",
                                   std::to_string(start) + ":" + std::to_string(end)});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<unsigned long long> want = {start * 1000};
  for (auto t : all)
    if (t > start * 1000 && t < end * 1000) want.push_back(t);
  want.push_back(end * 1000);
  EXPECT_EQ(times_of(tessera::test::read_file(path)), want);
}

TEST(TraceWindow, AWindowWithoutChangesHoldsTheValuesAtItsStart) {
  const std::string path = temp_path("window_idle.vcd");
  // The SM waits for its first kernel until well after cycle 200 while the
  // control cores boot.
  const RunResult r = run_tessera(
      {"run", "sm1", fw("vecadd"), "-q", "--vcd", path, "--trace-scope", "sm0", "--trace-window", "100:200"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = tessera::test::read_file(path);
  EXPECT_EQ(times_of(text), (std::vector<unsigned long long>{100000, 200000}));
  EXPECT_NE(text.find("issued_warp"), std::string::npos);
}

TEST(TraceWindow, AWindowInAnotherClockCountsItsCycles) {
  // chip's control cores run at clock.cpu_mhz; at 500 MHz a cycle is 2000 ps.
  const std::string path = temp_path("window_cpu.vcd");
  const RunResult r = run_tessera({"run", "sm1", fw("vecadd"), "-q", "--set", "clock.cpu_mhz=500", "--vcd", path,
                                   "--trace-window", "1000:1200@cpu"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto times = times_of(tessera::test::read_file(path));
  ASSERT_FALSE(times.empty());
  EXPECT_EQ(times.front(), 2000000u);
  EXPECT_EQ(times.back(), 2400000u);
}

TEST(TraceAfterRoi, TheWaveformStartsAtTheRoiMark) {
  // sgemm marks its region of interest around the kernel; the statistics
  // give the ROI's cycles.
  const std::string path = temp_path("roi.vcd"), stats = temp_path("roi.json");
  const RunResult r =
      run_tessera({"run", "sm1", fw("sgemm"), "-q", "--vcd", path, "--trace-after-roi", "--stats", stats});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string json = tessera::test::read_file(stats);
  ASSERT_NE(json.find("\"roi\""), std::string::npos) << "sgemm has no ROI mark";
  const auto times = times_of(tessera::test::read_file(path));
  ASSERT_FALSE(times.empty());
  EXPECT_GT(times.front(), 0u);
  // Nothing before the first instant, and the file runs to the end of the run.
  const std::string full = temp_path("roi_full.vcd");
  ASSERT_EQ(run_tessera({"run", "sm1", fw("sgemm"), "-q", "--vcd", full}).status, 0);
  const auto all = times_of(tessera::test::read_file(full));
  // After its first instant (the values at the mark) it holds exactly the
  // full waveform's instants from there on, to the end of the run.
  const auto from = std::upper_bound(all.begin(), all.end(), times.front());
  EXPECT_EQ(std::vector<unsigned long long>(times.begin() + 1, times.end()),
            std::vector<unsigned long long>(from, all.end()));
}

TEST(TraceScope, APatternThatMatchesNothingIsAnErrorListingTheScopes) {
  const RunResult r = run_tessera({"run", "sm1", fw("vecadd"), "--vcd", temp_path("x.vcd"), "--trace-scope", "sm9"});
  EXPECT_EQ(r.status, 2);
  expect_contains(r, "--trace-scope 'sm9' matches no scope; the scopes with signals are:");
  expect_contains(r, "\n  chip.sm0.sched0");
}

// ---------------------------------------------------------------- flight recorder

struct FlightCase {
  std::string name, elf, reason;
  std::vector<std::string> extra;
  int status;
};

class FlightRecorder : public ::testing::TestWithParam<FlightCase> {};

TEST_P(FlightRecorder, ARunThatGoesWrongWritesItsLastCyclesAndNamesTheFile) {
  const FlightCase& c = GetParam();
  const std::string dir = temp_dir("flight_" + c.name);
  std::vector<std::string> args = {"run", "sm1", c.elf, "-q", "--flight-recorder", "300", "--flight-dir", dir};
  args.insert(args.end(), c.extra.begin(), c.extra.end());
  const RunResult r = run_tessera(args);
  EXPECT_EQ(r.status, c.status) << r.err;
  const std::string stem = c.elf.substr(c.elf.rfind('/') + 1, c.elf.size() - c.elf.rfind('/') - 5);
  const std::string file = dir + "/" + stem + "-" + c.reason + ".fst";
  expect_contains(r, "flight recorder: the last 300 sm cycles of every traced signal are in " + file);
  ASSERT_TRUE(exists(file));
  const std::string vcd = fst_text(file);
  EXPECT_NE(vcd.find("issued_warp"), std::string::npos);
  // 300 SM cycles of 1000 ps up to the stop.
  const auto times = times_of(vcd);
  ASSERT_GE(times.size(), 2u);
  EXPECT_EQ(times.back() - times.front(), 300000u);
}

INSTANTIATE_TEST_SUITE_P(
    Stops, FlightRecorder,
    ::testing::Values(FlightCase{"deadlock", bad("barrier_deadlock"), "deadlock", {}, 5},
                      FlightCase{"fault", bad("kernel_illegal"), "fault", {}, 3},
                      FlightCase{"cycle_limit", bad("long_running"), "cycle-limit", {"--max-cycles", "5000"}, 6}),
    [](const ::testing::TestParamInfo<FlightCase>& p) { return p.param.name; });

TEST(FlightRecorderClean, ARunThatExitsNormallyWritesNothing) {
  const std::string dir = temp_dir("flight_clean");
  const RunResult r = run_tessera({"run", "sm1", fw("vecadd"), "-q", "--flight-recorder", "300", "--flight-dir", dir});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(command_output("ls '" + dir + "'"), "");
}

TEST(FlightRecorderClean, ALockstepMismatchWritesTheLastCyclesToo) {
  // The bank unit built without broadcast disagrees with its model on the
  // first broadcast read of sgemm (docs/cosim.md).
  const std::string dir = temp_dir("flight_lockstep");
  const RunResult r =
      run_tessera({"run", "chip", fw("sgemm"), "-q", "--plugin", tessera::test::build_path("libtessera_rtl_mutants.so"),
                   "--set", "sm.shared_impl=lockstep:shared_no_broadcast", "--set", "rtl.wave_dir=" + dir,
                   "--flight-recorder", "200", "--flight-dir", dir});
  EXPECT_EQ(r.status, 8) << r.err;
  const std::string file = dir + "/sgemm-lockstep-mismatch.fst";
  expect_contains(r, "flight recorder: the last 200 sm cycles of every traced signal are in " + file);
  ASSERT_TRUE(exists(file));
  EXPECT_NE(fst_text(file).find("issued_warp"), std::string::npos);
}

// ---------------------------------------------------------------- tracing changes nothing

// The statistics of a run, without the host's own timing.
nlohmann::json stats_without_host_time(const std::string& path) {
  return tessera::test::without_host_time(nlohmann::json::parse(tessera::test::read_file(path)));
}

class TracingChangesNothing : public ::testing::TestWithParam<std::string> {};

TEST_P(TracingChangesNothing, StatisticsWithEverySignalTracedAreIdentical) {
  const std::string platform = GetParam();
  const std::string plain = temp_path(platform + "_plain.json"), traced = temp_path(platform + "_traced.json");
  const RunResult a = run_tessera({"run", platform, fw("sgemm"), "-q", "--stats", plain}, 300);
  const RunResult b =
      run_tessera({"run", platform, fw("sgemm"), "-q", "--stats", traced, "--vcd", temp_path(platform + ".fst"),
                   "--flight-recorder", "1000", "--flight-dir", temp_dir(platform + "_flight")},
                  300);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(stats_without_host_time(plain), stats_without_host_time(traced));
}

INSTANTIATE_TEST_SUITE_P(EveryPlatform, TracingChangesNothing,
                         ::testing::Values("sm1", "chip", "chip52", "chip_noc", "chip_hbm", "chip_hetero"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// ---------------------------------------------------------------- bad input

TEST(WaveBadInput, AnUnwritableFstPathIsAnErrorBeforeTheRun) {
  const RunResult r = run_tessera({"run", "sm1", fw("vecadd"), "--vcd", "/nonexistent-dir/x.fst"});
  EXPECT_EQ(r.status, 2);
  expect_contains(r, "/nonexistent-dir/x.fst");
  EXPECT_EQ(r.out.find("PASS"), std::string::npos) << "the program ran";
}

TEST(WaveBadInput, EndBeforeStartIsRefused) {
  const RunResult r =
      run_tessera({"run", "sm1", fw("vecadd"), "--vcd", temp_path("w.vcd"), "--trace-window", "900:100"});
  EXPECT_EQ(r.status, 2);
  expect_contains(r, "--trace-window '900:100': END (100) must be after START (900)");
}

TEST(WaveBadInput, AnUnknownClockIsRefusedListingTheClocks) {
  const RunResult r =
      run_tessera({"run", "sm1", fw("vecadd"), "--vcd", temp_path("w.vcd"), "--trace-window", "1:2@gpu"});
  EXPECT_EQ(r.status, 2);
  expect_contains(r, "trace clock 'gpu' does not exist on this platform; its clocks are: sm, cpu");
}

TEST(WaveBadInput, AFlightRecorderBeyondMemoryIsRefusedWithTheSizeItNeeds) {
  // A directory not there yet: the refused run leaves it unmade.
  const std::string dir = temp_dir("flight_huge") + "/new";
  const RunResult r =
      run_tessera({"run", "chip", fw("vecadd"), "--flight-recorder", "1000000000", "--flight-dir", dir});
  EXPECT_EQ(r.status, 2);
  expect_contains(r, "--flight-recorder 1000000000: keeping ");
  expect_contains(r, " GiB are available");
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(WaveBadInput, AMissingFlightDirectoryIsRefused) {
  const RunResult r =
      run_tessera({"run", "sm1", fw("vecadd"), "--flight-recorder", "100", "--flight-dir", "/nonexistent-dir/w"});
  EXPECT_EQ(r.status, 2);
  expect_contains(r, "/nonexistent-dir/w");
}

}  // namespace
