// Request scheduling policy of a channel controller. Each cycle the
// controller walks its queues oldest first (all of them, or with
// `oldest_only` the oldest transaction of each pseudo channel in each
// queue) and asks for each transaction's next command (RD/WR on a row hit,
// ACT on a closed bank, PRE on a conflict) whether the policy allows it;
// on each bus the first allowed command that is legal this cycle issues.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dram/command.h"

namespace tessera::dram {

struct Candidate {
  CommandKind command;
  bool open_row_wanted;  // PRE only: queued requests still hit the open row
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual const char* name() const = 0;
  // Whether only the oldest transaction of each pseudo channel, in each
  // queue, is considered (else every queued transaction).
  virtual bool oldest_only() const = 0;
  // Whether the policy lets this command issue (once it is legal).
  virtual bool eligible(const Candidate& c) const = 0;
};

std::unique_ptr<Scheduler> make_scheduler(const std::string& name);
const std::vector<std::string>& scheduler_names();

}  // namespace tessera::dram
