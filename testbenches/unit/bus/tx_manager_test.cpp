// A transaction's bookkeeping without a cache or bus (bus/tx_manager.h):
// the undo log's entries, the commit's intents and publishing stores,
// Karma's work and the older-wins timestamp across aborts, and the walk
// back. Expected queues are derived by hand from the entry layout of
// docs/htm.md (an entry is the word's address, then its old value).
#include <gtest/gtest.h>

#include <vector>

#include "bus/tx_manager.h"

namespace tessera::bus::test {
namespace {

struct Expected {
  OpKind kind;
  uint64_t addr;
  uint32_t size, value;
};

void expect_ops(const TxManager& tx, const std::vector<Expected>& want) {
  ASSERT_EQ(tx.ops.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(tx.ops[i].kind, want[i].kind) << i;
    EXPECT_EQ(tx.ops[i].addr, want[i].addr) << i;
    EXPECT_EQ(tx.ops[i].size, want[i].size) << i;
    EXPECT_EQ(tx.ops[i].value, want[i].value) << i;
  }
}

TEST(TxManager, ExactWordsCoverEveryWordAnAccessTouches) {
  EXPECT_EQ(exact_words(0, 4), 0b1u);
  EXPECT_EQ(exact_words(6, 2), 0b10u);
  EXPECT_EQ(exact_words(60, 4), uint64_t{1} << 15);
}

TEST(TxManager, EagerLogQueuesAddressThenOldValueOncePerWord) {
  TxManager tx;
  tx.begin(10, 0x8000, 16);  // room for two entries
  TxLine& l = tx.open(0x40, 64);
  std::vector<uint8_t> committed(64);
  for (uint32_t w = 0; w < 16; ++w) committed[4 * w] = static_cast<uint8_t>(0x10 + w);
  ASSERT_TRUE(tx.log(l, 0b101, committed.data()));  // words 0 and 2
  expect_ops(tx, {{OpKind::kStore, 0x8000, 4, 0x40},
                  {OpKind::kStore, 0x8004, 4, 0x10},
                  {OpKind::kStore, 0x8008, 4, 0x48},
                  {OpKind::kStore, 0x800C, 4, 0x12}});
  EXPECT_EQ(tx.log_used, 16u);
  EXPECT_EQ(tx.counters.undo_log_bytes, 16u);
  EXPECT_TRUE(tx.wait_log);
  EXPECT_TRUE(tx.log(l, 0b1, committed.data()));  // logged already: nothing new
  EXPECT_EQ(tx.ops.size(), 4u);
  EXPECT_FALSE(tx.log(l, 0b10, committed.data()));  // a third entry overflows
  EXPECT_EQ(tx.ops.size(), 4u);
  EXPECT_EQ(tx.log_used, 16u);
}

TEST(TxManager, CommitAcquiresWrittenLinesThenPublishesWordsAndBytes) {
  TxManager tx;
  tx.begin(0, 0, 0);
  TxLine& w = tx.open(0x80, 16);
  for (uint32_t i = 0; i < 4; ++i) {
    w.data[i] = static_cast<uint8_t>(0x11 * (i + 1));
    w.written[i] = 1;
  }
  w.data[6] = 0xAB;
  w.written[6] = 1;
  w.wmask = 0b11;
  tx.open(0xC0, 16).rmask = 1;  // read only: neither acquired nor published
  tx.begin_commit(7);
  EXPECT_EQ(tx.phase, TxPhase::kAcquiring);
  EXPECT_EQ(tx.commit_started, 7u);
  ASSERT_EQ(tx.ops.size(), 1u);
  EXPECT_TRUE(tx.ops[0].intent);
  EXPECT_EQ(tx.ops[0].addr, 0x80u);
  tx.ops.clear();
  tx.publish(16);
  EXPECT_EQ(tx.phase, TxPhase::kPublishing);
  expect_ops(tx, {{OpKind::kStore, 0x80, 4, 0x44332211}, {OpKind::kStore, 0x86, 1, 0xAB}});
}

TEST(TxManager, KarmaAndTimestampSurviveAbortsUntilACommit) {
  TxManager tx;
  tx.begin(5, 0, 0);
  tx.open(0x40, 64);
  tx.open(0x80, 64);
  tx.deferred.emplace_back(2, 3);
  const auto readers = tx.abort(TxReason::kConflictWR, 0, 20);
  EXPECT_EQ(readers, (TxManager::Deferred{{2, 3}}));
  EXPECT_TRUE(tx.deferred.empty());
  EXPECT_EQ(tx.status, tx_status(TxReason::kConflictWR, 0));
  EXPECT_EQ(tx.counters.aborts[static_cast<size_t>(TxReason::kConflictWR)], 1u);
  EXPECT_EQ(tx.counters.aborted_cycles, 15u);
  tx.clear_sets();
  EXPECT_EQ(tx.work(), 2u);  // two lines opened by the aborted attempt
  tx.begin(30, 0, 0);
  EXPECT_EQ(tx.timestamp, 5u);  // the first attempt's
  tx.open(0x40, 64);
  ++tx.karma;  // a NACK taken
  EXPECT_EQ(tx.work(), 4u);
  tx.committed(40);
  EXPECT_EQ(tx.phase, TxPhase::kIdle);
  EXPECT_EQ(tx.counters.committed, 1u);
  EXPECT_EQ(tx.counters.committed_cycles, 10u);
  EXPECT_EQ(tx.karma, 0u);
  tx.begin(50, 0, 0);
  EXPECT_EQ(tx.timestamp, 50u);
}

TEST(TxManager, WalkBackReadsTheNewestEntryFirst) {
  TxManager tx;
  tx.begin(0, 0x8000, 64);
  EXPECT_FALSE(tx.walk_back(true, 3));  // nothing logged yet
  tx.log_stores_done = 4;               // two entries written
  tx.abort(TxReason::kConflictWW, 0, 5);
  EXPECT_FALSE(tx.walk_back(false, 6));  // lazy: nothing in place to undo
  EXPECT_TRUE(tx.walk_back(true, 7));
  EXPECT_EQ(tx.phase, TxPhase::kRollingBack);
  EXPECT_EQ(tx.walk_started, 7u);
  expect_ops(tx, {{OpKind::kLoad, 0x8008, 4, 0},
                  {OpKind::kFence, 0, 4, 0},
                  {OpKind::kLoad, 0x8000, 4, 0},
                  {OpKind::kFence, 0, 4, 0}});
}

}  // namespace
}  // namespace tessera::bus::test
