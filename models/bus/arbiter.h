// Bus arbiters. Each cycle the bus offers the arbiter the agents that want
// it, with the cycle each has been waiting since; the arbiter picks one.
// Policies (cluster.bus.arbiter):
//  fifo         oldest waiting request first (ties: lowest agent);
//  round_robin  the first requester after the last winner;
//  priority     the requester that has used the bus least recently wins:
//               every grant adds to the winner's usage and usage halves
//               every `agents` grants, so a frequent user is demoted and an
//               agent that keeps losing ends up with the lowest usage.
// Decisions depend only on the candidates and past grants, never on time,
// so skipped idle cycles do not change them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::bus {

struct Candidate {
  uint32_t agent;
  uint64_t waiting_since;
};

class Arbiter {
 public:
  virtual ~Arbiter() = default;
  // Picks one of `candidates` (non-empty) and records the grant.
  virtual uint32_t pick(const std::vector<Candidate>& candidates) = 0;
};

const std::vector<std::string>& arbiter_names();
std::unique_ptr<Arbiter> make_arbiter(const std::string& policy, uint32_t agents);

class FifoArbiter final : public Arbiter {
 public:
  uint32_t pick(const std::vector<Candidate>& candidates) override;
};

class RoundRobinArbiter final : public Arbiter {
 public:
  explicit RoundRobinArbiter(uint32_t agents) : agents_(agents), last_(agents - 1) {}
  uint32_t pick(const std::vector<Candidate>& candidates) override;

 private:
  uint32_t agents_;
  uint32_t last_;
};

class PriorityArbiter final : public Arbiter {
 public:
  explicit PriorityArbiter(uint32_t agents) : usage_(agents, 0), round_robin_(agents) {}
  uint32_t pick(const std::vector<Candidate>& candidates) override;
  uint64_t usage(uint32_t agent) const { return usage_[agent]; }

 private:
  std::vector<uint64_t> usage_;
  uint64_t grants_ = 0;
  RoundRobinArbiter round_robin_;  // breaks ties fairly
};

}  // namespace tessera::bus
