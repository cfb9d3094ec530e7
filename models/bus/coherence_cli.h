// `tessera coherence-test`: the random coherence tester (and the litmus
// runner) from the command line.
#pragma once

#include "sim/tool_command.h"

namespace tessera::bus {

sim::ToolCommand add_coherence_command(CLI::App& app);

}  // namespace tessera::bus
