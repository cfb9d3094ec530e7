// HTM in the cluster's L1Ds (bus/htm.h, docs/htm.md): the contention
// managers (bus/contention_manager.h) as a table, then the lecture's three pessimistic cases and their
// optimistic counterparts with exact cycles, capacity and undo-log aborts.
//
// Timings follow small_params() (bus_behaviour_test.cpp): an operation
// issued at cycle T starts at T+1; a hit completes at T+2; a miss made at
// T+1 is granted at T+2, snooped at T+4; memory data is ready 30 cycles
// after the snoop, a cache's 1 cycle after; 2 data beats; the access
// completes 1 cycle after its fill. A NACKed request retries
// cluster.bus.nack_backoff (4) cycles after its snoop. Transaction control:
// begin and a lazy rollback's restore take 1 and htm.abort_cycles (2)
// cycles; a commit whose write set is held completes the cycle after it
// starts (lazy: one more cycle per further written line).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bus/contention_manager.h"
#include "cluster_harness.h"

namespace tessera::bus::test {
namespace {

using mem::Protocol;

Op begin_op() { return Op{OpKind::kTxBegin, 0x8000, 4, 256, AmoKind::kAdd}; }  // a 256-byte undo log at 0x8000
Op commit_op() { return Op{OpKind::kTxCommit, 0, 4, 0, AmoKind::kAdd}; }
Op load_op(uint64_t a) { return Op{OpKind::kLoad, a, 4, 0, AmoKind::kAdd}; }
Op store_op(uint64_t a, uint32_t v) { return Op{OpKind::kStore, a, 4, v, AmoKind::kAdd}; }
Op add_op(uint64_t a, uint32_t v) { return Op{OpKind::kAmo, a, 4, v, AmoKind::kAdd}; }
Op rollback_op() { return Op{OpKind::kTxRollback, 0, 4, 0, AmoKind::kAdd}; }

// Each core runs its list of operations back to back (the next is issued
// in the completion callback, as a core does), optionally `think` cycles
// later. A commit that fails (1) is followed by a rollback; the runner then
// stops that core.
struct Script {
  Script(std::vector<Op> o, std::vector<uint32_t> t = {}) : ops(std::move(o)), think(std::move(t)) {}
  std::vector<Op> ops;
  std::vector<uint32_t> think;  // cycles after the previous completion (default 0)
  std::vector<uint64_t> done;
  std::vector<uint32_t> values;
  size_t next = 0;
  uint64_t at = 0;
  uint32_t retries = 0;  // times an aborted transaction runs again
  int backoff = -1;      // cycles before a retry (-1: 8 x (core + 1))
};

class Runner {
 public:
  Runner(Harness& h, std::vector<Script> scripts) : h_(h), s_(std::move(scripts)) {}
  void run(uint64_t start_delay_core1 = 0, bool may_fail = false) {
    const uint64_t t0 = h_.cluster.now();

    for (size_t c = 0; c < s_.size(); ++c) s_[c].at = t0 + (c == 1 ? start_delay_core1 : 0);
    for (;;) {
      bool pending = false;
      for (uint32_t c = 0; c < s_.size(); ++c) {
        Script& s = s_[c];
        if (s.next >= s.ops.size()) continue;
        pending = true;
        if (h_.cluster.port_free(c, false) && !in_flight_[c] && s.at <= h_.cluster.now()) issue(c);
      }
      if (!pending && h_.cluster.idle()) break;
      if (h_.cluster.failed()) break;
      uint64_t next = h_.cluster.next_event_cycle();
      for (const auto& s : s_)
        if (s.next < s.ops.size() && s.at > h_.cluster.now()) next = std::min(next, s.at);
      if (next == Cluster::kNever) break;
      h_.cluster.advance_to(next);
    }
    if (!may_fail) {
      ASSERT_FALSE(h_.cluster.failed()) << h_.cluster.failure();
    }
  }
  Script& script(size_t c) { return s_[c]; }

 private:
  void issue(uint32_t c) {
    Script& s = s_[c];
    const size_t i = s.next++;
    in_flight_[c] = true;
    h_.cluster.issue(c, s.ops[i], [this, c, i](uint32_t v) {
      Script& sc = s_[c];
      sc.done.push_back(h_.cluster.now());
      sc.values.push_back(v);
      in_flight_[c] = false;
      if (sc.ops[i].kind == OpKind::kTxCommit && v != 0) {
        // Roll back, then (when retrying) run the transaction again.
        std::vector<Op> again;
        std::vector<uint32_t> again_think;
        size_t b = i;
        while (sc.ops[b].kind != OpKind::kTxBegin) --b;
        sc.think.resize(sc.ops.size(), 0);
        if (sc.retries > 0) {
          --sc.retries;
          again.assign(sc.ops.begin() + static_cast<long>(b), sc.ops.begin() + static_cast<long>(i) + 1);
          again_think.assign(sc.think.begin() + static_cast<long>(b), sc.think.begin() + static_cast<long>(i) + 1);
          again_think[0] = sc.backoff < 0 ? 8 * (c + 1) : static_cast<uint32_t>(sc.backoff);  // before the retry
        }
        again.insert(again.begin(), rollback_op());
        again_think.insert(again_think.begin(), 0);
        sc.ops.insert(sc.ops.begin() + static_cast<long>(sc.next), again.begin(), again.end());
        sc.think.insert(sc.think.begin() + static_cast<long>(sc.next), again_think.begin(), again_think.end());
        if (again.size() == 1) sc.ops.resize(sc.next + 1);
      }
      sc.at = h_.cluster.now() + (sc.next < sc.think.size() ? sc.think[sc.next] : 0);
      if (sc.next < sc.ops.size() && sc.at == h_.cluster.now() && h_.cluster.port_free(c, false)) issue(c);
    });
  }
  Harness& h_;
  std::vector<Script> s_;
  bool in_flight_[8] = {};
};

ClusterParams htm_params(Versioning v, Detection d, const std::string& p, uint32_t ways = 2) {
  ClusterParams c = small_params(Protocol::kMesi, 2);
  c.l1d = mem::CacheGeometry::make("cluster.l1d", 1024, ways, 64);
  c.htm.versioning = v;
  c.htm.detection = d;
  c.htm.policy = p;
  return c;
}

// ---------------------------------------------------------------------------
// The contention manager

ConflictInput active_holder(Role requester, TxReason type) {
  ConflictInput in{};
  in.versioning = Versioning::kLazy;
  in.holder = TxPhase::kActive;
  in.requester = requester;
  in.type = type;
  in.hits_write = type != TxReason::kConflictWR;
  return in;
}

// The decision of the registered policy `name`.
Decision decide(const ConflictInput& in, const std::string& name) { return decide(in, *make_contention_manager(name)); }

TEST(HtmPolicy, ConflictTypesAreTheLecturesThree) {
  EXPECT_EQ(conflict_type(false, false, true), TxReason::kConflictRW);  // shared request hits W
  EXPECT_EQ(conflict_type(true, true, false), TxReason::kConflictWR);   // exclusive hits R
  EXPECT_EQ(conflict_type(true, true, true), TxReason::kConflictWW);    // exclusive hits W
  EXPECT_EQ(conflict_type(false, true, false), TxReason::kNone);        // readers share
  EXPECT_EQ(conflict_type(true, false, false), TxReason::kNone);
}

// Every policy's file registers itself (the linker keeps files nothing
// refers to only because the archive is linked whole).
TEST(HtmPolicy, EveryPolicyFileRegistersItsName) {
  const auto& names = contention_manager_names();
  for (const char* name : {"committer-wins", "karma", "older-wins", "requester-stalls", "requester-wins"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_THROW(make_contention_manager("youngest-wins"), std::invalid_argument);
}

TEST(HtmPolicy, PessimisticPolicies) {
  EXPECT_EQ(decide(active_holder(Role::kActive, TxReason::kConflictRW), "requester-wins"), Decision::kAbortHolder);
  auto stalls = active_holder(Role::kActive, TxReason::kConflictWR);
  EXPECT_EQ(decide(stalls, "requester-stalls"), Decision::kNackRequester);
  stalls.stall_expired = true;
  EXPECT_EQ(decide(stalls, "requester-stalls"), Decision::kAbortRequester);
  auto older = active_holder(Role::kActive, TxReason::kConflictWW);
  EXPECT_EQ(decide(older, "older-wins"), Decision::kNackRequester);
  older.requester_older = true;
  EXPECT_EQ(decide(older, "older-wins"), Decision::kAbortHolder);
}

// Whatever the policy, a plain access (strong isolation) and a committer
// win against a running transaction under pessimistic detection; no policy
// decides a request that hits nothing.
TEST(HtmPolicy, EveryPessimisticPolicyLetsPlainAccessesAndCommittersWin) {
  for (const auto& name : contention_manager_names()) {
    if (make_contention_manager(name)->detection() != Detection::kPessimistic) continue;
    EXPECT_EQ(decide(active_holder(Role::kPlain, TxReason::kConflictWR), name), Decision::kAbortHolder) << name;
    EXPECT_EQ(decide(active_holder(Role::kCommitter, TxReason::kConflictWR), name), Decision::kAbortHolder) << name;
    EXPECT_EQ(decide(active_holder(Role::kActive, TxReason::kNone), name), Decision::kNone) << name;
  }
}

// Karma (Scherer and Scott, PODC 2005): the requester wins only with
// strictly more work done than the holder; a tie waits.
TEST(HtmPolicy, KarmaGivesTheConflictToTheTransactionThatDidMoreWork) {
  auto in = active_holder(Role::kActive, TxReason::kConflictWW);
  in.requester_older = true;  // age does not count
  in.requester_work = 3;
  in.holder_work = 5;
  EXPECT_EQ(decide(in, "karma"), Decision::kNackRequester);
  in.requester_work = 5;
  EXPECT_EQ(decide(in, "karma"), Decision::kNackRequester);
  in.requester_work = 6;
  EXPECT_EQ(decide(in, "karma"), Decision::kAbortHolder);
  in.requester_older = false;
  EXPECT_EQ(decide(in, "karma"), Decision::kAbortHolder);
}

TEST(HtmPolicy, OptimisticConflictsWaitForACommit) {
  const std::string C = "committer-wins";
  // Lazy: a running transaction's reads never conflict; the committer wins.
  EXPECT_EQ(decide(active_holder(Role::kActive, TxReason::kConflictRW), C), Decision::kNone);
  EXPECT_EQ(decide(active_holder(Role::kCommitter, TxReason::kConflictWR), C), Decision::kAbortHolder);
  EXPECT_EQ(decide(active_holder(Role::kPlain, TxReason::kConflictRW), C), Decision::kNone);
  EXPECT_EQ(decide(active_holder(Role::kPlain, TxReason::kConflictWW), C), Decision::kAbortHolder);
  // Eager: an uncommitted value in place is never read; older goes first;
  // a reader whose line a writer took aborts when the writer commits.
  auto eager = active_holder(Role::kActive, TxReason::kConflictRW);
  eager.versioning = Versioning::kEager;
  EXPECT_EQ(decide(eager, C), Decision::kNackRequester);
  eager.requester_older = true;
  EXPECT_EQ(decide(eager, C), Decision::kAbortHolder);
  auto reader = active_holder(Role::kActive, TxReason::kConflictWR);
  reader.versioning = Versioning::kEager;
  EXPECT_EQ(decide(reader, C), Decision::kDeferred);
}

// The phases of a committing or rolling-back holder decide before any
// policy: the same under every registered one.
TEST(HtmPolicy, CommittersHoldTheirWriteSets) {
  for (const auto& name : contention_manager_names()) {
    ConflictInput in = active_holder(Role::kPlain, TxReason::kConflictRW);
    in.holder = TxPhase::kPublishing;
    EXPECT_EQ(decide(in, name), Decision::kNackRequester) << name;
    in.holder = TxPhase::kAcquiring;
    in.requester = Role::kCommitter;
    EXPECT_EQ(decide(in, name), Decision::kNackRequester) << name;
    in.requester_commits_first = true;
    EXPECT_EQ(decide(in, name), Decision::kAbortHolder) << name;
    in.holder = TxPhase::kRollingBack;
    in.hits_write = false;
    EXPECT_EQ(decide(in, name), Decision::kNone) << name;
    // A publishing committer's reads count until its commit ends.
    in.holder = TxPhase::kPublishing;
    in.type = TxReason::kConflictWR;
    EXPECT_EQ(decide(in, name), Decision::kNackRequester) << name;
  }
}

// ---------------------------------------------------------------------------
// The lecture's cases, pessimistic detection (lazy versioning, MESI).

constexpr uint64_t A = 0x40, B = 0x80;

TEST(HtmPessimistic, Case1NoConflictBothCommit) {
  Harness h(htm_params(Versioning::kLazy, Detection::kPessimistic, "requester-stalls"));
  const uint64_t T = h.cluster.now();
  Runner r(h, {Script{{begin_op(), load_op(A), store_op(A, 1), commit_op()}},
               Script{{begin_op(), load_op(B), store_op(B, 2), commit_op()}}});
  r.run();
  // C0: begin done T+2; its load misses at T+3, granted T+4, snooped T+6,
  // memory ready T+36, filled T+38, done T+39; the store hits E (silent
  // upgrade) T+41; the commit publishes one held line: T+43.
  EXPECT_EQ(r.script(0).done, (std::vector<uint64_t>{T + 2, T + 39, T + 41, T + 43}));
  // C1's load is granted one cycle later (T+5) and its data waits for C0's
  // two beats (T+36..T+38): filled T+40, done T+41; store T+43; commit T+45.
  EXPECT_EQ(r.script(1).done, (std::vector<uint64_t>{T + 2, T + 41, T + 43, T + 45}));
  EXPECT_EQ(r.script(0).values.back(), 0u);
  EXPECT_EQ(r.script(1).values.back(), 0u);
  EXPECT_EQ(h.cluster.htm_counters(0).committed, 1u);
  EXPECT_EQ(h.cluster.htm_counters(1).committed, 1u);
  EXPECT_EQ(h.cluster.debug_read(A, 4), 1u);
  EXPECT_EQ(h.cluster.debug_read(B, 4), 2u);
}

TEST(HtmPessimistic, Case2ReaderStallsOnAWriteUntilTheWriterCommits) {
  Harness h(htm_params(Versioning::kLazy, Detection::kPessimistic, "requester-stalls"));
  h.cluster.debug_write(A, 4, 7);
  const uint64_t T = h.cluster.now();
  // C0 writes A (a miss: granted T+4, from memory, done T+39), works 60
  // cycles, commits. C1 begins 10 cycles later and reads A.
  Script c0{{begin_op(), store_op(A, 8), commit_op()}, {0, 0, 60}};
  Script c1{{begin_op(), load_op(A), commit_op()}};
  Runner r(h, {c0, c1});
  r.run(10);
  // C0's commit is issued at T+99 and completes at T+101 (its tick T+100
  // ends the transaction).
  EXPECT_EQ(r.script(0).done, (std::vector<uint64_t>{T + 2, T + 39, T + 101}));
  // C1: begin T+10 -> T+12; its read misses at T+13 but A has C0's BusRdX
  // in flight until C0's fill frees it at T+38, so C1 is granted at T+38
  // and snooped at T+40, when C0 holds A written: NACK, retry 4 cycles
  // later, so snoops at T+40+6k. C0's commit ends in tick T+100, after that
  // tick's snoop (NACKed): the first snoop after it is T+106; C0 (now M,
  // committed) supplies at T+107, 2 beats, filled T+109, done T+110.
  EXPECT_EQ(r.script(1).done[1], T + 110);
  EXPECT_EQ(r.script(1).values[1], 8u);                      // the committed value, never the old one with C0 running
  EXPECT_EQ(r.script(1).values[2], 0u);                      // and C1 commits
  EXPECT_EQ(h.cluster.htm_counters(1).conflict_nacks, 11u);  // T+40 .. T+100 every 6 cycles
  EXPECT_EQ(h.cluster.htm_counters(1).aborts[static_cast<size_t>(TxReason::kConflictRW)], 0u);
}

TEST(HtmPessimistic, Case3StallThenAbort) {
  ClusterParams p = htm_params(Versioning::kLazy, Detection::kPessimistic, "requester-stalls");
  p.htm.stall_timeout = 20;
  Harness h(p);
  const uint64_t T = h.cluster.now();
  Script c0{{begin_op(), store_op(A, 8), commit_op()}, {0, 0, 60}};
  Script c1{{begin_op(), load_op(A), commit_op()}};
  Runner r(h, {c0, c1});
  r.run(10);
  // C1 is NACKed at T+40 (its stall starts), T+46, T+52, T+58; at T+64 it
  // has stalled 24 >= 20 cycles: it aborts (read-write conflict). Its load
  // completes without effect at T+65, its commit fails (T+67), its
  // rollback takes htm.abort_cycles: issued T+67, T+68 + 2.
  EXPECT_EQ(r.script(1).done, (std::vector<uint64_t>{T + 12, T + 65, T + 67, T + 70}));
  EXPECT_EQ(r.script(1).values[2], 1u);
  EXPECT_EQ(h.cluster.tx_status(1), static_cast<uint32_t>(TxReason::kConflictRW) | kTxRetryBit);
  EXPECT_EQ(h.cluster.htm_counters(1).aborts[static_cast<size_t>(TxReason::kConflictRW)], 1u);
  EXPECT_EQ(h.cluster.htm_counters(1).conflict_nacks, 4u);
  // C0 was never disturbed.
  EXPECT_EQ(r.script(0).done.back(), T + 101);
  EXPECT_EQ(h.cluster.debug_read(A, 4), 8u);
}

// ---------------------------------------------------------------------------
// Optimistic counterparts (lazy versioning, committer-wins).

TEST(HtmOptimistic, Case1NoConflictBothCommit) {
  Harness h(htm_params(Versioning::kLazy, Detection::kOptimistic, "committer-wins"));
  const uint64_t T = h.cluster.now();
  Runner r(h, {Script{{begin_op(), load_op(A), store_op(A, 1), commit_op()}},
               Script{{begin_op(), load_op(B), store_op(B, 2), commit_op()}}});
  r.run();
  // As the pessimistic case: the lines are exclusive (E), so acquiring them
  // at commit needs no bus transaction.
  EXPECT_EQ(r.script(0).done, (std::vector<uint64_t>{T + 2, T + 39, T + 41, T + 43}));
  EXPECT_EQ(r.script(1).done, (std::vector<uint64_t>{T + 2, T + 41, T + 43, T + 45}));
  EXPECT_EQ(h.cluster.htm_counters(0).commit_bus_transactions, 0u);
  EXPECT_EQ(h.cluster.debug_read(A, 4), 1u);
  EXPECT_EQ(h.cluster.debug_read(B, 4), 2u);
}

TEST(HtmOptimistic, Case2TheReaderRunsOnAndTheCommitterAbortsIt) {
  Harness h(htm_params(Versioning::kLazy, Detection::kOptimistic, "committer-wins"));
  h.cluster.debug_write(A, 4, 7);
  const uint64_t T = h.cluster.now();
  Script c0{{begin_op(), store_op(A, 8), commit_op()}, {0, 0, 60}};
  Script c1{{begin_op(), load_op(A), commit_op()}, {0, 0, 200}};
  Runner r(h, {c0, c1});
  r.run(10);
  // C0's store only needs A present: BusRd granted T+4, done T+39 (E). C1's
  // read waits for that transaction (granted T+38) and is not refused: at
  // its snoop (T+40) C0's E copy becomes S and memory answers (MESI's E
  // does not supply): ready T+70, filled T+72, done T+73 with the
  // committed 7.
  EXPECT_EQ(r.script(1).done[1], T + 73);
  EXPECT_EQ(r.script(1).values[1], 7u);
  // C0 commits at T+99: A is shared, so it acquires it with a BusUpgr
  // (made at T+100, granted T+101, snooped T+103), which hits C1's read
  // set: C1 aborts (write-read). The upgrade needs no data: C0 publishes in
  // the same cycle, done T+104.
  EXPECT_EQ(r.script(0).done.back(), T + 104);
  EXPECT_EQ(r.script(0).values.back(), 0u);
  EXPECT_EQ(h.cluster.htm_counters(0).commit_bus_transactions, 1u);
  EXPECT_EQ(r.script(1).values[2], 1u);  // C1's commit fails
  EXPECT_EQ(h.cluster.htm_counters(1).aborts[static_cast<size_t>(TxReason::kConflictWR)], 1u);
  EXPECT_EQ(h.cluster.debug_read(A, 4), 8u);
}

TEST(HtmOptimistic, Case3TwoWritersTheFirstToCommitWins) {
  Harness h(htm_params(Versioning::kLazy, Detection::kOptimistic, "committer-wins"));
  const uint64_t T = h.cluster.now();
  Script c0{{begin_op(), store_op(A, 1), commit_op()}, {0, 0, 60}};
  Script c1{{begin_op(), store_op(A, 2), commit_op()}, {0, 0, 200}};
  Runner r(h, {c0, c1});
  r.run(10);
  // Both stores only need A present: C0's BusRd is done at T+39; C1's waits
  // for it (granted T+38, snooped T+40, memory answers: done T+73). C0's
  // commit at T+99 upgrades A (made T+100, granted T+101, snooped T+103):
  // it hits C1's write set, C1 aborts (write-write), C0 publishes: T+104.
  EXPECT_EQ(r.script(0).done, (std::vector<uint64_t>{T + 2, T + 39, T + 104}));
  // C1's commit, issued at T+273, fails at T+275; its rollback (2 cycles) ends at T+278.
  EXPECT_EQ(r.script(1).done, (std::vector<uint64_t>{T + 12, T + 73, T + 275, T + 278}));
  EXPECT_EQ(r.script(0).values.back(), 0u);
  EXPECT_EQ(r.script(1).values[2], 1u);
  EXPECT_EQ(h.cluster.htm_counters(1).aborts[static_cast<size_t>(TxReason::kConflictWW)], 1u);
  EXPECT_EQ(h.cluster.debug_read(A, 4), 1u);  // C1's buffered 2 never appeared
}

// ---------------------------------------------------------------------------
// Capacity and the undo log.

TEST(HtmCapacity, AbortsExactlyWhenASetCannotHoldTheWriteSet) {
  for (uint32_t ways : {1u, 2u}) {
    Harness h(htm_params(Versioning::kLazy, Detection::kPessimistic, "older-wins", ways));
    const uint64_t stride = 1024 / ways;  // lines this far apart share a set
    std::vector<Op> ops{begin_op()};
    for (uint32_t i = 0; i < ways; ++i) ops.push_back(store_op(A + i * stride, i + 1));
    ops.push_back(commit_op());
    Runner fits(h, {Script{ops}});
    fits.run();
    EXPECT_EQ(fits.script(0).values.at(ops.size() - 1), 0u) << ways << " ways";
    // One line more in the same set: the transaction cannot keep it.
    ops.insert(ops.end() - 1, store_op(A + ways * stride, 9));
    Runner over(h, {Script{ops}});
    over.run();
    EXPECT_EQ(over.script(0).values.at(ops.size() - 1), 1u) << ways << " ways";
    EXPECT_EQ(h.cluster.tx_status(0), static_cast<uint32_t>(TxReason::kCapacity)) << "no retry bit";
    EXPECT_EQ(h.cluster.debug_read(A + ways * stride, 4), 0u);
    // A different set is fine.
    std::vector<Op> other{begin_op(), store_op(A, 5), store_op(A + 64, 6), commit_op()};
    Runner again(h, {Script{other}});
    again.run();
    EXPECT_EQ(again.script(0).values.at(other.size() - 1), 0u);
  }
}

TEST(HtmEager, UndoLogEntriesAreRealStoresAndOverflowAborts) {
  Harness h(htm_params(Versioning::kEager, Detection::kPessimistic, "older-wins"));
  h.cluster.debug_write(A, 4, 0x11);
  Op small_log = begin_op();
  small_log.value = 8;  // one entry
  Runner r(h, {Script{{small_log, store_op(A, 0x22), store_op(A, 0x33), store_op(A + 4, 0x44), commit_op()}}});
  r.run();
  // The first store logs (A, 0x11); rewriting A needs no entry; A+4 does and
  // the log is full.
  EXPECT_EQ(h.cluster.tx_status(0), static_cast<uint32_t>(TxReason::kLogOverflow));
  EXPECT_EQ(h.cluster.debug_read(0x8000, 4), A);
  EXPECT_EQ(h.cluster.debug_read(0x8004, 4), 0x11u);
  EXPECT_EQ(h.cluster.debug_read(A, 4), 0x11u);
  EXPECT_EQ(h.cluster.htm_counters(0).undo_log_bytes, 8u);
  EXPECT_EQ(h.cluster.htm_counters(0).aborts[static_cast<size_t>(TxReason::kLogOverflow)], 1u);
  EXPECT_GT(h.cluster.htm_counters(0).rollback_cycles, 0u);
}

TEST(HtmEager, SameFinalMemoryAsLazyInEveryLectureCase) {
  for (Detection d : {Detection::kPessimistic, Detection::kOptimistic}) {
    uint32_t finals[2] = {};
    for (Versioning v : {Versioning::kEager, Versioning::kLazy}) {
      Harness h(htm_params(v, d, d == Detection::kOptimistic ? "committer-wins" : "older-wins"));
      // Increments in both orders: every serial order ends with A = B = 3.
      Script c0{{begin_op(), add_op(A, 1), add_op(B, 1), commit_op()}, {0, 0, 0, 30}};
      Script c1{{begin_op(), add_op(B, 2), add_op(A, 2), commit_op()}};
      c0.retries = c1.retries = 20;
      Runner r(h, {c0, c1});
      r.run(5);
      finals[v == Versioning::kEager ? 0 : 1] = h.cluster.debug_read(A, 4) * 16 + h.cluster.debug_read(B, 4);
    }
    EXPECT_EQ(finals[0], 3u * 16 + 3) << detection_name(d);
    EXPECT_EQ(finals[1], 3u * 16 + 3) << detection_name(d);
  }
}

// Two transactions write A, work 100 cycles and commit; each retries at
// once. Requester-wins lets each take A from the other long before it can
// commit, for ever: the watchdog reports a livelock. Older-wins makes the
// younger wait, and both commit.
TEST(HtmProgress, RequesterWinsLivelocksAndOlderWinsDoesNot) {
  for (const std::string p : {"requester-wins", "older-wins"}) {
    ClusterParams params = htm_params(Versioning::kLazy, Detection::kPessimistic, p);
    params.deadlock_cycles = 2000;
    Harness h(params);
    Script c0{{begin_op(), store_op(A, 1), store_op(B, 1), commit_op()}, {0, 0, 0, 100}};
    Script c1{{begin_op(), store_op(A, 2), store_op(B, 2), commit_op()}, {0, 0, 0, 100}};
    c0.retries = c1.retries = 1000000;
    c0.backoff = c1.backoff = 0;
    Runner r(h, {c0, c1});
    r.run(20, true);
    if (p == "requester-wins") {
      ASSERT_TRUE(h.cluster.failed());
      EXPECT_EQ(h.cluster.failure_info().kind, mem::CoherenceFailure::Kind::kLivelock) << h.cluster.failure();
      EXPECT_NE(h.cluster.failure().find("requester-wins does not guarantee progress"), std::string::npos);
      EXPECT_EQ(h.cluster.htm_counters(0).committed + h.cluster.htm_counters(1).committed, 0u);
    } else {
      EXPECT_FALSE(h.cluster.failed()) << h.cluster.failure();
      EXPECT_EQ(h.cluster.htm_counters(0).committed, 1u);
      EXPECT_EQ(h.cluster.htm_counters(1).committed, 1u);
      EXPECT_EQ(h.cluster.debug_read(A, 4), h.cluster.debug_read(B, 4));  // one wrote both last
    }
  }
}

// Karma in a hand-built conflict. C1 (younger) reads B, C and D: three
// lines of work. C0 (older, no lines yet) then writes B: an exclusive
// request hitting C1's read set. Older-wins aborts C1 at the first snoop.
// Karma NACKs C0 while its work (0 lines + 1 per NACK taken) is at most
// C1's 3: NACKs at work 0, 1, 2 and 3, then at 4 > 3 C1 aborts; C0 commits.
TEST(HtmKarma, TheRequesterWinsOnceItsBackOffsExceedTheHoldersWork) {
  constexpr uint64_t C = 0xC0, D = 0x100;
  for (const std::string p : {"older-wins", "karma"}) {
    Harness h(htm_params(Versioning::kLazy, Detection::kPessimistic, p));
    Script c0{{begin_op(), store_op(B, 5), commit_op()}, {0, 200, 0}};
    Script c1{{begin_op(), load_op(B), load_op(C), load_op(D), commit_op()}, {0, 0, 0, 0, 400}};
    Runner r(h, {c0, c1});
    r.run(10);
    EXPECT_EQ(h.cluster.htm_counters(0).conflict_nacks, p == "karma" ? 4u : 0u) << p;
    EXPECT_EQ(h.cluster.htm_counters(1).aborts[static_cast<size_t>(TxReason::kConflictWR)], 1u) << p;
    EXPECT_EQ(h.cluster.htm_counters(0).committed, 1u) << p;
    EXPECT_EQ(h.cluster.htm_counters(1).committed, 0u) << p;
    EXPECT_EQ(h.cluster.debug_read(B, 4), 5u) << p;
  }
}

}  // namespace
}  // namespace tessera::bus::test
