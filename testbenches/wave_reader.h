// Reads a waveform file back for tests: a VCD directly, an FST through
// gtkwave's fst2vcd. Signals are named by their full path
// ("chip.sm0.sched0.pc"), without a bit range; each has its width and its
// value changes in time order (times in picoseconds for Tessera's 1ps
// timescale). Values x and z read as 0.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tessera::test {

struct WaveChange {
  uint64_t time_ps;
  uint64_t value;
  bool operator==(const WaveChange& o) const { return time_ps == o.time_ps && value == o.value; }
};

class WaveFile {
 public:
  // Reads `path` (FST when it ends in ".fst"); throws std::runtime_error
  // naming the file (and the package gtkwave when fst2vcd is missing).
  static WaveFile read(const std::string& path);
  // Parses VCD text.
  static WaveFile parse_vcd(const std::string& text);

  bool has(const std::string& path) const { return signals_.count(path) != 0; }
  // std::out_of_range naming the path when the signal does not exist.
  unsigned width(const std::string& path) const;
  const std::vector<WaveChange>& changes(const std::string& path) const;
  // The value at time t (the last change at or before t; 0 before the first).
  uint64_t value_at(const std::string& path, uint64_t time_ps) const;
  // Times at which the signal became `value`.
  std::vector<uint64_t> times_of(const std::string& path, uint64_t value) const;
  // Every signal path, sorted; paths_matching takes a shell glob ("chip.sm0.*.pc").
  std::vector<std::string> paths() const;
  std::vector<std::string> paths_matching(const std::string& glob) const;
  // The time of the last "#T" line.
  uint64_t end_time() const { return end_time_; }

 private:
  struct Signal {
    unsigned width = 0;
    std::vector<WaveChange> changes;
  };
  const Signal& get(const std::string& path) const;
  std::map<std::string, Signal> signals_;
  uint64_t end_time_ = 0;
};

}  // namespace tessera::test
