// Requester-stalls (pessimistic detection): the requester is NACKed and
// retries; once it has waited htm.stall_timeout cycles since its first NACK
// it aborts itself (which breaks the cycles of waiting transactions).
#include "bus/contention_manager.h"

namespace tessera::bus {
namespace {

class RequesterStalls final : public ContentionManager {
 public:
  Detection detection() const override { return Detection::kPessimistic; }
  Decision between_transactions(const ConflictInput& in) const override {
    return in.stall_expired ? Decision::kAbortRequester : Decision::kNackRequester;
  }
};

[[maybe_unused]] const bool kRegistered = register_contention_manager(
    "requester-stalls", [] { return std::unique_ptr<ContentionManager>(new RequesterStalls); });

}  // namespace
}  // namespace tessera::bus
