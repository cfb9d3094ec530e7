// `tessera run --timeline`: the file passes tools/timeline-check (events
// paired as Chrome's and Perfetto's trace engines pair them, no declared
// track without events) and the schema check (timeline_schema.h) on chip
// SGEMM, chip_hbm SGEMM and a control-cluster program, and its numbers are
// those of --stats of the same run: block slices per SM == blocks_finished,
// kernel slices last kernel_cycles, DRAM ACT slices == ACT commands, bus
// transactions == bus operations ordered + NACKs, a core's wfi slices add
// up to its wfi_cycles, the sampled memory transactions are every Nth
// request. The statistics are those of a run without a timeline. A run that
// stops on a guest fault or a deadlock has a failure marker where it
// stopped; with --timeline-sample 1 every L2 miss of an SM request is
// linked to its L2 fill and DRAM read. Then the window, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "host_time.h"
#include "tessera_run.h"
#include "timeline_schema.h"

using tessera::test::check_timeline;
using tessera::test::command_output;
using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::RunResult;
using tessera::test::temp_path;
using tessera::test::TimelineSlice;
using tessera::test::TimelineSummary;

namespace {

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }
// A program of testbenches/integration/bad_input that must fail.
std::string bad_input(const std::string& name) { return std::string(BAD_INPUT_DIR) + "/bad_input_" + name + ".elf"; }
std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }

struct TimelineRun {
  RunResult result;
  nlohmann::json stats;
  TimelineSummary timeline;
  std::string problems;
  std::string checker;  // what tools/timeline-check printed, then "exit N"
  double sm_period_ps = 0;
};

// tools/timeline-check on `path`: its output and "exit STATUS".
std::string timeline_check(const std::string& path) {
  return command_output("/usr/bin/python3 '" + std::string(TIMELINE_CHECK) + "' --quiet '" + path +
                        "' 2>&1; echo \"exit $?\"");
}

// `elf` is a path; `status` the exit status the run must end with.
TimelineRun run_elf(const std::string& plat, const std::string& elf, std::vector<std::string> extra = {},
                    bool timeline = true, int status = 0) {
  TimelineRun r;
  std::string name = elf.substr(elf.rfind('/') + 1);
  for (const auto& a : extra) name += a;
  for (char& c : name)
    if (c == '/' || c == ':') c = '_';
  const std::string stats = temp_path(name + "-" + plat + (timeline ? "-t" : "") + ".stats.json");
  const std::string json = temp_path(name + "-" + plat + ".timeline.json");
  std::vector<std::string> args{"run", platform(plat), elf, "-q", "--stats", stats};
  if (timeline) {
    args.push_back("--timeline");
    args.push_back(json);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  r.result = run_tessera(args, 300);
  EXPECT_EQ(r.result.status, status) << r.result.out << r.result.err;
  r.stats = nlohmann::json::parse(read_file(stats));
  if (timeline) {
    const std::string text = read_file(json);
    r.problems = check_timeline(text, r.timeline);
    r.checker = timeline_check(json);
    r.sm_period_ps = nlohmann::json::parse(text)["otherData"]["sm_period_ps"].get<double>();
  }
  return r;
}

TimelineRun run(const std::string& plat, const std::string& program, std::vector<std::string> extra = {},
                bool timeline = true) {
  return run_elf(plat, fw(program), std::move(extra), timeline);
}

// Both checkers find nothing.
void expect_valid(const TimelineRun& r) {
  EXPECT_EQ(r.problems, "");
  EXPECT_EQ(r.checker, "exit 0\n");
}

// The statistics without the host's timing.
nlohmann::json simulated(nlohmann::json stats) { return tessera::test::without_host_time(std::move(stats)); }

uint64_t cycles(const TimelineRun& r, double us) {
  return static_cast<uint64_t>(std::llround(us * 1e6 / r.sm_period_ps));
}

unsigned slices_named(const TimelineSummary& t, const std::string& process, const std::string& prefix) {
  unsigned n = 0;
  for (const auto& s : t.slices) n += s.process == process && s.name.rfind(prefix, 0) == 0;
  return n;
}

void expect_gpu_agrees(const TimelineRun& r, unsigned sms) {
  const auto& chip = r.stats["chip"];
  // A block slice per block each SM ran.
  unsigned blocks = 0;
  for (unsigned s = 0; s < sms; ++s) {
    const std::string sm = "sm" + std::to_string(s);
    EXPECT_EQ(slices_named(r.timeline, sm, "block "), chip[sm]["blocks_finished"].get<unsigned>()) << sm;
    blocks += slices_named(r.timeline, sm, "block ");
  }
  EXPECT_EQ(blocks, chip["dispatcher"]["blocks"].get<unsigned>());
  // The kernels last kernel_cycles, on the dispatcher's track and each SM's.
  uint64_t kernel_cycles = 0;
  std::map<std::string, uint64_t> per_sm;
  for (const auto& s : r.timeline.slices) {
    if (s.name.rfind("kernel ", 0) != 0) continue;
    if (s.process == "dispatcher") kernel_cycles += cycles(r, s.end_us - s.start_us);
    if (s.thread == "kernel") per_sm[s.process] += cycles(r, s.end_us - s.start_us);
  }
  EXPECT_EQ(kernel_cycles, chip["dispatcher"]["kernel_cycles"].get<uint64_t>());
  EXPECT_GT(kernel_cycles, 0u);
  EXPECT_EQ(per_sm.size(), sms);
  for (const auto& [sm, c] : per_sm) EXPECT_EQ(c, kernel_cycles) << sm;
  // Every 16th SM request (--timeline-sample's default), with its L2 stage.
  uint64_t requests = 0;
  for (unsigned s = 0; s < sms; ++s) requests += chip["sm" + std::to_string(s)]["global_line_requests"].get<uint64_t>();
  const auto& a = r.timeline.async_by_name;
  const auto count = [&a](const std::string& n) { return a.count(n) ? a.at(n) : 0u; };
  const uint64_t sampled = count("read") + count("write") + count("atomic");
  EXPECT_LE(sampled, requests / 16);
  EXPECT_GE(sampled * 50, requests / 16 * 49);  // an id still in flight is not sampled twice
  unsigned l2_stages = 0;
  for (const auto& [name, n] : a) l2_stages += name.rfind("l2 slice", 0) == 0 ? n : 0;
  EXPECT_EQ(l2_stages, sampled);  // every SM request passes an L2 slice
}

TEST(TimelineChip, SgemmPassesTheSchemaAndAgreesWithTheStatistics) {
  const TimelineRun r = run("chip", "sgemm");
  expect_valid(r);
  expect_gpu_agrees(r, 4);
  // Memory requests of the L2, every 16th, and the fills of the recorded SM
  // requests' misses, each linked to its request (fixed-latency memory: no
  // DRAM stage).
  const auto& mem = r.stats["chip"]["memory"];
  const auto& a = r.timeline.async_by_name;
  const uint64_t l2 =
      (a.count("l2 fill") ? a.at("l2 fill") : 0) + (a.count("l2 write-back") ? a.at("l2 write-back") : 0);
  EXPECT_LE(l2, (mem["reads"].get<uint64_t>() + mem["writes"].get<uint64_t>()) / 16 + r.timeline.flows.size());
  EXPECT_GT(l2, 0u);
  EXPECT_GT(r.timeline.flows.size(), 0u);
  EXPECT_TRUE(r.timeline.failures.empty());  // the program exited
  // Tracing changes no statistic.
  const TimelineRun plain = run("chip", "sgemm", {}, false);
  EXPECT_EQ(simulated(r.stats), simulated(plain.stats));
}

TEST(TimelineChip, HbmCommandsAreSlicesPerPseudoChannelAndDramStagesNestInL2Requests) {
  const TimelineRun r = run("chip_hbm", "sgemm");
  expect_valid(r);
  expect_gpu_agrees(r, r.stats["chip"].contains("sm7") ? 8 : 4);
  // One ACT slice per ACT command the controller counted.
  EXPECT_EQ(slices_named(r.timeline, "hbm", "ACT"), r.stats["chip"]["dram"]["acts"].get<unsigned>());
  EXPECT_GT(slices_named(r.timeline, "hbm", "RD"), 0u);
  // Every sampled L2 read reaches DRAM (the schema check proves the nesting).
  const auto& a = r.timeline.async_by_name;
  ASSERT_TRUE(a.count("l2 fill"));
  ASSERT_TRUE(a.count("dram read"));
  EXPECT_EQ(a.at("dram read"), a.at("l2 fill"));
  const TimelineRun plain = run("chip_hbm", "sgemm", {}, false);
  EXPECT_EQ(simulated(r.stats), simulated(plain.stats));
}

TEST(TimelineCluster, LocksShowCoresAndEveryBusTransaction) {
  const TimelineRun r = run("chip", "locks");
  expect_valid(r);
  const auto& cl = r.stats["chip"]["cluster"];
  // A bus transaction per grant: every operation ordered, and every NACK.
  uint64_t ordered = 0;
  for (const char* op : {"BusRd", "BusRdX", "BusUpd", "BusUpgr", "WriteBack"}) ordered += cl["bus"][op].get<uint64_t>();
  uint64_t bus = 0, nacks = 0;
  for (const auto& [name, n] : r.timeline.async_by_name)
    if (name.find(" core") != std::string::npos) bus += n;
  for (const auto& [name, n] : r.timeline.instants_by_name) nacks += name.rfind("NACK", 0) == 0 ? n : 0;
  EXPECT_EQ(bus, ordered + cl["bus"]["nacks"].get<uint64_t>());
  EXPECT_EQ(nacks, cl["bus"]["nacks"].get<uint64_t>());
  // A track per core; each core's sleeps add up to its wfi_cycles.
  unsigned cores = 0;
  while (cl.contains("core" + std::to_string(cores))) ++cores;
  ASSERT_GT(cores, 1u);
  for (unsigned c = 0; c < cores; ++c) {
    const std::string core = "core" + std::to_string(c);
    uint64_t wfi = 0;
    for (const auto& s : r.timeline.slices)
      if (s.thread == core && (s.name.rfind("wfi", 0) == 0 || s.name.rfind("tessera_wait", 0) == 0))
        wfi += cycles(r, s.end_us - s.start_us);  // clock.cpu_mhz == clock.sm_mhz on chip
    EXPECT_EQ(wfi, cl[core]["wfi_cycles"].get<uint64_t>()) << core;
  }
  EXPECT_GT(slices_named(r.timeline, "cluster", "parked"), 0u);  // cores 1.. start parked
}

TEST(TimelineWindow, KeepsOnlyTheWindowAndCutsSlicesAtItsEdges) {
  const TimelineRun full = run("chip", "sgemm");
  ASSERT_EQ(full.problems, "");
  const uint64_t kernel = full.stats["chip"]["dispatcher"]["kernel_cycles"].get<uint64_t>();
  double kernel_start = 0;
  for (const auto& s : full.timeline.slices)
    if (s.process == "dispatcher") kernel_start = s.start_us;
  const uint64_t start = cycles(full, kernel_start) + kernel / 4, end = start + kernel / 4;
  const TimelineRun r = run("chip", "sgemm", {"--timeline-window", std::to_string(start) + ":" + std::to_string(end)});
  expect_valid(r);
  const double from = static_cast<double>(start) * r.sm_period_ps / 1e6,
               to = static_cast<double>(end) * r.sm_period_ps / 1e6;
  ASSERT_FALSE(r.timeline.slices.empty());
  for (const auto& s : r.timeline.slices) {
    EXPECT_GE(s.start_us, from - 1e-9) << s.process << " " << s.thread << " " << s.name;
    EXPECT_LE(s.end_us, to + 1e-9) << s.process << " " << s.thread << " " << s.name;
  }
  // The kernel spans the window: cut at both edges.
  unsigned kernels = 0;
  for (const auto& s : r.timeline.slices) {
    if (s.process != "dispatcher") continue;
    ++kernels;
    EXPECT_EQ(cycles(r, s.start_us), start);
    EXPECT_EQ(cycles(r, s.end_us), end);
  }
  EXPECT_EQ(kernels, 1u);
  EXPECT_LT(r.timeline.events, full.timeline.events);
  EXPECT_EQ(simulated(r.stats), simulated(full.stats));
}

TEST(TimelineSample, SampleOneRecordsEveryRequest) {
  const TimelineRun r = run("chip", "sgemm", {"--timeline-sample", "1"});
  expect_valid(r);
  uint64_t requests = 0;
  for (unsigned s = 0; s < 4; ++s)
    requests += r.stats["chip"]["sm" + std::to_string(s)]["global_line_requests"].get<uint64_t>();
  const auto& a = r.timeline.async_by_name;
  const uint64_t sampled = (a.count("read") ? a.at("read") : 0) + (a.count("write") ? a.at("write") : 0) +
                           (a.count("atomic") ? a.at("atomic") : 0);
  EXPECT_EQ(sampled, requests);
}

// ---------------------------------------------------------------- tracks, failures, links

TEST(TimelineTracks, OnlyTracksWithEventsAreDeclared) {
  // SGEMM's blocks use a few of each SM's 32 block slots: only those, and
  // the kernel track, are in the file.
  const TimelineRun r = run("chip", "sgemm");
  expect_valid(r);
  for (unsigned s = 0; s < 4; ++s) {
    const std::string sm = "sm" + std::to_string(s);
    std::set<std::string> used;
    for (const auto& sl : r.timeline.slices)
      if (sl.process == sm) used.insert(sl.thread);
    EXPECT_TRUE(used.count("kernel")) << sm;
    EXPECT_EQ(r.timeline.process_of_pid_count.at(sm), used.size()) << sm;
    EXPECT_LT(used.size(), 33u) << sm;
  }
}

// The time the run stopped, in us: its simulated SM cycles.
double stop_us(const TimelineRun& r) { return r.stats["summary"]["sim_cycles"].get<double>() * r.sm_period_ps / 1e6; }

TEST(TimelineFailure, GuestFaultHasAFailureMarkerWhereTheRunStopped) {
  const TimelineRun r = run_elf("chip", bad_input("kernel_illegal"), {}, true, 3);
  expect_valid(r);
  ASSERT_EQ(r.timeline.failures.size(), 1u);
  const auto& f = r.timeline.failures[0];
  EXPECT_EQ(f.scope, "g");  // global: a line across every track
  EXPECT_NE(f.message.find("illegal instruction"), std::string::npos) << f.message;
  EXPECT_NE(r.result.err.find(f.message), std::string::npos) << "the message the run printed\n" << r.result.err;
  EXPECT_DOUBLE_EQ(f.ts_us, stop_us(r));
  EXPECT_EQ(r.timeline.instants_by_name.at("failure"), 1u);
}

TEST(TimelineFailure, DeadlockHasAFailureMarkerAndTheSleepingCoresWaitToTheEnd) {
  const TimelineRun r = run_elf("chip", bad_input("barrier_deadlock"), {}, true, 5);
  expect_valid(r);
  ASSERT_EQ(r.timeline.failures.size(), 1u);
  const auto& f = r.timeline.failures[0];
  EXPECT_EQ(f.message.rfind("deadlock", 0), 0u) << f.message;
  EXPECT_DOUBLE_EQ(f.ts_us, stop_us(r));
  // core0 sleeps in tessera_wait for ever: its last slice is that wfi,
  // written at the end of the run (it starts the cycle after the wfi, which
  // may be after the last SystemC event: then it is empty).
  const TimelineSlice* last = nullptr;
  for (const auto& s : r.timeline.slices)
    if (s.process == "cluster" && s.thread == "core0" && (!last || s.start_us >= last->start_us)) last = &s;
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->name, "wfi (kernel or device busy)");
  EXPECT_GE(last->end_us, f.ts_us);
  EXPECT_LE(last->start_us, f.ts_us + r.sm_period_ps / 1e6);
}

TEST(TimelineLinks, SampleOneLinksEveryL2MissToItsFillAndDramRead) {
  const TimelineRun r = run("chip_hbm", "sgemm", {"--timeline-sample", "1"});
  expect_valid(r);
  // Every L2 fill is an SM request's miss, so every one is linked: as many
  // arrows as sectors the L2 read from memory, and DRAM reads.
  uint64_t memory_reads = 0;
  for (const auto& [name, slice] : r.stats["chip"]["l2"].items()) memory_reads += slice["memory_reads"].get<uint64_t>();
  EXPECT_GT(memory_reads, 0u);
  EXPECT_EQ(r.timeline.flows.size(), memory_reads);
  EXPECT_EQ(r.timeline.async_by_name.at("l2 fill"), memory_reads);
  EXPECT_EQ(r.timeline.async_by_name.at("dram read"), r.stats["chip"]["dram"]["read_requests"].get<uint64_t>());
  // Each arrow goes from an SM request in its L2 stage to an L2 fill with
  // its DRAM read inside: SM -> L2 -> memory -> DRAM.
  for (const auto& [from, to] : r.timeline.flows) {
    const auto& cause = r.timeline.transactions[from];
    ASSERT_EQ(cause.stages.size(), 2u) << cause.id;
    EXPECT_TRUE(cause.stages[0] == "read" || cause.stages[0] == "atomic") << cause.id << " " << cause.stages[0];
    EXPECT_EQ(cause.stages[1].rfind("l2 slice", 0), 0u) << cause.id << " " << cause.stages[1];
    EXPECT_EQ(r.timeline.transactions[to].stages, (std::vector<std::string>{"l2 fill", "dram read"}))
        << r.timeline.transactions[to].id;
  }
}

// ---------------------------------------------------------------- bad input

TEST(TimelineBadInput, UnwritablePathFailsBeforeTheRun) {
  const RunResult r = run_tessera({"run", platform("chip"), fw("sgemm"), "--timeline", "/nonexistent-dir/t.json"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("/nonexistent-dir/t.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--timeline"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("simulated cycles"), std::string::npos) << "the run started:\n" << r.err;
}

TEST(TimelineBadInput, WindowEndBeforeStartIsRefused) {
  const RunResult r = run_tessera(
      {"run", platform("chip"), fw("sgemm"), "--timeline", temp_path("never.json"), "--timeline-window", "2000:1000"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--timeline-window '2000:1000'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("END (1000) must be after START (2000)"), std::string::npos) << r.err;
}

TEST(TimelineBadInput, WindowThatIsNotCyclesIsRefused) {
  const RunResult r = run_tessera(
      {"run", platform("chip"), fw("sgemm"), "--timeline", temp_path("never.json"), "--timeline-window", "10us:20us"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("START and END must be SM cycle numbers"), std::string::npos) << r.err;
}

TEST(TimelineBadInput, SampleZeroIsRefused) {
  const RunResult r = run_tessera(
      {"run", platform("chip"), fw("sgemm"), "--timeline", temp_path("never.json"), "--timeline-sample", "0"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--timeline-sample"), std::string::npos) << r.err;
}

}  // namespace
