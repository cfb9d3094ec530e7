// VCD waveform sink (IEEE 1364 value change dump) for gtkwave. Signals live
// in dotted scopes ("chip.sm0.sched1") that become nested $scope sections;
// the picosecond timescale matches sim::Waveform's time axis.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "sim/output_file.h"
#include "sim/waveform.h"

namespace tessera::sim {

class VcdSink : public WaveSink {
 public:
  // Opens the file (ConfigError naming `option` when it cannot be written
  // or is one of `inputs`).
  VcdSink(const std::string& option, const std::string& path, const std::vector<std::string>& inputs = {});
  void declare(const std::vector<WaveSignal>& signals) override;
  void time(uint64_t ps) override;
  void value(size_t signal, uint64_t v) override;
  void close(uint64_t end_ps) override;

 private:
  OutputFile out_;
  std::FILE* file_;
  std::vector<std::string> codes_;
  std::vector<unsigned> widths_;
  uint64_t time_ = 0;
  bool time_written_ = false;
};

// Nested scopes of a signal list in first-seen order, for the sinks'
// headers: calls enter(part) and leave() around each scope's signals and
// children, signal(i) for each signal directly in the current scope.
struct ScopeWalker {
  std::function<void(const std::string&)> enter;
  std::function<void()> leave;
  std::function<void(size_t)> signal;
};
void walk_scopes(const std::vector<WaveSignal>& signals, const ScopeWalker& walker);

}  // namespace tessera::sim
