// One page policy (page_policy.h).
#pragma once

#include "dram/page_policy.h"

namespace tessera::dram {

// Closed page: a row is precharged as soon as no queued request wants it
// (best for random traffic: a later miss pays tRCD, not tRP + tRCD).
class ClosedPagePolicy : public PagePolicy {
 public:
  const char* name() const override { return "closed"; }
  uint64_t close_at(uint64_t last_access) const override { return last_access; }
};

}  // namespace tessera::dram
