#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "bus/contention_manager.h"

namespace tessera::bus {

namespace {

// Built on first use: registrations run during static initialisation, in
// an order the linker chooses.
std::map<std::string, ContentionManagerFactory>& registry() {
  static std::map<std::string, ContentionManagerFactory> r;
  return r;
}

}  // namespace

bool register_contention_manager(const char* name, ContentionManagerFactory make) {
  if (!registry().emplace(name, make).second)
    throw std::logic_error(fmt::format("contention manager '{}' registered twice", name));
  return true;
}

const std::vector<std::string>& contention_manager_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& [name, make] : registry()) n.push_back(name);
    return n;
  }();
  return names;
}

std::unique_ptr<ContentionManager> make_contention_manager(const std::string& name) {
  const auto it = registry().find(name);
  if (it == registry().end()) {
    std::string valid;
    for (const auto& n : contention_manager_names()) valid += (valid.empty() ? "" : "|") + n;
    throw std::invalid_argument(fmt::format("unknown HTM contention manager '{}' (valid: {})", name, valid));
  }
  return it->second();
}

Decision decide(const ConflictInput& in, const ContentionManager& cm) {
  if (in.type == TxReason::kNone) return Decision::kNone;
  switch (in.holder) {
    case TxPhase::kIdle:
    case TxPhase::kAborted:
      return Decision::kNone;
    case TxPhase::kPublishing:
      // Until its commit ends, what it read and wrote must not change.
      return Decision::kNackRequester;
    case TxPhase::kRollingBack:
      // Its write set holds values being restored: wait.
      return in.hits_write ? Decision::kNackRequester : Decision::kNone;
    case TxPhase::kAcquiring:
      // A committer holds what it has: the first to begin committing wins.
      if (in.requester == Role::kCommitter)
        return in.requester_commits_first ? Decision::kAbortHolder : Decision::kNackRequester;
      return Decision::kNackRequester;
    case TxPhase::kActive:
      break;
  }
  if (in.requester == Role::kCommitter) return Decision::kAbortHolder;
  if (in.requester == Role::kPlain) {
    // Pessimistic: strong isolation, the plain access wins. Optimistic: a
    // plain read of a lazily written word reads the committed value and
    // orders before the transaction; an eager writer's line holds its new
    // value, so the writer aborts first.
    if (cm.detection() == Detection::kPessimistic) return Decision::kAbortHolder;
    return in.type == TxReason::kConflictRW && in.versioning == Versioning::kLazy ? Decision::kNone
                                                                                  : Decision::kAbortHolder;
  }
  return cm.between_transactions(in);
}

}  // namespace tessera::bus
