// First-come first-served: only the oldest transaction of the active queue
// is served; its next command issues as soon as it is legal.
#pragma once

#include "dram/scheduler.h"

namespace tessera::dram {

class FcfsScheduler : public Scheduler {
 public:
  const char* name() const override { return "fcfs"; }
  size_t window(size_t queue_size) const override { return queue_size ? 1 : 0; }
  bool eligible(const Candidate&) const override { return true; }
};

}  // namespace tessera::dram
