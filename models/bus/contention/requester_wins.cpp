// Requester-wins (pessimistic detection): the running transaction a request
// hits aborts at once. Simple and fast when conflicts are rare; two
// transactions can abort each other for ever (no progress guarantee).
#include "bus/contention_manager.h"

namespace tessera::bus {
namespace {

class RequesterWins final : public ContentionManager {
 public:
  Detection detection() const override { return Detection::kPessimistic; }
  Decision between_transactions(const ConflictInput&) const override { return Decision::kAbortHolder; }
  const char* livelock_hint() const override { return "; older-wins does"; }
};

[[maybe_unused]] const bool kRegistered =
    register_contention_manager("requester-wins", [] { return std::unique_ptr<ContentionManager>(new RequesterWins); });

}  // namespace
}  // namespace tessera::bus
