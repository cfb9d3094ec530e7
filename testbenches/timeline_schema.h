// Checks a --timeline file against the Chrome trace-event format as Tessera
// writes it (models/sim/timeline.h) and summarises it for the tests: valid
// JSON; metadata names every track that has events and every declared
// track has one; per track ("pid", "tid") the X slices (and B/E pairs)
// nest, one starting with another coming after it in the file; async b/e
// events pair up by id (nested stages close innermost first, with their own
// name, never before they began); flow v2 arrows (bind_id) go from one
// flow_out to a later flow_in. tools/timeline-check is the full checker
// (the integration tests run it too). Returns the problems found ("" when
// none) and fills `summary`.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tessera::test {

struct TimelineSlice {
  std::string process, thread, name;
  double start_us, end_us;
};

struct TimelineFailure {
  double ts_us;
  std::string scope, message;  // scope "g": global
};

// One async transaction: an id's outermost b to its e.
struct TimelineTransaction {
  std::string id;
  std::vector<std::string> stages;  // the names of its b events, outermost first
};

struct TimelineSummary {
  std::vector<TimelineSlice> slices;  // every X (and B/E pair), in file order
  std::map<std::string, unsigned> async_by_name, instants_by_name;
  std::map<std::string, unsigned> process_of_pid_count;  // process name -> tracks
  std::vector<TimelineFailure> failures;                 // "failure" instants
  std::vector<TimelineTransaction> transactions;         // in the order they begin
  // Flow arrows (bind_id): the transaction each starts in and the one it
  // points at (indices in `transactions`).
  std::vector<std::pair<size_t, size_t>> flows;
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
  std::set<std::pair<int, int>> used;
  // Picoseconds: ts and dur are exact to the ps, their double sum is not.
  struct Interval {
    long long start, end;
    size_t index;
  };
  const auto ps = [](double us) { return std::llround(us * 1e6); };
  std::map<std::pair<int, int>, std::vector<Interval>> intervals;
  std::map<std::pair<int, int>, std::vector<std::pair<std::string, double>>> open_b;
  // Async events in the engines' order: by ts, then file order.
  std::vector<std::tuple<double, size_t, const nlohmann::json*>> async;
  std::map<std::string, size_t> flow_out;  // bind_id -> transaction
  std::set<std::string> flow_in;
  size_t index = 0;
  for (const auto& e : doc["traceEvents"]) {
    const size_t i = index++;
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
      problem(fmt::format("event {} without a numeric ts: {}", i, e.dump()));
      continue;
    }
    const double ts = e["ts"].get<double>();
    const std::string name = e.value("name", "");
    if (ph == "i" && e.value("s", "") == "g") {
      ++summary.instants_by_name[name];
      if (name == "failure") summary.failures.push_back({ts, "g", e["args"].value("message", "")});
      continue;
    }
    used.insert({pid, tid});
    if (ph == "X") {
      if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) {
        problem(fmt::format("event {}: X without a dur >= 0: {}", i, e.dump()));
        continue;
      }
      intervals[{pid, tid}].push_back({ps(ts), ps(ts) + ps(e["dur"].get<double>()), i});
      summary.slices.push_back(TimelineSlice{"", "", name, ts, ts + e["dur"].get<double>()});
      summary.slices.back().process = std::to_string(pid);  // named below
      summary.slices.back().thread = std::to_string(tid);
    } else if (ph == "B") {
      open_b[{pid, tid}].emplace_back(name, ts);
    } else if (ph == "E") {
      auto& open = open_b[{pid, tid}];
      if (open.empty()) {
        problem(fmt::format("event {}: E without B: {}", i, e.dump()));
      } else {
        if (open.back().first != name)
          problem(fmt::format("event {}: E closes '{}': {}", i, open.back().first, e.dump()));
        intervals[{pid, tid}].push_back({ps(open.back().second), ps(ts), i});
        summary.slices.push_back(
            TimelineSlice{std::to_string(pid), std::to_string(tid), open.back().first, open.back().second, ts});
        open.pop_back();
      }
    } else if (ph == "i") {
      ++summary.instants_by_name[name];
      if (name == "failure") summary.failures.push_back({ts, "t", e["args"].value("message", "")});
    } else if (ph == "b" || ph == "e" || ph == "n") {
      if (!e.contains("id") || e.value("cat", "").empty())
        problem(fmt::format("event {}: async event without id or cat: {}", i, e.dump()));
      async.emplace_back(ts, i, &e);
    } else {
      problem(fmt::format("event {}: unexpected phase '{}': {}", i, ph, e.dump()));
    }
  }
  for (auto& s : summary.slices) {
    const std::pair<int, int> key{std::stoi(s.process), std::stoi(s.thread)};
    s.process = processes.count(key.first) ? processes[key.first] : "?";
    s.thread = threads.count(key) ? threads[key] : "?";
  }
  for (const auto& key : used)
    if (!processes.count(key.first) || !threads.count(key))
      problem(fmt::format("events on track {}/{}, which has no process/thread names", key.first, key.second));
  for (const auto& [key, name] : threads)
    if (!used.count(key))
      problem(fmt::format("track {}/{} '{}' is declared and has no event", key.first, key.second, name));
  for (const auto& [key, open] : open_b)
    for (const auto& o : open) problem(fmt::format("B '{}' on track {}/{} never ends", o.first, key.first, key.second));
  // Slices nest: sorted by start (file order among equal starts, as Chrome
  // reads them), each ends inside the slices still open when it starts.
  for (auto& [key, list] : intervals) {
    std::stable_sort(list.begin(), list.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    std::vector<Interval> stack;
    for (const Interval& s : list) {
      while (!stack.empty() && stack.back().end <= s.start) stack.pop_back();
      if (!stack.empty() && s.end > stack.back().end) {
        problem(fmt::format("track {}/{}: event {} [{}, {}] overlaps event {} [{}, {}] (ps) without nesting", key.first,
                            key.second, s.index, s.start, s.end, stack.back().index, stack.back().start,
                            stack.back().end));
        continue;
      }
      stack.push_back(s);
    }
  }
  std::stable_sort(async.begin(), async.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  std::map<std::string, std::vector<std::pair<std::string, double>>> stages;  // id -> open stages
  std::map<std::string, size_t> current;                                      // id -> its open transaction
  for (const auto& [ts, i, ep] : async) {
    const nlohmann::json& e = *ep;
    const std::string ph = e["ph"], name = e.value("name", ""), id = e.value("id", "");
    auto& open = stages[id];
    if (ph == "b") {
      if (open.empty()) {
        current[id] = summary.transactions.size();
        summary.transactions.push_back({id, {}});
      }
      summary.transactions[current[id]].stages.push_back(name);
    } else if (ph == "n" && open.empty()) {
      problem(fmt::format("event {}: n outside a transaction of its id: {}", i, e.dump()));
      continue;
    }
    if (e.contains("bind_id")) {
      const std::string bind = e["bind_id"].dump();
      if (e.value("flow_out", false)) {
        if (flow_out.count(bind)) problem(fmt::format("event {}: a second flow_out for bind_id {}", i, bind));
        flow_out[bind] = current[id];
      }
      if (e.value("flow_in", false)) {
        if (!flow_out.count(bind)) {
          problem(fmt::format("event {}: flow_in without a flow_out before it: {}", i, e.dump()));
        } else {
          summary.flows.emplace_back(flow_out[bind], current[id]);
          flow_in.insert(bind);
        }
      }
    }
    if (ph == "b") {
      open.emplace_back(name, ts);
      ++summary.async_by_name[name];
    } else if (ph == "e") {
      if (open.empty()) {
        problem(fmt::format("event {}: async e without b: {}", i, e.dump()));
      } else {
        if (open.back().first != name)
          problem(fmt::format("event {}: async e closes '{}': {}", i, open.back().first, e.dump()));
        if (ts < open.back().second) problem(fmt::format("event {}: async e before its b: {}", i, e.dump()));
        open.pop_back();
      }
    }
  }
  for (const auto& [id, open] : stages)
    for (const auto& s : open) problem(fmt::format("async b '{}' id {} never ends", s.first, id));
  for (const auto& [bind, t] : flow_out)
    if (!flow_in.count(bind))
      problem(fmt::format("flow_out bind_id {} (id {}) has no flow_in", bind, summary.transactions[t].id));
  for (const auto& [key, name] : threads) ++summary.process_of_pid_count[processes[key.first]];
  return problems;
}

}  // namespace tessera::test
