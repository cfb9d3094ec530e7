// The run as a timeline (--timeline FILE.json): Chrome/Perfetto trace-event
// JSON (the "Trace Event Format"), opened by ui.perfetto.dev and
// chrome://tracing. A plain C++ writer, no SystemC: models that get a
// non-null Timeline* report slices, instants and asynchronous memory
// transactions at a time in picoseconds; the events are streamed to the
// file (a small buffer, never the whole trace in memory).
//
// Tracks are (process, thread) pairs named by "M" metadata events: one
// process per SM ("sm3": a "kernel" thread and one thread per block slot),
// per control core ("cluster": "core0"...), per DRAM channel ("hbm": a
// thread per pseudo-channel), the cluster's bus, and "memory" for the
// sampled transactions (async "b"/"e" slices nested per id: SM -> L2, L2 ->
// memory -> DRAM).
//
// Time: "ts" is the simulated time in microseconds, written exactly as
// ps / 1e6 (six decimals); "displayTimeUnit" is "ns". At the default 1000
// MHz SM clock, one SM cycle is 0.001 (1 ns).
//
// --timeline-window START:END (SM cycles) keeps only what happens in
// [START, END): slices that straddle an edge are cut at it, instants and
// transactions that begin outside are dropped (a transaction that begins
// inside keeps its end). --timeline-sample N records every Nth memory
// transaction of each kind (SM requests, L2 memory requests).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/output_file.h"

namespace tessera::sim {

class ClockDomain;

struct TimelineOptions {
  std::string path;           // --timeline FILE.json
  uint64_t sample = 16;       // --timeline-sample N: every Nth memory transaction
  bool window = false;        // --timeline-window START:END given
  uint64_t window_start = 0;  // SM cycles
  uint64_t window_end = 0;
  std::vector<std::string> inputs;  // files the run reads, never overwritten
};

// Parses "START:END" in SM cycles (ConfigError naming --timeline-window when
// it is malformed or END is not after START).
void parse_timeline_window(const std::string& text, TimelineOptions& options);

class Timeline {
 public:
  // Opens options.path (ConfigError when it cannot be written: before the
  // run). `sm_period_ps` converts the window's SM cycles to time.
  Timeline(TimelineOptions options, uint64_t sm_period_ps);
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  // The track of thread `thread` in process `process`, made on first use
  // (the same id for the same names). Elaboration or run time.
  int track(const std::string& process, const std::string& thread);

  // A slice on `track`; slices of one track nest (end() closes the latest
  // open one). Times on one track never decrease.
  void begin(int track, std::string_view name, uint64_t ps, std::string_view args = {});
  void end(int track, uint64_t ps);
  // A slice whose end is already known (begin and end at once).
  void slice(int track, std::string_view name, uint64_t start_ps, uint64_t end_ps, std::string_view args = {});
  void instant(int track, std::string_view name, uint64_t ps, std::string_view args = {});

  // Memory transactions. sample(kind) is true for every Nth call of a kind
  // (0: SM requests, 1: L2 memory requests); the caller then opens its
  // transaction with async_begin, which records it when it begins inside
  // the window. Stages of the same transaction (the same id) nest inside
  // it with async_stage_begin / async_end, recorded only while it is open.
  bool sample(unsigned kind) {
    uint64_t& n = sample_count_[kind & 1];
    if (++n < options_.sample) return false;
    n = 0;
    return true;
  }
  void async_begin(int track, std::string_view name, uint64_t id, uint64_t ps, std::string_view args = {});
  void async_stage_begin(int track, std::string_view name, uint64_t id, uint64_t ps);
  // Ends the innermost open stage of transaction `id` (nothing when it is
  // not open); `name` must be that stage's.
  void async_end(int track, std::string_view name, uint64_t id, uint64_t ps);
  bool async_open(uint64_t id) const { return open_async_.count(id) != 0; }

  // Closes every open slice and transaction at end_ps (slices cut to the
  // window), writes the
  // trailer and closes the file; OutputError when writing failed.
  void close(uint64_t end_ps);

  const std::string& path() const { return options_.path; }
  uint64_t events() const { return events_; }

  // The current SystemC time in ps, for models (this header needs no
  // SystemC).
  static uint64_t now_ps();
  // The start of `cycle` of `clock`, in ps.
  static uint64_t cycle_ps(const ClockDomain& clock, uint64_t cycle);
  // The id of a memory request of L2 slice `slice` for `addr` (the L2's
  // memory stage and the DRAM stage nested in it).
  static uint64_t memory_request_id(unsigned slice, uint64_t addr) {
    return (uint64_t{1} << 63) | (uint64_t{slice} << 40) | (addr & ((uint64_t{1} << 40) - 1));
  }
  // The id of SM `sm`'s request `tag` for `line` (its L2 stage nests in
  // it); one instruction's requests for several lines share a tag.
  static uint64_t sm_request_id(unsigned sm, uint32_t tag, uint64_t line) {
    return (uint64_t{sm & 0xff} << 52) | (uint64_t{tag & 0xfffff} << 32) | (line & 0xffffffff);
  }

 private:
  struct Open {
    std::string name;
    uint64_t start_ps;
    bool emitted;
  };
  struct Track {
    int pid, tid;
    std::vector<Open> stack;
  };

  bool in_window(uint64_t ps) const { return ps >= start_ps_ && ps < end_ps_; }
  // Emits "B" at the window's start for slices opened before it.
  void emit_pending(Track& t);
  void event(char ph, const Track& t, std::string_view name, uint64_t ps, std::string_view args,
             const uint64_t* id = nullptr);
  void metadata(const char* what, int pid, int tid, const std::string& name);
  void put(std::string_view text);
  void flush_buffer();

  TimelineOptions options_;
  OutputFile file_;
  std::string buffer_;
  uint64_t start_ps_ = 0, end_ps_ = ~uint64_t{0};
  uint64_t sample_count_[2] = {0, 0};
  uint64_t events_ = 0;
  bool first_ = true, closed_ = false;
  std::vector<Track> tracks_;
  std::map<std::pair<std::string, std::string>, int> track_ids_;
  std::map<std::string, int> pids_;
  std::map<int, int> next_tid_;
  // Open stages of each recorded transaction, outermost first: (track, name).
  std::unordered_map<uint64_t, std::vector<std::pair<int, std::string>>> open_async_;
};

}  // namespace tessera::sim
