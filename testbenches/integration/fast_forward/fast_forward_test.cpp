// `tessera run --fast-forward`, --checkpoint-out and --restore
// (docs/fast-forward.md), on sgemm, histogram and conv1d (chip) and the
// programs of this directory:
//   StateExact: the checkpoint of a --fast-forward run and of a full
//     detailed run hold the same registers and memory (decoded, not the
//     header), also when other cores ran before the switch (ff_cores) and
//     when the switch is a launch (kernel_printf: the dispatcher registers
//     written before it are in the checkpoint).
//   DetailedPartIdentical: a --fast-forward run and a --restore run from
//     the detailed run's checkpoint have the same statistics (chip.*, roi.*,
//     summary.*, host times and the fast_forward node aside), exit status
//     and console output after the switch.
//   FewerDetailedInstructions: full = fast-forward + detailed, exactly.
//   ProgramEnd, MaxCycles, GuestFault, BadCheckpoints: the edges.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cpu/checkpoint.h"
#include "sim/config.h"
#include "tessera_run.h"
#include "test_scratch.h"

namespace {

using tessera::test::run_tessera;
using tessera::test::RunResult;
using tessera::test::temp_path;

const std::string kFw = FW_DIR, kFfFw = FF_FW_DIR;

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, nlohmann::json>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else {
    out[prefix] = j;
  }
}

// chip.*, roi.* and summary.* of a stats file, without host times and the
// fast-forward counters (which only a --fast-forward run has non-zero).
std::map<std::string, nlohmann::json> detailed_stats(const std::string& path) {
  const nlohmann::json j = read_json(path);
  std::map<std::string, nlohmann::json> all, out;
  for (const char* top : {"chip", "roi", "summary"})
    if (j.contains(top)) flatten(j[top], top, all);
  for (auto& [k, v] : all) {
    if (k.find("host") != std::string::npos || k.find(".fast_forward.") != std::string::npos) continue;
    out[k] = v;
  }
  return out;
}

struct FfRun {
  RunResult r;
  std::string stats, ckpt;
};

FfRun run(const std::string& elf, const std::string& tag, std::vector<std::string> extra, bool checkpoint = true) {
  FfRun out;
  out.stats = temp_path(tag + ".json");
  out.ckpt = temp_path(tag + ".ckpt");
  std::vector<std::string> args = {"run", "chip", elf, "--stats", out.stats};
  if (checkpoint) {
    args.push_back("--checkpoint-out");
    args.push_back(out.ckpt);
  }
  args.insert(args.end(), extra.begin(), extra.end());
  out.r = run_tessera(args, 240);
  return out;
}

void expect_same_state(const tessera::cpu::Checkpoint& a, const tessera::cpu::Checkpoint& b, const std::string& what) {
  ASSERT_EQ(a.cluster.harts.size(), b.cluster.harts.size()) << what;
  for (size_t h = 0; h < a.cluster.harts.size(); ++h) {
    const auto &x = a.cluster.harts[h], &y = b.cluster.harts[h];
    EXPECT_EQ(x.mode, y.mode) << what << " core" << h;
    EXPECT_EQ(x.state.pc, y.state.pc) << what << " core" << h;
    EXPECT_EQ(x.state.fcsr, y.state.fcsr) << what << " core" << h;
    for (int r = 0; r < 32; ++r) {
      EXPECT_EQ(x.state.x[r], y.state.x[r]) << what << " core" << h << " x" << r;
      EXPECT_EQ(x.state.fd(r), y.state.fd(r)) << what << " core" << h << " f" << r;
    }
    EXPECT_EQ(x.tx_log_base, y.tx_log_base) << what;
    EXPECT_EQ(x.tx_log_size, y.tx_log_size) << what;
  }
  EXPECT_EQ(a.cluster.start_pc, b.cluster.start_pc) << what;
  EXPECT_EQ(a.cluster.start_arg, b.cluster.start_arg) << what;
  EXPECT_EQ(a.cluster.start_fn, b.cluster.start_fn) << what;
  EXPECT_EQ(a.cluster.start_sp, b.cluster.start_sp) << what;
  EXPECT_EQ(a.cluster.device_writes, b.cluster.device_writes) << what;
  ASSERT_EQ(a.pages.size(), b.pages.size()) << what;
  for (size_t k = 0; k < a.pages.size(); ++k) {
    EXPECT_EQ(a.pages[k].addr, b.pages[k].addr) << what;
    EXPECT_TRUE(a.pages[k].bytes == b.pages[k].bytes) << what << ": page 0x" << std::hex << a.pages[k].addr;
  }
}

class FastForwardPrograms : public ::testing::TestWithParam<std::string> {};

TEST_P(FastForwardPrograms, StateExactDetailedPartIdenticalFewerInstructions) {
  const std::string name = GetParam();
  const std::string elf = (name.rfind("ff_", 0) == 0 ? kFfFw : kFw) + "/" + name + ".elf";
  const FfRun full = run(elf, name + "-full", {"-q"});
  ASSERT_EQ(full.r.status, 0) << full.r.err;
  const FfRun ff = run(elf, name + "-ff", {"--fast-forward"});
  ASSERT_EQ(ff.r.status, 0) << ff.r.err;

  // State exact: the same registers and memory at the switch point.
  const tessera::cpu::Checkpoint cf = tessera::cpu::read_checkpoint(full.ckpt);
  const tessera::cpu::Checkpoint cff = tessera::cpu::read_checkpoint(ff.ckpt);
  // kernel_printf has no region of interest: its switch is the launch.
  const std::string reason = name == "kernel_printf" ? "launch" : "roi-begin";
  EXPECT_EQ(cf.reason, reason);
  EXPECT_EQ(cff.reason, reason);
  expect_same_state(cf, cff, name);
  EXPECT_GT(cf.pages.size(), 0u);

  const nlohmann::json jff = read_json(ff.stats), jfull = read_json(full.stats);
  ASSERT_TRUE(jff.contains("fast_forward")) << ff.stats;
  EXPECT_EQ(jff["fast_forward"]["switch"], reason);
  EXPECT_EQ(jff["fast_forward"]["switch_pc"].get<uint32_t>(), cff.cluster.harts[0].state.pc);
  EXPECT_EQ(jff["fast_forward"]["instructions"], jff["chip"]["cluster"]["fast_forward"]["instructions"]);
  EXPECT_NE(ff.r.err.find("fast-forward"), std::string::npos) << ff.r.err;
  EXPECT_FALSE(jfull.contains("fast_forward"));

  // Detailed part identical: --fast-forward against --restore of the full run's checkpoint.
  const std::string rs_stats = temp_path(name + "-rs.json");
  const RunResult rs = run_tessera({"run", "chip", elf, "-q", "--stats", rs_stats, "--restore", full.ckpt}, 240);
  ASSERT_EQ(rs.status, 0) << rs.err;
  const auto a = detailed_stats(ff.stats), b = detailed_stats(rs_stats);
  EXPECT_GT(a.size(), 100u);
  for (const auto& [k, v] : a) {
    const auto it = b.find(k);
    if (it == b.end()) {
      ADD_FAILURE() << name << ": " << k << " only in the --fast-forward run";
      continue;
    }
    EXPECT_EQ(v, it->second) << name << ": " << k;
  }
  EXPECT_EQ(a.size(), b.size());
  // The console after the switch: the restored run prints exactly the end of the fast-forward run's.
  ASSERT_LE(rs.out.size(), ff.r.out.size());
  EXPECT_EQ(ff.r.out.substr(ff.r.out.size() - rs.out.size()), rs.out);
  EXPECT_FALSE(rs.out.empty());

  // Fewer detailed instructions: for one core, full = fast-forward + detailed.
  const uint64_t ff_insts = jff["fast_forward"]["instructions"];
  EXPECT_GT(ff_insts, 0u);
  if (name != "ff_cores") {
    const uint64_t full_insts = jfull["chip"]["cluster"]["core0"]["instructions"];
    const uint64_t det_insts = jff["chip"]["cluster"]["core0"]["instructions"];
    EXPECT_EQ(full_insts, ff_insts + det_insts) << name;
  } else {
    // Every core ran before the switch (the fill), functionally.
    for (int h = 0; h < 4; ++h)
      EXPECT_GT(jff["chip"]["cluster"]["fast_forward"]["core" + std::to_string(h) + "_instructions"].get<uint64_t>(),
                4096u / 4 * 3)
          << "core" << h;
    for (int h = 1; h < 4; ++h) EXPECT_EQ(cff.cluster.harts[h].mode, 0u) << "core" << h << " parked";
  }
}

INSTANTIATE_TEST_SUITE_P(Chip, FastForwardPrograms,
                         ::testing::Values("sgemm", "histogram", "conv1d", "kernel_printf", "ff_cores"));

// Cluster programs whose cores run side by side before the switch (their
// interleaving differs from the detailed run's): the detailed part of a
// --fast-forward run equals a --restore of its own checkpoint, at a wfi
// (locks: core join), at a tx.begin (htm_bank) and at the ROI begin of a
// cluster program (lock_bench).
class SwitchKinds : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(SwitchKinds, RestoreOfTheFastForwardCheckpointIsTheSameDetailedRun) {
  const auto& [program, reason] = GetParam();
  const std::string elf = kFw + "/" + program + ".elf";
  const std::string tag = program.substr(program.rfind('/') + 1);
  const FfRun ff = run(elf, tag + "-ff", {"-q", "--fast-forward"});
  ASSERT_EQ(ff.r.status, 0) << ff.r.err;
  EXPECT_EQ(tessera::cpu::read_checkpoint(ff.ckpt).reason, reason);
  EXPECT_EQ(read_json(ff.stats)["fast_forward"]["switch"], reason);
  const std::string rs_stats = temp_path(tag + "-rs.json");
  const RunResult rs = run_tessera({"run", "chip", elf, "-q", "--stats", rs_stats, "--restore", ff.ckpt}, 240);
  ASSERT_EQ(rs.status, 0) << rs.err;
  EXPECT_EQ(detailed_stats(ff.stats), detailed_stats(rs_stats));
  ASSERT_LE(rs.out.size(), ff.r.out.size());
  EXPECT_EQ(ff.r.out.substr(ff.r.out.size() - rs.out.size()), rs.out);
}

INSTANTIATE_TEST_SUITE_P(Cluster, SwitchKinds,
                         ::testing::Values(std::make_pair(std::string("locks"), std::string("wfi")),
                                           std::make_pair(std::string("htm/htm_bank"), std::string("tx")),
                                           std::make_pair(std::string("lock_bench"), std::string("roi-begin"))));

// The first access to an rtl_device's registers is a switch point
// (dma_demo's read of acc0's ID): the checkpoint holds no device register,
// and a restore of it is the fast-forward run's detailed part, the devices'
// statistics included (they ran in detail from reset in both).
TEST(FastForward, AnRtlDeviceIsFirstAccessedInDetail) {
  unsetenv("TESSERA_RTL_CACHE");  // the user's cache, as the rtl_device tests use
  const std::string netlist = std::string(DMA_EXAMPLE_DIR) + "/chip_dma.yaml";
  const std::string elf = kFw + "/examples/dma_demo.elf";
  const std::string ff_stats = temp_path("dma-ff.json"), ckpt = temp_path("dma-ff.ckpt");
  const RunResult ff =
      run_tessera({"run", netlist, elf, "-q", "--fast-forward", "--stats", ff_stats, "--checkpoint-out", ckpt}, 300);
  ASSERT_EQ(ff.status, 0) << ff.err;
  const tessera::cpu::Checkpoint c = tessera::cpu::read_checkpoint(ckpt);
  EXPECT_EQ(c.reason, "device");
  EXPECT_TRUE(c.cluster.device_writes.empty());
  EXPECT_EQ(read_json(ff_stats)["fast_forward"]["switch"], "device");
  const std::string rs_stats = temp_path("dma-rs.json");
  const RunResult rs = run_tessera({"run", netlist, elf, "-q", "--stats", rs_stats, "--restore", ckpt}, 300);
  ASSERT_EQ(rs.status, 0) << rs.err;
  const auto detailed = detailed_stats(ff_stats);
  EXPECT_EQ(detailed, detailed_stats(rs_stats));
  EXPECT_EQ(detailed.at("chip.acc0.reg_writes"), 6);
  EXPECT_EQ(detailed.at("chip.acc1.interrupts"), 1);
  EXPECT_EQ(ff.out, rs.out);  // dma_demo prints after its first device access
  EXPECT_NE(rs.out.find("acc0 1000 words, acc1 77 words"), std::string::npos) << rs.out;
}

TEST(FastForward, ProgramEndsDuringFastForward) {
  const std::string elf = kFfFw + "/ff_no_switch.elf";
  const FfRun full = run(elf, "noswitch-full", {"-q"}, false);
  ASSERT_EQ(full.r.status, 0) << full.r.err;
  const FfRun ff = run(elf, "noswitch-ff", {"--fast-forward"}, false);
  ASSERT_EQ(ff.r.status, 0) << ff.r.err;
  EXPECT_NE(ff.r.out.find("PASS ff_no_switch"), std::string::npos) << ff.r.out;
  EXPECT_NE(ff.r.err.find("the program ended during fast-forward"), std::string::npos) << ff.r.err;
  const nlohmann::json j = read_json(ff.stats), jf = read_json(full.stats);
  EXPECT_EQ(j["fast_forward"]["switch"], "program-end");
  EXPECT_EQ(j["summary"]["sim_cycles"], 0);
  EXPECT_EQ(j["chip"]["cluster"]["core0"]["instructions"], 0);
  // Nothing here depends on timing: the same instructions as the detailed run.
  EXPECT_EQ(j["fast_forward"]["instructions"], jf["chip"]["cluster"]["core0"]["instructions"]);
}

TEST(FastForward, MaxCyclesBoundsFastForward) {
  const FfRun ff = run(kFfFw + "/ff_spin.elf", "spin", {"--fast-forward", "--max-cycles", "100000"}, false);
  EXPECT_EQ(ff.r.status, 6) << ff.r.err;
  EXPECT_NE(ff.r.err.find("--max-cycles 100000 reached during fast-forward"), std::string::npos) << ff.r.err;
  const nlohmann::json j = read_json(ff.stats);
  EXPECT_EQ(j["fast_forward"]["instructions"], 100000);  // one per instruction
}

TEST(FastForward, GuestFaultIsTheSame) {
  const std::string elf = kFfFw + "/ff_bad_store.elf";
  const RunResult full = run_tessera({"run", "chip", elf, "-q"});
  const RunResult ff = run_tessera({"run", "chip", elf, "-q", "--fast-forward"});
  EXPECT_EQ(full.status, 3) << full.err;
  EXPECT_EQ(ff.status, 3) << ff.err;
  EXPECT_NE(ff.err.find("cluster.core0"), std::string::npos) << ff.err;
  EXPECT_NE(ff.err.find("at pc 0x"), std::string::npos) << ff.err;
  EXPECT_EQ(full.err, ff.err);
  EXPECT_EQ(full.out, ff.out);
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

void expect_refused(const std::string& elf, const std::string& ckpt, const std::string& message,
                    std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"run", "chip", elf, "-q", "--restore", ckpt};
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult r = run_tessera(args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.signal, 0);
  EXPECT_NE(r.err.find(message), std::string::npos) << "expected '" << message << "' in: " << r.err;
}

// A page whose compressed data is empty (fuzz_checkpoint's finding, in
// testbenches/fuzz/corpus/fuzz_checkpoint/finding-empty-page.ckpt): refused,
// with nothing copied from a null buffer (UBSan in the sanitizer build).
TEST(FastForward, AnEmptyPageIsRefused) {
  tessera::cpu::Checkpoint c;
  c.memory_base = 0x80000000u;
  c.memory_size = uint64_t{256} << 20;
  c.cluster.harts.resize(1);
  const std::string empty = tessera::cpu::encode_checkpoint(c);  // ... u32 0 pages, END., checksum
  std::string body = empty.substr(0, empty.size() - 16);
  for (const uint32_t v : {1u, 0x80000000u, 0u}) body.append(reinterpret_cast<const char*>(&v), 4);
  body += "END.";
  const uint64_t sum = tessera::cpu::bytes_hash(body);
  body.append(reinterpret_cast<const char*>(&sum), 8);
  try {
    tessera::cpu::decode_checkpoint(body, "empty-page.ckpt");
    FAIL() << "an empty page was accepted";
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("the page at 0x80000000 does not decompress"), std::string::npos) << e.what();
  }
}

TEST(FastForward, BadCheckpoints) {
  const std::string sgemm = kFw + "/sgemm.elf", hist = kFw + "/histogram.elf";
  const FfRun ff = run(sgemm, "bad-src", {"-q", "--fast-forward"});
  ASSERT_EQ(ff.r.status, 0) << ff.r.err;
  const std::string good = tessera::test::read_file(ff.ckpt);
  ASSERT_GT(good.size(), 100u);

  // Truncated: at the header, in the registers, in a page, before the end
  // marker, in the checksum.
  for (const size_t cut : {size_t{5}, size_t{14}, size_t{40}, size_t{300}, good.size() / 2, good.size() - 1}) {
    const std::string p = temp_path("truncated.ckpt");
    write_file(p, good.substr(0, cut));
    expect_refused(sgemm, p,
                   cut == 5    ? "not a Tessera checkpoint"
                   : cut == 14 ? "the checkpoint is truncated"
                               : "the checkpoint is corrupt (its checksum does not match");
    EXPECT_THROW(tessera::cpu::decode_checkpoint(good.substr(0, cut), p), tessera::sim::ConfigError) << cut;
  }
  // Any bit flipped after the version: a header field, a register, a core's
  // mode, a page, the checksum itself.
  for (const size_t at : {size_t{20}, size_t{100}, size_t{400}, good.size() / 2, good.size() - 3}) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    const std::string p = temp_path("flipped.ckpt");
    write_file(p, flipped);
    expect_refused(sgemm, p, "its checksum does not match");
  }
  // Written with a valid checksum but impossible: refused before any page
  // is decoded or any allocation follows the claim.
  const tessera::cpu::Checkpoint decoded = tessera::cpu::decode_checkpoint(good, ff.ckpt);
  ASSERT_FALSE(decoded.pages.empty());
  auto crafted = [&](const char* name, auto change, const std::string& message) {
    tessera::cpu::Checkpoint c = decoded;
    change(c);
    const std::string p = temp_path(name);
    write_file(p, tessera::cpu::encode_checkpoint(c));
    expect_refused(sgemm, p, message);
  };
  crafted(
      "huge.ckpt", [](auto& c) { c.memory_size = ~uint64_t{0}; },
      "the checkpoint's memory (17592186044415 MiB) is larger than the platform's (256 MiB; memory.size_mb)");
  crafted(
      "twice.ckpt", [](auto& c) { c.pages.push_back(c.pages.front()); }, "appears twice");
  crafted(
      "exit.ckpt", [](auto& c) { c.cluster.device_writes.emplace_back(0x004, 0); },
      "the checkpoint is corrupt (a device register at MMIO offset 0x4)");
  crafted(
      "rtl_device.ckpt", [](auto& c) { c.cluster.device_writes.emplace_back(0x10000, 1); },
      "the checkpoint holds a write to an rtl_device's register at MMIO offset 0x10000");
  // Only regular files: no device read forever, no directory, no FIFO that
  // blocks the run.
  const std::string fifo = temp_path("fifo.ckpt");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& p : {std::string("/dev/zero"), tessera::test::scratch_dir(), fifo})
    expect_refused(sgemm, p, "cannot read the checkpoint (--restore): not a regular file");
  // Another format version.
  std::string version = good;
  version[8] = 9;
  const std::string pv = temp_path("version.ckpt");
  write_file(pv, version);
  expect_refused(sgemm, pv, "checkpoint format version 9; this tessera reads version 3");
  // Not a checkpoint at all.
  const std::string pn = temp_path("text.ckpt");
  write_file(pn, "this is not a checkpoint, it is some text long enough\n");
  expect_refused(sgemm, pn, "not a Tessera checkpoint");
  // Another program: names both.
  expect_refused(hist, ff.ckpt, "written for another program");
  expect_refused(hist, ff.ckpt, "sgemm.elf");
  expect_refused(hist, ff.ckpt, "histogram.elf");
  // Memory larger than the platform's.
  const FfRun big = run(sgemm, "bad-big", {"-q", "--fast-forward", "--set", "memory.size_mb=512"});
  ASSERT_EQ(big.r.status, 0) << big.r.err;
  expect_refused(sgemm, big.ckpt, "the checkpoint's memory (512 MiB) is larger than the platform's (256 MiB");
  // A missing file, and options that do not go with --restore.
  expect_refused(sgemm, temp_path("missing.ckpt"), "cannot read the checkpoint");
  expect_refused(sgemm, ff.ckpt, "takes neither --fast-forward", {"--fast-forward"});
  // The good one is accepted.
  const RunResult ok = run_tessera({"run", "chip", sgemm, "-q", "--restore", ff.ckpt});
  EXPECT_EQ(ok.status, 0) << ok.err;
}

}  // namespace
