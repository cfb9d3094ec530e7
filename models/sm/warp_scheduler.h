// Warp scheduling policies (no SystemC). Each cycle a partition asks its
// policy for the order in which to try its resident warps; the first warp
// whose next instruction can issue wins. Each policy is a class in
// sm/warp_schedulers/ with one row in the table of warp_scheduler.cpp
// (docs/architecture.md, "Adding a warp scheduler").
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
  // order to try them this cycle (each at most once; warps left out are
  // not tried).
  virtual void order(const std::vector<uint16_t>& warps, std::vector<uint16_t>& out) = 0;
  // The warp that issued this cycle.
  virtual void issued(uint16_t warp) = 0;
  // A warp now waits on a long-latency (memory) result.
  virtual void long_latency_wait(uint16_t /*warp*/) {}
};

// Base of the policies whose only memory of the past (or part of it) is
// the warp that issued last.
class LastIssuedScheduler : public WarpScheduler {
 public:
  void issued(uint16_t warp) override { last_ = warp; }

 protected:
  int last_ = -1;
};

// The settings a policy may read (keys `sm.*`, declared in sm_params.cpp).
struct WarpSchedulerOptions {
  unsigned two_level_active = 4;  // sm.two_level_active
};

// One registered policy: its `sm.scheduler` value, a one-line summary (with
// its source) and its factory.
struct WarpSchedulerKind {
  const char* name;
  const char* summary;
  std::unique_ptr<WarpScheduler> (*make)(const WarpSchedulerOptions&);
};

// Every policy, in the order `sm.scheduler` lists them.
const std::vector<WarpSchedulerKind>& warp_scheduler_kinds();
const std::vector<std::string>& scheduler_names();
// Throws std::invalid_argument naming the unknown policy.
std::unique_ptr<WarpScheduler> make_scheduler(const std::string& name, const WarpSchedulerOptions& options);

}  // namespace tessera::sm
