// gtkwave files Tessera writes: translate filter files for enum signals
// and the views beside flight-recorder dumps (docs/waveforms.md, "Views").
#pragma once

#include <cstdint>
#include <string>

#include "sim/waveform.h"

namespace tessera::platform {

// A gtkwave "Translate Filter File": one line per value, the value as the
// views display it (decimal), a space, its name.
std::string gtkwave_translate_file(const sim::WaveEnum& e);

// Writes STEM.gtkw beside the flight-recorder dump STEM.fst (and the
// translate files and PC filter script it uses, in STEM.gtkw.d/): every
// path absolute, so gtkwave opens it from any directory; a marker at
// `marker_ps`; the signals under `scope` ("chip.sm0"; all when none is
// under it); PC signals named by `elf` (none when ""). Returns its path;
// OutputError when it cannot be written.
std::string write_flight_view(const sim::Waveform& wave, const std::string& fst, uint64_t marker_ps,
                              const std::string& scope, const std::string& elf, const std::string& title);

}  // namespace tessera::platform
