#include "bus/arbiter.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace tessera::bus {

namespace {
// Usage is kept in fixed point so halving keeps some history.
constexpr uint64_t kUsagePerGrant = 1024;
}  // namespace

const std::vector<std::string>& arbiter_names() {
  static const std::vector<std::string> kNames{"fifo", "round_robin", "priority"};
  return kNames;
}

std::unique_ptr<Arbiter> make_arbiter(const std::string& policy, uint32_t agents) {
  if (policy == "fifo") return std::make_unique<FifoArbiter>();
  if (policy == "round_robin") return std::make_unique<RoundRobinArbiter>(agents);
  if (policy == "priority") return std::make_unique<PriorityArbiter>(agents);
  throw std::invalid_argument("unknown arbiter policy '" + policy + "' (valid: fifo|round_robin|priority)");
}

uint32_t FifoArbiter::pick(const std::vector<Candidate>& candidates) {
  const Candidate* best = &candidates.front();
  for (const auto& c : candidates)
    if (c.waiting_since < best->waiting_since || (c.waiting_since == best->waiting_since && c.agent < best->agent))
      best = &c;
  return best->agent;
}

uint32_t RoundRobinArbiter::pick(const std::vector<Candidate>& candidates) {
  // Distance after the last winner, modulo the agent count.
  uint32_t best = candidates.front().agent;
  uint32_t best_distance = agents_;
  for (const auto& c : candidates) {
    const uint32_t distance = (c.agent + agents_ - last_ - 1) % agents_;
    if (distance < best_distance) {
      best_distance = distance;
      best = c.agent;
    }
  }
  last_ = best;
  return best;
}

uint32_t PriorityArbiter::pick(const std::vector<Candidate>& candidates) {
  uint64_t lowest = UINT64_MAX;
  for (const auto& c : candidates) lowest = std::min(lowest, usage_[c.agent]);
  std::vector<Candidate> least_used;
  for (const auto& c : candidates)
    if (usage_[c.agent] == lowest) least_used.push_back(c);
  const uint32_t winner = round_robin_.pick(least_used);
  usage_[winner] += kUsagePerGrant;
  if (++grants_ % usage_.size() == 0)
    for (auto& u : usage_) u /= 2;
  return winner;
}

}  // namespace tessera::bus
