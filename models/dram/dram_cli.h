// `tessera dram`: drives the DRAM engine standalone with a stream, random or
// trace pattern and reports bandwidth, latency, row hits, refreshes, energy
// and protocol-checker violations (a violation makes the exit status 1).
#pragma once

#include <CLI/CLI.hpp>

#include "sim/tool_command.h"

namespace tessera::dram {

tessera::sim::ToolCommand add_dram_command(CLI::App& app);

}  // namespace tessera::dram
