// Per-bank (same-bank) refresh: one REFsb per pseudo channel every
// tREFISB, to the banks in turn, so each is refreshed once per tREFI while
// the other banks keep working.
#pragma once

#include "dram/refresh.h"

namespace tessera::dram {

class PerBankRefresh : public RefreshPolicy {
 public:
  PerBankRefresh(std::vector<uint64_t> first_due, unsigned banks_per_pc, uint64_t interval);
  const char* name() const override { return "per_bank"; }
  CommandKind command() const override { return CommandKind::kRefSb; }
  uint64_t due(unsigned pc) const override { return due_[pc]; }
  bool covers(unsigned pc, unsigned bank_in_pc) const override { return next_bank_[pc] == bank_in_pc; }
  unsigned target_bank(unsigned pc) const override { return next_bank_[pc]; }
  void advance(unsigned pc) override { due_[pc] += interval_; }
  void issued(unsigned pc) override { next_bank_[pc] = (next_bank_[pc] + 1) % banks_; }

 private:
  unsigned banks_;
  uint64_t interval_;
  std::vector<uint64_t> due_;
  std::vector<unsigned> next_bank_;
};

}  // namespace tessera::dram
