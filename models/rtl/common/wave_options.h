// Where and how much of an RTL block's waveform a lockstep mismatch writes
// (rtl.wave_cycles, rtl.wave_dir). Free of Verilator's headers, so model
// parameters can hold it in files that include SystemC.
#pragma once

#include <string>

namespace tessera::rtl {

struct WaveOptions {
  unsigned cycles = 64;       // the window before a mismatch the waveform shows
  std::string dir = "waves";  // where waveforms are written
  // Keep the checkpoints and inputs a waveform is replayed from. Off where
  // nothing will ask for one (a block in rtl mode): checkpointing a block
  // with large arrays is a tenth of its simulation time.
  bool record = true;

  WaveOptions without_recording() const {
    WaveOptions w = *this;
    w.record = false;
    return w;
  }
};

// Throws sim::ConfigError naming rtl.wave_dir unless `dir` is a directory
// that takes new files, or can be made as one (it is made only when a
// waveform is written): checked when a lockstep block is built, so that a
// mismatch found late in a run is never lost to an unwritable directory.
void check_wave_dir(const std::string& dir);

}  // namespace tessera::rtl
