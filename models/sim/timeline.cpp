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

constexpr size_t kFlushBytes = 1 << 16;

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
  if (options_.sample == 0) options_.sample = 1;
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
  buffer_ += "},\"traceEvents\":[\n";
}

// Not closed: the run was refused or ended by an exception. The staged file
// is dropped (OutputFile) and a file already at the path stays as it was.
Timeline::~Timeline() = default;

uint64_t Timeline::now_ps() {
  static const auto ps = sc_core::sc_time(1, sc_core::SC_PS).value();
  return static_cast<uint64_t>(sc_core::sc_time_stamp().value() / ps);
}

uint64_t Timeline::cycle_ps(const ClockDomain& clock, uint64_t cycle) {
  static const auto ps = sc_core::sc_time(1, sc_core::SC_PS).value();
  return static_cast<uint64_t>(clock.time_of(cycle).value() / ps);
}

int Timeline::track(const std::string& process, const std::string& thread) {
  const auto key = std::make_pair(process, thread);
  if (const auto it = track_ids_.find(key); it != track_ids_.end()) return it->second;
  auto p = pids_.find(process);
  if (p == pids_.end()) {
    p = pids_.emplace(process, static_cast<int>(pids_.size()) + 1).first;
    metadata("process_name", p->second, 0, process);
    // Perfetto orders processes by this index: the order of first use.
    put(fmt::format(
        ",\n{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"tid\":0,\"args\":{{\"sort_index\":{}}}}}",
        p->second, p->second));
  }
  const int tid = ++next_tid_[p->second];
  metadata("thread_name", p->second, tid, thread);
  put(fmt::format(
      ",\n{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
      p->second, tid, tid));
  tracks_.push_back(Track{p->second, tid, {}});
  const int id = static_cast<int>(tracks_.size()) - 1;
  track_ids_.emplace(key, id);
  return id;
}

void Timeline::metadata(const char* what, int pid, int tid, const std::string& name) {
  std::string e = first_ ? "" : ",\n";
  first_ = false;
  fmt::format_to(std::back_inserter(e), "{{\"ph\":\"M\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"",
                 what, pid, tid);
  append_escaped(e, name);
  e += "\"}}";
  put(e);
}

void Timeline::put(std::string_view text) {
  buffer_ += text;
  if (buffer_.size() >= kFlushBytes) flush_buffer();
}

void Timeline::flush_buffer() {
  file_.write(buffer_);
  buffer_.clear();
}

void Timeline::event(char ph, const Track& t, std::string_view name, uint64_t ps, std::string_view args,
                     const uint64_t* id) {
  if (!first_) buffer_ += ",\n";
  first_ = false;
  fmt::format_to(std::back_inserter(buffer_), "{{\"ph\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":", ph, t.pid, t.tid);
  append_ts(buffer_, ps);
  buffer_ += ",\"name\":\"";
  append_escaped(buffer_, name);
  buffer_ += '"';
  if (id) fmt::format_to(std::back_inserter(buffer_), ",\"cat\":\"mem\",\"id\":\"0x{:x}\"", *id);
  if (ph == 'i') buffer_ += ",\"s\":\"t\"";
  if (!args.empty()) {
    buffer_ += ",\"args\":";
    buffer_ += args;
  }
  buffer_ += '}';
  ++events_;
  if (buffer_.size() >= kFlushBytes) flush_buffer();
}

void Timeline::emit_pending(Track& t) {
  for (Open& o : t.stack) {
    if (o.emitted || o.start_ps >= end_ps_) continue;
    event('B', t, o.name, std::max(o.start_ps, start_ps_), {});
    o.emitted = true;
  }
}

void Timeline::begin(int track, std::string_view name, uint64_t ps, std::string_view args) {
  Track& t = tracks_[static_cast<size_t>(track)];
  const bool now = in_window(ps);
  if (now) {
    emit_pending(t);
    event('B', t, name, ps, args);
  }
  t.stack.push_back(Open{std::string(name), ps, now});
}

void Timeline::end(int track, uint64_t ps) {
  Track& t = tracks_[static_cast<size_t>(track)];
  if (t.stack.empty()) return;
  // A slice opened before the window and ending inside or after it shows
  // from the window's start.
  if (!t.stack.back().emitted && t.stack.back().start_ps < end_ps_ && ps > start_ps_) emit_pending(t);
  const Open o = std::move(t.stack.back());
  t.stack.pop_back();
  if (o.emitted) event('E', t, o.name, std::min(ps, end_ps_), {});
}

void Timeline::slice(int track, std::string_view name, uint64_t start_ps, uint64_t end_ps, std::string_view args) {
  begin(track, name, start_ps, args);
  end(track, end_ps);
}

void Timeline::instant(int track, std::string_view name, uint64_t ps, std::string_view args) {
  if (!in_window(ps)) return;
  Track& t = tracks_[static_cast<size_t>(track)];
  emit_pending(t);
  event('i', t, name, ps, args);
}

void Timeline::async_begin(int track, std::string_view name, uint64_t id, uint64_t ps, std::string_view args) {
  if (!in_window(ps) || open_async_.count(id)) return;
  open_async_[id].emplace_back(track, std::string(name));
  event('b', tracks_[static_cast<size_t>(track)], name, ps, args, &id);
}

void Timeline::async_stage_begin(int track, std::string_view name, uint64_t id, uint64_t ps) {
  const auto it = open_async_.find(id);
  if (it == open_async_.end()) return;
  it->second.emplace_back(track, std::string(name));
  event('b', tracks_[static_cast<size_t>(track)], name, ps, {}, &id);
}

void Timeline::async_end(int track, std::string_view name, uint64_t id, uint64_t ps) {
  const auto it = open_async_.find(id);
  if (it == open_async_.end()) return;
  const std::string stage = std::move(it->second.back().second);
  it->second.pop_back();
  if (it->second.empty()) open_async_.erase(it);
  event('e', tracks_[static_cast<size_t>(track)], name.empty() ? stage : name, ps, {}, &id);
}

void Timeline::close(uint64_t end_ps) {
  if (closed_) return;
  closed_ = true;
  for (size_t i = 0; i < tracks_.size(); ++i)
    while (!tracks_[i].stack.empty()) end(static_cast<int>(i), end_ps);
  // Transactions still in flight (a run that stopped early), in id order.
  std::map<uint64_t, std::vector<std::pair<int, std::string>>> open(open_async_.begin(), open_async_.end());
  for (auto& [id, stages] : open)
    for (auto s = stages.rbegin(); s != stages.rend(); ++s)
      event('e', tracks_[static_cast<size_t>(s->first)], s->second, end_ps, {}, &id);
  open_async_.clear();
  buffer_ += "\n]}\n";
  flush_buffer();
  file_.close();
}

}  // namespace tessera::sim
