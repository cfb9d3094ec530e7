// The control cores' vector units running firmware (docs/vector.md, "On the
// control cores"): every routine of tessera_rvv.h against scalar code on
// several machines, coherence with the cluster's caches on both memory
// paths, exact cycles of a chained sequence, statistics, waveforms, and
// bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera_run.h"
#include "test_scratch.h"
#include "wave_reader.h"

using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::RunResult;

namespace {

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }
std::string chip() { return std::string(PLATFORM_DIR) + "/chip.yaml"; }
std::string temp_path(const std::string& name) {
  std::filesystem::create_directories(tessera::test::scratch_dir());
  return tessera::test::scratch_dir() + "/" + name;
}

RunResult run(const std::string& program, const std::vector<std::string>& sets = {},
              std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"run", chip(), fw(program), "--max-cycles", "100000000"};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  args.insert(args.end(), extra.begin(), extra.end());
  return run_tessera(args);
}

void expect_pass(const RunResult& r, const std::string& program) {
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS " + program), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
}

unsigned result(const std::string& out, const std::string& key) {
  const auto at = out.find("RESULT " + key + " ");
  EXPECT_NE(at, std::string::npos) << out;
  if (at == std::string::npos) return 0;
  return static_cast<unsigned>(std::stoul(out.substr(at + 8 + key.size())));
}

// Each machine runs every routine at n = 0, 1, MVL-1, MVL, MVL+1 and 1000,
// SEW 8/16/32: VLEN (so MVL) from 64 to 4096, lanes, chaining, both memory paths.
class Routines : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(Routines, EveryRoutineMatchesScalarCode) { expect_pass(run("vector_routines", GetParam()), "vector_routines"); }

INSTANTIATE_TEST_SUITE_P(Machines, Routines,
                         ::testing::Values(std::vector<std::string>{}, std::vector<std::string>{"vector.memory=banked"},
                                           std::vector<std::string>{"vector.vlen=64"},
                                           std::vector<std::string>{"vector.vlen=4096", "vector.lanes=8"},
                                           std::vector<std::string>{"vector.vlen=512", "vector.chaining=none",
                                                                    "vector.memory=banked", "vector.lanes=4"}));

TEST(VectorCoherence, ClusterPathSeesAndIsSeenByTheCaches) {
  expect_pass(run("vector_coherence", {"vector.memory=cluster"}), "vector_coherence");
}

TEST(VectorCoherence, BankedPathSeesAndIsSeenByTheCaches) {
  expect_pass(run("vector_coherence", {"vector.memory=banked"}), "vector_coherence");
}

// vle32.v v1; vadd.vv v2,v1,v1; vmv.x.s between two csrr cycle, VL 64, one
// lane, VMIPS latencies (load 12, add 6), 16 banks busy 12 (docs/vector.md).
// The csrr before reads c0; the load reaches the unit at T = c0 + 1 and its
// elements enter at T..T+63 (16 banks >= 12 busy cycles: no bank waits),
// element k ready at T+12+k; the core hands over vadd.vv at T+1 and
// vmv.x.s at T+2.
TEST(VectorCycles, ChainedAddFollowsTheLoadOneElementBehind) {
  const auto r = run("vector_cycles", {"vector.memory=banked", "vector.chaining=flexible"});
  expect_pass(r, "vector_cycles");
  // vadd joins the load's convoy, chained: element k enters at T+12+k, the
  // last at T+75, completing at T+75+6+1 = T+82. vmv.x.s needs the add unit:
  // next convoy at T+82, one element, complete at T+89, where the core
  // continues with the csrr: 89 + 1 = 90.
  EXPECT_EQ(result(r.out, "vector load_add_move"), 90u);
}

TEST(VectorCycles, WithoutChainingTheAddWaitsForTheWholeLoad) {
  const auto r = run("vector_cycles", {"vector.memory=banked", "vector.chaining=none"});
  expect_pass(r, "vector_cycles");
  // The load completes at T+63+12+1 = T+76; vadd's convoy runs T+76..T+139,
  // complete T+146; vmv.x.s complete T+153: 153 + 1 = 154.
  EXPECT_EQ(result(r.out, "vector load_add_move"), 154u);
}

TEST(VectorCycles, ClusterPathTakesTheL1dPortsRate) {
  const auto r = run("vector_cycles", {"vector.memory=cluster"});
  expect_pass(r, "vector_cycles");
  // The data is in core 0's L1D (the program wrote it): each element is a
  // hit issued when the last one completes, 2 cycles each (performed one
  // cycle after issue, completing cluster.l1.hit_latency = 1 later). Element
  // k arrives at T+2(k+1), so the load completes at T+129 (later than its
  // pipeline's T+76) and the core hands over vadd.vv then: a new convoy
  // T+129..T+192, complete T+199; vmv.x.s complete T+206: 206 + 1 = 207.
  EXPECT_EQ(result(r.out, "vector load_add_move"), 207u);
}

TEST(VectorStats, CountInstructionsElementsAndChimes) {
  const std::string stats = temp_path("vector_stats.json");
  const auto r = run("vector_cycles", {"vector.memory=banked"}, {"--stats", stats});
  expect_pass(r, "vector_cycles");
  const auto j = nlohmann::json::parse(read_file(stats));
  std::filesystem::remove(stats);
  const auto& v = j["chip"]["cluster"]["core0"]["vector"];
  // vle32 + vadd + vmv.x.s (vsetvli is not timed): 64 + 64 + 1 elements in
  // 2 chimes, the add chained to the load; 256 bytes loaded.
  EXPECT_EQ(v["instructions"].get<uint64_t>(), 3u);
  EXPECT_EQ(v["element_ops"].get<uint64_t>(), 129u);
  EXPECT_EQ(v["chimes"].get<uint64_t>(), 2u);
  EXPECT_EQ(v["chained_operands"].get<uint64_t>(), 1u);
  EXPECT_EQ(v["memory_elements"].get<uint64_t>(), 64u);
  EXPECT_EQ(v["bytes_loaded"].get<uint64_t>(), 256u);
  EXPECT_EQ(v["bank_conflict_stalls"].get<uint64_t>(), 0u);
  // Busy from T to T+82, then T+82 to T+89.
  EXPECT_EQ(v["busy_cycles"].get<uint64_t>(), 89u);
  // The core waited for vmv.x.s's result: from T+3 to T+89.
  EXPECT_EQ(v["scalar_wait_cycles"].get<uint64_t>(), 86u);
  EXPECT_FALSE(j["chip"]["cluster"]["core1"].contains("vector") &&
               j["chip"]["cluster"]["core1"]["vector"]["instructions"].get<uint64_t>() != 0);
}

void expect_fault(const RunResult& r, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  for (const auto& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << "missing '" << p << "' in\n" << r.err;
}

nlohmann::json run_with_stats(const std::string& program, std::vector<std::string> sets, const std::string& name) {
  const std::string stats = temp_path(name);
  const auto r = run(program, sets, {"--stats", stats});
  expect_pass(r, program);
  if (r.status != 0) return {};
  auto j = nlohmann::json::parse(read_file(stats));
  std::filesystem::remove(stats);
  return j;
}

// Units shared by several cores (cluster.cores_per_vector_unit): each core
// keeps its own registers, vl and vtype (its results equal the scalar
// ones), the unit's counters sum its cores' work, and the cores contend for
// its functional units (the exact cycles of that rule are in
// VectorTiming.SharedUnit*).
TEST(VectorShared, CoresSharingAUnitKeepTheirOwnRegisters) {
  for (const char* path : {"vector.memory=cluster", "vector.memory=banked"}) {
    SCOPED_TRACE(path);
    const auto priv = run_with_stats("vector_shared", {path}, "vector_private.json");
    const auto shared =
        run_with_stats("vector_shared", {path, "cluster.cores_per_vector_unit=4"}, "vector_shared.json");
    const auto pairs = run_with_stats("vector_shared", {path, "cluster.cores_per_vector_unit=2"}, "vector_pairs.json");
    if (priv.empty() || shared.empty() || pairs.empty()) continue;
    const auto& p = priv["chip"]["cluster"];
    const auto& s = shared["chip"]["cluster"];
    // One unit: its counters are core 0's and hold all four cores' work;
    // each core still counts its own bytes.
    uint64_t instructions = 0, elements = 0;
    for (unsigned c = 0; c < 4; ++c) {
      const std::string core = "core" + std::to_string(c);
      instructions += p[core]["vector"]["instructions"].get<uint64_t>();
      elements += p[core]["vector"]["element_ops"].get<uint64_t>();
      EXPECT_EQ(s[core]["vector"]["bytes_loaded"], p[core]["vector"]["bytes_loaded"]) << core;
      EXPECT_EQ(s[core]["vector"]["bytes_stored"], p[core]["vector"]["bytes_stored"]) << core;
      if (c > 0) {
        EXPECT_FALSE(s[core]["vector"].contains("instructions")) << core;
      }
    }
    EXPECT_GT(p["core3"]["vector"]["element_ops"].get<uint64_t>(), p["core0"]["vector"]["element_ops"].get<uint64_t>());
    EXPECT_EQ(s["core0"]["vector"]["instructions"].get<uint64_t>(), instructions);
    EXPECT_EQ(s["core0"]["vector"]["element_ops"].get<uint64_t>(), elements);
    EXPECT_EQ(s["core0"]["vector"]["cores_served"].get<double>(), 4.0);
    EXPECT_FALSE(p["core0"]["vector"].contains("cores_served"));
    // Two units of two cores: cores 0 and 2 hold the counters.
    const auto& q = pairs["chip"]["cluster"];
    EXPECT_EQ(q["core0"]["vector"]["element_ops"].get<uint64_t>() + q["core2"]["vector"]["element_ops"].get<uint64_t>(),
              elements);
    EXPECT_EQ(q["core2"]["vector"]["cores_served"].get<double>(), 2.0);
    // Four cores on one unit's lanes take longer than on four units.
    EXPECT_GT(shared["roi"]["sim_cycles"].get<uint64_t>(), priv["roi"]["sim_cycles"].get<uint64_t>());
    EXPECT_GE(shared["roi"]["sim_cycles"].get<uint64_t>(), pairs["roi"]["sim_cycles"].get<uint64_t>());
  }
}

TEST(VectorShared, CoreBeyondTheSharedUnitsHasNone) {
  // Four cores, three per unit: one unit serves cores 0 to 2, core 3 has none.
  expect_fault(run("vector_shared", {"cluster.cores_per_vector_unit=3"}),
               {"cluster.core3: illegal instruction", "core 3 has no vector unit",
                "(cluster.vector_units = 1, cluster.cores_per_vector_unit = 3)"});
}

TEST(VectorShared, BadSharingNamesTheKey) {
  const auto too_many = run("vector_shared", {"cluster.cores_per_vector_unit=2", "cluster.vector_units=3"});
  EXPECT_EQ(too_many.status, 2) << too_many.out << too_many.err;
  EXPECT_NE(too_many.err.find("cluster.vector_units"), std::string::npos) << too_many.err;
  const auto zero = run("vector_shared", {"cluster.cores_per_vector_unit=0"});
  EXPECT_EQ(zero.status, 2) << zero.out << zero.err;
  EXPECT_NE(zero.err.find("cluster.cores_per_vector_unit"), std::string::npos) << zero.err;
  const auto five = run("vector_shared", {"cluster.cores_per_vector_unit=5"});
  EXPECT_EQ(five.status, 2) << five.out << five.err;
  EXPECT_NE(five.err.find("cluster.cores_per_vector_unit"), std::string::npos) << five.err;
}

// A core started again (HART_START) does not keep the vtype and vl its
// previous function set: vill, vl 0, vstart 0.
TEST(VectorRestart, AStartedCoreBeginsWithTheResetVectorState) { expect_pass(run("vector_restart"), "vector_restart"); }

// The livelock watchdog sees vector stores as progress on both paths: the
// benchmark's loop (2.8 M cycles, banked) makes no scalar store at all.
TEST(VectorWatchdog, VectorStoresAreProgress) {
  for (const std::string memory : {"cluster", "banked"}) {
    const auto r = run("vector_saxpy_bench", {"vector.memory=" + memory, "watchdog.cycles=20000"});
    EXPECT_EQ(r.status, 0) << memory << r.out << r.err;
    EXPECT_NE(r.out.find("RESULT vector saxpy_bench y[N-1] 30"), std::string::npos) << r.out;
  }
}

// vector_study.c, the program of studies/vector_lanes and vector_stride:
// every routine passes its scalar check on both memory paths, and bad
// arguments are refused.
TEST(VectorStudy, EveryRoutinePassesItsScalarCheck) {
  const std::vector<std::vector<std::string>> routines{{"saxpy", "100"},       {"vadd", "100"},   {"dot", "100"},
                                                       {"column", "100", "3"}, {"masked", "100"}, {"sparse", "100"},
                                                       {"matmul", "9"}};
  for (const std::string memory : {"cluster", "banked"})
    for (const auto& args : routines) {
      std::vector<std::string> extra{"--"};
      extra.insert(extra.end(), args.begin(), args.end());
      const auto r = run("vector_study", {"vector.memory=" + memory, "vector.lanes=2"}, extra);
      EXPECT_EQ(r.status, 0) << memory << " " << args[0] << r.out << r.err;
      EXPECT_NE(r.out.find("PASS vector_study " + args[0] + " " + args[1]), std::string::npos) << r.out;
    }
  const auto bad = run("vector_study", {}, {"--", "transpose", "8"});
  EXPECT_EQ(bad.status, 2) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("vector_study: unknown routine"), std::string::npos) << bad.out;
}

// The stride sweep's load on the chapter's banks (16 banks of words, busy 12
// cycles, one lane): column 0 of a 64 x STRIDE matrix is one vlse32.v of 64
// elements. Stride 1 visits all 16 banks, each free again 12 cycles after
// its access and revisited 16 later: no waits. Stride 2 visits 8 banks
// (0, 2, ..., 14), so element 8k (k = 1..7) comes back to a bank 8 cycles
// after its last access and waits 12 - 8 = 4; the 7 behind it, shifted as
// much, find their banks free: 7 x 4 = 28. Stride 16 hits one bank: each of
// elements 1..63 waits 12 - 1 = 11 cycles: 693. Nothing else changes, so the
// region's cycles grow by exactly the waits.
TEST(VectorStudy, StridedLoadWaitsForItsBank) {
  std::map<unsigned, std::pair<uint64_t, uint64_t>> cycles_and_stalls;
  for (const unsigned stride : {1u, 2u, 16u}) {
    const std::string stats = temp_path("vector_stride.json");
    const auto r = run("vector_study", {"vector.memory=banked", "vector.banks=16", "vector.bank_busy=12"},
                       {"--stats", stats, "--", "column", "64", std::to_string(stride)});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    const auto j = nlohmann::json::parse(read_file(stats));
    std::filesystem::remove(stats);
    cycles_and_stalls[stride] = {j["roi"]["sim_cycles"].get<uint64_t>(),
                                 j["chip"]["cluster"]["core0"]["vector"]["bank_conflict_stalls"].get<uint64_t>()};
  }
  EXPECT_EQ(cycles_and_stalls[1].second, 0u);
  EXPECT_EQ(cycles_and_stalls[2].second, 28u);
  EXPECT_EQ(cycles_and_stalls[16].second, 693u);
  EXPECT_EQ(cycles_and_stalls[2].first, cycles_and_stalls[1].first + 28);
  EXPECT_EQ(cycles_and_stalls[16].first, cycles_and_stalls[1].first + 693);
}

TEST(VectorWaves, IssuesAndConvoysShowPerCore) {
  const std::string fst = temp_path("vector_waves.fst");
  const auto r =
      run("vector_cycles", {"vector.memory=banked", "clock.cpu_mhz=1000"}, {"--trace-scope", "cluster*", "--vcd", fst});
  expect_pass(r, "vector_cycles");
  const auto file = tessera::test::WaveFile::read(fst);
  std::filesystem::remove(fst);
  // Three timed instructions handed over in three consecutive cycles.
  const auto rises = file.times_of("chip.cluster.core0.vector.issue", 1);
  ASSERT_EQ(rises.size(), 1u);
  const uint64_t first_issue = rises[0];
  for (uint64_t k = 0; k < 3; ++k)
    EXPECT_EQ(file.value_at("chip.cluster.core0.vector.issue", first_issue + k * 1000), 1u);
  EXPECT_EQ(file.value_at("chip.cluster.core0.vector.issue", first_issue + 3000), 0u);
  std::vector<std::pair<uint64_t, uint64_t>> convoys;
  for (const auto& c : file.changes("chip.cluster.core0.vector.convoy")) convoys.emplace_back(c.time_ps, c.value);
  ASSERT_GE(convoys.size(), 2u);
  // Convoy 1 from the load's issue (T), convoy 2 from T+82 (1 ns cycles).
  EXPECT_EQ(convoys[convoys.size() - 2], std::make_pair(first_issue, uint64_t{1}));
  EXPECT_EQ(convoys.back(), std::make_pair(first_issue + 82 * 1000, uint64_t{2}));
  // Core 1 has a unit too: its signals exist, with no issue.
  for (const auto& c : file.changes("chip.cluster.core1.vector.issue")) EXPECT_EQ(c.value, 0u);
}

// ---- bad input ----

TEST(VectorBadInput, VectorInstructionOnACoreWithoutAUnit) {
  expect_fault(run("vector_routines", {"cluster.vector_units=0"}),
               {"cluster.core0: illegal instruction", "csrrs", "vlenb",
                "a vector CSR, and core 0 has no vector unit (cluster.vector_units = 0)"});
}

TEST(VectorBadInput, VectorInstructionNamesItsDisassembly) {
  expect_fault(run("vector_bad_vill", {"cluster.vector_units=0"}),
               {"illegal instruction 0x", "(vsetvli\ta5,a5,e64,m1,ta,ma)", "core 0 has no vector unit"});
}

TEST(VectorBadInput, UnsupportedSewSetsVillAndTheNextInstructionIsIllegal) {
  expect_fault(run("vector_bad_vill"), {"illegal instruction", "vadd.vv\tv1,v2,v3", "vill is set"});
}

TEST(VectorBadInput, MisalignedElementNamesTheElement) {
  expect_fault(run("vector_bad_misaligned"), {"misaligned vector load of element 0", "vle32.v", "vstart = 0"});
}

TEST(VectorBadInput, UnmappedElementNamesTheElementOnBothPaths) {
  for (const char* path : {"vector.memory=cluster", "vector.memory=banked"})
    expect_fault(run("vector_bad_unmapped", {path}),
                 {"vector load access fault at element 3, address 0x90000000: outside memory", "vstart = 3"});
}

TEST(VectorBadInput, NullPointerStoreIsOutsideMemoryOnBothPaths) {
  for (const char* path : {"vector.memory=cluster", "vector.memory=banked"})
    expect_fault(run("vector_bad_null", {path}),
                 {"vector store access fault at element 0, address 0x00000000: outside memory", "vstart = 0"});
}

TEST(VectorBadInput, BadParametersNameTheKey) {
  const auto r = run("vector_cycles", {"vector.memory=cache"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("vector.memory"), std::string::npos) << r.err;
  const auto v = run("vector_cycles", {"vector.vlen=96"});
  EXPECT_EQ(v.status, 2) << v.out << v.err;
  EXPECT_NE(v.err.find("vector.vlen = 96 must be a power of two"), std::string::npos) << v.err;
  const auto u = run("vector_cycles", {"cluster.vector_units=5"});
  EXPECT_EQ(u.status, 2) << u.out << u.err;
  EXPECT_NE(u.err.find("cluster.vector_units"), std::string::npos) << u.err;
}

TEST(VectorFastForward, SwitchesBeforeTheFirstVectorInstruction) {
  const std::string stats = temp_path("vector_ff.json");
  const auto r = run("vector_routines", {}, {"--fast-forward", "--stats", stats});
  expect_pass(r, "vector_routines");
  const auto j = nlohmann::json::parse(read_file(stats));
  std::filesystem::remove(stats);
  EXPECT_EQ(j["fast_forward"]["switch"], "vector");
}

}  // namespace
