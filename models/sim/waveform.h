// Waveforms of the whole chip (docs/waveforms.md). Models register signals
// under their instance path ("chip.sm3.l1_half1") and report value changes
// at a time in picoseconds; the Waveform keeps only changes, orders the
// changes of one instant by signal, applies the trace window and scopes,
// feeds a sink (VCD or FST) and, as a flight recorder, keeps the last N
// cycles of every signal in memory to write them out when a run goes wrong.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tessera::sim {

class ClockDomain;

// Names of the values of an enum-valued signal (a command, a state): an
// FST enum table, a gtkwave translate file for VCD (waves/translate/).
struct WaveEnum {
  std::string name;  // also the translate file's stem
  std::vector<std::pair<uint64_t, std::string>> values;
};

struct WaveSignal {
  std::string scope, name;
  unsigned width;
  const WaveEnum* values;  // nullptr: a plain number
};

// A waveform file format. declare() comes first; then time() (never
// decreasing) before the values of that instant.
class WaveSink {
 public:
  virtual ~WaveSink() = default;
  virtual void declare(const std::vector<WaveSignal>& signals) = 0;
  virtual void time(uint64_t ps) = 0;
  virtual void value(size_t signal, uint64_t v) = 0;
  // OutputError when writing failed.
  virtual void close(uint64_t end_ps) = 0;
};

// Opens a sink for a path: VCD, or FST when the path ends in ".fst".
// ConfigError when the file cannot be written. `option` names the path's
// origin in messages ("--vcd").
using WaveSinkFactory = std::function<std::unique_ptr<WaveSink>(const std::string& option, const std::string& path)>;

struct TraceOptions {
  std::string path;                 // --vcd: "" writes no waveform file
  std::vector<std::string> scopes;  // --trace-scope globs; empty: every scope
  // --trace-window START:END[@CLOCK]: from the start of cycle START to the
  // start of cycle END of CLOCK.
  bool window = false;
  uint64_t window_start = 0, window_end = 0;
  std::string window_clock = "sm";
  bool after_roi = false;      // --trace-after-roi: start at the firmware's ROI mark
  uint64_t flight_cycles = 0;  // --flight-recorder N (cycles of window_clock); 0: off
  std::string flight_dir = "waves";
  std::string program = "run";  // file stem of flight-recorder dumps
  // --trigger value:SIGNAL==V: the first time SIGNAL (its full name,
  // "chip.sm0.active_warps") takes value V, the flight recorder keeps a
  // second window around it (trigger()). "": none.
  std::string trigger_signal;
  uint64_t trigger_value = 0;
  std::vector<std::string> inputs;  // files the run reads, never overwritten
};

// The waveform scope of a model: "chip." and its SystemC name ("chip.sm3",
// "chip.noc.r5"); signals of its parts go below it ("chip.sm3.l1_half1").
inline std::string wave_scope(const std::string& model_name) { return "chip." + model_name; }

// Parses "START:END" or "START:END@CLOCK" (ConfigError naming --trace-window).
void parse_trace_window(const std::string& text, TraceOptions& options);

class Waveform {
 public:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

  // Opens options.path through make_sink (so a bad path fails before the
  // run) unless it is empty.
  Waveform(TraceOptions options, WaveSinkFactory make_sink);
  ~Waveform();
  Waveform(const Waveform&) = delete;
  Waveform& operator=(const Waveform&) = delete;

  // Whether a signal in `scope` would be kept (--trace-scope). Models skip
  // the work of tracing a scope that is filtered out.
  bool scope_enabled(const std::string& scope) const;
  // Returns a signal id, or -1 when the scope is filtered out. Every
  // signal is added during elaboration, before start().
  int add_signal(const std::string& scope, const std::string& name, unsigned width, const WaveEnum* values = nullptr);
  // A clock --trace-window and --flight-recorder may count in.
  void add_clock(const ClockDomain& clock);

  // After elaboration: every --trace-scope must have matched a scope (else
  // ConfigError listing the scopes), the window's clock must exist; the
  // sink receives the signal list.
  void start();

  // Records `value` of signal `id` at time_ps (non-decreasing). Ids < 0 are
  // ignored, values equal to the last are dropped.
  void change(int id, uint64_t value, uint64_t time_ps) {
    if (id < 0) return;
    Signal& s = signals_[static_cast<size_t>(id)];
    if (s.pending < 0 && s.value == value) return;
    record(s, id, value, time_ps);
  }

  // The firmware's region-of-interest mark (--trace-after-roi).
  void roi(bool begin, uint64_t time_ps);
  // gdb's `monitor waves start|stop`: the file records from / stops at
  // time_ps (a restart writes every signal's value again). Returns what it did.
  std::string set_live(bool on, uint64_t time_ps);

  // Writes the flight recorder's last cycles to <flight_dir>/<program>-<reason>.fst
  // and returns the path ("" when the recorder is off). OutputError when it
  // cannot be written.
  std::string dump_flight_recorder(const std::string& reason, uint64_t now_ps);

  // The flight recorder's second window (--trigger): the first call keeps
  // the flight_cycles before time_ps and the flight_cycles after it, and
  // writes them to <flight_dir>/<program>-trigger.fst when the second half
  // is complete or the run ends. Later calls do nothing.
  void trigger(uint64_t time_ps, std::string what);
  // The trigger's file once written, what fired it and when ("" before).
  const std::string& trigger_path() const { return trigger_path_; }
  const std::string& trigger_what() const { return trigger_what_; }
  const std::string& trigger_error() const { return trigger_error_; }  // its file could not be written
  uint64_t trigger_ps() const { return trigger_ps_; }

  // Flushes and closes the waveform file; OutputError when writing failed.
  void close(uint64_t end_time_ps);

  size_t signal_count() const { return signals_.size(); }
  const std::string& path() const { return options_.path; }
  bool flight_recorder_on() const { return options_.flight_cycles > 0; }
  // Every scope that has signals, sorted (for messages and views).
  std::vector<std::string> scopes() const;
  // The declared signals (those --trace-scope kept), in declaration order,
  // and the distinct enum tables they use, by name (`tessera waves`).
  const std::vector<WaveSignal>& signals() const { return declared_; }
  std::vector<const WaveEnum*> enums() const;

 private:
  struct Signal {
    uint64_t value = 0;  // as of the last written instant
    int pending = -1;    // index in pending_ while changed in the open instant
  };
  struct Change {
    uint64_t time_ps;
    uint32_t signal;
    uint64_t value;
  };
  void record(Signal& s, int id, uint64_t value, uint64_t time_ps);
  void flush();
  void open_live(uint64_t at_ps);
  void trim_flight(uint64_t now_ps);
  uint64_t clock_period_ps(const std::string& clock) const;
  // Writes the values `base` at `from` and then `changes` up to `end` to a
  // new file at `path` (a flight-recorder dump).
  void write_window(const std::string& path, uint64_t from, const std::vector<uint64_t>& base,
                    const std::deque<Change>& changes, uint64_t end) const;
  void write_trigger(uint64_t end_ps);

  TraceOptions options_;
  WaveSinkFactory make_sink_;
  std::unique_ptr<WaveSink> sink_;
  std::vector<WaveSignal> declared_;
  std::vector<std::string> filtered_scopes_;  // scopes with signals that --trace-scope left out
  std::vector<Signal> signals_;
  std::vector<const ClockDomain*> clocks_;
  std::vector<std::pair<uint32_t, uint64_t>> pending_;  // (signal, new value) of the open instant
  uint64_t pending_time_ = 0;
  bool started_ = false, closed_ = false;
  // The live file: written for instants in [live_start_, live_end_).
  enum class Live { kBefore, kOn, kAfter } live_ = Live::kBefore;
  uint64_t live_start_ = 0, live_end_ = kNever;
  // Flight recorder: changes of the last flight_ps_, and every signal's
  // value before the oldest of them.
  uint64_t flight_ps_ = 0;
  std::deque<Change> flight_;
  std::vector<uint64_t> flight_base_;
  // The trigger's window: its base values at trigger_from_, its changes
  // up to trigger_end_ (while trigger_open_).
  int trigger_id_ = -1;  // the value trigger's signal
  bool triggered_ = false, trigger_open_ = false;
  uint64_t trigger_ps_ = 0, trigger_from_ = 0, trigger_end_ = 0;
  std::vector<uint64_t> trigger_base_;
  std::deque<Change> trigger_changes_;
  std::string trigger_what_, trigger_path_, trigger_error_;
};

}  // namespace tessera::sim
