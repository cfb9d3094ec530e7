// The HTM contention manager (docs/htm.md, "Conflicts"): what happens when a
// snooped request hits a transaction's read or write set. decide() applies
// the rules every policy shares (a committing or rolling-back holder, a
// committer or a plain access as the requester, optimistic detection's
// plain reads); the one case policies differ on, a running transaction hit
// by another running transaction's own access, goes to the policy: a
// ContentionManager, one file per policy under bus/contention/, each
// registered by the name htm.policy accepts. Pure: tested directly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bus/htm.h"

namespace tessera::bus {

// One holder hit by one request, as the contention manager sees it.
struct ConflictInput {
  Versioning versioning = Versioning::kLazy;
  TxPhase holder = TxPhase::kIdle;
  Role requester = Role::kPlain;
  TxReason type = TxReason::kNone;       // conflict_type(); kNone: no conflict
  bool requester_older = false;          // by timestamp (the first attempt's begin, kept across retries)
  bool requester_commits_first = false;  // both committing: the requester began committing first
  bool stall_expired = false;            // the requester has waited htm.stall_timeout since its first NACK
  bool hits_write = false;               // the request hits a word the holder wrote
  // Work done (Karma): lines opened by the transaction, summed over its
  // aborted attempts since its last commit, plus, for the requester, the
  // NACKs it has taken from transactions since then.
  uint64_t requester_work = 0, holder_work = 0;
};

class ContentionManager {
 public:
  virtual ~ContentionManager() = default;
  // The detection the policy serves (htm.detection must match).
  virtual Detection detection() const = 0;
  // A running holder (TxPhase::kActive) hit by another running
  // transaction's own access (Role::kActive); in.type is a conflict.
  virtual Decision between_transactions(const ConflictInput& in) const = 0;
  // Appended to the livelock report ("" or "; <a policy that does>").
  virtual const char* livelock_hint() const { return ""; }
};

using ContentionManagerFactory = std::unique_ptr<ContentionManager> (*)();

// The registry. A policy's file registers it at static initialisation:
//   const bool kRegistered = register_contention_manager("karma", [] { ... });
// Returns true (for that constant); a name registered twice is a
// programming error (std::logic_error).
bool register_contention_manager(const char* name, ContentionManagerFactory make);
// The registered names, sorted: the values htm.policy accepts besides "auto".
const std::vector<std::string>& contention_manager_names();
// std::invalid_argument naming the valid policies for an unknown name.
std::unique_ptr<ContentionManager> make_contention_manager(const std::string& name);

// The decision for one holder: the shared rules, then `cm`.
Decision decide(const ConflictInput& in, const ContentionManager& cm);

}  // namespace tessera::bus
