// First-ready, first-come first-served (Rixner et al., "Memory Access
// Scheduling", ISCA 2000): among all queued transactions, ready commands
// first, oldest first. Column commands (row hits) have their own bus, so a
// row hit never waits behind an older row miss; a bank's open row is not
// precharged while queued requests still hit it.
#pragma once

#include "dram/scheduler.h"

namespace tessera::dram {

class FrFcfsScheduler : public Scheduler {
 public:
  const char* name() const override { return "fr_fcfs"; }
  bool oldest_only() const override { return false; }
  bool eligible(const Candidate& c) const override { return !(c.command == CommandKind::kPre && c.open_row_wanted); }
};

}  // namespace tessera::dram
