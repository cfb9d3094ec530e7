// `tessera noc`: runs the network engine on synthetic or trace traffic and
// reports latency and throughput (one load, or a sweep of loads).
#pragma once

#include <CLI/CLI.hpp>

#include "sim/tool_command.h"

namespace tessera::noc {

tessera::sim::ToolCommand add_noc_command(CLI::App& app);

}  // namespace tessera::noc
