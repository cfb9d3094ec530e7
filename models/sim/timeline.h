// The run as a timeline (--timeline FILE.json): Chrome/Perfetto trace-event
// JSON (the "Trace Event Format"), opened by ui.perfetto.dev and
// chrome://tracing. A plain C++ writer, no SystemC: models that get a
// non-null Timeline* report slices, instants and asynchronous memory
// transactions at a time in picoseconds; the events are streamed to the
// file (a small buffer, never the whole trace in memory).
//
// Tracks are (process, thread) pairs: one process per SM ("sm3": a "kernel"
// thread and one thread per block slot), the dispatcher, the control
// cluster ("core0"..., "bus"), the DRAM ("hbm": a row and a column command
// thread per pseudo-channel) and "memory" for the sampled transactions.
// A track is declared (its "M" process_name/thread_name and sort-index
// metadata written) with its first event, so a block slot no block ever
// used is not in the file.
//
// Synchronous slices are complete "X" events (ts and dur), written when the
// slice ends: begin()/end() nest per track, slice() is one that has ended.
// A child that starts where its parent starts is written after the parent
// (Chrome's importer nests equal-ts "X" events in file order). Instants are
// "i" events on their track; failure() is a global one.
//
// Memory transactions are async "b"/"e" slices (cat "mem"), their stages
// nested per id: SM request -> its L2 stage; L2 memory request -> its DRAM
// stage. A transaction begun with async_begin_caused() is linked to the one
// that caused it (an L2 fill to the SM request whose miss fetches it): an
// "n" instant in the cause carries a flow v2 arrow ("bind_id" with
// "flow_out", then "flow_in" on the caused "b"), the kind of link Perfetto
// draws between async slices ("s"/"f" flow events only bind to thread
// slices).
//
// Time: "ts" is the simulated time in microseconds, written exactly as
// ps / 1e6 (six decimals); "displayTimeUnit" is "ns". At the default 1000
// MHz SM clock, one SM cycle is 0.001 (1 ns).
//
// --timeline-window START:END (SM cycles) keeps only what happens in
// [START, END): slices that straddle an edge are cut at it, instants and
// transactions that begin outside are dropped (a transaction that begins
// inside keeps its end); the failure marker is always written.
// --timeline-sample N records every Nth memory transaction of each kind
// (SM requests, L2 memory requests); N = 1 records all of them, 0 is a
// ConfigError. The L2 memory requests of a recorded SM request's misses
// are recorded whatever N.
//
// close() ends what is still open at the time the run stopped (models
// that keep an interval of their own write it from an at_close callback).
#pragma once

#include <cstdint>
#include <functional>
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
  // (the same id for the same names). Writes nothing: the track is declared
  // in the file with its first event. Elaboration or run time.
  int track(const std::string& process, const std::string& thread);

  // A slice on `track`; slices of one track nest (end() closes the latest
  // open one), each written as one "X" event when it ends. Times on one
  // track never decrease.
  void begin(int track, std::string_view name, uint64_t ps, std::string_view args = {});
  void end(int track, uint64_t ps);
  // A slice whose end is already known: one "X" event.
  void slice(int track, std::string_view name, uint64_t start_ps, uint64_t end_ps, std::string_view args = {});
  void instant(int track, std::string_view name, uint64_t ps, std::string_view args = {});
  // The run stopped on a failure (a guest fault, a deadlock, a cycle limit,
  // a failed check): an instant "failure" with args {"message"}, global
  // ("s":"g"), or on `track` when the failing unit's is known. Written even
  // outside the window.
  void failure(uint64_t ps, std::string_view message, int track = -1);

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
  // async_begin of a transaction caused by transaction `cause`. When both
  // are recorded (`cause` open, this one begins in the window), an instant
  // `link` in `cause` at `ps` points at it with a flow arrow.
  void async_begin_caused(uint64_t cause, std::string_view link, int track, std::string_view name, uint64_t id,
                          uint64_t ps, std::string_view args = {});
  void async_stage_begin(int track, std::string_view name, uint64_t id, uint64_t ps, std::string_view args = {});
  // Ends the innermost open stage of transaction `id` (nothing when it is
  // not open); `name` must be that stage's.
  void async_end(int track, std::string_view name, uint64_t id, uint64_t ps);
  bool async_open(uint64_t id) const { return open_async_.count(id) != 0; }

  // Runs `f(end_ps)` first thing in close(): a model that keeps an interval
  // of its own (a control core's memory wait, written when it ends) writes
  // the one still open when the run stops. Elaboration time.
  void at_close(std::function<void(uint64_t end_ps)> f) { at_close_.push_back(std::move(f)); }

  // Then ends every open slice and transaction at end_ps (slices cut to the
  // window; on a track or transaction that leads SystemC time, where its
  // latest open slice or stage began), writes the trailer and closes the
  // file; OutputError when writing failed.
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
    std::string name, args;
    uint64_t start_ps;
    // Slices and instants of this track that start where this one starts:
    // written right after it.
    std::string held;
  };
  struct Track {
    std::string process, thread;
    int pid, tid;
    bool declared = false;
    std::vector<Open> stack;
  };
  struct Stage {
    int track;
    std::string name;
    uint64_t start_ps;
  };

  bool in_window(uint64_t ps) const { return ps >= start_ps_ && ps < end_ps_; }
  // Writes the "X" of a slice that ended, then `held`.
  void finish(Track& t, std::string_view name, uint64_t start_ps, uint64_t end_ps, std::string_view args,
              std::string_view held);
  // Where an event of `t` at `ps` goes: the buffer, or the held events of
  // the open slice that starts at the same time.
  std::string& out_for(Track& t, uint64_t ps);
  // Writes the metadata of `t` (and of its process) when it has none yet.
  void declare(Track& t);
  // Appends ",\n{"ph":..,"pid":..,"tid":..,"ts":..: the caller ends it.
  void open_event(std::string& out, char ph, const Track& t, uint64_t ps);
  void async_event(char ph, int track, std::string_view name, uint64_t id, uint64_t ps, std::string_view extra,
                   std::string_view args);
  void metadata(const char* what, int pid, int tid, std::string_view key, std::string_view value);
  void maybe_flush() {
    if (buffer_.size() >= kFlushBytes) flush_buffer();
  }
  void flush_buffer();

  static constexpr size_t kFlushBytes = 1 << 16;
  TimelineOptions options_;
  OutputFile file_;
  std::string buffer_;
  size_t first_event_ = 0;  // where the first event's leading comma is (0: written)
  uint64_t start_ps_ = 0, end_ps_ = ~uint64_t{0};
  uint64_t sample_count_[2] = {0, 0};
  uint64_t events_ = 0, flows_ = 0;
  bool closed_ = false;
  std::vector<Track> tracks_;
  std::map<std::pair<std::string, std::string>, int> track_ids_;
  std::map<std::string, int> pids_;
  std::map<int, int> next_tid_;
  std::vector<bool> process_declared_;  // by pid
  std::vector<std::function<void(uint64_t)>> at_close_;
  // Open stages of each recorded transaction, outermost first.
  std::unordered_map<uint64_t, std::vector<Stage>> open_async_;
};

}  // namespace tessera::sim
