// The DRAM schedulers, in the order dram.scheduler lists them. Each is one
// file in schedulers/ (built by a glob) that defines
// `const SchedulerInfo& scheduler_info_<name>()`; adding a policy adds one
// line here (docs/architecture.md, "Adding a DRAM scheduler").
#include <fmt/format.h>

#include "dram/scheduler.h"
#include "sim/config.h"

#define TESSERA_DRAM_SCHEDULERS(X) \
  X(fr_fcfs)                       \
  X(fcfs)                          \
  X(bliss)

namespace tessera::dram {

#define TESSERA_DECLARE(name) const SchedulerInfo& scheduler_info_##name();
TESSERA_DRAM_SCHEDULERS(TESSERA_DECLARE)
#undef TESSERA_DECLARE

const std::vector<const SchedulerInfo*>& schedulers() {
#define TESSERA_ENTRY(name) &scheduler_info_##name(),
  static const std::vector<const SchedulerInfo*> table{TESSERA_DRAM_SCHEDULERS(TESSERA_ENTRY)};
#undef TESSERA_ENTRY
  return table;
}

const std::vector<std::string>& scheduler_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const SchedulerInfo* s : schedulers()) n.emplace_back(s->name);
    return n;
  }();
  return names;
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& name, const SchedulerContext& context) {
  for (const SchedulerInfo* s : schedulers())
    if (name == s->name) return s->make(context);
  std::string valid;
  for (const auto& n : scheduler_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw sim::ConfigError(fmt::format("unknown DRAM scheduler '{}' (valid: {})", name, valid));
}

}  // namespace tessera::dram
