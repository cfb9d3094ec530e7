// Change-driven VCD writer for gtkwave. Signals live in dotted scopes
// ("chip.sm0.sched1") that become nested $scope sections; only changes are
// written, so idle-skipped components cost nothing.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/output_file.h"

namespace tessera::sim {

class VcdWriter {
 public:
  // patterns: shell globs matched against the scope ("sm0.*" matches
  // "chip.sm0.sched1"); empty means every scope.
  // inputs: files the run reads, which the waveform may not overwrite.
  VcdWriter(const std::string& path, std::vector<std::string> patterns, const std::vector<std::string>& inputs = {});
  ~VcdWriter();
  VcdWriter(const VcdWriter&) = delete;
  VcdWriter& operator=(const VcdWriter&) = delete;

  bool scope_enabled(const std::string& scope) const;
  // Returns a signal id, or -1 when the scope is filtered out.
  int add_signal(const std::string& scope, const std::string& name, unsigned width);
  // Records value at time_ps; values equal to the last one are dropped. The
  // changes of one instant are written in signal order when time moves on,
  // so the file does not depend on the order SystemC ran the processes.
  void change(int id, uint64_t value, uint64_t time_ps);
  // OutputError when writing the file failed.
  void close(uint64_t end_time_ps);
  size_t signal_count() const { return signals_.size(); }

 private:
  struct Signal {
    std::string scope, name, code;
    unsigned width;
    uint64_t value;
    bool written;
    bool pending = false;  // changed in the instant not yet written
  };
  void write_header();
  void flush();
  void write_value(const Signal& s);

  OutputFile out_;
  std::FILE* file_ = nullptr;  // out_'s, until close
  std::string path_;
  std::vector<std::string> patterns_;
  std::vector<Signal> signals_;
  bool header_done_ = false;
  uint64_t current_time_ = 0;
  std::vector<int> pending_;  // signals changed at pending_time_
  uint64_t pending_time_ = 0;
  bool time_written_ = false;
};

}  // namespace tessera::sim
