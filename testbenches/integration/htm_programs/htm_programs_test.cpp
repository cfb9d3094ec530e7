// The transactional-memory programs (firmware/cluster/htm_*.c, htm_bench.h)
// on the chip platform, and the study script tools/htm-study.
//
// HtmPrograms.* and HtmProgramCores.* run the full builds (htm_*.elf: the
// coarse-lock, fine-lock and transactional variants) and expect the tx
// variant's lines with commits + fallbacks == ops; HtmStudy.RunsATinyStudy...
// runs them on the four corners. HtmProgramBuilds.* checks that the lock-only
// builds (htm_*_locks.elf, -DHTM_NO_TX) hold no transactional instruction.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tessera_run.h"

using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::RunResult;
using tessera::test::temp_path;

namespace {

constexpr bool kLockOnly = false;  // see the top of this file

std::string elf(const std::string& program, bool lock_only = kLockOnly) {
  return std::string(HTM_FW_DIR) + "/htm_" + program + (lock_only ? "_locks" : "") + ".elf";
}
std::string chip() { return std::string(PLATFORM_DIR) + "/chip.yaml"; }

RunResult run(const std::string& program, unsigned cores) {
  return run_tessera({"run", chip(), elf(program), "-q", "--max-cycles", "50000000", "--set",
                      "cluster.cores=" + std::to_string(cores)});
}

// One `RESULT htm PROGRAM variant V cores N key value ...` line.
struct HtmResult {
  std::string program, variant;
  std::map<std::string, long long> values;  // cores, cycles, ops, ..., aborts_<reason>
};

std::vector<HtmResult> htm_results(const std::string& out) {
  std::vector<HtmResult> results;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string tag, kind;
    HtmResult r;
    if (!(in >> tag >> kind >> r.program) || tag != "RESULT" || kind != "htm") continue;
    for (std::string key, value; in >> key >> value;) {
      if (key == "variant")
        r.variant = value;
      else
        r.values[key] = std::stoll(value);
    }
    results.push_back(r);
  }
  return results;
}

struct ProgramCase {
  std::string program;               // htm_<program>.c
  std::vector<std::string> reports;  // the program names its RESULT lines carry
  long long ops;                     // operations per run (the program's defaults)
};

// The operations each program's run does, whatever the core count (the
// cores share them): TRANSFERS, OPS, ELEMENTS, KEYS of the sources.
const std::vector<ProgramCase> kPrograms = {
    {"bank", {"bank"}, 256},
    {"hashmap", {"hashmap"}, 256},
    {"histogram", {"histogram_uniform", "histogram_skewed"}, 512},
    {"list", {"list"}, 128},
};

// The parameter's name in test output.
void PrintTo(const ProgramCase& c, std::ostream* os) { *os << c.program; }

class HtmPrograms : public ::testing::TestWithParam<ProgramCase> {};

// On 4 cores every program runs 1, 2 and 4 cores in each variant, checks its
// result (PASS, exit status 0) and prints one RESULT line per run: the lock
// variants count no transaction.
TEST_P(HtmPrograms, EveryVariantPassesAndReportsOn1To4Cores) {
  const ProgramCase& c = GetParam();
  const auto r = run(c.program, 4);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS htm"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;

  const std::vector<std::string> variants =
      kLockOnly ? std::vector<std::string>{"coarse", "fine"} : std::vector<std::string>{"coarse", "fine", "tx"};
  std::set<std::tuple<std::string, std::string, long long>> expected, seen;
  for (const auto& report : c.reports)
    for (const auto& v : variants)
      for (long long cores : {1, 2, 4}) expected.insert({report, v, cores});
  for (const auto& res : htm_results(r.out)) {
    const auto key = std::make_tuple(res.program, res.variant, res.values.count("cores") ? res.values.at("cores") : -1);
    EXPECT_TRUE(seen.insert(key).second) << "twice: " << res.program << " " << res.variant;
    for (const char* field : {"cycles", "ops", "commits", "aborts", "fallbacks", "bus_txn"})
      ASSERT_EQ(res.values.count(field), 1u) << field << " missing in\n" << r.out;
    EXPECT_GT(res.values.at("cycles"), 0);
    EXPECT_EQ(res.values.at("ops"), c.ops);
    if (res.variant != "tx") {
      EXPECT_EQ(res.values.at("commits"), 0);
      EXPECT_EQ(res.values.at("aborts"), 0);
      EXPECT_EQ(res.values.at("fallbacks"), 0);
      EXPECT_EQ(res.values.size(), 7u) << "a lock variant lists no abort reason";
    } else {
      // Every operation ends once: committed, or run under the fallback lock.
      EXPECT_EQ(res.values.at("commits") + res.values.at("fallbacks"), c.ops);
    }
  }
  EXPECT_EQ(seen, expected) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Programs, HtmPrograms, ::testing::ValuesIn(kPrograms),
                         [](const ::testing::TestParamInfo<ProgramCase>& p) { return p.param.program; });

std::set<long long> core_counts(const std::string& out) {
  std::set<long long> cores;
  for (const auto& res : htm_results(out)) cores.insert(res.values.at("cores"));
  return cores;
}

// The core counts are the powers of two up to cluster.cores (and 8).
TEST(HtmProgramCores, PowersOfTwoUpToTheClusterSize) {
  const auto three = run("bank", 3);
  ASSERT_EQ(three.status, 0) << three.out << three.err;
  EXPECT_EQ(core_counts(three.out), (std::set<long long>{1, 2}));
  const auto eight = run("bank", 8);
  ASSERT_EQ(eight.status, 0) << eight.out << eight.err;
  EXPECT_EQ(core_counts(eight.out), (std::set<long long>{1, 2, 4, 8}));
}

// Words whose major opcode (bits 6:0) is custom-3 (0x7B, the tx.*
// instructions) in the program's disassembly.
int custom3_words(const std::string& path) {
  const std::string dis = tessera::test::command_output(std::string(RISCV_OBJDUMP) + " -d " + path);
  std::istringstream lines(dis);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string addr, word;
    if (!(in >> addr >> word) || addr.empty() || addr.back() != ':' || word.size() != 8) continue;
    if (word.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    if ((std::stoul(word, nullptr, 16) & 0x7Fu) == 0x7Bu) ++n;
  }
  return n;
}

// -DHTM_NO_TX leaves every transactional instruction out (the lock-only
// builds run without HTM); the full builds have them.
TEST(HtmProgramBuilds, LockOnlyBuildsHaveNoTransactionalInstruction) {
  for (const auto& c : kPrograms) {
    EXPECT_EQ(custom3_words(elf(c.program, true)), 0) << c.program;
    EXPECT_GT(custom3_words(elf(c.program, false)), 0) << c.program;
  }
}

// ---- tools/htm-study --------------------------------------------------------

struct Command {
  int status = -1;
  std::string out;
};

Command shell(const std::string& cmd) {
  const std::string out_path = temp_path("htm_study_out.txt");
  const int rc = std::system((cmd + " >" + out_path + " 2>&1").c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, read_file(out_path)};
}

std::string study(const std::string& args) { return std::string(HTM_STUDY) + " --tessera " + TESSERA_BIN + " " + args; }

bool is_png(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char magic[8] = {};
  f.read(magic, 8);
  return f.gcount() == 8 && std::string(magic + 1, 3) == "PNG";
}

TEST(HtmStudy, HelpNamesEveryOption) {
  const auto r = shell(std::string(HTM_STUDY) + " --help");
  EXPECT_EQ(r.status, 0) << r.out;
  for (const char* opt :
       {"--tessera", "--firmware-dir", "--out", "--jobs", "--programs", "--cores", "--corners", "--lock-only"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt << " not in\n" << r.out;
}

// Two programs on a 2-core cluster: each reports every variant on 1 and 2
// cores; the tables, plots and results.json are written.
TEST(HtmStudy, RunsATinyStudyAndWritesTablesPlotsAndJson) {
  const std::string out = temp_path("htm_study");
  const auto r =
      shell(study("--firmware-dir " + std::string(HTM_FW_DIR) + " --out " + out +
                  " -j 2 --programs bank,histogram --cores 2" + (kLockOnly ? " --corners none --lock-only" : "")));
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(read_file(out + "/results.json"));
  const size_t corners = kLockOnly ? 1 : 4, variants = kLockOnly ? 2 : 3;
  ASSERT_EQ(j["runs"].size(), 2 * corners);
  for (const auto& run : j["runs"]) {
    EXPECT_TRUE(run["error"].is_null()) << run.dump();
    EXPECT_EQ(run["status"], 0);
    EXPECT_GT(run["bus_stats"].value("BusRd", 0), 0) << "the bus statistics were read";
  }
  std::map<std::string, size_t> per_program;
  for (const auto& res : j["results"]) {
    ++per_program[res["program"].get<std::string>()];
    if (res["variant"] == "coarse" && res["cores"] == 1) {
      EXPECT_EQ(res["speedup"], 1.0);
    }
  }
  const size_t runs_per_report = corners * variants * 2;  // 1 and 2 cores
  EXPECT_EQ(per_program, (std::map<std::string, size_t>{{"bank", runs_per_report},
                                                        {"histogram_skewed", runs_per_report},
                                                        {"histogram_uniform", runs_per_report}}));
  for (const char* table : {"bank", "histogram_uniform", "histogram_skewed"}) {
    const std::string md = read_file(out + "/" + table + ".md");
    EXPECT_NE(md.find("| coarse | 1 | "), std::string::npos) << md;
    EXPECT_NE(md.find("| fine | 2 | "), std::string::npos) << md;
    EXPECT_TRUE(is_png(out + "/" + table + "_speedup.png")) << table;
  }
  EXPECT_EQ(read_file(out + "/index.md").find("Failed"), std::string::npos);
  shell("rm -rf " + out);
}

// A run that fails is reported with its command and error; the others still
// run and are written, and the study's exit status is 1.
TEST(HtmStudy, AFailedRunIsReportedAndTheOthersGoOn) {
  const std::string fw = temp_path("htm_study_fw"), out = temp_path("htm_study_fail");
  ASSERT_EQ(shell("mkdir -p " + fw + " && cp " + elf("bank", true) + " " + fw + "/").status, 0);
  const auto r = shell(study("--firmware-dir " + fw + " --out " + out +
                             " -j 2 --programs bank,list --cores 2 --corners none --lock-only"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("list (none): FAILED"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(out + "/results.json"));
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["program"], "bank");
  EXPECT_TRUE(j["runs"][0]["error"].is_null());
  EXPECT_EQ(j["runs"][1]["program"], "list");
  EXPECT_NE(j["runs"][1]["error"].get<std::string>().find("no firmware"), std::string::npos);
  EXPECT_EQ(j["results"].size(), 4u);  // bank: coarse and fine on 1 and 2 cores
  const std::string index = read_file(out + "/index.md");
  EXPECT_NE(index.find("## Failed runs"), std::string::npos) << index;
  EXPECT_NE(index.find("htm_list_locks.elf"), std::string::npos) << "the command is shown\n" << index;
  shell("rm -rf " + out + " " + fw);
}

}  // namespace
