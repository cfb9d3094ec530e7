#include "sim/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <systemc>

#include "sim/clock.h"
#include "sim/config.h"

namespace tessera::sim {

namespace {

bool parse_cycles(const std::string& s, uint64_t& out) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::stoull(s);
  return true;
}

// Names are the models' own ("sm3", "RD"); escape anyway so the file is
// always valid JSON.
void append_escaped(std::string& out, std::string_view s) {
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
}

// Microseconds, exact to the picosecond.
void append_ts(std::string& out, uint64_t ps) {
  fmt::format_to(std::back_inserter(out), "{}.{:06}", ps / 1000000, ps % 1000000);
}

}  // namespace

void parse_timeline_window(const std::string& text, TimelineOptions& options) {
  const auto colon = text.find(':');
  const std::string bad = fmt::format("--timeline-window '{}': ", text);
  if (colon == std::string::npos) throw ConfigError(bad + "expected START:END in SM cycles (e.g. 1000:2000)");
  if (!parse_cycles(text.substr(0, colon), options.window_start) ||
      !parse_cycles(text.substr(colon + 1), options.window_end))
    throw ConfigError(bad + "START and END must be SM cycle numbers (decimal digits)");
  if (options.window_end <= options.window_start)
    throw ConfigError(bad + fmt::format("END ({}) must be after START ({})", options.window_end, options.window_start));
  options.window = true;
}

Timeline::Timeline(TimelineOptions options, uint64_t sm_period_ps)
    : options_(std::move(options)), file_("--timeline", options_.path, options_.inputs) {
  if (options_.sample == 0)
    throw ConfigError("--timeline-sample 0: N must be at least 1 (1 records every memory transaction)");
  if (options_.window) {
    start_ps_ = options_.window_start * sm_period_ps;
    end_ps_ = options_.window_end * sm_period_ps;
  }
  buffer_.reserve(kFlushBytes + 4096);
  buffer_ += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"tessera\",\"ts_unit\":\"us (ps/1e6)\"";
  fmt::format_to(std::back_inserter(buffer_), ",\"sm_period_ps\":{},\"sample\":{}", sm_period_ps, options_.sample);
  if (options_.window)
    fmt::format_to(std::back_inserter(buffer_), ",\"window_sm_cycles\":[{},{}]", options_.window_start,
                   options_.window_end);
  buffer_ += "},\"traceEvents\":[";
  // Every event starts with ",\n"; the first one's comma becomes a space.
  first_event_ = buffer_.size();
}

// Not closed: the run was refused or ended by an exception. The staged file
// is dropped (OutputFile) and a file already at the path stays as it was.
Timeline::~Timeline() = default;

uint64_t Timeline::now_ps() {
  static const auto ps = sc_core::sc_time(1, sc_core::SC_PS).value();
  return static_cast<uint64_t>(sc_core::sc_time_stamp().value() / ps);
}

// clock.time_of(cycle) in integers: the period is a whole number of time
// ticks, and a control core's every memory wait asks (sc_time * double is
// several times slower).
uint64_t Timeline::cycle_ps(const ClockDomain& clock, uint64_t cycle) {
  static const auto ps = sc_core::sc_time(1, sc_core::SC_PS).value();
  return static_cast<uint64_t>(clock.period().value() * cycle / ps);
}

int Timeline::track(const std::string& process, const std::string& thread) {
  const auto key = std::make_pair(process, thread);
  if (const auto it = track_ids_.find(key); it != track_ids_.end()) return it->second;
  // Processes and threads are numbered in the order of their first track()
  // call, which is also their sort index: an SM's "kernel" thread first.
  auto p = pids_.find(process);
  if (p == pids_.end()) p = pids_.emplace(process, static_cast<int>(pids_.size()) + 1).first;
  if (process_declared_.size() <= static_cast<size_t>(p->second)) process_declared_.resize(p->second + 1, false);
  const int tid = ++next_tid_[p->second];
  tracks_.push_back(Track{process, thread, p->second, tid, false, {}});
  const int id = static_cast<int>(tracks_.size()) - 1;
  track_ids_.emplace(key, id);
  return id;
}

void Timeline::declare(Track& t) {
  if (t.declared) return;
  t.declared = true;
  if (!process_declared_[static_cast<size_t>(t.pid)]) {
    process_declared_[static_cast<size_t>(t.pid)] = true;
    metadata("process_name", t.pid, 0, "name", t.process);
    // Perfetto orders processes by this index: the order of first use.
    metadata("process_sort_index", t.pid, 0, "sort_index", {});
  }
  metadata("thread_name", t.pid, t.tid, "name", t.thread);
  metadata("thread_sort_index", t.pid, t.tid, "sort_index", {});
}

// `value` empty: the sort index, which is the pid or tid itself.
void Timeline::metadata(const char* what, int pid, int tid, std::string_view key, std::string_view value) {
  fmt::format_to(std::back_inserter(buffer_),
                 ",\n{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{{\"{}\":", what, pid, tid, key);
  if (value.empty()) {
    fmt::format_to(std::back_inserter(buffer_), "{}}}}}", tid ? tid : pid);
  } else {
    buffer_ += '"';
    append_escaped(buffer_, value);
    buffer_ += "\"}}";
  }
}

void Timeline::flush_buffer() {
  if (first_event_ && buffer_.size() > first_event_) {
    buffer_[first_event_] = ' ';
    first_event_ = 0;
  }
  file_.write(buffer_);
  buffer_.clear();
}

void Timeline::open_event(std::string& out, char ph, const Track& t, uint64_t ps) {
  fmt::format_to(std::back_inserter(out), ",\n{{\"ph\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":", ph, t.pid, t.tid);
  append_ts(out, ps);
  ++events_;
}

std::string& Timeline::out_for(Track& t, uint64_t ps) {
  if (!t.stack.empty() && std::max(t.stack.back().start_ps, start_ps_) == ps) return t.stack.back().held;
  return buffer_;
}

void Timeline::finish(Track& t, std::string_view name, uint64_t start_ps, uint64_t end_ps, std::string_view args,
                      std::string_view held) {
  end_ps = std::max(end_ps, start_ps);
  const bool shown = start_ps < end_ps_ && (start_ps >= start_ps_ || end_ps > start_ps_);
  if (!shown) {
    buffer_ += held;  // nothing in practice: what nests in a slice outside the window is outside too
    maybe_flush();
    return;
  }
  const uint64_t from = std::max(start_ps, start_ps_), to = std::min(end_ps, end_ps_);
  declare(t);
  std::string& out = out_for(t, from);
  open_event(out, 'X', t, from);
  out += ",\"dur\":";
  append_ts(out, to - from);
  out += ",\"name\":\"";
  append_escaped(out, name);
  out += '"';
  if (!args.empty()) {
    out += ",\"args\":";
    out += args;
  }
  out += '}';
  out += held;
  maybe_flush();
}

void Timeline::begin(int track, std::string_view name, uint64_t ps, std::string_view args) {
  tracks_[static_cast<size_t>(track)].stack.push_back(Open{std::string(name), std::string(args), ps, {}});
}

void Timeline::end(int track, uint64_t ps) {
  Track& t = tracks_[static_cast<size_t>(track)];
  if (t.stack.empty()) return;
  const Open o = std::move(t.stack.back());
  t.stack.pop_back();
  finish(t, o.name, o.start_ps, ps, o.args, o.held);
}

void Timeline::slice(int track, std::string_view name, uint64_t start_ps, uint64_t end_ps, std::string_view args) {
  finish(tracks_[static_cast<size_t>(track)], name, start_ps, end_ps, args, {});
}

void Timeline::instant(int track, std::string_view name, uint64_t ps, std::string_view args) {
  if (!in_window(ps)) return;
  Track& t = tracks_[static_cast<size_t>(track)];
  declare(t);
  std::string& out = out_for(t, ps);
  open_event(out, 'i', t, ps);
  out += ",\"name\":\"";
  append_escaped(out, name);
  out += "\",\"s\":\"t\"";
  if (!args.empty()) {
    out += ",\"args\":";
    out += args;
  }
  out += '}';
  maybe_flush();
}

void Timeline::failure(uint64_t ps, std::string_view message, int track) {
  if (track >= 0) {
    Track& t = tracks_[static_cast<size_t>(track)];
    declare(t);
    open_event(buffer_, 'i', t, ps);
    buffer_ += ",\"name\":\"failure\",\"s\":\"t\"";
  } else {
    // A global instant: Perfetto shows it on a track of its own, above the
    // processes, and chrome://tracing as a line across every track.
    buffer_ += ",\n{\"ph\":\"i\",\"pid\":0,\"tid\":0,\"ts\":";
    append_ts(buffer_, ps);
    buffer_ += ",\"name\":\"failure\",\"s\":\"g\"";
    ++events_;
  }
  buffer_ += ",\"args\":{\"message\":\"";
  append_escaped(buffer_, message);
  buffer_ += "\"}}";
  maybe_flush();
}

void Timeline::async_event(char ph, int track, std::string_view name, uint64_t id, uint64_t ps, std::string_view extra,
                           std::string_view args) {
  Track& t = tracks_[static_cast<size_t>(track)];
  declare(t);
  open_event(buffer_, ph, t, ps);
  buffer_ += ",\"name\":\"";
  append_escaped(buffer_, name);
  fmt::format_to(std::back_inserter(buffer_), "\",\"cat\":\"mem\",\"id\":\"0x{:x}\"", id);
  buffer_ += extra;
  if (!args.empty()) {
    buffer_ += ",\"args\":";
    buffer_ += args;
  }
  buffer_ += '}';
  maybe_flush();
}

void Timeline::async_begin(int track, std::string_view name, uint64_t id, uint64_t ps, std::string_view args) {
  if (!in_window(ps) || open_async_.count(id)) return;
  open_async_[id].push_back(Stage{track, std::string(name), ps});
  async_event('b', track, name, id, ps, {}, args);
}

void Timeline::async_begin_caused(uint64_t cause, std::string_view link, int track, std::string_view name, uint64_t id,
                                  uint64_t ps, std::string_view args) {
  if (!in_window(ps) || open_async_.count(id)) return;
  const auto c = open_async_.find(cause);
  if (c == open_async_.end()) return async_begin(track, name, id, ps, args);
  // Flow v2: Perfetto binds "flow_out" to the slice the "n" instant makes in
  // the cause and "flow_in" to the "b" that follows, in file order at the
  // same ts. Ids are never reused: a flow id is one arrow.
  const uint64_t flow = ++flows_;
  async_event('n', c->second.back().track, link, cause, ps, fmt::format(",\"bind_id\":{},\"flow_out\":true", flow), {});
  open_async_[id].push_back(Stage{track, std::string(name), ps});
  async_event('b', track, name, id, ps, fmt::format(",\"bind_id\":{},\"flow_in\":true", flow), args);
}

void Timeline::async_stage_begin(int track, std::string_view name, uint64_t id, uint64_t ps, std::string_view args) {
  const auto it = open_async_.find(id);
  if (it == open_async_.end()) return;
  it->second.push_back(Stage{track, std::string(name), ps});
  async_event('b', track, name, id, ps, {}, args);
}

void Timeline::async_end(int track, std::string_view name, uint64_t id, uint64_t ps) {
  const auto it = open_async_.find(id);
  if (it == open_async_.end()) return;
  const Stage s = std::move(it->second.back());
  it->second.pop_back();
  if (it->second.empty()) open_async_.erase(it);
  async_event('e', track, name.empty() ? std::string_view(s.name) : name, id, std::max(ps, s.start_ps), {}, {});
}

void Timeline::close(uint64_t end_ps) {
  if (closed_) return;
  closed_ = true;
  for (const auto& f : at_close_) f(end_ps);
  // What is still open ends at end_ps, or where the latest of it began (a
  // track ahead of SystemC time), so it still nests.
  for (size_t i = 0; i < tracks_.size(); ++i) {
    uint64_t stop = end_ps;
    for (const Open& o : tracks_[i].stack) stop = std::max(stop, o.start_ps);
    while (!tracks_[i].stack.empty()) end(static_cast<int>(i), stop);
  }
  // Transactions still in flight (a run that stopped early), in id order.
  const std::map<uint64_t, std::vector<Stage>> open(open_async_.begin(), open_async_.end());
  open_async_.clear();
  for (const auto& [id, stages] : open) {
    uint64_t stop = end_ps;
    for (const Stage& s : stages) stop = std::max(stop, s.start_ps);
    for (auto s = stages.rbegin(); s != stages.rend(); ++s) async_event('e', s->track, s->name, id, stop, {}, {});
  }
  flush_buffer();
  buffer_ += "\n]}\n";
  flush_buffer();
  file_.close();
}

}  // namespace tessera::sim
