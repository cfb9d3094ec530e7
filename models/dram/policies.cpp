// Factories of the page and refresh policies (the policy name is a
// parameter); the schedulers' registry is scheduler_registry.cpp.
#include <fmt/format.h>

#include <utility>

#include "dram/adaptive_page.h"
#include "dram/all_bank_refresh.h"
#include "dram/closed_page.h"
#include "dram/open_page.h"
#include "dram/per_bank_refresh.h"
#include "sim/config.h"

namespace tessera::dram {

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

AllBankRefresh::AllBankRefresh(std::vector<uint64_t> first_due, uint64_t interval)
    : interval_(interval), due_(std::move(first_due)) {}

PerBankRefresh::PerBankRefresh(std::vector<uint64_t> first_due, unsigned banks_per_pc, uint64_t interval)
    : banks_(banks_per_pc), interval_(interval), due_(std::move(first_due)), next_bank_(due_.size(), 0) {}

uint64_t first_refresh_due(const DramSpec& spec, unsigned channel, unsigned pc, uint64_t interval,
                           RefreshStagger stagger) {
  // Pseudo channel k of N, phases k x interval / N apart (rounded down).
  uint64_t k = 0, n = 1;
  if (stagger == RefreshStagger::kPseudoChannels) {
    k = pc;
    n = spec.org.pseudo_channels;
  } else if (stagger == RefreshStagger::kAll) {
    k = static_cast<uint64_t>(channel) * spec.org.pseudo_channels + pc;
    n = static_cast<uint64_t>(spec.channels()) * spec.org.pseudo_channels;
  }
  return interval + k * interval / n;
}

const std::vector<std::string>& refresh_stagger_names() {
  static const std::vector<std::string> names = {"none", "pseudo_channels", "all"};
  return names;
}

std::unique_ptr<RefreshPolicy> make_refresh_policy(const std::string& name, const DramSpec& spec, unsigned channel,
                                                   RefreshStagger stagger) {
  const bool all = name == "all_bank";
  const uint64_t interval = all ? spec.timing.tREFI : spec.timing.tREFISB;
  std::vector<uint64_t> first(spec.org.pseudo_channels);
  for (unsigned pc = 0; pc < first.size(); ++pc) first[pc] = first_refresh_due(spec, channel, pc, interval, stagger);
  if (all) return std::make_unique<AllBankRefresh>(std::move(first), interval);
  if (name == "per_bank") return std::make_unique<PerBankRefresh>(std::move(first), spec.org.banks_per_pc(), interval);
  throw sim::ConfigError(fmt::format("unknown DRAM refresh mode '{}' (valid: all_bank, per_bank)", name));
}

}  // namespace tessera::dram
