// Older-wins (pessimistic detection; the timestamp policy of Rajwar and
// Goodman's TLR): the transaction whose first attempt began first wins; the
// younger waits (NACK) as a requester or aborts as a holder. A transaction
// keeps its timestamp across retries, so the oldest one always commits: no
// livelock.
#include "bus/contention_manager.h"

namespace tessera::bus {
namespace {

class OlderWins final : public ContentionManager {
 public:
  Detection detection() const override { return Detection::kPessimistic; }
  Decision between_transactions(const ConflictInput& in) const override {
    return in.requester_older ? Decision::kAbortHolder : Decision::kNackRequester;
  }
};

[[maybe_unused]] const bool kRegistered =
    register_contention_manager("older-wins", [] { return std::unique_ptr<ContentionManager>(new OlderWins); });

}  // namespace
}  // namespace tessera::bus
