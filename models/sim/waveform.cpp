#include "sim/waveform.h"

#include <fmt/format.h>
#include <fnmatch.h>
#include <unistd.h>

#include <sys/stat.h>
#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "sim/clock.h"
#include "sim/config.h"

namespace tessera::sim {

namespace {

bool parse_u64(const std::string& text, uint64_t& out) {
  if (text.empty() || text.size() > 19 || !std::all_of(text.begin(), text.end(), ::isdigit)) return false;
  out = std::stoull(text);
  return true;
}

// Whether a glob matches a scope, given in full ("chip.sm0.sched1") or
// below the top ("sm0.sched1"), or one of the scope's ancestors.
bool glob_matches(const std::string& pattern, const std::string& scope) {
  const auto dot = scope.find('.');
  const std::string relative = dot == std::string::npos ? scope : scope.substr(dot + 1);
  const std::string below = pattern + ".*";
  for (const std::string* s : {&scope, &relative})
    if (fnmatch(pattern.c_str(), s->c_str(), 0) == 0 || fnmatch(below.c_str(), s->c_str(), 0) == 0) return true;
  return false;
}

// Bytes of memory the system can still give (MemAvailable), or 0 if unknown.
uint64_t available_memory() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

}  // namespace

void parse_trace_window(const std::string& text, TraceOptions& options) {
  const auto colon = text.find(':');
  const auto at = text.find('@');
  const std::string bad = fmt::format("--trace-window '{}': ", text);
  if (colon == std::string::npos)
    throw ConfigError(bad + "expected START:END or START:END@CLOCK (cycles, e.g. 1000:2000@sm)");
  const std::string start = text.substr(0, colon);
  const std::string end = text.substr(colon + 1, at == std::string::npos ? std::string::npos : at - colon - 1);
  if (!parse_u64(start, options.window_start) || !parse_u64(end, options.window_end))
    throw ConfigError(bad + "START and END must be cycle numbers (decimal digits)");
  if (options.window_end <= options.window_start)
    throw ConfigError(bad + fmt::format("END ({}) must be after START ({})", options.window_end, options.window_start));
  if (at != std::string::npos) {
    options.window_clock = text.substr(at + 1);
    if (options.window_clock.empty()) throw ConfigError(bad + "the clock name after '@' is empty");
  }
  options.window = true;
}

Waveform::Waveform(TraceOptions options, WaveSinkFactory make_sink)
    : options_(std::move(options)), make_sink_(std::move(make_sink)) {
  if (!options_.path.empty()) sink_ = make_sink_("--vcd", options_.path);
  if (options_.flight_cycles) {
    // The directory is made when a waveform is written, if its parent
    // exists (so the default, waves, works from any directory): a run that
    // is refused or never dumps leaves nothing behind.
    struct stat st {};
    const std::string parent = std::filesystem::path(options_.flight_dir).parent_path().string();
    const bool exists = ::stat(options_.flight_dir.c_str(), &st) == 0;
    const bool usable = exists ? S_ISDIR(st.st_mode) && ::access(options_.flight_dir.c_str(), W_OK) == 0
                               : ::access(parent.empty() ? "." : parent.c_str(), W_OK) == 0;
    if (!usable)
      throw ConfigError(fmt::format(
          "--flight-recorder: the directory {} for its waveforms cannot be made or is not writable (set --flight-dir)",
          options_.flight_dir));
  }
}

Waveform::~Waveform() = default;

bool Waveform::scope_enabled(const std::string& scope) const {
  if (options_.scopes.empty()) return true;
  return std::any_of(options_.scopes.begin(), options_.scopes.end(),
                     [&](const std::string& p) { return glob_matches(p, scope); });
}

int Waveform::add_signal(const std::string& scope, const std::string& name, unsigned width, const WaveEnum* values) {
  if (started_) throw std::logic_error("waveform signal added after the run started: " + scope + "." + name);
  if (width == 0 || width > 64)
    throw std::logic_error(fmt::format("waveform signal {}.{}: width {}", scope, name, width));
  if (!scope_enabled(scope)) {
    // Remembered for the list of scopes that exist.
    if (std::find(filtered_scopes_.begin(), filtered_scopes_.end(), scope) == filtered_scopes_.end())
      filtered_scopes_.push_back(scope);
    return -1;
  }
  declared_.push_back(WaveSignal{scope, name, width, values});
  signals_.emplace_back();
  return static_cast<int>(signals_.size() - 1);
}

void Waveform::add_clock(const ClockDomain& clock) {
  for (const ClockDomain* c : clocks_)
    if (c->name() == clock.name()) return;
  clocks_.push_back(&clock);
}

uint64_t Waveform::clock_period_ps(const std::string& name) const {
  std::string known;
  for (const ClockDomain* c : clocks_) {
    if (c->name() == name)
      return static_cast<uint64_t>(c->period().value() / sc_core::sc_time(1, sc_core::SC_PS).value());
    known += (known.empty() ? "" : ", ") + c->name();
  }
  throw ConfigError(fmt::format("trace clock '{}' does not exist on this platform; its clocks are: {}", name, known));
}

std::vector<std::string> Waveform::scopes() const {
  std::set<std::string> all(filtered_scopes_.begin(), filtered_scopes_.end());
  for (const WaveSignal& s : declared_) all.insert(s.scope);
  return {all.begin(), all.end()};
}

std::vector<const WaveEnum*> Waveform::enums() const {
  std::vector<const WaveEnum*> all;
  for (const WaveSignal& s : declared_)
    if (s.values && std::find(all.begin(), all.end(), s.values) == all.end()) all.push_back(s.values);
  std::sort(all.begin(), all.end(), [](const WaveEnum* a, const WaveEnum* b) { return a->name < b->name; });
  return all;
}

void Waveform::start() {
  const std::vector<std::string> all = scopes();
  for (const std::string& p : options_.scopes) {
    if (std::any_of(all.begin(), all.end(), [&](const std::string& s) { return glob_matches(p, s); })) continue;
    std::string list;
    for (const std::string& s : all) list += "\n  " + s;
    throw ConfigError(fmt::format("--trace-scope '{}' matches no scope; the scopes with signals are:{}", p, list));
  }
  const bool needs_clock = options_.window || options_.flight_cycles;
  const uint64_t period = needs_clock ? clock_period_ps(options_.window_clock) : 0;
  if (options_.window) {
    live_start_ = options_.window_start * period;
    live_end_ = options_.window_end * period;
  }
  if (options_.after_roi) live_start_ = kNever;  // set by roi()
  if (options_.flight_cycles) {
    flight_ps_ = options_.flight_cycles * period;
    // Worst case: every signal changes in every cycle.
    const uint64_t need = static_cast<uint64_t>(signals_.size()) * options_.flight_cycles * sizeof(Change);
    const uint64_t have = available_memory();
    if (have && need > have)
      throw ConfigError(fmt::format(
          "--flight-recorder {}: keeping {} signals for {} cycles needs up to {:.1f} GiB, and {:.1f} GiB are "
          "available; record fewer cycles or fewer scopes (--trace-scope)",
          options_.flight_cycles, signals_.size(), options_.flight_cycles, need / 1073741824.0, have / 1073741824.0));
    flight_base_.assign(signals_.size(), 0);
  }
  if (!options_.trigger_signal.empty()) {
    if (!flight_ps_)
      throw ConfigError(
          fmt::format("--trigger value:{}: a trigger keeps a window of the flight recorder; give "
                      "--flight-recorder N too",
                      options_.trigger_signal));
    for (size_t i = 0; i < declared_.size() && trigger_id_ < 0; ++i)
      if (declared_[i].scope + "." + declared_[i].name == options_.trigger_signal) trigger_id_ = static_cast<int>(i);
    if (trigger_id_ < 0) {
      // The declared signals that share the most leading characters.
      std::vector<std::string> names;
      for (const WaveSignal& s : declared_) names.push_back(s.scope + "." + s.name);
      std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
        const auto common = [&](const std::string& n) {
          return std::mismatch(n.begin(), n.end(), options_.trigger_signal.begin(), options_.trigger_signal.end())
                     .first -
                 n.begin();
        };
        return common(a) != common(b) ? common(a) > common(b) : a < b;
      });
      std::string near;
      for (size_t i = 0; i < names.size() && i < 5; ++i) near += "\n  " + names[i];
      throw ConfigError(
          fmt::format("--trigger value:{}: no traced signal has this name (the scope, a dot, the "
                      "signal; --trace-scope may have left it out); the nearest:{}",
                      options_.trigger_signal, near));
    }
  }
  if (sink_) sink_->declare(declared_);
  started_ = true;
}

void Waveform::record(Signal& s, int id, uint64_t value, uint64_t time_ps) {
  if (!pending_.empty() && time_ps != pending_time_) flush();
  pending_time_ = time_ps;
  if (s.pending >= 0) {
    pending_[static_cast<size_t>(s.pending)].second = value;
    return;
  }
  s.pending = static_cast<int>(pending_.size());
  pending_.emplace_back(static_cast<uint32_t>(id), value);
}

void Waveform::open_live(uint64_t at_ps) {
  live_ = Live::kOn;
  sink_->time(at_ps);
  for (size_t i = 0; i < signals_.size(); ++i) sink_->value(i, signals_[i].value);
}

void Waveform::flush() {
  if (pending_.empty()) return;
  std::sort(pending_.begin(), pending_.end());
  const uint64_t t = pending_time_;
  if (sink_ && started_) {
    if (live_ == Live::kBefore && t >= live_start_) open_live(live_start_);  // the values at the window's start
    if (live_ == Live::kOn && t >= live_end_) live_ = Live::kAfter;
  }
  const bool live = sink_ && live_ == Live::kOn;
  bool time_sent = false, fire = false;
  for (const auto& [id, value] : pending_) {
    Signal& s = signals_[id];
    s.pending = -1;
    if (s.value == value) continue;  // changed and changed back within the instant
    s.value = value;
    if (static_cast<int>(id) == trigger_id_ && value == options_.trigger_value) fire = true;
    if (live) {
      if (!time_sent) sink_->time(t);
      time_sent = true;
      sink_->value(id, value);
    }
    if (flight_ps_) flight_.push_back(Change{t, id, value});
    if (trigger_open_) trigger_changes_.push_back(Change{t, id, value});
  }
  pending_.clear();
  if (flight_ps_) trim_flight(t);
  if (trigger_open_ && t >= trigger_end_) {
    try {
      write_trigger(trigger_end_);
    } catch (const std::exception& e) {  // inside the simulation: reported after it
      trigger_error_ = e.what();
    }
  }
  if (fire && !triggered_) trigger(t, fmt::format("value:{}=={}", options_.trigger_signal, options_.trigger_value));
}

void Waveform::trigger(uint64_t time_ps, std::string what) {
  if (triggered_ || !flight_ps_) return;
  flush();
  trim_flight(time_ps);
  triggered_ = trigger_open_ = true;
  trigger_ps_ = time_ps;
  trigger_what_ = std::move(what);
  trigger_from_ = time_ps > flight_ps_ ? time_ps - flight_ps_ : 0;
  trigger_end_ = time_ps + flight_ps_;
  trigger_base_ = flight_base_;
  trigger_changes_ = flight_;
}

void Waveform::write_trigger(uint64_t end_ps) {
  trigger_open_ = false;
  const std::string path = fmt::format("{}/{}-trigger.fst", options_.flight_dir, options_.program);
  ::mkdir(options_.flight_dir.c_str(), 0777);
  while (!trigger_changes_.empty() && trigger_changes_.back().time_ps >= end_ps) trigger_changes_.pop_back();
  write_window(path, trigger_from_, trigger_base_, trigger_changes_, end_ps);
  trigger_path_ = path;
  trigger_changes_.clear();
}

void Waveform::write_window(const std::string& path, uint64_t from, const std::vector<uint64_t>& base,
                            const std::deque<Change>& changes, uint64_t end) const {
  std::unique_ptr<WaveSink> out = make_sink_("--flight-recorder", path);
  out->declare(declared_);
  out->time(from);
  for (size_t i = 0; i < base.size(); ++i) out->value(i, base[i]);
  uint64_t t = from;
  for (const Change& c : changes) {
    if (c.time_ps != t) out->time(t = c.time_ps);
    out->value(c.signal, c.value);
  }
  out->close(std::max(end, t));
}

void Waveform::trim_flight(uint64_t now_ps) {
  const uint64_t keep_from = now_ps > flight_ps_ ? now_ps - flight_ps_ : 0;
  while (!flight_.empty() && flight_.front().time_ps <= keep_from) {
    flight_base_[flight_.front().signal] = flight_.front().value;
    flight_.pop_front();
  }
}

void Waveform::roi(bool begin, uint64_t time_ps) {
  if (!begin || !options_.after_roi || live_start_ != kNever) return;
  live_start_ = time_ps;
}

std::string Waveform::set_live(bool on, uint64_t time_ps) {
  if (!sink_) return "no waveform file is written (--vcd FILE)";
  flush();
  if (on) {
    live_end_ = kNever;
    if (live_ == Live::kOn) return fmt::format("{}: already recording", options_.path);
    if (live_ == Live::kAfter) {
      open_live(time_ps);
    } else {
      live_start_ = time_ps;
    }
    return fmt::format("{}: recording from {} ps", options_.path, time_ps);
  }
  if (live_ == Live::kOn) live_ = Live::kAfter;
  if (live_ == Live::kBefore) live_start_ = kNever;
  live_end_ = std::max(time_ps, pending_time_);
  return fmt::format("{}: stopped at {} ps", options_.path, time_ps);
}

std::string Waveform::dump_flight_recorder(const std::string& reason, uint64_t now_ps) {
  if (!flight_ps_) return "";
  flush();
  trim_flight(now_ps);
  if (trigger_open_) write_trigger(now_ps);  // the run ended inside the trigger's window
  const std::string path = fmt::format("{}/{}-{}.fst", options_.flight_dir, options_.program, reason);
  ::mkdir(options_.flight_dir.c_str(), 0777);  // checked at the start; the sink reports a failure
  write_window(path, now_ps > flight_ps_ ? now_ps - flight_ps_ : 0, flight_base_, flight_, now_ps);
  return path;
}

void Waveform::close(uint64_t end_time_ps) {
  if (closed_) return;
  closed_ = true;
  flush();
  if (trigger_open_) write_trigger(end_time_ps);
  if (!sink_) return;
  if (!started_) sink_->declare(declared_);
  uint64_t end = end_time_ps;
  // A window nothing changed in (or an ROI that never came): the values at its start.
  if (live_ == Live::kBefore) open_live(std::min(end_time_ps, live_start_));
  if (live_end_ != kNever) end = std::min(end, live_end_);
  sink_->close(end);
}

}  // namespace tessera::sim
