// An HBM device description: organisation, timing (in command-clock cycles)
// and IDD currents. Presets (presets/*.yaml, compiled in) cite the source of
// every value; `validate` rejects inconsistent sets naming the parameters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::dram {

struct Organisation {
  unsigned channels_per_stack = 8;
  unsigned dies = 4;
  unsigned pseudo_channels = 2;
  unsigned bank_groups = 4;
  unsigned banks_per_group = 4;
  unsigned rows = 16384;
  unsigned columns = 32;  // bursts per row
  unsigned pc_width_bits = 64;
  unsigned burst_length = 4;
  unsigned beats_per_clock = 2;

  unsigned banks_per_pc() const { return bank_groups * banks_per_group; }
  unsigned burst_bytes() const { return pc_width_bits * burst_length / 8; }
  // Data-bus cycles one burst occupies.
  unsigned burst_cycles() const { return burst_length / beats_per_clock; }
};

// Every value in command-clock cycles (tCK).
struct Timing {
  unsigned CL = 0, CWL = 0, tRCDRD = 0, tRCDWR = 0, tRP = 0, tRAS = 0, tRC = 0;
  unsigned tCCD_S = 0, tCCD_L = 0, tRRD_S = 0, tRRD_L = 0, tFAW = 0;
  unsigned tWTR_S = 0, tWTR_L = 0, tRTP = 0, tWR = 0, tRTRS = 0;
  unsigned tRFC = 0, tREFI = 0, tRFCSB = 0, tREFISB = 0, tRREFD = 0, tACT_BUS = 2;
};

// Currents in mA per channel, VDD in volts (DRAMPower's IDD method).
struct Power {
  double VDD = 1.2, IDD0 = 0, IDD2N = 0, IDD3N = 0, IDD4R = 0, IDD4W = 0, IDD5AB = 0;
};

struct DramSpec {
  std::string name;
  std::string standard;
  double data_rate_gbps = 0;
  unsigned tck_ps = 1000;
  unsigned stacks = 1;
  Organisation org;
  Timing timing;
  Power power;

  unsigned channels() const { return stacks * org.channels_per_stack; }
  uint64_t capacity_bytes() const {
    return static_cast<uint64_t>(channels()) * org.pseudo_channels * org.banks_per_pc() * org.rows * org.columns *
           org.burst_bytes();
  }
  // Theoretical peak: every PC's data bus busy every cycle.
  double peak_bandwidth_gbps() const {
    const double bytes_per_cycle =
        static_cast<double>(channels()) * org.pseudo_channels * org.burst_bytes() / org.burst_cycles();
    return bytes_per_cycle * 1000.0 / tck_ps;  // bytes per ns = GB/s
  }
};

// The timing parameter names, in the order of Timing, and access by name
// (for `dram.timing.<name>` overrides and error messages).
const std::vector<std::string>& timing_names();
unsigned& timing_field(Timing& t, const std::string& name);

std::vector<std::string> preset_names();
// Throws sim::ConfigError listing the valid names when `name` is unknown.
DramSpec load_preset(const std::string& name);
// Parses a preset document (the format of presets/*.yaml).
DramSpec parse_spec_yaml(const std::string& text, const std::string& origin);
// Throws sim::ConfigError naming the parameters of the first inconsistency.
void validate(const DramSpec& spec);

}  // namespace tessera::dram
