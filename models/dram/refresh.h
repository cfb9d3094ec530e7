// Refresh policy of a channel controller. A refresh falls due every tREFI
// (all-bank, REFab per pseudo channel) or every tREFISB (per-bank REFsb, one
// bank after another, so every bank is refreshed once per tREFI). While a
// refresh is pending the controller stops opening rows in its scope,
// precharges the open ones and issues the refresh as soon as it is legal.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dram/command.h"
#include "dram/spec.h"

namespace tessera::dram {

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
  virtual void issued(unsigned pc) = 0;
};

std::unique_ptr<RefreshPolicy> make_refresh_policy(const std::string& name, const DramSpec& spec);
const std::vector<std::string>& refresh_names();

}  // namespace tessera::dram
