// Factories of the controller policies (the policy name is a parameter).
#include <fmt/format.h>

#include "dram/adaptive_page.h"
#include "dram/all_bank_refresh.h"
#include "dram/closed_page.h"
#include "dram/fcfs.h"
#include "dram/fr_fcfs.h"
#include "dram/open_page.h"
#include "dram/per_bank_refresh.h"
#include "sim/config.h"

namespace tessera::dram {

const std::vector<std::string>& scheduler_names() {
  static const std::vector<std::string> names{"fr_fcfs", "fcfs"};
  return names;
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& name) {
  if (name == "fr_fcfs") return std::make_unique<FrFcfsScheduler>();
  if (name == "fcfs") return std::make_unique<FcfsScheduler>();
  throw sim::ConfigError(fmt::format("unknown DRAM scheduler '{}' (valid: fr_fcfs, fcfs)", name));
}

const std::vector<std::string>& page_policy_names() {
  static const std::vector<std::string> names{"open", "closed", "adaptive"};
  return names;
}

std::unique_ptr<PagePolicy> make_page_policy(const std::string& name, uint64_t adaptive_timeout) {
  if (name == "open") return std::make_unique<OpenPagePolicy>();
  if (name == "closed") return std::make_unique<ClosedPagePolicy>();
  if (name == "adaptive") return std::make_unique<AdaptivePagePolicy>(adaptive_timeout);
  throw sim::ConfigError(fmt::format("unknown DRAM page policy '{}' (valid: open, closed, adaptive)", name));
}

const std::vector<std::string>& refresh_names() {
  static const std::vector<std::string> names{"all_bank", "per_bank"};
  return names;
}

AllBankRefresh::AllBankRefresh(unsigned pcs, uint64_t interval) : interval_(interval), due_(pcs, interval) {}

PerBankRefresh::PerBankRefresh(unsigned pcs, unsigned banks_per_pc, uint64_t interval)
    : banks_(banks_per_pc), interval_(interval), due_(pcs, interval), next_bank_(pcs, 0) {}

void PerBankRefresh::issued(unsigned pc) {
  due_[pc] += interval_;
  next_bank_[pc] = (next_bank_[pc] + 1) % banks_;
}

std::unique_ptr<RefreshPolicy> make_refresh_policy(const std::string& name, const DramSpec& spec) {
  if (name == "all_bank") return std::make_unique<AllBankRefresh>(spec.org.pseudo_channels, spec.timing.tREFI);
  if (name == "per_bank")
    return std::make_unique<PerBankRefresh>(spec.org.pseudo_channels, spec.org.banks_per_pc(), spec.timing.tREFISB);
  throw sim::ConfigError(fmt::format("unknown DRAM refresh mode '{}' (valid: all_bank, per_bank)", name));
}

}  // namespace tessera::dram
