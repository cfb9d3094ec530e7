// The cluster's contention hook: a snooped request against every running
// transaction it hits. The cluster gathers what the contention manager
// needs (bus/contention_manager.h) and carries out its decisions; the
// policy itself is the manager's (htm.policy).
#include <utility>

#include "bus/cluster.h"

namespace tessera::bus {

using mem::BusOp;

Cluster::Contention Cluster::contend(const Txn& t, TxReason* requester_reason) {
  Agent& r = *agents_[t.agent];
  // The requester as the contention manager sees it: a committer, a running
  // transaction's own access, or anything else (plain accesses, instruction
  // fetches, undo-log traffic).
  const bool committing = r.tx.committing();
  const Role role = committing                                                ? Role::kCommitter
                    : r.tx.phase == TxPhase::kActive && t.port == Port::kData ? Role::kActive
                                                                              : Role::kPlain;
  const bool exclusive = t.op != BusOp::kBusRd;
  const uint64_t words = r.request_words(t.port);
  const bool stall_expired = r.tx.stalled && ctx_.now - r.tx.stalled_since >= params_.htm.stall_timeout;
  bool nack = false;
  for (uint32_t c = 0; c < params_.cores; ++c) {
    Agent& h = *agents_[l1d_agent(c)];
    if (&h == &r || h.tx.phase == TxPhase::kIdle || h.tx.phase == TxPhase::kAborted) continue;
    const TxLine* tl = h.tx.find(t.line);
    if (!tl) continue;
    // An invalidating request takes the whole line: were it allowed past the
    // holder's other words, the requester could later write the words the
    // holder read without a bus transaction. A read or an update (Dragon)
    // concerns only its own words.
    const uint64_t reach = t.op == BusOp::kBusRdX || t.op == BusOp::kBusUpgr ? ~uint64_t{0} : words;
    const bool hits_read = (tl->rmask & reach) != 0, hits_write = (tl->wmask & reach) != 0;
    ConflictInput in{};
    in.versioning = params_.htm.versioning;
    in.holder = h.tx.phase;
    in.requester = role;
    in.type = conflict_type(exclusive, hits_read, hits_write);
    in.requester_older =
        r.tx.phase != TxPhase::kIdle && std::make_pair(r.tx.timestamp, r.id) < std::make_pair(h.tx.timestamp, h.id);
    in.requester_commits_first = committing && h.tx.phase == TxPhase::kAcquiring &&
                                 std::make_pair(r.tx.commit_started, r.id) < std::make_pair(h.tx.commit_started, h.id);
    in.stall_expired = stall_expired;
    in.hits_write = hits_write;
    in.requester_work = r.tx.work();
    in.holder_work = h.tx.work();
    switch (decide(in, *contention_)) {
      case Decision::kNone:
        break;
      case Decision::kAbortHolder:
        h.tx_abort(in.type);
        // An eager writer restores its lines before anyone reads them.
        if (h.tx.phase == TxPhase::kRollingBack && hits_write) nack = true;
        break;
      case Decision::kNackRequester:
        nack = true;
        break;
      case Decision::kAbortRequester:
        *requester_reason = in.type;
        return Contention::kAbortRequester;
      case Decision::kDeferred:
        r.tx.deferred.emplace_back(h.id, h.tx.begin_cycle);
        break;
    }
  }
  if (!nack) return Contention::kProceed;
  if (role == Role::kActive) {
    ++r.tx.karma;  // a back-off (Karma's priority)
    if (!r.tx.stalled) {
      r.tx.stalled = true;
      r.tx.stalled_since = ctx_.now;
    }
  }
  return Contention::kNack;
}

}  // namespace tessera::bus
