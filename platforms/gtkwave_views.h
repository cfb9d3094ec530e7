// gtkwave files Tessera writes: translate filter files for enum signals,
// the views of a platform's units and the views beside flight-recorder
// dumps (docs/waveforms.md, "Views").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/waveform.h"

namespace tessera::platform {

// A gtkwave "Translate Filter File": one line per value, the value as the
// views display it (decimal), a space, its name.
std::string gtkwave_translate_file(const sim::WaveEnum& e);

// `tessera waves PLATFORM --views DIR`: DIR/<unit>.gtkw for every unit of
// the chip that has signals (a top-level scope: chip.sm3, chip.l2,
// chip.hbm), showing its signals and those other units keep about it
// (chip.dispatcher.sm3.blocks in sm3's view), each labelled by its path
// below the unit (`warp5/state`, `pc0/bank7/open`) or below chip.
// (`dispatcher/sm3/blocks`); the translate files and, with an `elf`, the PC
// filter script in DIR/translate/. Every path in a view
// is absolute, so gtkwave finds them from any directory. Returns the views
// written; OutputError when one cannot be written.
std::vector<std::string> write_unit_views(const sim::Waveform& wave, const std::string& dir, const std::string& title,
                                          const std::string& elf);

// Writes STEM.gtkw beside the flight-recorder dump STEM.fst (and the
// translate files and PC filter script it uses, in STEM.gtkw.d/): every
// path absolute, so gtkwave opens it from any directory; a marker at
// `marker_ps`; the signals under `scope` ("chip.sm0"; all when none is
// under it); PC signals named by `elf` (none when ""). Returns its path;
// OutputError when it cannot be written.
std::string write_flight_view(const sim::Waveform& wave, const std::string& fst, uint64_t marker_ps,
                              const std::string& scope, const std::string& elf, const std::string& title);

}  // namespace tessera::platform
