// A standalone tool of the `tessera` command line (`tessera dram`,
// `tessera noc`, `tessera coherence-test`): the subsystem that owns it adds
// its subcommand to the CLI and returns the action that runs it. The action
// returns the process exit status; ConfigError thrown from it is reported by
// the CLI with status 2.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace tessera::sim {

struct ToolCommand {
  CLI::App* command = nullptr;
  std::function<int()> run;
};

}  // namespace tessera::sim
