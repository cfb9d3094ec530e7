// `tessera waves PLATFORM (--list | --translate DIR | --views DIR)`: the
// signals a platform declares, gtkwave translate filter files for its enum
// signals (waves/translate/) and gtkwave views of its units
// (docs/waveforms.md); `tessera waves --pc-filter ELF`, gtkwave's translate
// filter process for PC signals.
#pragma once

#include <functional>
#include <string>

#include "sim/tool_command.h"

namespace tessera::platform {

// `resolve` turns a platform argument (a name or a .yaml path) into a file.
sim::ToolCommand add_waves_command(CLI::App& app, std::function<std::string(const std::string&)> resolve);

}  // namespace tessera::platform
