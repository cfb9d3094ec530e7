// What a model holds in flight, for the reports a stuck run prints (the
// deadlock report, the progress watchdog): every model says for itself which
// requests, warps or transactions it still holds, so a request stuck in any
// part of the chip shows where it is.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera::sim {

class InFlightReporter {
 public:
  virtual ~InFlightReporter() = default;
  // One line per item in flight ("l2.slice2: read 0x80001200 waiting for
  // memory since cycle 1234"), each ending in '\n'; empty when idle.
  virtual std::string describe_in_flight() const = 0;
};

// The lines of a report with the cycle each item entered, given oldest
// first (ties by text), so the report does not depend on the order in which
// the model's containers hold the items.
class InFlightLines {
 public:
  void add(uint64_t since, std::string line) { lines_.emplace_back(since, std::move(line)); }
  std::string str() const {
    auto sorted = lines_;
    std::sort(sorted.begin(), sorted.end());
    std::string out;
    for (const auto& l : sorted) out += l.second;
    return out;
  }

 private:
  std::vector<std::pair<uint64_t, std::string>> lines_;
};

}  // namespace tessera::sim
