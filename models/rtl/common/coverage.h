// Functional coverage of the RTL blocks (docs/cosim.md, "Coverage"): each
// block declares its cover points (sm/shared_bank_coverage.h,
// noc/router_coverage.h), counted from its pins in every cycle it is stepped
// in `rtl` or `lockstep` mode and by `tessera rtl-test`. A point's count is
// the number of times it was hit; every declared point is reported, the
// unreached ones with 0. Pure C++, no Verilator or SystemC.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::rtl {

// The cover points of one block (or the sum over several instances of one
// block type): names in declaration order, and a hit count per point.
class CoverTable {
 public:
  CoverTable() = default;
  explicit CoverTable(std::vector<std::string> names);

  size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }
  const std::string& name(size_t i) const { return names_[i]; }
  uint64_t hits(size_t i) const { return hits_[i]; }
  // The count of a point by name; std::out_of_range when it is not declared.
  uint64_t hits(const std::string& name) const;
  void hit(size_t i, uint64_t n = 1) { hits_[i] += n; }
  void set(size_t i, uint64_t n) { hits_[i] = n; }

  // Adds `other`'s counts; std::invalid_argument unless it declares the same
  // points in the same order.
  void merge(const CoverTable& other);
  size_t reached() const;
  std::vector<std::string> unreached() const;

 private:
  std::vector<std::string> names_;
  std::vector<uint64_t> hits_;
};

// A format or content error of a coverage file; the message names the file.
class CoverageFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The coverage of one or more runs: per block type ("shared_bank_unit",
// "noc_router"), the table summed over its instances, how many instances
// were summed, and how many runs.
class CoverageReport {
 public:
  struct Block {
    CoverTable table;
    uint64_t instances = 0;
  };

  static constexpr const char* kFormat = "tessera-rtl-coverage";
  static constexpr int kVersion = 1;

  bool empty() const { return blocks_.empty(); }
  const std::map<std::string, Block>& blocks() const { return blocks_; }
  uint64_t runs() const { return runs_; }
  void set_runs(uint64_t runs) { runs_ = runs; }

  // Adds one instance's (or a sum of `instances` instances') table to
  // `block`; std::invalid_argument when the block's point set differs.
  void add(const std::string& block, const CoverTable& table, uint64_t instances = 1);
  // Sums another report (runs too); CoverageFileError naming `source` when a
  // block's point set differs.
  void merge(const CoverageReport& other, const std::string& source);

  // {"format": "tessera-rtl-coverage", "version": 1, "runs": N,
  //  "blocks": {"<block>": {"instances": N, "declared": N, "reached": N,
  //                         "points": {"<point>": hits, ...}}}}
  // (points in declaration order).
  nlohmann::ordered_json to_json() const;
  // CoverageFileError naming `source` for anything but that format and version.
  static CoverageReport from_json(const nlohmann::ordered_json& j, const std::string& source);
  static CoverageReport read_file(const std::string& path);

  // Per block: "<block>: R of D points reached (I instances)" and the
  // unreached points, indented.
  std::string summary() const;

 private:
  std::map<std::string, Block> blocks_;
  uint64_t runs_ = 1;
};

// The blocks of this process whose coverage is counted. Off unless a
// command asks for coverage (`tessera run --rtl-coverage`, `tessera
// rtl-test`): a block adapter asks track() when it is built, and counts
// nothing when that returns null, so runs without coverage pay one branch
// per step of an RTL block and `model` runs nothing at all.
class CoverageCollection {
 public:
  static void enable();
  static bool enabled();
  // A table for a new instance of `block` with the points `names` (null
  // when collection is off). The collection keeps it alive. `refresh`, when
  // given, brings counts kept elsewhere into the table before report()
  // reads it (an rtl_device's Verilator cover points).
  static std::shared_ptr<CoverTable> track(const std::string& block, const std::string& instance,
                                           const std::vector<std::string>& names,
                                           std::function<void(CoverTable&)> refresh = nullptr);
  static size_t instances();
  // Every tracked instance summed per block type.
  static CoverageReport report();
  // Forgets every table and turns collection off (for tests).
  static void reset();
};

}  // namespace tessera::rtl
