// The control-core cluster running firmware: data-access latencies derived
// from the cluster parameters, litmus outcomes under SC and TSO, locks and
// barriers under contention, the lock and false-sharing benchmarks' shape,
// kernel-launch coherence, idle skipping, and bad input.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "host_time.h"
#include "mem/coherence_protocol.h"
#include "tessera_run.h"

using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::RunResult;

namespace {

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }
std::string chip() { return std::string(PLATFORM_DIR) + "/chip.yaml"; }

RunResult run(const std::string& program, std::vector<std::string> sets = {}) {
  std::vector<std::string> args{"run", chip(), fw(program), "--max-cycles", "50000000"};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  return run_tessera(args);
}

void expect_pass(const RunResult& r) {
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

// The whitespace-separated words of the RESULT line that starts with
// `prefix` (after "RESULT "); empty when there is none.
std::vector<std::string> result_words(const std::string& out, const std::string& prefix) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("RESULT " + prefix + " ", 0) != 0 && line != "RESULT " + prefix) continue;
    std::istringstream in(line.substr(7 + prefix.size()));
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
  }
  return {};
}

double result_value(const std::string& out, const std::string& prefix, const std::string& key = "") {
  const auto words = result_words(out, prefix);
  EXPECT_FALSE(words.empty()) << "no RESULT " << prefix << " in\n" << out;
  if (words.empty()) return -1;
  if (key.empty()) return std::stod(words[0]);
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == key) return std::stod(words[i + 1]);
  ADD_FAILURE() << "no " << key << " in RESULT " << prefix;
  return -1;
}

TEST(ClusterLatency, LoadsTakeTheCyclesTheBusParametersGive) {
  const auto r = run("latency");
  expect_pass(r);
  // Each figure runs from the csrr before the load to the csrr after it
  // (the three instructions share one line-aligned fetch-buffer fill, made
  // before the first csrr): 1 cycle for the first csrr, then the load is
  // issued to the engine at cycle I and the next csrr executes in the cycle
  // the access completes.
  // Hit: performed at tick I+1, completes cluster.l1.hit_latency (1) later:
  // I+2; 1 + 2 = 3.
  EXPECT_EQ(result_value(r.out, "latency hit"), 3);
  // Memory: the miss asks for the bus at I+1 and is granted at I+2; the
  // snoop resolves cluster.bus.snoop_latency (2) later (I+4); memory answers
  // cluster.memory_latency (120) later (I+124); a 64-byte line on the
  // 256-bit response bus takes 2 beats (I+126), where the access is
  // performed, completing hit_latency later: I+127; 1 + 127 = 128.
  EXPECT_EQ(result_value(r.out, "latency memory"), 128);
  // Cache to cache: as above to the snoop (I+4); core 1's modified copy is
  // queued for the response bus hit_latency later (I+5), 2 beats (I+7),
  // performed, completing at I+8; 1 + 8 = 9.
  EXPECT_EQ(result_value(r.out, "latency cache_to_cache"), 9);
}

TEST(ClusterLatency, MemoryLatencyParameterMovesOnlyTheMemoryFigure) {
  // cluster.memory_latency 40 instead of 120: 128 - 80 = 48.
  const auto r = run("latency", {"cluster.memory_latency=40"});
  expect_pass(r);
  EXPECT_EQ(result_value(r.out, "latency memory"), 48);
  EXPECT_EQ(result_value(r.out, "latency hit"), 3);
}

TEST(ClusterLitmus, ScNeverShowsAForbiddenOutcome) {
  const auto r = run("litmus", {"cluster.store_buffer=sc"});
  expect_pass(r);
  for (const char* t : {"sb", "mp", "lb"}) {
    EXPECT_EQ(result_value(r.out, std::string("litmus ") + t + " forbidden"), 0) << t;
    double total = 0;
    for (const char* o : {"00", "01", "10", "11"})
      total += result_value(r.out, std::string("litmus ") + t + " r1r2=" + o);
    EXPECT_EQ(total, 2000) << t;
  }
}

TEST(ClusterLitmus, TsoShowsStoreBufferingButNotMpOrLb) {
  const auto r = run("litmus", {"cluster.store_buffer=tso"});
  expect_pass(r);
  EXPECT_GT(result_value(r.out, "litmus sb forbidden"), 0);
  EXPECT_EQ(result_value(r.out, "litmus mp forbidden"), 0);
  EXPECT_EQ(result_value(r.out, "litmus lb forbidden"), 0);
}

TEST(ClusterSync, LocksAndBarriersHoldUnderContentionOn4And8Cores) {
  for (const char* cores : {"4", "8"}) {
    const auto r = run("locks", {std::string("cluster.cores=") + cores});
    expect_pass(r);
    EXPECT_NE(r.out.find(std::string("PASS locks and barriers on ") + cores + " cores"), std::string::npos) << r.out;
  }
  // TSO: the release stores are buffered; the AMOs and fences must order them.
  expect_pass(run("locks", {"cluster.store_buffer=tso"}));
}

TEST(ClusterSync, TestAndSetTrafficGrowsFasterThanTicketAndArrayLocks) {
  const auto r = run("lock_bench");
  expect_pass(r);
  auto txn = [&r](const char* lock, int cores) {
    return result_value(r.out, std::string("lock ") + lock + " cores " + std::to_string(cores), "txn_per_handoff");
  };
  // One core: the lock line stays in its cache; the only transactions are
  // the first fetches of the run's code and data lines (a handful per 100
  // hand-offs).
  for (const char* lock : {"tas", "ticket", "array"}) EXPECT_LT(txn(lock, 1), 0.25) << lock;
  // Culler & Singh §5.5: every test-and-set attempt is a bus write, so the
  // traffic per hand-off grows with the number of spinners (two more
  // spinners from 2 to 4 cores: at least 2 more per hand-off); the ticket
  // lock's release invalidates every spinner's copy of one line, which they
  // re-read, so it grows too but more slowly; the array lock hands over
  // through one waiter's own line, whatever the number of waiters.
  const double tas_growth = txn("tas", 4) - txn("tas", 2);
  const double ticket_growth = txn("ticket", 4) - txn("ticket", 2);
  const double array_growth = txn("array", 4) - txn("array", 2);
  EXPECT_GT(tas_growth, 2.0);
  EXPECT_GT(tas_growth, 1.5 * ticket_growth);
  EXPECT_LT(array_growth, 1.0);
  EXPECT_GT(txn("tas", 4), txn("array", 4));
}

TEST(ClusterSync, FalseSharingCostsBusTransactions) {
  const auto r = run("false_sharing");
  expect_pass(r);
  const double packed = result_value(r.out, "false_sharing packed cores 4", "txn");
  const double padded = result_value(r.out, "false_sharing padded cores 4", "txn");
  // Packed: 4 cores x 500 increments of one line; at least every change of
  // writer costs a transaction, and writers interleave. Padded: each core
  // takes its own line once (plus the barriers).
  EXPECT_GT(packed, 500);
  EXPECT_LT(padded, 50);
}

TEST(ClusterLaunch, KernelsSeeCoreWritesAndCoresSeeKernelWrites) {
  expect_pass(run("launch_coherence"));
  expect_pass(run("launch_coherence", {"cluster.store_buffer=tso", "cluster.protocol=moesi"}));
  // Without the coherence points the kernel reads stale memory and the
  // cores keep stale lines: the same program must fail.
  const auto r = run("launch_coherence", {"cluster.launch_coherence=false"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
}

// A host buffer that shares a line with the tail of a kernel's output,
// written while the kernel runs: the coherence point's write-back carries
// only the bytes the core wrote, so all 250 outputs (12 of them in the shared
// line) and the host's 48 bytes survive, under every protocol. Before, the
// write-back put the line's stale copy of those 12 outputs back.
TEST(ClusterLaunch, AWriteBackLeavesTheKernelsBytesInASharedLine) {
  for (const auto& protocol : tessera::mem::protocol_names()) {
    const auto r = run("coherence/write_back_bytes", {std::string("cluster.protocol=") + protocol});
    expect_pass(r);
    EXPECT_NE(r.out.find("wrong outputs 0 wrong host bytes 0"), std::string::npos) << protocol << "\n" << r.out;
  }
}

nlohmann::json without_host_time(nlohmann::json j) {
  j = tessera::test::without_host_time(std::move(j));
  j.erase("config");
  return j;
}

TEST(ClusterIdleSkipping, StatisticsAreIdenticalWhenTickingEveryCycle) {
  for (const char* program : {"lock_bench", "launch_coherence"}) {
    const std::string a = ::testing::TempDir() + "/cl_skip.json", b = ::testing::TempDir() + "/cl_tick.json";
    ASSERT_EQ(run_tessera({"run", chip(), fw(program), "--stats", a}).status, 0);
    ASSERT_EQ(run_tessera({"run", chip(), fw(program), "--stats", b, "--set", "cluster.skip_idle=false"}).status, 0);
    EXPECT_EQ(without_host_time(nlohmann::json::parse(read_file(a))).dump(),
              without_host_time(nlohmann::json::parse(read_file(b))).dump())
        << program;
  }
}

TEST(ClusterIdleSkipping, RunningAheadOfSystemCTimeChangesNothing) {
  // Cores synchronise at every MMIO access and wfi, so how far they run
  // ahead in between (cpu.quantum) must not change a statistic when no core
  // runs while a kernel does (launch_coherence reads kernel output while the
  // kernel runs, a race whose outcome does depend on it).
  for (const char* program : {"locks", "lock_bench"}) {
    const std::string a = ::testing::TempDir() + "/cl_q1000.json", b = ::testing::TempDir() + "/cl_q7.json";
    ASSERT_EQ(run_tessera({"run", chip(), fw(program), "--stats", a}).status, 0);
    ASSERT_EQ(run_tessera({"run", chip(), fw(program), "--stats", b, "--set", "cpu.quantum=7"}).status, 0);
    EXPECT_EQ(without_host_time(nlohmann::json::parse(read_file(a))).dump(),
              without_host_time(nlohmann::json::parse(read_file(b))).dump())
        << program;
  }
}

TEST(ClusterBadInput, CacheGeometryThatDoesNotDivideNamesTheKey) {
  const auto r = run("vecadd", {"cluster.l1d.size_kb=3"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("cluster.l1d"), std::string::npos) << r.err;
}

TEST(ClusterBadInput, StartingACoreThatDoesNotExistIsAGuestFault) {
  // The latency program starts core 1; a one-core cluster has none.
  const auto r = run("latency", {"cluster.cores=1"});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("hart 1 cannot be started"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cluster.cores=1"), std::string::npos) << r.err;
}

TEST(ClusterBadInput, LegalLatencyAndWatchdogSettingsAreNoDeadlock) {
  // A miss waits cluster.memory_latency for memory; the bus watchdog's
  // window is cluster.deadlock_cycles but at least 8 memory latencies, so
  // the extremes of both ranges are a slow memory, not a deadlock. (A real
  // bus deadlock and its report: BusMutation tests in unit/bus.)
  for (const auto& sets :
       std::vector<std::vector<std::string>>{{"cluster.deadlock_cycles=100"},
                                             {"cluster.memory_latency=1000", "cluster.deadlock_cycles=100"},
                                             {"cluster.memory_latency=100000", "cluster.deadlock_cycles=100"}}) {
    const auto r = run("latency", sets);
    EXPECT_EQ(r.status, 0) << sets.back() << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("PASS latency"), std::string::npos) << r.out;
  }
}

}  // namespace
