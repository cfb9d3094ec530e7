// First-come first-served: only the oldest transaction of each pseudo
// channel's active queue is served; its next command issues as soon as it
// is legal (the oldest of the other queue may have its bank prepared).
#pragma once

#include "dram/scheduler.h"

namespace tessera::dram {

class FcfsScheduler : public Scheduler {
 public:
  const char* name() const override { return "fcfs"; }
  bool oldest_only() const override { return true; }
  bool eligible(const Candidate&) const override { return true; }
};

}  // namespace tessera::dram
