// Warp scheduling policies (no SystemC). Each cycle a partition asks its
// policy for the order in which to try its resident warps; the first warp
// whose next instruction can issue wins. Policies: loose round robin (LRR),
// greedy-then-oldest (GTO), two-level (a small active set scheduled round
// robin; warps that wait on memory drop to the pending set).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::sm {

class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  // warps: this partition's resident warp slots, oldest first. out: the
  // order to try them this cycle.
  virtual void order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) = 0;
  // The warp that issued this cycle.
  virtual void issued(uint16_t warp) = 0;
  // A warp now waits on a long-latency (memory) result.
  virtual void long_latency_wait(uint16_t /*warp*/) {}
};

class LrrScheduler : public WarpScheduler {
 public:
  void order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) override;
  void issued(uint16_t warp) override { last_ = warp; }

 private:
  int last_ = -1;
};

class GtoScheduler : public WarpScheduler {
 public:
  void order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) override;
  void issued(uint16_t warp) override { last_ = warp; }

 private:
  int last_ = -1;
};

class TwoLevelScheduler : public WarpScheduler {
 public:
  explicit TwoLevelScheduler(unsigned active_size) : active_size_(active_size) {}
  void order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) override;
  void issued(uint16_t warp) override { last_ = warp; }
  void long_latency_wait(uint16_t warp) override;

 private:
  unsigned active_size_;
  std::vector<uint16_t> active_;   // in round-robin order
  std::vector<uint16_t> demoted_;  // left the active set to wait on memory
  int last_ = -1;
};

const std::vector<std::string>& scheduler_names();
std::unique_ptr<WarpScheduler> make_scheduler(const std::string& name, unsigned two_level_active);

}  // namespace tessera::sm
