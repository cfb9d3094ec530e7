#include "sm/warp_scheduler.h"

#include <stdexcept>

#include "sm/warp_schedulers/gto.h"
#include "sm/warp_schedulers/lrr.h"
#include "sm/warp_schedulers/two_level.h"

namespace tessera::sm {

const std::vector<WarpSchedulerKind>& warp_scheduler_kinds() {
  // One row per policy; a new policy adds its file and its row.
  static const std::vector<WarpSchedulerKind> kinds{
      {"lrr", "loose round robin from the warp after the last to issue",
       [](const WarpSchedulerOptions&) -> std::unique_ptr<WarpScheduler> { return std::make_unique<LrrScheduler>(); }},
      {"gto", "greedy then oldest (Rogers et al., MICRO 2012)",
       [](const WarpSchedulerOptions&) -> std::unique_ptr<WarpScheduler> { return std::make_unique<GtoScheduler>(); }},
      {"two_level", "round robin over an active set of sm.two_level_active warps (Narasiman et al., MICRO 2011)",
       [](const WarpSchedulerOptions& o) -> std::unique_ptr<WarpScheduler> {
         return std::make_unique<TwoLevelScheduler>(o.two_level_active);
       }},
  };
  return kinds;
}

const std::vector<std::string>& scheduler_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const WarpSchedulerKind& k : warp_scheduler_kinds()) n.emplace_back(k.name);
    return n;
  }();
  return names;
}

std::unique_ptr<WarpScheduler> make_scheduler(const std::string& name, const WarpSchedulerOptions& options) {
  for (const WarpSchedulerKind& k : warp_scheduler_kinds())
    if (name == k.name) return k.make(options);
  throw std::invalid_argument("unknown warp scheduler '" + name + "'");
}

}  // namespace tessera::sm
