// Checks a --timeline file against the Chrome trace-event format as Tessera
// writes it (models/sim/timeline.h): valid JSON; metadata names every
// track; per track ("pid", "tid") the B/E slices pair up and nest and the
// timestamps never decrease; async b/e events pair up by id (nested stages
// close innermost first, with their own name, never before they began).
// Returns the problems found ("" when none) and fills `summary`.
#pragma once

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tessera::test {

struct TimelineSlice {
  std::string process, thread, name;
  double start_us, end_us;
};

struct TimelineSummary {
  std::vector<TimelineSlice> slices;  // every B/E pair
  std::map<std::string, unsigned> async_by_name, instants_by_name;
  std::map<std::string, unsigned> process_of_pid_count;  // process name -> tracks
  unsigned events = 0;
};

inline std::string check_timeline(const std::string& text, TimelineSummary& summary) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    return std::string("not valid JSON: ") + e.what();
  }
  std::string problems;
  const auto problem = [&problems](const std::string& p) {
    if (problems.size() < 4000) problems += p + "\n";
  };
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) return "no traceEvents array";
  if (doc.value("displayTimeUnit", "") != "ns") problem("displayTimeUnit is not \"ns\"");

  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  struct TrackState {
    double last_ts = -1;
    std::vector<std::pair<std::string, double>> open;
  };
  std::map<std::pair<int, int>, TrackState> tracks;
  std::map<std::string, std::vector<std::pair<std::string, double>>> async;  // id -> open stages
  for (const auto& e : doc["traceEvents"]) {
    ++summary.events;
    const std::string ph = e.value("ph", "");
    const int pid = e.value("pid", -1), tid = e.value("tid", -1);
    if (ph == "M") {
      const std::string what = e.value("name", "");
      if (what == "process_name") processes[pid] = e["args"]["name"];
      if (what == "thread_name") threads[{pid, tid}] = e["args"]["name"];
      continue;
    }
    if (!e.contains("ts") || !e["ts"].is_number()) {
      problem(fmt::format("event without a numeric ts: {}", e.dump()));
      continue;
    }
    const double ts = e["ts"].get<double>();
    const std::string name = e.value("name", "");
    if (!processes.count(pid) || !threads.count({pid, tid}))
      problem(fmt::format("event on a track without process/thread names: {}", e.dump()));
    if (ph == "B" || ph == "E" || ph == "i") {
      TrackState& t = tracks[{pid, tid}];
      if (ts < t.last_ts) problem(fmt::format("time goes back on track {}/{}: {}", pid, tid, e.dump()));
      t.last_ts = ts;
      if (ph == "B") {
        t.open.emplace_back(name, ts);
      } else if (ph == "E") {
        if (t.open.empty()) {
          problem(fmt::format("E without B: {}", e.dump()));
        } else {
          if (t.open.back().first != name) problem(fmt::format("E closes '{}': {}", t.open.back().first, e.dump()));
          summary.slices.push_back(
              TimelineSlice{processes[pid], threads[{pid, tid}], t.open.back().first, t.open.back().second, ts});
          t.open.pop_back();
        }
      } else {
        ++summary.instants_by_name[name];
      }
    } else if (ph == "b" || ph == "e") {
      const std::string id = e.value("id", "");
      if (id.empty() || e.value("cat", "").empty()) problem(fmt::format("async event without id or cat: {}", e.dump()));
      auto& stages = async[id];
      if (ph == "b") {
        stages.emplace_back(name, ts);
        ++summary.async_by_name[name];
      } else if (stages.empty()) {
        problem(fmt::format("async e without b: {}", e.dump()));
      } else {
        if (stages.back().first != name) problem(fmt::format("async e closes '{}': {}", stages.back().first, e.dump()));
        if (ts < stages.back().second) problem(fmt::format("async e before its b: {}", e.dump()));
        stages.pop_back();
      }
    } else {
      problem(fmt::format("unexpected phase '{}': {}", ph, e.dump()));
    }
  }
  for (const auto& [key, t] : tracks)
    for (const auto& o : t.open)
      problem(fmt::format("B '{}' on track {}/{} never ends", o.first, key.first, key.second));
  for (const auto& [id, stages] : async)
    for (const auto& s : stages) problem(fmt::format("async b '{}' id {} never ends", s.first, id));
  for (const auto& [key, name] : threads) ++summary.process_of_pid_count[processes[key.first]];
  return problems;
}

}  // namespace tessera::test
