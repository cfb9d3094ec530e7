// One page policy (page_policy.h).
#pragma once

#include "dram/page_policy.h"

namespace tessera::dram {

// Open page: rows stay open until a conflict (best for streams).
class OpenPagePolicy : public PagePolicy {
 public:
  const char* name() const override { return "open"; }
  uint64_t close_at(uint64_t) const override { return kNever; }
};

}  // namespace tessera::dram
