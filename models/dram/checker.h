// DRAM protocol checker, independent of the controller: it watches every
// command on every bus and verifies each timing rule (as "the last command
// of kind P in scope S was at least d cycles ago", the opposite of the
// controller's next-allowed bookkeeping) and each state rule (no column
// command to a closed bank, no ACT to an open bank, refresh only with the
// refreshed banks precharged, one command per bus per cycle, enough
// refreshes over the run). Rules and distances come from JESD235/JESD238.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dram/command.h"
#include "dram/spec.h"

namespace tessera::dram {

struct Violation {
  uint64_t cycle = 0;
  std::string rule;
  std::string detail;
};

class ProtocolChecker final : public CommandObserver {
 public:
  explicit ProtocolChecker(const DramSpec& spec);

  void on_command(const Command& cmd) override;
  // End-of-run rules (refresh count) at cycle `end`.
  void finish(uint64_t end);

  uint64_t violation_count() const { return count_; }
  const std::vector<Violation>& violations() const { return kept_; }  // the first 100
  uint64_t commands_checked() const { return commands_; }

 private:
  enum class Scope : uint8_t { kBank, kBankGroup, kPseudoChannel };
  struct Rule {
    std::string name;
    CommandKind prev, next;
    Scope scope;
    uint64_t distance;
  };
  static constexpr int64_t kLongAgo = INT64_MIN / 4;
  using Last = std::array<int64_t, kCommandKinds>;
  struct Bank {
    Last last;
    bool open = false;
    uint32_t row = 0;
  };
  struct Pc {
    Last last;
    std::array<int64_t, 4> acts;  // last four ACTs, ring
    unsigned act_pos = 0;
    uint64_t refab = 0, refsb = 0;
  };
  struct Channel {
    int64_t last_row = kLongAgo, last_column = kLongAgo;
    CommandKind last_row_kind = CommandKind::kPre;
  };

  // Checks each timing rule that ends at `c` and reports those it breaks.
  void check_rules(const Command& c, const Bank& bank, const Last& group, const Pc& pc);
  void report(uint64_t cycle, const std::string& rule, const std::string& detail);
  std::string where(const Command& c) const;

  DramSpec spec_;
  std::vector<Rule> rules_;
  std::array<std::vector<const Rule*>, kCommandKinds> rules_by_next_;
  // For each command kind, one bound per (scope, previous kind) of the rules
  // that end at it: the largest of their distances. A command that keeps
  // every bound keeps every rule, so the rules themselves (and their names)
  // are only looked at when a bound fails.
  struct Bound {
    Scope scope;
    CommandKind prev;
    int64_t distance;
  };
  std::array<std::vector<Bound>, kCommandKinds> bounds_by_next_;
  std::vector<Bank> banks_;
  std::vector<Last> groups_;
  std::vector<Pc> pcs_;
  std::vector<Channel> channels_;
  uint64_t count_ = 0, commands_ = 0;
  std::vector<Violation> kept_;
};

}  // namespace tessera::dram
