// One page policy (page_policy.h).
#pragma once

#include "dram/page_policy.h"

namespace tessera::dram {

// Adaptive (timeout) page: a row with no queued request stays open for
// `timeout` cycles after its last access, in case another hit arrives, then
// closes; between open and closed page (Awasthi et al., "Prediction Based
// DRAM Row-Buffer Management in the Many-Core Era", PACT 2011, compare such
// policies).
class AdaptivePagePolicy : public PagePolicy {
 public:
  explicit AdaptivePagePolicy(uint64_t timeout) : timeout_(timeout) {}
  const char* name() const override { return "adaptive"; }
  uint64_t close_at(uint64_t last_access) const override { return last_access + timeout_; }

 private:
  uint64_t timeout_;
};

}  // namespace tessera::dram
