// Row-buffer (page) policy: when the controller closes a row that no queued
// request wants. Row conflicts are closed by the scheduler regardless.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dram/command.h"

namespace tessera::dram {

class PagePolicy {
 public:
  virtual ~PagePolicy() = default;
  virtual const char* name() const = 0;
  // The cycle from which a row last accessed at `last_access`, with no
  // queued request for it, should be precharged; kNever keeps it open.
  virtual uint64_t close_at(uint64_t last_access) const = 0;
};

std::unique_ptr<PagePolicy> make_page_policy(const std::string& name, uint64_t adaptive_timeout);
const std::vector<std::string>& page_policy_names();

}  // namespace tessera::dram
