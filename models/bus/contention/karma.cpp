// Karma (pessimistic detection), after Scherer and Scott, "Advanced
// Contention Management for Dynamic Software Transactional Memory", PODC
// 2005, section 3: a transaction's priority is the work it has done, the
// objects it opened, kept across its aborts until it commits. A requester
// whose priority exceeds the holder's aborts it; otherwise it backs off
// (NACK) and gains one point per back-off, so a small transaction blocked
// by a large one wins after enough retries. Here an object is a cache line
// in the read or write set and a back-off is a NACK from a transaction
// (ConflictInput::requester_work, holder_work).
#include "bus/contention_manager.h"

namespace tessera::bus {
namespace {

class Karma final : public ContentionManager {
 public:
  Detection detection() const override { return Detection::kPessimistic; }
  Decision between_transactions(const ConflictInput& in) const override {
    return in.requester_work > in.holder_work ? Decision::kAbortHolder : Decision::kNackRequester;
  }
  const char* livelock_hint() const override { return "; older-wins does"; }
};

[[maybe_unused]] const bool kRegistered =
    register_contention_manager("karma", [] { return std::unique_ptr<ContentionManager>(new Karma); });

}  // namespace
}  // namespace tessera::bus
