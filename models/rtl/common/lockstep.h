// Co-simulation modes of a block that has an RTL counterpart, the options
// they share (rtl.* keys), and the error a lockstep mismatch raises. No
// Verilator header here: SystemC wrappers include this to catch the error.
//
// model:    the C++ model alone (the default).
// rtl:      the Verilated block replaces the model.
// lockstep: both see the same inputs every cycle; their outputs are compared
//           every cycle and the first difference stops the run with a
//           report (cycle, instance, inputs, both outputs side by side) and
//           an FST waveform of the RTL's last cycles. The SystemC wrapper
//           that owns the block catches LockstepMismatch and stops the run
//           with ExitKind::kLockstepMismatch (exit status 8); standalone
//           tools exit with status 8 too.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rtl/common/wave_options.h"
#include "sim/config.h"

namespace tessera::rtl {

enum class Impl { kModel, kRtl, kLockstep };

const std::vector<std::string>& impl_names();  // "model", "rtl", "lockstep"
Impl impl_from_name(const std::string& name);  // one of impl_names()
const char* impl_name(Impl impl);

struct RtlOptions {
  WaveOptions waves;

  // Reads rtl.wave_cycles and rtl.wave_dir.
  static RtlOptions from_config(sim::Config& cfg);
};

// The report of a lockstep mismatch: the inputs of the cycle and every
// output of both sides, the differing ones marked.
class MismatchReport {
 public:
  MismatchReport(std::string block, std::string instance, uint64_t cycle)
      : block_(std::move(block)), instance_(std::move(instance)), cycle_(cycle) {}
  void input(const std::string& name, const std::string& value) { inputs_.push_back({name, value}); }
  void output(const std::string& name, const std::string& model, const std::string& rtl) {
    outputs_.push_back({name, model, rtl});
  }
  void set_wave(std::string path) { wave_ = std::move(path); }

  const std::string& instance() const { return instance_; }
  uint64_t cycle() const { return cycle_; }
  const std::string& wave() const { return wave_; }
  size_t differences() const;
  std::string text() const;

 private:
  struct Input {
    std::string name, value;
  };
  struct Output {
    std::string name, model, rtl;
  };
  std::string block_, instance_;
  uint64_t cycle_;
  std::vector<Input> inputs_;
  std::vector<Output> outputs_;
  std::string wave_;
};

class LockstepMismatch : public std::runtime_error {
 public:
  explicit LockstepMismatch(const MismatchReport& r)
      : std::runtime_error(r.text()), cycle_(r.cycle()), instance_(r.instance()), wave_(r.wave()) {}
  uint64_t cycle() const { return cycle_; }
  const std::string& instance() const { return instance_; }
  const std::string& wave_path() const { return wave_; }

 private:
  uint64_t cycle_;
  std::string instance_, wave_;
};

}  // namespace tessera::rtl
