// First-come first-served: only the oldest transaction of each pseudo
// channel's active queue is served; its next command issues as soon as it
// is legal (the oldest of the other queue may have its bank prepared).
#include <memory>

#include "dram/scheduler_impl.h"

namespace tessera::dram {

namespace {

class FcfsScheduler final : public SchedulerImpl<FcfsScheduler> {
 public:
  explicit FcfsScheduler(const SchedulerContext& c) : walk_(c, QueueWalk::Rules{true, false, 0}) {}
  const char* name() const override { return "fcfs"; }
  Choice pick(const ControllerView& v, uint64_t cycle, uint64_t& next) override {
    return pick_between_queues(
        v, [&](unsigned dir, WalkMode mode, QueuePicks& p) { walk_.walk(v, dir, cycle, mode, p, next); },
        [&](size_t r, size_t w) { return write_is_older(v, r, w); });
  }

 private:
  QueueWalk walk_;
};

}  // namespace

const SchedulerInfo& scheduler_info_fcfs() {
  static const SchedulerInfo info{"fcfs", {}, [](const SchedulerContext& c) -> std::unique_ptr<Scheduler> {
                                    return std::make_unique<FcfsScheduler>(c);
                                  }};
  return info;
}

}  // namespace tessera::dram
