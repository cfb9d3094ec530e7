// The kernel programming model of tessera.h on sm1 and chip: launch
// arguments captured at launch (a queued launch loop), dim3 defaults, CUDA
// names and atomics / __ldg of every integer type, kernel printf (lines per
// thread, in order; overflow drops whole lines and counts them), and the
// compile errors of the header (void pointer, array or oversized launch
// arguments, unsupported atomic and __ldg types); each launch's statistics
// and the region of interest's share of every counter.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tessera_run.h"

using tessera::test::command_output;
using tessera::test::parse_results;
using tessera::test::run_tessera;
using tessera::test::temp_path;

namespace {

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/kernel_api_" + name + ".elf"; }
std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

std::string prefix(unsigned bx, unsigned tx, unsigned ty) {
  return "[block (" + std::to_string(bx) + ",0,0) thread (" + std::to_string(tx) + "," + std::to_string(ty) + ",0)] ";
}

// The console lines between two host lines (exclusive).
std::vector<std::string> between(const std::vector<std::string>& lines, const std::string& from,
                                 const std::string& to) {
  std::vector<std::string> v;
  bool in = false;
  for (const auto& l : lines) {
    if (l == to) break;
    if (in) v.push_back(l);
    if (l == from) in = true;
  }
  return v;
}

// What thread (x, y) of block b of kernel_printf.c prints, in order.
std::vector<std::string> expected_say(unsigned base, unsigned b, unsigned x, unsigned y) {
  const int v = static_cast<int>(base + b * 100 + y * 10 + x);
  char f[64];
  std::snprintf(f, sizeof f, "f = %.2f %s", static_cast<double>(static_cast<float>(v) * 0.5f),
                (v & 1) ? "odd" : "even");
  const std::string p = prefix(b, x, y);
  std::vector<std::string> out{p + "x = " + std::to_string(v), p + f};
  if (b == 1 && x == 3 && y == 1) {
    std::string s;
    for (int i = 0; i < 300; i++) s += static_cast<char>('a' + i % 26);
    out.push_back(p + "long " + s + " end");
    out.push_back(p + "first");
    out.push_back(p + "second");
  }
  return out;
}

// Groups lines by their "[block ... thread ...] " prefix, in console order.
std::map<std::string, std::vector<std::string>> by_thread(const std::vector<std::string>& lines) {
  std::map<std::string, std::vector<std::string>> m;
  for (const auto& l : lines) {
    const auto end = l.find("] ");
    m[end == std::string::npos ? std::string("?") : l.substr(0, end + 2)].push_back(l);
  }
  return m;
}

class KernelApi : public ::testing::TestWithParam<std::string> {};

}  // namespace

// 40 launches from one loop whose stack struct changes every iteration, one
// tessera_wait(): each launch's 64 threads write that launch's value (its
// captured arguments), also when launch i reuses the slot of launch i - 16.
// Threads that return before __syncthreads() drop out of the barrier: whole
// warps and the tail of a partial one. Block 0's threads each get 1 + ... +
// 256 = 32896, block 1's 257 + ... + 300 = 12254.
TEST_P(KernelApi, ThreadsThatReturnedDropOutOfTheBlockBarrier) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("early_return")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto res = parse_results(r.out);
  EXPECT_EQ(res.at("early_return_wrong"), std::vector<long long>{0});
  EXPECT_EQ(res.at("early_return_sums"), (std::vector<long long>{32896, 12254}));
}

TEST_P(KernelApi, LaunchArgumentsAreCapturedAtLaunch) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("launch_args")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto res = parse_results(r.out);
  EXPECT_EQ(res.at("launch_loop_wrong"), std::vector<long long>{0});
  // Kernels of 20000 cycles queue behind each other; launch 39 had to wait
  // for launch 23's parameter slot, so 16 launches (24..39) are pending when
  // the loop ends.
  EXPECT_EQ(res.at("launch_loop_pending"), std::vector<long long>{16});
  // Four launches without arguments (3-, 4-argument forms, NULL, 0), 2 blocks each.
  EXPECT_EQ(res.at("no_args_runs"), std::vector<long long>{8});
  // A 4096-byte struct (the whole parameter area) cleared right after its launch.
  const unsigned n = 1024;
  const long long want = 7ll * (n * (n - 1) / 2) + n;
  EXPECT_EQ(res.at("big_args_sum"), (std::vector<long long>{want, want}));
  EXPECT_EQ(res.at("launch_bytes"), std::vector<long long>{82});
  EXPECT_NE(r.out.find("launch_args: ok"), std::string::npos) << r.out;
}

// tessera_launch_bytes() with 5000 bytes (the size is a run-time value):
// refused before anything is launched, status 4, naming size and limit.
TEST_P(KernelApi, ArgumentsLargerThanASlotAtRunTimeStopWithStatusFour) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("launch_too_big")});
  EXPECT_EQ(r.status, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("tessera_launch: 5000 bytes of kernel arguments; the parameter area holds 4096"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("should have been refused"), std::string::npos) << r.out;
}

// dim3 b = {16, 16} and {256}, grid {3} and {2, 5}: missing members are 1.
TEST_P(KernelApi, Dim3DefaultsMissingDimensionsToOne) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("launch_args")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto res = parse_results(r.out);
  EXPECT_EQ(res.at("shape0"), (std::vector<long long>{16, 16, 1, 3, 1, 1}));
  EXPECT_EQ(res.at("shape1"), (std::vector<long long>{256, 1, 1, 2, 5, 1}));
}

TEST_P(KernelApi, CudaNamesIntrinsicsAtomicsAndLdgOfEveryType) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("cuda_names")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto res = parse_results(r.out);
  // __popc(0xF0F0F0F1) 17, __popcll 33, __clz(0x10000) 15, __clz(0) 32,
  // __clzll(1) 63, __ffs(0x100) 9, __ffs(0) 0, __ffsll(1<<40) 41,
  // __brev(1) 0x80000000, __brevll(1) high word 0x80000000.
  EXPECT_EQ(res.at("bits"), (std::vector<long long>{17, 33, 15, 32, 63, 9, 0, 41, 0x80000000ll, 0x80000000ll}));
  // min(bump(&n), 5) = 1 with one call, max(6, 3) = 6, min(-1, 3u) = 3u.
  EXPECT_EQ(res.at("minmax"), (std::vector<long long>{1, 6, 1, 3}));
  // 64 threads: +1 each, -1 each, max of 0..63, OR of 1 << (t % 32).
  EXPECT_EQ(res.at("atomics32").size(), 5u);
  EXPECT_NE(r.out.find("cuda_names: ok"), std::string::npos) << r.out;
}

// Every thread's lines appear in the order it printed them, prefixed with
// its block and thread, between the host's lines (printed at tessera_wait).
TEST_P(KernelApi, KernelPrintfPrintsEachThreadsLinesInOrderAtWait) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("kernel_printf")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto lines = lines_of(r.out);
  const auto first = between(lines, "host after launch", "host after wait");
  std::map<std::string, std::vector<std::string>> want;
  size_t count = 0;
  for (unsigned b = 0; b < 2; b++)
    for (unsigned y = 0; y < 2; y++)
      for (unsigned x = 0; x < 4; x++) {
        want[prefix(b, x, y)] = expected_say(5, b, x, y);
        count += want[prefix(b, x, y)].size();
      }
  EXPECT_EQ(first.size(), count) << r.out;
  EXPECT_EQ(by_thread(first), want) << r.out;
  const auto second = between(lines, "host after wait", "kernel_printf: done");
  EXPECT_EQ(second, expected_say(900, 0, 0, 0)) << r.out;
  EXPECT_NE(r.out.find("host before\n"), std::string::npos);
}

// A 2 KiB buffer (2032 bytes after the header) holds 63 records of 32 bytes:
// 63 whole lines, one call dropped and counted; after the flush, a second
// kernel's 32 lines all print. A launch that finds more than half of the
// buffer used (40 records, 1280 > 1016 bytes) prints it first.
TEST_P(KernelApi, KernelPrintfOverflowDropsWholeLinesAndCountsThem) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("printf_overflow")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto lines = lines_of(r.out);
  std::vector<std::string> first, second;
  bool after = false;
  std::string dropped;
  for (const auto& l : lines) {
    if (l == "host: second launch") after = true;
    if (l.rfind("[tessera:", 0) == 0) dropped = l;
    if (l.rfind("[block", 0) != 0) continue;
    (after ? second : first).push_back(l);
  }
  EXPECT_EQ(first.size(), 63u) << r.out;
  EXPECT_EQ(second.size(), 32u + 40u + 40u) << r.out;
  // The third kernel's 40 lines are printed by the fourth launch (the buffer
  // was more than half full), the fourth kernel's 40 by tessera_wait().
  const auto third = between(lines, "host: third kernel finished", "host: fourth kernel launched");
  const auto fourth = between(lines, "host: fourth kernel launched", "printf_overflow: done");
  EXPECT_EQ(third.size(), 40u) << r.out;
  EXPECT_EQ(fourth.size(), 40u) << r.out;
  EXPECT_EQ(dropped, "[tessera: 1 kernel printf call dropped: the 2048-byte printf buffer was full]") << r.out;
  for (const auto& l : first) {
    // Whole and uncorrupted: the text names the thread of the prefix.
    unsigned t = 99, u = 98;
    ASSERT_EQ(std::sscanf(l.c_str(), "[block (0,0,0) thread (%u,0,0)] t%u", &t, &u), 2) << l;
    EXPECT_EQ(t, u) << l;
    EXPECT_EQ(l, prefix(0, t, 0) + (t < 10 ? "t0" : "t") + std::to_string(t));
  }
}

// firmware/programs/kernel_printf.c: four launches from a loop (bands 0..3)
// of 4 blocks of 16x16 threads; thread (0,0) of block x prints its tile
// "tile (x,band) sum N". The 16 lines come out band by band (kernels run in
// launch order), each from the block it names.
TEST_P(KernelApi, ExampleProgramPrintsOneLinePerTileFromItsBlock) {
  const auto r = run_tessera({"run", platform(GetParam()), std::string(PROGRAMS_DIR) + "/kernel_printf.elf"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS kernel_printf"), std::string::npos) << r.out;
  unsigned n = 0, last_band = 0;
  for (const auto& l : lines_of(r.out)) {
    if (l.rfind("[block", 0) != 0) continue;
    unsigned bx = 99, tx = 98, band = 97;
    unsigned long sum = 0;
    ASSERT_EQ(std::sscanf(l.c_str(), "[block (%u,0,0) thread (0,0,0)] tile (%u,%u) sum %lu", &bx, &tx, &band, &sum), 4)
        << l;
    EXPECT_EQ(bx, tx) << l;
    EXPECT_GE(band, last_band) << l;
    last_band = band;
    ++n;
  }
  EXPECT_EQ(n, 16u) << r.out;
}

// atomicAdd/Sub/Exch/CAS/Max on uint64_t and int64_t through the generic
// names: 512 threads, sums past 2^32 (the program derives each expected value
// from the thread count and checks it).
TEST_P(KernelApi, SixtyFourBitAtomicsThroughTheGenericNames) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("atomics64")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("atomicAdd u64 0x2000001fd00 (want 0x2000001fd00)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("atomics64: ok"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Platforms, KernelApi, ::testing::Values("sm1", "chip"));

namespace {

// Compiles compile_errors.c with one -D case; returns the compiler's output
// (empty when the compile unexpectedly succeeded).
std::string compile_error(const std::string& def) {
  const std::string elf = temp_path("kernel_api_" + def + ".elf");
  const std::string cmd = std::string("TESSERA_CC=") + RISCV_GCC + " " + TESSERA_CC_PATH + " -D" + def + " " + SRC_DIR +
                          "/compile_errors.c -o " + elf + " 2>&1 && echo COMPILED";
  const std::string out = command_output(cmd);
  std::remove(elf.c_str());
  return out;
}

}  // namespace

TEST(KernelApiCompile, VoidPointerArgumentsAreAReadableError) {
  const auto out = compile_error("BAD_VOID_ARGS");
  EXPECT_EQ(out.find("COMPILED"), std::string::npos) << out;
  EXPECT_NE(out.find("tessera_launch: args is a void pointer, so the size of the arguments to capture is unknown"),
            std::string::npos)
      << out;
}

TEST(KernelApiCompile, ArrayArgumentsAreAReadableError) {
  const auto out = compile_error("BAD_ARRAY_ARGS");
  EXPECT_EQ(out.find("COMPILED"), std::string::npos) << out;
  EXPECT_NE(out.find("tessera_launch: args is an array"), std::string::npos) << out;
}

// A kernel with a parameter list of its own launched through the C API would
// take the argument block's address as its first parameter: before, that
// compiled with a warning and computed garbage.
TEST(KernelApiCompile, AKernelWithItsOwnParameterListIsAReadableError) {
  for (const char* def : {"BAD_KERNEL_SIGNATURE", "BAD_KERNEL_SIGNATURE_REF"}) {
    const auto out = compile_error(def);
    EXPECT_EQ(out.find("COMPILED"), std::string::npos) << def << "\n" << out;
    EXPECT_NE(out.find("tessera_launch: the kernel must be declared TESSERA_KERNEL void k(void *args)"),
              std::string::npos)
        << def << "\n"
        << out;
  }
  // Passed to a launch function directly, the mismatch is the compiler's
  // incompatible-pointer error (an error under tessera-cc).
  const auto out = compile_error("BAD_KERNEL_POINTER");
  EXPECT_EQ(out.find("COMPILED"), std::string::npos) << out;
  EXPECT_NE(out.find("incompatible-pointer-types"), std::string::npos) << out;
}

TEST(KernelApiCompile, ArgumentsLargerThanTheParameterAreaAreAReadableError) {
  const auto out = compile_error("BAD_TOO_BIG");
  EXPECT_EQ(out.find("COMPILED"), std::string::npos) << out;
  EXPECT_NE(out.find("tessera_launch: the kernel arguments are larger than the 4096-byte parameter area"),
            std::string::npos)
      << out;
}

TEST(KernelApiCompile, IntegerArgumentsAreAReadableError) {
  const auto out = compile_error("BAD_INT_ARGS");
  EXPECT_EQ(out.find("COMPILED"), std::string::npos) << out;
  EXPECT_NE(out.find("tessera_launch: args must be a pointer"), std::string::npos) << out;
}

TEST(KernelApiCompile, UnsupportedAtomicTypesAreAReadableError) {
  for (const char* def : {"BAD_ATOMIC_DOUBLE", "BAD_ATOMIC_MIN_FLOAT"}) {
    const auto out = compile_error(def);
    EXPECT_EQ(out.find("COMPILED"), std::string::npos) << def << "\n" << out;
    EXPECT_NE(out.find("atomic*: unsupported element type"), std::string::npos) << def << "\n" << out;
  }
}

TEST(KernelApiCompile, UnsupportedLdgTypeIsAReadableError) {
  const auto out = compile_error("BAD_LDG_STRUCT");
  EXPECT_EQ(out.find("COMPILED"), std::string::npos) << out;
  EXPECT_NE(out.find("__ldg: unsupported element type"), std::string::npos) << out;
}

// compile_types.c, every atomic and __ldg with every integer type, float and
// double, built with -Wall -Wextra -Werror (the build fails otherwise).
TEST(KernelApiCompile, EveryAtomicAndLdgTypeBuildsWithoutWarnings) {
  FILE* f = std::fopen(fw("compile_types").c_str(), "rb");
  EXPECT_NE(f, nullptr);
  if (f) std::fclose(f);
}

// The 64-bit atomics of compile_types.elf are encoded as the contract says
// (custom-1 0x2B): atom.add64 funct3 3 funct7 0, atom.exch64 funct3 3
// funct7 1, atom.cas64 r4 funct3 7 funct2 1; every register pair (rd, rs2,
// rs3 and the next register) lies within x1..x31, rd not x0.
TEST(KernelApiCompile, SixtyFourBitAtomicsUseTheContractEncodings) {
  std::string objdump = RISCV_GCC;
  objdump.replace(objdump.rfind("gcc"), 3, "objdump");
  const std::string dis = command_output(objdump + " -d " + fw("compile_types"));
  const std::regex word(R"(^\s*[0-9a-f]+:\s+([0-9a-f]{8})\s)");
  unsigned add64 = 0, exch64 = 0, cas64 = 0;
  for (const auto& l : lines_of(dis)) {
    std::smatch m;
    if (!std::regex_search(l, m, word)) continue;
    const unsigned long w = std::stoul(m[1], nullptr, 16);
    if ((w & 0x7f) != 0x2b) continue;
    const unsigned f3 = (w >> 12) & 7, rd = (w >> 7) & 31, rs2 = (w >> 20) & 31, rs3 = (w >> 27) & 31;
    if (f3 == 3) {
      const unsigned f7 = (w >> 25) & 0x7f;
      EXPECT_LE(f7, 1u) << l;
      (f7 == 0 ? add64 : exch64)++;
      EXPECT_TRUE(rd != 0 && rd <= 30 && rs2 <= 30) << l;
    } else if (f3 == 7 && ((w >> 25) & 3) == 1) {
      ++cas64;
      EXPECT_TRUE(rd != 0 && rd <= 30 && rs2 <= 30 && rs3 <= 30) << l;
    }
  }
  EXPECT_GT(add64, 0u) << dis;
  EXPECT_GT(exch64, 0u);
  EXPECT_GT(cas64, 0u);
}

namespace {

// Every unsigned counter of a stats subtree by dotted path.
void counters(const nlohmann::json& j, const std::string& prefix, std::map<std::string, uint64_t>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string path = prefix + it.key();
    if (it->is_object()) counters(*it, path + ".", out);
    if (it->is_number_unsigned()) out[path] = it->get<uint64_t>();
  }
}

}  // namespace

// particles_sort launches four kernels one after another inside its region
// of interest. Each launch is recorded in order with its grid, its cycles
// and its share of every counter summed over instances; the shares add up
// to the run's totals (every warp instruction is in some kernel), and the
// kernels follow each other. roi.chip holds every counter's share of the
// region: its SMs' warp instructions are roi.warp_insts, and no counter's
// share exceeds its whole-run value.
TEST(KernelStats, EachLaunchAndTheRegionHaveTheirShare) {
  const std::string stats = temp_path("particles_sort.json");
  const auto r =
      run_tessera({"run", "chip", std::string(PROGRAMS_DIR) + "/particles_sort.elf", "-q", "--stats", stats});
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream in(stats);
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& kernels = j.at("kernels");
  std::vector<std::string> names;
  uint64_t insts = 0, cycles = 0, end = 0;
  for (const auto& k : kernels) {
    names.push_back(k.at("name"));
    EXPECT_EQ(k.at("warp_insts"), k.at("counters").at("sm.warp_insts")) << k.at("name");
    EXPECT_GE(k.at("start_cycle").get<uint64_t>(), end) << k.at("name");
    end = k.at("start_cycle").get<uint64_t>() + k.at("cycles").get<uint64_t>();
    EXPECT_EQ(k.at("counters").at("dispatcher.kernels"), 1) << k.at("name");
    EXPECT_EQ(k.at("grid").size(), 3u);
    insts += k.at("warp_insts").get<uint64_t>();
    cycles += k.at("cycles").get<uint64_t>();
    EXPECT_DOUBLE_EQ(k.at("ipc").get<double>(), k.at("warp_insts").get<double>() / k.at("cycles").get<double>());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"compute_cells", "scan_counts", "scatter", "find_starts"}));
  EXPECT_EQ(insts, j.at("summary").at("warp_insts").get<uint64_t>());
  EXPECT_EQ(cycles, j.at("chip").at("dispatcher").at("kernel_cycles").get<uint64_t>());

  const nlohmann::json& roi = j.at("roi");
  uint64_t roi_insts = 0;
  for (unsigned sm = 0; sm < 4; ++sm)
    roi_insts += roi.at("chip").at("sm" + std::to_string(sm)).at("warp_insts").get<uint64_t>();
  EXPECT_EQ(roi_insts, roi.at("warp_insts").get<uint64_t>());
  std::map<std::string, uint64_t> whole, region;
  counters(j.at("chip"), "", whole);
  counters(roi.at("chip"), "", region);
  ASSERT_GT(region.size(), 100u);
  for (const auto& [path, v] : region) {
    ASSERT_TRUE(whole.count(path)) << path;
    EXPECT_LE(v, whole.at(path)) << path;
  }
  EXPECT_FALSE(roi.at("chip").at("cluster").at("bus").contains("max_grant_wait"));  // a maximum has no share
}
