// Kernel resources from the compiled code: the kernel record decides
// occupancy and the static shared window, extern __shared__ works, launches
// over a kernel's record or __launch_bounds__ are refused naming the kernel,
// tessera-cc -v prints the record, and programs build with -c and ar.
// Expected figures are derived by hand in the firmware's comments.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tessera_run.h"

namespace {

using tessera::test::command_output;
using tessera::test::parse_results;
using tessera::test::run_tessera;
using tessera::test::RunResult;
namespace fs = std::filesystem;

std::string elf(const std::string& name) { return std::string(KR_DIR) + "/" + name + ".elf"; }

// A shell command's stdout and stderr, then "rc=N".
std::string shell(const std::string& cmd) { return command_output("{ " + cmd + "; } 2>&1; echo rc=$?"); }

std::string tessera_cc() {
  return std::string("TESSERA_CC=") + KR_RISCV_GCC + " TESSERA_KINFO=" + KR_KINFO + " " + KR_TESSERA_CC;
}

long long result(const RunResult& r, const std::string& name) {
  const auto results = parse_results(r.out);
  const auto it = results.find(name);
  if (it == results.end() || it->second.empty()) {
    ADD_FAILURE() << "no RESULT " << name << " in:\n" << r.out << r.err;
    return -1;
  }
  return it->second[0];
}

TEST(KernelResources, OccupancyFollowsEachKernelsRecord) {
  const RunResult r = run_tessera({"run", "sm1", elf("kr_occupancy")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(result(r, "big_shared"), 1);   // 40 KiB of a 64 KiB SM
  EXPECT_EQ(result(r, "no_shared"), 8);    // the whole grid: the 40 KiB is not charged
  EXPECT_EQ(result(r, "via_pointer"), 8);  // 64 registers x 128 threads: 8 blocks
  EXPECT_EQ(result(r, "bounded"), 16);     // __launch_bounds__(128, 16): 32 registers, 16 blocks
}

TEST(KernelResources, WithoutTheRecordEveryKernelIsChargedAllSharedAndDefaultRegisters) {
  const std::string stripped = tessera::test::temp_path("kr_occupancy_no_record.elf");
  ASSERT_NE(
      shell(std::string(KR_OBJCOPY) + " --remove-section .tessera.kernels " + elf("kr_occupancy") + " " + stripped)
          .find("rc=0"),
      std::string::npos);
  const RunResult r = run_tessera({"run", "sm1", stripped});
  fs::remove(stripped);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(result(r, "big_shared"), 1);
  EXPECT_EQ(result(r, "no_shared"), 1);    // charged all 40 KiB of .shared
  EXPECT_EQ(result(r, "via_pointer"), 1);  // likewise
  EXPECT_EQ(result(r, "bounded"), 1);
}

TEST(KernelResources, ExternSharedWorksOnSm1AndChip) {
  for (const char* platform : {"sm1", "chip"}) {
    const RunResult r = run_tessera({"run", platform, elf("kr_dynamic_shared")});
    EXPECT_EQ(r.status, 0) << platform << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("PASS dynamic shared: 2 kernels x 4 blocks x 64 threads checked"), std::string::npos)
        << platform << "\n"
        << r.out;
  }
}

TEST(KernelResources, LaunchOverTheSmsRegistersIsRefusedNamingTheKernel) {
  const RunResult r = run_tessera({"run", "sm1", elf("kr_refused_regs"), "--set", "sm.registers=32768"});
  EXPECT_EQ(r.status, 4) << r.out << r.err;  // bad kernel launch
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("bad kernel launch (kernel 'fat_kernel' at 0x"), std::string::npos) << all;
  EXPECT_NE(all.find("its record charges 64 registers per thread; x 1024 threads that is 65536 registers; an SM "
                     "has sm.registers=32768"),
            std::string::npos)
      << all;
}

TEST(KernelResources, LaunchOverLaunchBoundsIsRefusedNamingTheKernel) {
  const RunResult r = run_tessera({"run", "sm1", elf("kr_refused_bounds")});
  EXPECT_EQ(r.status, 4) << r.out << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("bad kernel launch (kernel 'small_blocks' at 0x"), std::string::npos) << all;
  EXPECT_NE(all.find("block (256,1,1) has 256 threads; the kernel's __launch_bounds__ allows 128"), std::string::npos)
      << all;
}

TEST(KernelResources, VerbosePrintsEveryKernelLikePtxas) {
  const std::string out_elf = tessera::test::temp_path("kr_verbose.elf");
  const std::string text = shell("cd " + fs::path(out_elf).parent_path().string() + " && " + tessera_cc() + " -v " +
                                 KR_HAND_KERNELS_S + " -o " + out_elf);
  fs::remove(out_elf);
  // Counted from kernel_record_kernels.S.
  for (const char* line : {
           "kernel 'leaf_k': 6 registers, 0 bytes static shared, 0 bytes stack\n",
           "kernel 'caller_k': 8 registers, 160 bytes static shared, 48 bytes stack\n",
           "kernel 'tail_k': 7 registers, 32 bytes static shared, 16 bytes stack\n",
           "kernel 'indirect_k': 64 registers, 0 bytes static shared, 16 bytes stack\n",
           "  note: 'indirect_k' makes an indirect call at 0x",
           "kernel 'bounded_k': 1 registers, 0 bytes static shared, 0 bytes stack, __launch_bounds__(1024, 2)\n",
           "kernel 'maxrreg_k': 4 registers, 0 bytes static shared, 0 bytes stack, maxrreg 4\n",
           "kernel 'recursive_k': 3 registers, 0 bytes static shared, 16 bytes stack\n",
           "kernel 'big_frame_k': 3 registers, 0 bytes static shared, 8192 bytes stack\n",
           "kernel 'jr_k': 64 registers, 0 bytes static shared, 0 bytes stack\n",
           "kernel 'switch_k': 3 registers, 0 bytes static shared, 0 bytes stack\n",
           "rc=0",
       })
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "\nin:\n" << text;
}

TEST(KernelResources, ProgramFromObjectsAndAStaticLibraryRunsOnSm1) {
  const fs::path dir = tessera::test::temp_path("kr_lib");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string src = std::string(KR_SOURCE_DIR) + "/lib/";
  const std::string cc = tessera_cc();
  const std::string build = "cd " + dir.string() + " && " + cc + " -Werror -c " + src + "main.c " + src +
                            "kernel.c && " + cc + " -Werror -c " + src + "scale.c -o scale.o && " + KR_AR +
                            " rcs libscale.a scale.o && " + cc + " -v main.o kernel.o libscale.a -o prog.elf";
  const std::string text = shell(build);
  ASSERT_NE(text.find("rc=0"), std::string::npos) << text;
  // The kernel's call graph reaches scale_plus_one in the library.
  EXPECT_NE(text.find("kernel 'scale_kernel': "), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(dir / "main.o") && fs::exists(dir / "kernel.o") && fs::exists(dir / "libscale.a"));
  const RunResult r = run_tessera({"run", "sm1", (dir / "prog.elf").string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS library kernel: 256 elements of 3x+1"), std::string::npos) << r.out;
  // -S writes assembly and -E preprocessed source.
  const std::string more = shell("cd " + dir.string() + " && " + cc + " -S " + src + "scale.c && " + cc + " -E " + src +
                                 "scale.c -o scale.i && grep -c scale_plus_one scale.s scale.i");
  EXPECT_NE(more.find("scale.s:"), std::string::npos) << more;
  EXPECT_NE(more.find("scale.i:"), std::string::npos) << more;
  EXPECT_NE(more.find("rc=0"), std::string::npos) << more;
  fs::remove_all(dir);
}

TEST(KernelResources, ExternSharedDiagnosticsNameTheUsersFile) {
  const fs::path dir = tessera::test::temp_path("kr_diag");
  fs::create_directories(dir);
  const fs::path src = dir / "oops.c";
  {
    std::ofstream f(src);
    f << "#include <tessera.h>\n"
         "extern __shared__ float s[];\n"
         "__global__ void k(void *a) { s[0] = undeclared; (void)a; }\n";
  }
  const std::string text = shell("cd " + dir.string() + " && " + tessera_cc() + " -c " + src.string());
  fs::remove_all(dir);
  EXPECT_NE(text.find(src.string() + ":3:"), std::string::npos) << text;
  EXPECT_NE(text.find("undeclared"), std::string::npos) << text;
  EXPECT_EQ(text.find("rc=0"), std::string::npos) << text;
}

}  // namespace
