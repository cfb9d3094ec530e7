#include "platforms/rtl_commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "platforms/plugin.h"
#include "platforms/rtl_blocks.h"
#include "rtl/common/coverage.h"
#include "rtl/common/impl_registry.h"
#include "rtl/common/lockstep.h"
#include "sim/cli_checks.h"
#include "sim/config.h"
#include "sim/run_control.h"

namespace tessera::platform {

// ------------------------------------------------- tessera run --rtl-coverage

void RunCoverageOption::add_to(CLI::App* run_cmd) {
  run_cmd->add_option("--rtl-coverage", path_,
                      "Write the cover points of the RTL blocks in rtl or lockstep mode (sm.shared_impl, "
                      "noc.router_impl) and of the netlist's rtl_device instances, summed per block type, as JSON "
                      "(tessera rtl-coverage show FILE)");
}

void RunCoverageOption::open(const std::vector<std::string>& inputs) {
  if (path_.empty()) return;
  out_ = sim::OutputFile("--rtl-coverage", path_, inputs);
  rtl::CoverageCollection::enable();
}

void RunCoverageOption::check_blocks() const {
  if (path_.empty() || rtl::CoverageCollection::instances() > 0) return;
  throw sim::ConfigError(
      "--rtl-coverage: no RTL block runs in rtl or lockstep mode in this run, and the platform has no rtl_device, so "
      "there is no coverage to write; set sm.shared_impl=rtl (or lockstep) for the SMs' shared-memory bank units, or "
      "noc.router_impl=rtl (or lockstep) for the routers of a platform with a NoC");
}

std::string RunCoverageOption::write() {
  if (!out_.is_open()) return "";
  try {
    out_.write(rtl::CoverageCollection::report().to_json().dump(2) + "\n");
    out_.close();
  } catch (const sim::OutputError& e) {
    return e.what();
  }
  return "";
}

namespace {

rtl::CoverageReport read_coverage(const std::string& path) {
  try {
    return rtl::CoverageReport::read_file(path);
  } catch (const rtl::CoverageFileError& e) {
    throw sim::ConfigError(e.what());
  }
}

// ------------------------------------------------------ tessera rtl-coverage

struct CoverageCli {
  std::string out;
  std::vector<std::string> inputs;
  std::string show;
};

int merge_coverage(const CoverageCli& cli) {
  sim::OutputFile out("OUT", cli.out, cli.inputs);
  rtl::CoverageReport sum = read_coverage(cli.inputs.front());
  for (size_t i = 1; i < cli.inputs.size(); ++i) {
    try {
      sum.merge(read_coverage(cli.inputs[i]), cli.inputs[i]);
    } catch (const rtl::CoverageFileError& e) {
      throw sim::ConfigError(e.what());
    }
  }
  out.write(sum.to_json().dump(2) + "\n");
  out.close();
  fmt::print("{}", sum.summary());
  return 0;
}

int show_coverage(const CoverageCli& cli) {
  const rtl::CoverageReport r = read_coverage(cli.show);
  if (r.empty()) {
    fmt::print("{}: no RTL block\n", cli.show);
    return 0;
  }
  fmt::print("{}", r.summary());
  return 0;
}

// ----------------------------------------------------------- tessera rtl-test

struct TestCli {
  std::string block, impl, wave_dir = "waves", coverage;
  uint64_t cycles = 0, seed = 1;
  std::vector<std::string> sets, plugins;
};

template <class T>
std::string names_of(const std::vector<T>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x.name;
  return s;
}

int run_rtl_test(const TestCli& cli) {
  const auto& blocks = rtl_block_tests();
  const auto block =
      std::find_if(blocks.begin(), blocks.end(), [&](const RtlBlockTest& b) { return b.name == cli.block; });
  if (block == blocks.end())
    throw sim::ConfigError(
        fmt::format("rtl-test: BLOCK '{}' is not a block rtl-test drives; blocks: {}", cli.block, names_of(blocks)));
  for (const std::string& p : cli.plugins) load_plugin(p, "--plugin");
  const std::vector<std::string> impls = rtl::impl_names_of(block->kind);
  const std::string impl = cli.impl.empty() ? rtl::kShippedImpl : cli.impl;
  if (std::find(impls.begin(), impls.end(), impl) == impls.end()) {
    std::string names;
    for (const std::string& n : impls) names += (names.empty() ? "" : ", ") + n;
    throw sim::ConfigError(
        fmt::format("--impl: '{}' is not an implementation of {}; implementations: {} (--plugin LIB loads more)", impl,
                    block->name, names));
  }
  sim::OutputFile coverage_out;
  if (!cli.coverage.empty()) coverage_out = sim::OutputFile("--rtl-coverage", cli.coverage);
  sim::Config cfg;
  for (const auto& s : cli.sets) {
    if (s.rfind(block->impl_key + "=", 0) == 0)
      throw sim::ConfigError(fmt::format("--set {}: rtl-test runs {} in lockstep with its C++ model; leave {} unset", s,
                                         block->name, block->impl_key));
    cfg.set_override(s);
  }
  cfg.set(block->impl_key, rtl::ImplChoice{rtl::Impl::kLockstep, impl}.text(), "rtl-test --impl");
  cfg.set("rtl.wave_dir", cli.wave_dir, "--wave-dir");
  rtl::CoverageCollection::enable();

  using Clock = std::chrono::steady_clock;
  auto last = Clock::now();
  RtlTestRun run;
  run.cycles = cli.cycles;
  run.seed = cli.seed;
  run.progress = [&](uint64_t done) {
    if (Clock::now() - last < std::chrono::seconds(5)) return;
    last = Clock::now();
    fmt::print(stderr, "rtl-test: {} cycle {} of {} ({:.0f} %)\n", block->name, done, cli.cycles,
               100.0 * static_cast<double>(done) / static_cast<double>(cli.cycles));
  };
  int status = 0;
  std::string outcome;
  try {
    const RtlTestResult r = block->run(cfg, run);
    outcome = fmt::format("rtl-test: {} ({}) agrees with its C++ model: {} cycles, seed {}, {}\n", block->name, impl,
                          cli.cycles, cli.seed, r.stimulus);
  } catch (const rtl::LockstepMismatch& e) {
    std::fflush(stdout);
    fmt::print(stderr, "tessera: error: {}\n", e.what());
    outcome = fmt::format("rtl-test: {} ({}) differs from its C++ model at cycle {} (seed {})\n", block->name, impl,
                          e.cycle(), cli.seed);
    status = sim::kStatusLockstepMismatch;
  }
  const rtl::CoverageReport report = rtl::CoverageCollection::report();
  fmt::print("{}coverage:\n{}", outcome, report.summary());
  if (coverage_out.is_open()) {
    coverage_out.write(report.to_json().dump(2) + "\n");
    try {
      coverage_out.close();
    } catch (const sim::OutputError& e) {
      fmt::print(stderr, "tessera: error: {} (the test itself ended with status {})\n", e.what(), status);
      return sim::kStatusOutputError;
    }
  }
  return status;
}

}  // namespace

sim::ToolCommand add_rtl_coverage_command(CLI::App& app) {
  auto cli = std::make_shared<CoverageCli>();
  auto* cmd =
      app.add_subcommand("rtl-coverage", "Combine and show RTL coverage files (--rtl-coverage of run, rtl-test)");
  cmd->require_subcommand(1);
  auto* merge = cmd->add_subcommand("merge", "Sum coverage files into OUT (the same point set per block)");
  merge->add_option("OUT", cli->out, "The merged file (JSON)")->required();
  merge->add_option("IN", cli->inputs, "Coverage files of tessera run --rtl-coverage or rtl-test")->required();
  auto* show = cmd->add_subcommand("show", "Print per block the points reached of those declared, and the unreached");
  show->add_option("FILE", cli->show, "A coverage file")->required();
  return {cmd, [cli, merge, show] {
            if (merge->parsed()) return merge_coverage(*cli);
            if (show->parsed()) return show_coverage(*cli);
            return 0;
          }};
}

sim::ToolCommand add_rtl_test_command(CLI::App& app) {
  auto cli = std::make_shared<TestCli>();
  std::string blocks, impls;
  for (const auto& b : rtl_block_tests()) {
    blocks += (blocks.empty() ? "" : ", ") + b.name;
    std::string names;
    for (const std::string& n : rtl::impl_names_of(b.kind)) names += (names.empty() ? "" : ", ") + n;
    impls += fmt::format("{}{}: {}", impls.empty() ? "" : "; ", b.name, names);
  }
  auto* cmd = app.add_subcommand(
      "rtl-test",
      "Drive one RTL block with constrained-random stimulus against its C++ model in lockstep; exit status 8 and "
      "a report with a waveform at the first difference");
  cmd->add_option("BLOCK", cli->block, "The block: " + blocks)->required();
  cmd->add_option("--impl", cli->impl,
                  "The RTL implementation (default: shipped) - " + impls + "; a --plugin registers more");
  cmd->add_option("--plugin", cli->plugins,
                  "Load a plugin library, e.g. one whose RTL blocks are implementations (repeatable; docs/cosim.md)");
  cmd->add_option("--cycles", cli->cycles, "Cycles to run")->required()->check(sim::unsigned_in(1, 1000000000000));
  cmd->add_option("--seed", cli->seed, "Seed of the stimulus")
      ->capture_default_str()
      ->check(sim::unsigned_in(0, UINT64_MAX));
  cmd->add_option("--wave-dir", cli->wave_dir, "Where the waveform of a mismatch is written")->capture_default_str();
  cmd->add_option("--rtl-coverage", cli->coverage, "Write the block's cover points as JSON");
  cmd->add_option("--set", cli->sets,
                  "Configuration of the block: key=value (repeatable), e.g. sm.shared_bytes=98304, noc.topology=ring, "
                  "noc.vcs=4 noc.classes=2 noc.flit_bytes=32");
  return {cmd, [cli] { return run_rtl_test(*cli); }};
}

}  // namespace tessera::platform
