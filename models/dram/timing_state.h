// The controller's timing bookkeeping for one channel: for every command
// kind, the earliest cycle it may issue, kept per bank (the bank group's
// rules pushed into each of its banks), per pseudo channel and per command
// bus, and pushed forward each time a command issues (the "next allowed"
// formulation of DRAMSys and DRAMsim3). The protocol checker verifies the
// same rules with the opposite formulation (the last time of each
// command), so the two cannot share a mistake.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "dram/command.h"
#include "dram/spec.h"

namespace tessera::dram {

class TimingState {
 public:
  explicit TimingState(const DramSpec& spec);

  // Earliest cycle `kind` may issue to (pc, bank_group, bank); bank
  // arguments are ignored for REFab.
  uint64_t earliest(CommandKind kind, unsigned pc, unsigned bank_group, unsigned bank) const {
    const uint64_t at = floor(kind, pc);
    if (kind == CommandKind::kRefAb) return at;
    return std::max(at, bank_next(kind, bank_index(pc, bank_group, bank)));
  }
  // The bank's and its bank group's part of earliest() for the bank with
  // flat index `bank` ((pc x bank groups + group) x banks per group + bank):
  // earliest() is the larger of this and floor().
  uint64_t bank_next(CommandKind kind, unsigned bank) const {
    return bank_next_[bank * kCommandKinds + static_cast<unsigned>(kind)];
  }
  // bank_next() of every bank, flat: entry bank x kCommandKinds + kind (for
  // a loop over many banks, which reads it through one pointer).
  const uint64_t* bank_next_table() const { return bank_next_.data(); }
  // The part of earliest() common to every bank of pseudo channel `pc`
  // (command bus, pseudo-channel rules, tFAW): no bank's `kind` command is
  // legal before it.
  uint64_t floor(CommandKind kind, unsigned pc) const {
    // (The pseudo channel's ACT entry holds tFAW as well: issue() pushes it.)
    return std::max(is_column_command(kind) ? column_bus_free_ : row_bus_free_, pc_[pc].get(kind));
  }
  uint64_t row_bus_free() const { return row_bus_free_; }
  void issue(const Command& cmd);

 private:
  struct Next {  // earliest cycle per follower command kind
    std::array<uint64_t, kCommandKinds> at{};
    void push(CommandKind k, uint64_t cycle) {
      // A conditional move: whether a push moves the time is data-dependent
      // and a branch on it is mispredicted often.
      auto& v = at[static_cast<unsigned>(k)];
      v = std::max(v, cycle);
    }
    uint64_t get(CommandKind k) const { return at[static_cast<unsigned>(k)]; }
  };
  unsigned bank_index(unsigned pc, unsigned bg, unsigned bank) const {
    return (pc * bank_groups_ + bg) * banks_per_group_ + bank;
  }

  // Pushes to every bank of a bank group: a bank's entry holds the bank
  // group's rules as well, so earliest() reads one table per bank.
  void push_group(unsigned pc, unsigned bank_group, CommandKind k, uint64_t cycle) {
    const unsigned first = bank_index(pc, bank_group, 0);
    for (unsigned i = 0; i < banks_per_group_; ++i) push_bank(first + i, k, cycle);
  }
  // As Next::push, for one bank's entry.
  void push_bank(unsigned bank, CommandKind k, uint64_t cycle) {
    uint64_t& v = bank_next_[bank * kCommandKinds + static_cast<unsigned>(k)];
    v = std::max(v, cycle);
  }

  Timing t_;
  unsigned burst_;
  unsigned bank_groups_, banks_per_group_;
  std::vector<uint64_t> bank_next_;  // per bank, kCommandKinds each
  std::vector<Next> pc_;
  std::vector<std::array<uint64_t, 4>> act_window_;  // last four ACT cycles per PC (tFAW)
  std::vector<unsigned> act_window_pos_;
  std::vector<unsigned> act_count_;
  uint64_t row_bus_free_ = 0, column_bus_free_ = 0;
};

}  // namespace tessera::dram
