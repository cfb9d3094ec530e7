// Hierarchical statistics. A module keeps its counters as plain members (the
// hot path increments a uint64_t) and registers them with its StatGroup; the
// tree is written as JSON at the end of a run ("chip.sm0.sched1.issued").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tessera::sim {

class StatGroup {
 public:
  explicit StatGroup(std::string name, StatGroup* parent = nullptr);
  StatGroup(const StatGroup&) = delete;
  StatGroup& operator=(const StatGroup&) = delete;
  ~StatGroup();

  const std::string& name() const { return name_; }
  std::string path() const;  // dotted path from the root

  void add_counter(const std::string& name, const uint64_t* value, const std::string& desc);
  void add_formula(const std::string& name, std::function<double()> fn, const std::string& desc);
  // A histogram: bucket i counts events of value i (the last bucket also
  // counts everything larger).
  void add_histogram(const std::string& name, const std::vector<uint64_t>* buckets, const std::string& desc);

  nlohmann::json to_json() const;
  // Flat "path.name value # description" lines, for people.
  void dump_text(std::string& out) const;

  StatGroup* parent() const { return parent_; }

 private:
  struct Entry {
    std::string name;
    std::string desc;
    const uint64_t* counter = nullptr;
    std::function<double()> formula;
    const std::vector<uint64_t>* histogram = nullptr;
  };
  std::string name_;
  StatGroup* parent_;
  std::vector<StatGroup*> children_;
  std::vector<Entry> entries_;
};

}  // namespace tessera::sim
