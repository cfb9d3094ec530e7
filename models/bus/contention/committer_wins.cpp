// Committer-wins (optimistic detection, as in TCC): running transactions do
// not stop each other; the committer takes its write set and aborts every
// transaction it hits (the shared rules in decide()). What remains here is
// running against running.
#include "bus/contention_manager.h"

namespace tessera::bus {
namespace {

class CommitterWins final : public ContentionManager {
 public:
  Detection detection() const override { return Detection::kOptimistic; }
  Decision between_transactions(const ConflictInput& in) const override {
    // Lazy versioning: a running transaction only reads (its writes ask for
    // their lines when it commits), so there is nothing to decide yet.
    if (in.versioning == Versioning::kLazy) return Decision::kNone;
    // Eager: nobody may read or overwrite an uncommitted value; the older
    // transaction goes first. A write that takes a line another transaction
    // only read aborts that reader when the writer commits.
    if (in.hits_write) return in.requester_older ? Decision::kAbortHolder : Decision::kNackRequester;
    return Decision::kDeferred;
  }
};

[[maybe_unused]] const bool kRegistered =
    register_contention_manager("committer-wins", [] { return std::unique_ptr<ContentionManager>(new CommitterWins); });

}  // namespace
}  // namespace tessera::bus
