// The command line of RTL coverage and block-level random testing
// (docs/cosim.md, "Coverage" and "Block-level random testing"):
//   tessera run ... --rtl-coverage FILE
//   tessera rtl-coverage merge OUT IN... | show FILE
//   tessera rtl-test BLOCK [--impl NAME] --cycles N --seed S [--wave-dir D]
//                    [--rtl-coverage FILE] [--set key=value]...
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "sim/output_file.h"
#include "sim/tool_command.h"

namespace tessera::platform {

// --rtl-coverage FILE of `tessera run`: the cover points of every RTL block
// that ran in rtl or lockstep mode, summed per block type, as JSON.
class RunCoverageOption {
 public:
  void add_to(CLI::App* run_cmd);
  // Before the platform is built: checks and opens FILE (ConfigError naming
  // --rtl-coverage) and turns coverage collection on.
  void open(const std::vector<std::string>& inputs);
  // After the platform is built: ConfigError naming the keys to set unless
  // a block runs in rtl or lockstep mode.
  void check_blocks() const;
  // After the run: writes FILE; an error text, or "" when written (or not asked).
  std::string write();

 private:
  std::string path_;
  sim::OutputFile out_;
};

// `tessera rtl-coverage merge|show`.
sim::ToolCommand add_rtl_coverage_command(CLI::App& app);
// `tessera rtl-test`.
sim::ToolCommand add_rtl_test_command(CLI::App& app);

}  // namespace tessera::platform
