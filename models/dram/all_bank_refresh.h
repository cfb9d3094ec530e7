// All-bank refresh: one REFab per pseudo channel every tREFI.
#pragma once

#include "dram/refresh.h"

namespace tessera::dram {

class AllBankRefresh : public RefreshPolicy {
 public:
  // `first_due`: each pseudo channel's first due cycle.
  AllBankRefresh(std::vector<uint64_t> first_due, uint64_t interval);
  const char* name() const override { return "all_bank"; }
  CommandKind command() const override { return CommandKind::kRefAb; }
  uint64_t due(unsigned pc) const override { return due_[pc]; }
  bool covers(unsigned, unsigned) const override { return true; }
  unsigned target_bank(unsigned) const override { return 0; }
  void advance(unsigned pc) override { due_[pc] += interval_; }
  void issued(unsigned) override {}

 private:
  uint64_t interval_;
  std::vector<uint64_t> due_;
};

}  // namespace tessera::dram
