// Refresh policy of a channel controller. A refresh falls due every tREFI
// (all-bank, REFab per pseudo channel) or every tREFISB (per-bank REFsb, one
// bank after another, so every bank is refreshed once per tREFI). The
// stagger spreads first due times over the interval: pseudo channel k of N
// first falls due at interval + k x interval / N, where (RefreshStagger)
//   kNone            N = 1: every pseudo channel at the same instant;
//   kPseudoChannels  k = pc, N = pseudo channels per channel: the pseudo
//                    channels of a channel apart, pseudo channel k of every
//                    channel together;
//   kAll             k = channel x pseudo channels + pc over the whole
//                    memory system: no two at once.
// While a refresh is pending the controller stops opening rows in its
// scope, precharges the open ones and issues the refresh as soon as it is
// legal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dram/command.h"
#include "dram/spec.h"

namespace tessera::dram {

enum class RefreshStagger { kNone, kPseudoChannels, kAll };

class RefreshPolicy {
 public:
  virtual ~RefreshPolicy() = default;
  virtual const char* name() const = 0;
  virtual CommandKind command() const = 0;
  // Cycle at which pseudo channel `pc`'s next refresh falls due.
  virtual uint64_t due(unsigned pc) const = 0;
  // Whether pseudo channel `pc`'s next refresh covers bank `bank_in_pc`
  // (its index within the PC); REFab covers every bank.
  virtual bool covers(unsigned pc, unsigned bank_in_pc) const = 0;
  virtual unsigned target_bank(unsigned pc) const = 0;  // REFsb target
  // The due refresh of `pc` is now owed: its next one falls due an interval later.
  virtual void advance(unsigned pc) = 0;
  virtual void issued(unsigned pc) = 0;  // a refresh of `pc` issued (REFsb: next bank)
};

// The policy of channel `channel` (its pseudo channels' phases depend on it).
std::unique_ptr<RefreshPolicy> make_refresh_policy(const std::string& name, const DramSpec& spec, unsigned channel,
                                                   RefreshStagger stagger);
// First due cycle of pseudo channel `pc` of `channel` for a refresh every
// `interval`.
uint64_t first_refresh_due(const DramSpec& spec, unsigned channel, unsigned pc, uint64_t interval,
                           RefreshStagger stagger);
const std::vector<std::string>& refresh_names();
// The names of `dram.refresh_stagger`, in RefreshStagger order.
const std::vector<std::string>& refresh_stagger_names();

}  // namespace tessera::dram
