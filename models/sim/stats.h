// Hierarchical statistics. A module keeps its counters as plain members (the
// hot path increments a uint64_t) and registers them with its StatGroup; the
// tree is written as JSON at the end of a run ("chip.sm0.sched1.issued").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tessera::sim {

// The counters and histogram buckets of a statistics tree at one instant
// (StatGroup::snapshot), or what they gained over a span
// (StatGroup::accumulate): a region of interest's or a kernel's share.
// Flat, in the tree's order, each value with its counter's address (and
// bucket): a tree that did not change shape is read position by position;
// a group added since starts from 0.
class StatCounts {
 public:
  using Slot = std::pair<const void*, size_t>;  // a counter's address, or a histogram's and a bucket
  void clear() {
    slots_.clear();
    values_.clear();
  }
  // The value of slot, expected at position `at`; 0 when it has none.
  uint64_t get(size_t at, const Slot& slot) const;
  // The value of slot, expected at position `at`, created as 0 if missing.
  uint64_t& at(size_t at, const Slot& slot);
  size_t size() const { return values_.size(); }
  uint64_t value(size_t i) const { return values_[i]; }
  void push(const Slot& slot, uint64_t v) {
    slots_.push_back(slot);
    values_.push_back(v);
  }

 private:
  size_t find(size_t at, const Slot& slot) const;
  std::vector<Slot> slots_;
  std::vector<uint64_t> values_;
};
// A share that is unknown: the counter went down within the span (written as null).
inline constexpr uint64_t kNoShare = ~uint64_t{0};

class StatGroup {
 public:
  explicit StatGroup(std::string name, StatGroup* parent = nullptr);
  StatGroup(const StatGroup&) = delete;
  StatGroup& operator=(const StatGroup&) = delete;
  ~StatGroup();

  const std::string& name() const { return name_; }
  std::string path() const;  // dotted path from the root

  void add_counter(const std::string& name, const uint64_t* value, const std::string& desc);
  // A counter that holds a running maximum (the longest wait): written as
  // one, but left out of a span's share, which cannot say what the maximum
  // within the span was.
  void add_maximum(const std::string& name, const uint64_t* value, const std::string& desc);
  void add_formula(const std::string& name, std::function<double()> fn, const std::string& desc);
  // Brings counters a model keeps lazily (a memory that sleeps while idle
  // and counts the refreshes due meanwhile when it wakes) up to the current
  // time; sync() calls it before a span's snapshot.
  void add_sync(std::function<void()> fn) { syncs_.push_back(std::move(fn)); }
  // Calls every sync function of the subtree.
  void sync() const;
  // A histogram: bucket i counts events of value i (the last bucket also
  // counts everything larger).
  void add_histogram(const std::string& name, const std::vector<uint64_t>* buckets, const std::string& desc);

  nlohmann::json to_json() const;
  // The subtree's counters and histograms now (maxima and formulas left
  // out), replacing what `out` held.
  void snapshot(StatCounts& out) const;
  // Adds to `into` what each counter and bucket gained since `since`.
  void accumulate(const StatCounts& since, StatCounts& into) const;
  // The subtree as to_json() writes it, with the values `counts` holds (0
  // where it holds none): counters and histograms only.
  nlohmann::json to_json(const StatCounts& counts) const;
  // The dotted path below this group of each slot snapshot() records, in
  // its order ("sm0.l1_half1.hit_sectors"; a histogram bucket
  // "sm0.latency[3]").
  void slot_paths(std::vector<std::string>& out) const;

 private:
  void slot_paths(std::vector<std::string>& out, const std::string& prefix) const;
  void snapshot_into(StatCounts& out) const;
  void accumulate(const StatCounts& since, StatCounts& into, size_t& pos) const;
  nlohmann::json to_json(const StatCounts& counts, size_t& pos) const;

 public:
  // Flat "path.name value # description" lines, for people.
  void dump_text(std::string& out) const;
  // Each statistic's dotted path (as dump_text writes it) -> its description.
  void describe(nlohmann::json& out) const;

  StatGroup* parent() const { return parent_; }

 private:
  struct Entry {
    std::string name;
    std::string desc;
    const uint64_t* counter = nullptr;
    std::function<double()> formula;
    const std::vector<uint64_t>* histogram = nullptr;
    bool maximum = false;
  };
  std::string name_;
  StatGroup* parent_;
  std::vector<StatGroup*> children_;
  std::vector<Entry> entries_;
  std::vector<std::function<void()>> syncs_;
};

}  // namespace tessera::sim
