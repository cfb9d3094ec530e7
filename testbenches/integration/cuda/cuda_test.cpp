// CUDA C++ on Tessera (docs/cuda.md): .cu programs built by tessera-cc run
// with CUDA's semantics in simulated time. The launch converts and copies
// the arguments to the kernel's own parameter list; events are the ends of
// the kernels before them; device properties are the platform's
// parameters; refused launches return CUDA's errors (and stop the run with
// status 4 when unread); bad launches do not compile; the examples of
// firmware/cuda pass their own checks on every platform.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tessera_run.h"

using tessera::test::command_output;
using tessera::test::parse_results;
using tessera::test::run_tessera;
using tessera::test::temp_path;

namespace {

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/cuda_test_" + name + ".elf"; }
std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) v.push_back(item);
  return v;
}

class CudaLaunch : public ::testing::TestWithParam<std::string> {};

}  // namespace

// echo<<<2, 32>>>(65.9, 40000 - 65536, -7.75, -1, 1 << 30, 0.1, 3, value,
// pair, out) into (char, short, int, unsigned, long long, float, double,
// const int*, Pair, Echo*): each argument converted as a C++ call converts
// it; the struct copied at the launch (changed right after it).
TEST_P(CudaLaunch, ArgumentsAreConvertedToTheParameterTypesAndCopiedAtTheLaunch) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("launch_args")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto res = parse_results(r.out);
  EXPECT_EQ(res.at("echo_ints"), (std::vector<long long>{65, -25536, -7, 4294967295LL, 1LL << 30}));
  EXPECT_EQ(res.at("echo_float_bits"), std::vector<long long>{0x3DCCCCCD});  // 0.1f
  EXPECT_EQ(res.at("echo_double_x4"), std::vector<long long>{12});
  EXPECT_EQ(res.at("echo_refs"), (std::vector<long long>{77, -12, 9}));
  EXPECT_EQ(res.at("big_sum"), std::vector<long long>{599 * 600 / 2});
  // scaled<int, 3><<<1, 32>>>(5, ints): 5 * 3 + thread.
  EXPECT_EQ(res.at("template_ints"), (std::vector<long long>{15, 46}));
  // cudaLaunchKernel(scaled<float, 2>, 1, 32, {&1.5f, &floats}): (3 + thread) * 2.
  EXPECT_EQ(res.at("launch_kernel"), (std::vector<long long>{0, 6, 68}));
}

// Event e0 is recorded with the device idle, e1 after spin<<<1, 32>>>, e2
// after spin<<<1, 64>>>, launched while the first runs: e1 -> e2 is exactly
// the interval between the two kernels' ends in the dispatcher's log, and
// e0 -> e1 the first kernel's run plus the host's launch code before it.
TEST_P(CudaLaunch, EventsRecordWhenTheKernelsBeforeThemEnded) {
  const auto r = run_tessera({"--log-level", "info", "run", platform(GetParam()), fw("events")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto res = parse_results(r.out);
  EXPECT_EQ(res.at("events_pending"), std::vector<long long>{1});
  EXPECT_EQ(res.at("events_unrecorded"), std::vector<long long>{400});  // cudaErrorInvalidResourceHandle
  const auto ns = res.at("events_ns");
  ASSERT_EQ(ns.size(), 3u);
  // "[info 100.726 us] dispatcher: kernel 0 done after 80703 cycles"
  const std::regex done(R"(\[info ([0-9]+)\.([0-9]{3}) us\] [a-z_0-9.]+: kernel ([0-9]+) done after ([0-9]+) cycles)");
  std::vector<long long> end_ns, cycles;
  const std::string log = r.out + r.err;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), done); it != std::sregex_iterator(); ++it) {
    end_ns.push_back(std::stoll((*it)[1]) * 1000 + std::stoll((*it)[2]));
    cycles.push_back(std::stoll((*it)[4]));
  }
  ASSERT_EQ(end_ns.size(), 2u) << log;
  EXPECT_EQ(ns[1], end_ns[1] - end_ns[0]);
  EXPECT_EQ(ns[1], cycles[1]);  // queued behind the first: it ran from the first's end (1 GHz)
  EXPECT_EQ(ns[2], ns[0] + ns[1]);
  // e0 was taken before the first kernel started, by the host's launch
  // code (its MMIO accesses to the dispatcher, the first launch's set-up of
  // the printf buffer) and no more.
  EXPECT_GE(ns[0], cycles[0]);
  EXPECT_LT(ns[0], cycles[0] + 5000) << "the host's launch code took more than 5000 cycles";
}

// The refusals the runtime sees before launching come back as CUDA's
// errors: 9 (invalid configuration) for 2048 threads and a zero grid
// dimension, 1 (invalid value) for 1 GiB of dynamic shared memory; reading
// clears, peeking does not; an invalid copy kind is 21.
TEST_P(CudaLaunch, RefusedLaunchesReturnCudaErrors) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("launch_checked")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto res = parse_results(r.out);
  EXPECT_EQ(res.at("too_many_threads"), std::vector<long long>{9});
  EXPECT_EQ(res.at("after_read"), std::vector<long long>{0});
  EXPECT_EQ(res.at("zero_grid"), std::vector<long long>{9});
  EXPECT_EQ(res.at("peek_keeps"), std::vector<long long>{9});
  EXPECT_EQ(res.at("too_much_shared"), std::vector<long long>{1});
  EXPECT_EQ(res.at("good_launch"), (std::vector<long long>{0, 31}));
  EXPECT_EQ(res.at("bad_kind"), std::vector<long long>{21});
  EXPECT_NE(r.out.find("error: cudaErrorInvalidConfiguration: invalid configuration argument"), std::string::npos)
      << r.out;
}

// A refused launch nobody reads would leave its results uncomputed: the
// next runtime call stops the run with status 4 and says why.
TEST_P(CudaLaunch, AnUnreadRefusedLaunchStopsTheRunWithStatus4) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("launch_unchecked")});
  EXPECT_EQ(r.status, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("tessera: cudaMemcpy after a refused kernel launch (more threads per block than the device "
                       "allows"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("not reached"), std::string::npos) << r.out;
}

// assert() in a kernel stops the run as a guest fault (status 3) with the
// file, line, function and expression, and the block and thread that failed.
TEST_P(CudaLaunch, AFailedAssertInAKernelNamesTheLineBlockAndThread) {
  const auto r = run_tessera({"run", platform(GetParam()), fw("assert_kernel")});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("assert_kernel.cu:7: void check(const int*, int): Assertion `v[i] < 100` failed at pc "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(block (1,0,0) warp 0), thread (5,0,0) lane 5"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("not reached"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Platforms, CudaLaunch, ::testing::Values("sm1", "chip"));

// cudaGetDeviceProperties: the SMs' limits, clocks and memories of the
// platform, with parameters set on the command line.
TEST(CudaDevice, PropertiesAreThePlatformsParameters) {
  const auto r =
      run_tessera({"run", platform("chip_hbm"), fw("device_props"), "--set", "sm.max_threads_per_block=512", "--set",
                   "sm.shared_bytes=32768", "--set", "l2.size_kb=1024", "--set", "dram.spec=hbm2e"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto res = parse_results(r.out);
  EXPECT_EQ(res.at("device"), (std::vector<long long>{1, 0}));
  const auto sm = res.at("sm");  // SMs, warp, threads per block, per SM, blocks per SM
  ASSERT_EQ(sm.size(), 5u);
  EXPECT_EQ(sm[0], 4);
  EXPECT_EQ(sm[1], 32);
  EXPECT_EQ(sm[2], 512);
  const auto mem = res.at("memory");  // shared per block, registers per SM, global MiB, L2 bytes
  ASSERT_EQ(mem.size(), 4u);
  EXPECT_EQ(mem[0], 32768);
  EXPECT_EQ(mem[3], 1024 * 1024);
  // SM clock 1 GHz; HBM2E: CK 1.6 GHz, 8 channels x 2 pseudo channels x 64 bits (JESD235).
  EXPECT_EQ(res.at("clocks"), (std::vector<long long>{1000000, 1600000, 1024}));
  EXPECT_EQ(res.at("cc"), (std::vector<long long>{5, 2}));
  EXPECT_EQ(res.at("attr_sms"), std::vector<long long>{4});
  EXPECT_EQ(res.at("bad_device"), (std::vector<long long>{101, 101}));  // cudaErrorInvalidDevice
}

// One warp reads a 64-word __constant__ table 100 times, its lanes asking
// for 1, 2, 8 or 32 distinct words per load: the constant cache serves one
// address per cycle, so each load adds distinct - 1 cycles; the table's 8
// sectors are fetched once and then hit.
TEST(CudaConstant, DistinctAddressesInAWarpAreSerialised) {
  std::vector<long long> cycles;
  for (const int distinct : {1, 2, 8, 32}) {
    const std::string stats = temp_path("const_cache_" + std::to_string(distinct) + ".json");
    const auto r =
        run_tessera({"run", "--stats", stats, platform("sm1"), fw("const_cache"), "--", std::to_string(distinct)});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(parse_results(r.out).at("const_wrong"), std::vector<long long>{0});
    const auto json = nlohmann::json::parse(tessera::test::read_file(stats));
    const auto& sm = json.at("chip").at("sm0");
    EXPECT_EQ(sm.at("const_warp_loads").get<long long>(), 100) << distinct;
    EXPECT_EQ(sm.at("const_serialized_cycles").get<long long>(), 100LL * (distinct - 1)) << distinct;
    EXPECT_EQ(sm.at("const_cache0").at("miss_sectors").get<long long>(), 8) << distinct;
    cycles.push_back(json.at("chip").at("dispatcher").at("kernel_cycles").get<long long>());
  }
  // More distinct addresses never make the kernel faster.
  for (size_t i = 1; i < cycles.size(); ++i) EXPECT_GT(cycles[i], cycles[i - 1]);
}

// One warp's FP64 loop (fp64_rate.cu): 100 more iterations of 8 fadd.d cost
// 800 more FP64 warp instructions, and cycles by the rule of
// docs/architecture.md: a warp instruction holds the partition's FP64 unit
// 32 / sm.fp64_lanes cycles; a dependent one waits sm.fp64_latency.
TEST(CudaFp64, IssueRateAndLatencyAreTheParameters) {
  const auto run = [](const std::string& mode, int iters, const std::vector<std::string>& sets) {
    const std::string stats = temp_path("fp64_rate.json");
    std::vector<std::string> args{"run", "--stats", stats, platform("sm1"), fw("fp64_rate")};
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    args.insert(args.end(), {"--", mode, std::to_string(iters)});
    const auto r = run_tessera(args);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(parse_results(r.out).at("fp64_wrong"), std::vector<long long>{0});
    const auto json = nlohmann::json::parse(tessera::test::read_file(stats));
    return std::make_pair(json.at("chip").at("dispatcher").at("kernel_cycles").get<long long>(),
                          json.at("chip").at("sm0").at("fp64_warp_insts").get<long long>());
  };
  struct Case {
    std::string mode;
    std::vector<std::string> sets;
    long long extra_cycles;
  };
  const std::vector<Case> cases = {
      {"independent", {}, 100 * 8 * 32},                  // Maxwell's 1/32: one FP64 lane per partition
      {"independent", {"sm.fp64_lanes=4"}, 100 * 8 * 8},  // occupancy 32 / 4
      {"dependent", {}, 100 * 8 * 32},                    // occupancy 32 > latency 8
      {"dependent", {"sm.fp64_lanes=32"}, 100 * 8 * 8},   // full rate: the latency, 8
      {"dependent", {"sm.fp64_lanes=32", "sm.fp64_latency=20"}, 100 * 8 * 20},
  };
  for (const Case& c : cases) {
    const auto a = run(c.mode, 100, c.sets), b = run(c.mode, 200, c.sets);
    const std::string what = c.mode + (c.sets.empty() ? "" : " " + c.sets.back());
    EXPECT_EQ(b.second - a.second, 800) << what;
    EXPECT_EQ(b.first - a.first, c.extra_cycles) << what;
  }
}

// The _rn/_rz/_ru/_rd intrinsics (rounding.cu), in a kernel and on a control
// core: the IEEE results, worked out by hand in the comments.
TEST(CudaRounding, EveryModeRoundsAsIeeeSays) {
  const auto r = run_tessera({"run", platform("sm1"), fw("rounding")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::vector<long long> want = {
      0x3F800000,  // __fadd_rn(1, 2^-24): the tie goes to even, 1
      0x3F800001,  // __fadd_ru: 1 + 2^-23
      0x3F800000,  // __fadd_rz
      0xBF800001,  // __fadd_rd(-1, -2^-24): -(1 + 2^-23)
      0x3EAAAAAB,  // __fdiv_rn(1, 3)
      0x3EAAAAAA,  // __fdiv_rz(1, 3)
      0x3EAAAAAA,  // __frcp_rz(3)
      0x3FB504F4,  // __fsqrt_ru(2): sqrt 2 lies above 0x3FB504F3
      0x3FB504F3,  // __fsqrt_rz(2)
      0xFFFFFFFF,  // __float2int_rd(-0.5): -1
      0x4B800000,  // __int2float_rz(2^24 + 1): 2^24
      0x4B800001,  // __int2float_ru(2^24 + 1): 2^24 + 2
      0x55555555,  // __ddiv_rz(1, 3) = 0x3FD5555555555555, low word
      0x3FD55555,  //   high word
      0x55555556,  // __ddiv_ru(1, 3) = 0x3FD5555555555556
      0x3FD55555,  //
      2,           // __double2int_rn(2.5): to even
      3,           // __double2int_ru(2.5)
      0xFFFFFFFD,  // __double2int_rd(-2.5): -3
      0xFFFFFFFE,  // __double2int_rz(-2.5): -2
      0x3EAAAAAB,  // __double2float_ru(1/3)
      0x3EAAAAAA,  // __double2float_rz(1/3)
      0xFFFFFFFE,  // __fma_rd(1 + 2^-52, 1 - 2^-53, -1) = 2^-53 - 2^-105 exactly:
      0x3C9FFFFF,  //   2^-54 * (2 - 2^-51), 0x3C9FFFFFFFFFFFFE (unfused it would be 0)
  };
  const auto res = parse_results(r.out);
  EXPECT_EQ(res.at("rounding_device"), want);
  EXPECT_EQ(res.at("rounding_host"), want);
}

// ---- compile errors ----------------------------------------------------------

namespace {

// tessera-cc on one source (with one -D case); the compiler's output, with
// COMPILED appended when it succeeded.
std::string compile(const std::string& source, const std::string& def = "", const std::string& options = "") {
  const std::string elf = temp_path("cuda_compile.elf");
  const std::string cmd = std::string("TESSERA_CC=") + RISCV_GCC + " " + TESSERA_CC_PATH + " " +
                          (def.empty() ? "" : "-D" + def + " ") + options + " " + SRC_DIR + "/" + source + " -o " +
                          elf + " 2>&1 && echo COMPILED";
  const std::string out = command_output(cmd);
  std::remove(elf.c_str());
  return out;
}

}  // namespace

TEST(CudaCompile, BadLaunchesAreCompileErrorsThatSayWhy) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"BAD_COUNT", "kernel launch: the number of arguments differs from the kernel's parameter list"},
      {"BAD_TYPE", "cannot convert 'int*' to 'float*'"},
      {"BAD_NOT_COPYABLE", "kernel launch: every kernel parameter must be trivially copyable"},
      {"BAD_TOO_BIG", "kernel launch: the kernel's parameters are larger than CUDA's 4096-byte limit"},
      {"BAD_GRID_GROUP", "grid-wide groups (cooperative launches) are not supported on Tessera"},
  };
  for (const auto& [def, message] : cases) {
    const auto out = compile("compile_errors.cu", def);
    EXPECT_EQ(out.find("COMPILED"), std::string::npos) << def << "\n" << out;
    EXPECT_NE(out.find(message), std::string::npos) << def << "\n" << out;
  }
}

TEST(CudaCompile, AnUnclosedLaunchNamesItsLine) {
  const auto out = compile("unclosed_launch.cu");
  EXPECT_EQ(out.find("COMPILED"), std::string::npos) << out;
  EXPECT_NE(out.find("unclosed_launch.cu:5: a kernel launch <<< has no matching >>>"), std::string::npos) << out;
}

TEST(CudaCompile, AMissingCxxLibraryHeaderIsExplained) {
  const auto out = compile("compile_errors.cu", "BAD_STD_HEADER");
  EXPECT_EQ(out.find("COMPILED"), std::string::npos) << out;
  EXPECT_NE(out.find("compile_errors.cu:3:10: fatal error: vector: No such file or directory"), std::string::npos)
      << out;
  EXPECT_NE(out.find("tessera-cc: the RISC-V toolchain has no C++ standard library"), std::string::npos) << out;
}

// The C++ names of the kernels in tessera-cc -v (and the kernel record).
TEST(CudaCompile, KernelRecordsNameKernelsAsWritten) {
  const auto out = compile("launch_args.cu", "", "-v");
  EXPECT_NE(out.find("COMPILED"), std::string::npos) << out;
  for (const char* name : {"kernel 'echo(char, short, int, unsigned int, long long, float, double, int const*, "
                           "Pair, Echo*)': ",
                           "kernel 'void scaled<int, 3>(int, int*)': ", "kernel 'sum_big(Big, int, long long*)': "})
    EXPECT_NE(out.find(name), std::string::npos) << name << "\n" << out;
}

// tessera-cc -v counts each kernel's FP64 instructions; binutils' disassembly
// of the kernel (a leaf) gives the same count.
TEST(CudaCompile, VerboseCountsEachKernelsFp64Instructions) {
  const std::string elf = temp_path("fp64_count.elf");
  const std::string out = command_output(std::string("TESSERA_CC=") + RISCV_GCC + " " + TESSERA_CC_PATH + " -v " +
                                         SRC_DIR + "/fp64_rate.cu -o " + elf + " 2>&1");
  std::string objdump = RISCV_GCC;
  objdump.replace(objdump.rfind("gcc"), 3, "objdump");
  const std::string dis = command_output(objdump + " -d -M no-aliases --no-show-raw-insn " + elf);
  std::remove(elf.c_str());
  const auto begin = dis.find("<_Z9dependentiPd>:\n");
  ASSERT_NE(begin, std::string::npos) << dis;
  // To the next function's symbol (local labels, <.L5>, are part of the body).
  std::smatch next;
  const std::string rest = dis.substr(begin + 1);
  const bool found = std::regex_search(rest, next, std::regex(R"(\n[0-9a-f]{8} <[^.])"));
  const std::string body = dis.substr(begin, found ? next.position(0) + 1 : std::string::npos);
  const std::regex d_insn(R"(\t(fld|fsd|f[a-z.]+\.d|fcvt\.d\.[a-z]+)\t)");
  const auto count = std::distance(std::sregex_iterator(body.begin(), body.end(), d_insn), std::sregex_iterator());
  EXPECT_GE(count, 8) << body;  // the loop's 8 fadd.d at least
  const std::string line = "kernel 'dependent(int, double*)': ";
  const auto at = out.find(line);
  ASSERT_NE(at, std::string::npos) << out;
  const std::string described = out.substr(at, out.find('\n', at) - at);
  EXPECT_NE(described.find(", " + std::to_string(count) + " FP64 instructions"), std::string::npos) << described << "\n"
                                                                                                    << body;
}

// A float kernel with an unsuffixed double constant: -v shows its FP64
// instructions, GCC's -Wdouble-promotion names the line on request, and
// -fsingle-precision-constant keeps it in float.
TEST(CudaCompile, DoublePromotionIsNamedOnRequest) {
  const auto out = compile("promotion.cu", "", "-v -Wdouble-promotion");
  EXPECT_NE(out.find("COMPILED"), std::string::npos) << out;
  EXPECT_NE(out.find("promotion.cu:7:26: warning: implicit conversion from 'float' to 'double' to match other operand "
                     "of binary expression [-Wdouble-promotion]"),
            std::string::npos)
      << out;
  const std::regex with_fp64(R"(kernel 'scale\(float\*, int\)': [^\n]*, [1-9][0-9]* FP64 instructions\n)");
  EXPECT_TRUE(std::regex_search(out, with_fp64)) << out;
  const auto single = compile("promotion.cu", "", "-v -fsingle-precision-constant");
  EXPECT_NE(single.find("kernel 'scale(float*, int)': "), std::string::npos) << single;
  EXPECT_EQ(single.find("FP64"), std::string::npos) << single;
}

// ---- the examples ------------------------------------------------------------

namespace {

class CudaExamples : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

std::string example_name(const ::testing::TestParamInfo<CudaExamples::ParamType>& info) {
  return std::get<0>(info.param) + "_on_" + std::get<1>(info.param);
}

}  // namespace

// Each example checks its result against a host computation and exits 0
// only when every value matches.
TEST_P(CudaExamples, PassTheirOwnCheck) {
  const auto& [name, on] = GetParam();
  const auto r = run_tessera({"run", platform(on), std::string(EXAMPLES_DIR) + "/cuda_" + name + ".elf"}, 300);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(name + " "), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(EveryPlatform, CudaExamples,
                         ::testing::Combine(::testing::ValuesIn(split(EXAMPLES, ',')),
                                            ::testing::Values("sm1", "chip", "chip52", "chip_hbm", "chip_noc",
                                                              "chip_hetero")),
                         example_name);
