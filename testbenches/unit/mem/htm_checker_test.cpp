#include "mem/htm_checker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <deque>
#include <random>
#include <vector>

namespace tessera::mem {
namespace {

constexpr uint32_t kBlock = 16;

// Initial memory: every byte is the low byte of its address plus 0x10, so
// the word at 0x400 reads 0x13121110 and a stale or invented value shows.
uint8_t initial_byte(uint64_t addr) { return static_cast<uint8_t>(addr + 0x10); }
void fill_initial(uint64_t block, uint8_t* out) {
  for (uint32_t i = 0; i < kBlock; ++i) out[i] = initial_byte(block + i);
}

struct HtmCheckerTest : ::testing::Test {
  HtmChecker checker{4, kBlock, fill_initial};
  std::string report() const { return checker.report(); }
};

// ---- serial histories ------------------------------------------------------

TEST_F(HtmCheckerTest, SerialTransactionsPass) {
  checker.begin(1, 0);
  checker.tx_read(2, 0, 0x100, 4, 0x13121110);
  checker.tx_write(3, 0, 0x100, 4, 1);
  checker.commit(4, 0);
  checker.begin(5, 1);
  checker.tx_read(6, 1, 0x100, 4, 1);
  checker.tx_write(7, 1, 0x100, 4, 2);
  checker.commit(8, 1);
  checker.read(9, 2, 0x100, 4, 2);
  checker.read(10, 2, 0x101, 1, 0);  // byte 1 of the word 2
  EXPECT_FALSE(checker.failed()) << report();
  EXPECT_EQ(checker.commits(), 2u);
  EXPECT_EQ(checker.reads_checked(), 4u);
  EXPECT_EQ(checker.events(), 10u);
}

TEST_F(HtmCheckerTest, OverlappingTransactionsPassWhenCommitOrderExplainsThem) {
  // Core 1 reads x before core 0 writes it, but commits first: the serial
  // order (core 1, then core 0) explains every value.
  checker.begin(1, 0);
  checker.begin(2, 1);
  checker.tx_read(3, 1, 0x100, 4, 0x13121110);
  checker.tx_write(4, 0, 0x100, 4, 7);
  checker.commit(5, 1);
  checker.commit(6, 0);
  checker.read(7, 2, 0x100, 4, 7);
  EXPECT_FALSE(checker.failed()) << report();
}

TEST_F(HtmCheckerTest, InitialMemoryIsFetchedOncePerBlockAtFirstTouch) {
  std::vector<uint64_t> fetched;
  HtmChecker c(2, kBlock, [&](uint64_t block, uint8_t* out) {
    fetched.push_back(block);
    fill_initial(block, out);
  });
  c.begin(1, 0);
  c.tx_write(2, 0, 0x204, 4, 5);  // first touch of block 0x200, before the commit
  c.read(3, 1, 0x208, 4, 0x1b1a1918);
  c.read(4, 1, 0x204, 4, 0x17161514);  // not yet committed
  c.commit(5, 0);
  c.read(6, 1, 0x204, 4, 5);
  c.read(7, 1, 0x210, 2, 0x2120);
  EXPECT_FALSE(c.failed()) << c.report();
  EXPECT_EQ(fetched, (std::vector<uint64_t>{0x200, 0x210}));
  c.forget_all(8);
  c.read(9, 1, 0x204, 4, 0x17161514);  // memory is the truth again: the callback's bytes
  EXPECT_FALSE(c.failed()) << c.report();
  EXPECT_EQ(fetched, (std::vector<uint64_t>{0x200, 0x210, 0x200}));
}

TEST_F(HtmCheckerTest, DebugWritesChangeKnownBlocksOnly) {
  checker.read(1, 0, 0x100, 4, 0x13121110);
  checker.debug_write(0x100, 2, 0xabcd);  // a known block: the shadow follows
  checker.debug_write(0x200, 4, 0x1234);  // unknown: memory (the callback) is the truth when first read
  checker.read(2, 0, 0x100, 4, 0x1312abcd);
  checker.read(3, 0, 0x200, 4, 0x13121110);
  EXPECT_FALSE(checker.failed()) << report();
  EXPECT_EQ(checker.events(), 3u);
}

// ---- the violations --------------------------------------------------------

TEST_F(HtmCheckerTest, LostUpdateFailsAtTheSecondCommit) {
  checker.write(1, 3, 0x100, 4, 0);
  checker.begin(2, 0);
  checker.begin(3, 1);
  checker.tx_read(4, 0, 0x100, 4, 0);
  checker.tx_read(5, 1, 0x100, 4, 0);
  checker.tx_write(6, 0, 0x100, 4, 1);
  checker.tx_write(7, 1, 0x100, 4, 1);
  checker.commit(8, 0);
  EXPECT_FALSE(checker.failed()) << report();
  checker.commit(9, 1);
  ASSERT_TRUE(checker.failed());
  const HtmFailure& f = checker.failure();
  EXPECT_EQ(f.kind, HtmFailure::Kind::kValue);
  EXPECT_EQ(f.cycle, 9u);
  EXPECT_EQ(f.core, 1u);
  EXPECT_EQ(f.addr, 0x100u);
  EXPECT_EQ(f.expected, 1u);
  EXPECT_EQ(f.actual, 0u);
  EXPECT_TRUE(f.in_transaction);
  EXPECT_EQ(f.begin_cycle, 3u);
  EXPECT_EQ(f.read_cycle, 5u);
  EXPECT_EQ(report(),
            "serialisability violation at cycle 9: core 1's transaction begun at cycle 3 read 0x0 at 0x100 (size 4, "
            "cycle 5), a stale value (written at cycle 1 by core 3); in commit order the value there is 0x1\n"
            "  history of 0x100, oldest first:\n"
            "    cycle 1 core 3 write 0x100 = 0x0 (size 4)\n"
            "    cycle 4 core 0 tx read 0x100 = 0x0 (size 4)\n"
            "    cycle 5 core 1 tx read 0x100 = 0x0 (size 4)\n"
            "    cycle 6 core 0 tx write 0x100 = 0x1 (size 4)\n"
            "    cycle 7 core 1 tx write 0x100 = 0x1 (size 4)\n"
            "    cycle 8 core 0 commit write 0x100 = 0x1 (size 4)\n");
  const CoherenceFailure cf = checker.coherence_failure();
  EXPECT_EQ(cf.kind, CoherenceFailure::Kind::kViolation);
  EXPECT_EQ(cf.cycle, 9u);
  EXPECT_EQ(cf.line, 0x100u);
  // Only the first violation is kept.
  checker.read(10, 2, 0x100, 4, 99);
  EXPECT_EQ(checker.failure().cycle, 9u);
}

TEST_F(HtmCheckerTest, ReadOfAnAbortedWriteNamesTheAbortedTransaction) {
  checker.begin(10, 2);
  checker.tx_write(11, 2, 0x200, 4, 0x55);
  checker.abort(12, 2);
  checker.read(13, 0, 0x200, 4, 0x55);
  ASSERT_TRUE(checker.failed());
  EXPECT_EQ(checker.failure().what,
            "core 0 read 0x55 at 0x200 (size 4, non-transactional), the value written by core 2's aborted "
            "transaction begun at cycle 10; the value there is 0x13121110");
  EXPECT_FALSE(checker.failure().in_transaction);
  EXPECT_EQ(checker.failure().expected, 0x13121110u);
  EXPECT_EQ(checker.aborts(), 1u);
}

TEST_F(HtmCheckerTest, TransactionalReadOfAnAbortedByteNamesIt) {
  // The aborted transaction wrote one byte; the reader's word differs from
  // memory only there.
  checker.begin(1, 2);
  checker.tx_write(2, 2, 0x202, 1, 0xee);
  checker.abort(3, 2);
  checker.begin(4, 2);  // a later transaction of the same core commits elsewhere
  checker.tx_write(5, 2, 0x300, 4, 1);
  checker.commit(6, 2);
  checker.begin(7, 1);
  checker.tx_read(8, 1, 0x200, 4, 0x13ee1110);
  checker.commit(9, 1);
  ASSERT_TRUE(checker.failed());
  EXPECT_EQ(checker.failure().what,
            "core 1's transaction begun at cycle 7 read 0x13ee1110 at 0x200 (size 4, cycle 8), the value written by "
            "core 2's aborted transaction begun at cycle 1; in commit order the value there is 0x13121110");
}

TEST_F(HtmCheckerTest, ReadsOfATransactionThatAbortsAreNotChecked) {
  checker.begin(1, 0);
  checker.tx_read(2, 0, 0x100, 4, 0xdead);  // a doomed transaction may see anything
  checker.abort(3, 0);
  EXPECT_FALSE(checker.failed()) << report();
  EXPECT_EQ(checker.reads_checked(), 0u);
}

TEST_F(HtmCheckerTest, ReadOfAnotherOpenTransactionsWriteFails) {
  checker.begin(1, 2);
  checker.tx_write(2, 2, 0x300, 4, 7);
  checker.begin(3, 1);
  checker.tx_read(4, 1, 0x300, 4, 7);
  checker.commit(5, 1);  // core 2 has not committed: 7 is not visible yet
  ASSERT_TRUE(checker.failed());
  EXPECT_EQ(checker.failure().what,
            "core 1's transaction begun at cycle 3 read 0x7 at 0x300 (size 4, cycle 4), the value written by core 2's "
            "open transaction begun at cycle 1; in commit order the value there is 0x13121110");
}

TEST_F(HtmCheckerTest, NonTransactionalReadOfAnOpenTransactionsWriteFails) {
  checker.begin(1, 2);
  checker.tx_write(2, 2, 0x300, 2, 0xbeef);
  checker.read(3, 0, 0x300, 2, 0xbeef);
  ASSERT_TRUE(checker.failed());
  EXPECT_EQ(checker.failure().what,
            "core 0 read 0xbeef at 0x300 (size 2, non-transactional), the value written by core 2's open transaction "
            "begun at cycle 1; the value there is 0x1110");
}

TEST_F(HtmCheckerTest, ReadOverwrittenByAnEarlierCommitFails) {
  // Write skew in commit order: T0 read x, T1 wrote x and committed first,
  // then T0 commits. No serial order with T1 before T0 gives T0 the old x.
  checker.begin(1, 0);
  checker.tx_read(2, 0, 0x100, 4, 0x13121110);
  checker.begin(3, 1);
  checker.tx_write(4, 1, 0x100, 4, 5);
  checker.commit(5, 1);
  checker.tx_write(6, 0, 0x104, 4, 1);
  checker.commit(7, 0);
  ASSERT_TRUE(checker.failed());
  const HtmFailure& f = checker.failure();
  EXPECT_EQ(f.cycle, 7u);
  EXPECT_EQ(f.core, 0u);
  EXPECT_EQ(f.begin_cycle, 1u);
  EXPECT_EQ(f.read_cycle, 2u);
  EXPECT_EQ(f.expected, 5u);
  EXPECT_EQ(f.actual, 0x13121110u);
  EXPECT_EQ(f.what,
            "core 0's transaction begun at cycle 1 read 0x13121110 at 0x100 (size 4, cycle 2); in commit order the "
            "value there is 0x5");
}

TEST_F(HtmCheckerTest, StaleReadNamesTheOlderWrite) {
  checker.write(1, 0, 0x100, 4, 1);
  checker.begin(2, 1);
  checker.tx_write(3, 1, 0x100, 4, 3);
  checker.commit(4, 1);
  checker.begin(5, 2);
  checker.tx_write(6, 2, 0x100, 4, 4);
  checker.commit(7, 2);
  checker.read(8, 3, 0x102, 2, 0);  // the upper half of 4, of 3 and of 1
  checker.read(9, 3, 0x100, 4, 3);
  ASSERT_TRUE(checker.failed());
  EXPECT_EQ(checker.failure().what,
            "core 3 read 0x3 at 0x100 (size 4, non-transactional), a stale value (written at cycle 4 by core 1's "
            "commit); the value there is 0x4");
  HtmChecker other(4, kBlock, fill_initial);
  other.write(1, 0, 0x100, 4, 0x11);
  other.write(2, 1, 0x101, 1, 0x22);
  other.read(3, 2, 0x100, 1, 0x11);
  other.read(4, 2, 0x100, 2, 0x0011);  // byte 1 lost the plain store of cycle 2
  ASSERT_TRUE(other.failed());
  EXPECT_EQ(other.failure().what,
            "core 2 read 0x11 at 0x100 (size 2, non-transactional), a stale value (written at cycle 1 by core 0); the "
            "value there is 0x2211");
}

TEST_F(HtmCheckerTest, ReadOverwrittenByANonTransactionalWriteFails) {
  // Strong isolation: a plain store between a transaction's read and its
  // commit must have aborted it.
  checker.begin(1, 0);
  checker.tx_read(2, 0, 0x100, 1, 0x10);
  checker.write(3, 3, 0x100, 1, 0x77);
  checker.commit(4, 0);
  ASSERT_TRUE(checker.failed());
  EXPECT_EQ(checker.failure().expected, 0x77u);
  EXPECT_EQ(checker.failure().actual, 0x10u);
}

// ---- forwarding and interleaving -------------------------------------------

TEST_F(HtmCheckerTest, OwnWritesAreForwardedByteByByte) {
  // sb 0xaa to byte 1, then lw of the word: 0x13 0x12 0xaa 0x10 from the top.
  checker.begin(1, 0);
  checker.tx_write(2, 0, 0x401, 1, 0xaa);
  checker.tx_read(3, 0, 0x400, 4, 0x1312aa10);
  checker.tx_write(4, 0, 0x402, 2, 0xbbcc);
  checker.tx_read(5, 0, 0x401, 1, 0xaa);
  checker.tx_read(6, 0, 0x402, 1, 0xcc);
  checker.tx_read(7, 0, 0x400, 4, 0xbbccaa10);
  checker.commit(8, 0);
  checker.read(9, 1, 0x400, 4, 0xbbccaa10);
  EXPECT_FALSE(checker.failed()) << report();
}

TEST_F(HtmCheckerTest, ReadMissingItsOwnByteWriteFails) {
  checker.begin(1, 0);
  checker.tx_write(2, 0, 0x401, 1, 0xaa);
  checker.tx_read(3, 0, 0x400, 4, 0x13121110);  // the store was not forwarded
  checker.commit(4, 0);
  ASSERT_TRUE(checker.failed());
  EXPECT_EQ(checker.failure().expected, 0x1312aa10u);
  EXPECT_EQ(checker.failure().actual, 0x13121110u);
}

TEST_F(HtmCheckerTest, NonTransactionalAccessesInterleaveInPerformOrder) {
  checker.begin(1, 0);
  checker.write(2, 1, 0x100, 4, 3);  // before the transaction's read: it sees 3
  checker.tx_read(3, 0, 0x100, 4, 3);
  checker.tx_write(4, 0, 0x100, 4, 9);
  checker.read(5, 1, 0x100, 4, 3);  // not yet committed
  checker.write(6, 2, 0x108, 2, 0x4444);
  checker.commit(7, 0);
  checker.read(8, 1, 0x100, 4, 9);
  checker.read(9, 1, 0x108, 4, 0x1b1a4444);
  // A core inside a transaction may still perform plain accesses.
  checker.begin(10, 3);
  checker.write(11, 3, 0x500, 4, 0x42);
  checker.read(12, 3, 0x500, 4, 0x42);
  checker.abort(13, 3);
  checker.read(14, 1, 0x500, 4, 0x42);  // plain writes are not undone by an abort
  EXPECT_FALSE(checker.failed()) << report();
}

// ---- protocol misuse -------------------------------------------------------

struct Misuse {
  const char* name;
  std::function<void(HtmChecker&)> run;
  const char* report;
};

TEST(HtmCheckerMisuse, EachMisuseIsAClearFailure) {
  const std::vector<Misuse> cases = {
      {"nested begin",
       [](HtmChecker& c) {
         c.begin(1, 1);
         c.begin(2, 1);
       },
       "HTM checker protocol misuse at cycle 2: core 1 began a transaction inside its transaction begun at cycle 1 "
       "(nesting is flattened: only the outermost begin is an event)"},
      {"commit", [](HtmChecker& c) { c.commit(3, 0); },
       "HTM checker protocol misuse at cycle 3: core 0 committed outside a transaction"},
      {"abort", [](HtmChecker& c) { c.abort(3, 0); },
       "HTM checker protocol misuse at cycle 3: core 0 aborted outside a transaction"},
      {"tx_read", [](HtmChecker& c) { c.tx_read(4, 1, 0x10, 4, 0); },
       "HTM checker protocol misuse at cycle 4: core 1 made a transactional read of 0x10 outside a transaction"},
      {"tx_write", [](HtmChecker& c) { c.tx_write(4, 1, 0x10, 4, 0); },
       "HTM checker protocol misuse at cycle 4: core 1 made a transactional write of 0x10 outside a transaction"},
      {"size", [](HtmChecker& c) { c.read(5, 0, 0x10, 8, 0); },
       "HTM checker protocol misuse at cycle 5: core 0 read at 0x10 has size 8 (1, 2 or 4 bytes)"},
      {"alignment", [](HtmChecker& c) { c.write(5, 0, 0x11, 2, 0); },
       "HTM checker protocol misuse at cycle 5: core 0 write at 0x11 of size 2 is not naturally aligned"},
      {"value", [](HtmChecker& c) { c.write(5, 0, 0x10, 1, 0x100); },
       "HTM checker protocol misuse at cycle 5: core 0 write at 0x10: value 0x100 does not fit in 1 byte(s)"},
      {"core", [](HtmChecker& c) { c.begin(6, 2); },
       "HTM checker protocol misuse at cycle 6: transaction begin from core 2, but the cluster has 2 cores"},
      {"forget",
       [](HtmChecker& c) {
         c.begin(1, 0);
         c.forget_all(7);
       },
       "HTM checker protocol misuse at cycle 7: memory forgotten while core 0's transaction begun at cycle 1 is "
       "open"},
  };
  for (const Misuse& m : cases) {
    HtmChecker c(2, kBlock, fill_initial);
    m.run(c);
    ASSERT_TRUE(c.failed()) << m.name;
    EXPECT_EQ(c.failure().kind, HtmFailure::Kind::kMisuse) << m.name;
    EXPECT_EQ(c.report(), m.report) << m.name;
    EXPECT_EQ(c.coherence_failure().kind, CoherenceFailure::Kind::kProtocolError) << m.name;
  }
}

TEST(HtmCheckerMisuse, BadConstructionThrows) {
  EXPECT_THROW(HtmChecker(4, 24, fill_initial), std::invalid_argument);
  EXPECT_THROW(HtmChecker(4, 2, fill_initial), std::invalid_argument);
  EXPECT_THROW(HtmChecker(0, 16, fill_initial), std::invalid_argument);
  EXPECT_THROW(HtmChecker(4, 16, nullptr), std::invalid_argument);
}

// ---- randomised serial histories -------------------------------------------

// A history built from a serial execution: units (committed transactions,
// aborted transactions, single plain accesses) run one after another on a
// reference memory, which gives every read its value; then the events are
// spread in time: a transaction may begin and perform its accesses while
// earlier units are still running, as long as its core is free, and it
// commits (or aborts) at its serial place. Every such history is
// serialisable in commit order.
struct Event {
  enum Type : uint8_t { kBegin, kTxRead, kTxWrite, kCommit, kAbort, kRead, kWrite } type;
  uint64_t cycle;
  uint32_t core;
  uint64_t addr;
  uint32_t size;
  uint32_t value;
  uint64_t commit_cycle;  // checked reads: when their check happens
  uint64_t begin_cycle;   // transactional reads
};

struct History {
  std::vector<Event> events;
  std::vector<size_t> checked_reads;  // indices of reads the checker must verify
};

History random_history(uint32_t seed, uint32_t cores, size_t units, uint64_t base, uint32_t region, uint32_t max_ops) {
  std::mt19937 rng(seed);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  std::vector<uint8_t> memory(region);
  for (uint32_t i = 0; i < region; ++i) memory[i] = initial_byte(base + i);
  auto load = [&](uint64_t a, uint32_t size) {
    uint32_t v = 0;
    for (uint32_t i = 0; i < size; ++i) v |= static_cast<uint32_t>(memory[a - base + i]) << (8 * i);
    return v;
  };
  auto store = [&](uint64_t a, uint32_t size, uint32_t v) {
    for (uint32_t i = 0; i < size; ++i) memory[a - base + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  auto random_value = [&](uint32_t size) { return size == 4 ? static_cast<uint32_t>(rng()) : pick(1u << (8 * size)); };

  struct Access {
    bool write;
    uint64_t addr;
    uint32_t size;
    uint32_t value;
  };
  enum Kind { kCommitted, kAborted, kPlain };
  struct Unit {
    Kind kind;
    uint32_t core;
    std::vector<Access> ops;
    size_t emitted = 0;
    bool begun = false;
    uint64_t begin_cycle = 0;
    std::vector<size_t> reads;  // event indices of its reads, to learn the commit cycle
  };
  std::vector<Unit> plan(units);
  for (Unit& u : plan) {
    const uint32_t k = pick(20);
    u.kind = k < 12 ? kCommitted : k < 15 ? kAborted : kPlain;
    u.core = pick(cores);
    const uint32_t n = u.kind == kPlain ? 1 : 1 + pick(max_ops);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t size = 1u << pick(3);
      const uint64_t addr = base + pick(region / size) * size;
      const bool write = pick(2) == 0;
      uint32_t value = 0;
      if (u.kind == kAborted)
        value = random_value(size);  // an aborted transaction may read anything; its writes never land
      else if (write)
        store(addr, size, value = random_value(size));
      else
        value = load(addr, size);
      u.ops.push_back({write, addr, size, value});
    }
  }

  History h;
  uint64_t cycle = 0;
  std::vector<std::deque<size_t>> queue(cores);  // each core's units in order
  for (size_t i = 0; i < plan.size(); ++i) queue[plan[i].core].push_back(i);
  auto emit_begin = [&](Unit& u) {
    if (u.begun) return;
    u.begun = true;
    u.begin_cycle = ++cycle;
    h.events.push_back({Event::kBegin, u.begin_cycle, u.core, 0, 0, 0, 0, 0});
  };
  auto emit_op = [&](Unit& u) {
    const Access& a = u.ops[u.emitted++];
    const bool tx = u.kind != kPlain;
    const Event::Type t = tx ? (a.write ? Event::kTxWrite : Event::kTxRead) : (a.write ? Event::kWrite : Event::kRead);
    ++cycle;
    if (!a.write && u.kind != kAborted) {
      h.checked_reads.push_back(h.events.size());
      u.reads.push_back(h.events.size());
    }
    h.events.push_back({t, cycle, u.core, a.addr, a.size, a.value, cycle, u.begin_cycle});
  };
  for (size_t i = 0; i < plan.size(); ++i) {
    // Start or advance a few later transactions whose core is free.
    for (uint32_t tries = pick(3); tries > 0; --tries) {
      const size_t m = i + 1 + pick(8);
      if (m >= plan.size() || plan[m].kind == kPlain || queue[plan[m].core].front() != m) continue;
      Unit& u = plan[m];
      emit_begin(u);
      for (uint32_t k = pick(3); k > 0 && u.emitted < u.ops.size(); --k) emit_op(u);
    }
    Unit& u = plan[i];
    if (u.kind != kPlain) emit_begin(u);
    while (u.emitted < u.ops.size()) emit_op(u);
    if (u.kind != kPlain) {
      h.events.push_back({u.kind == kCommitted ? Event::kCommit : Event::kAbort, ++cycle, u.core, 0, 0, 0, 0, 0});
      for (size_t r : u.reads) h.events[r].commit_cycle = cycle;
    }
    queue[u.core].pop_front();
  }
  return h;
}

void replay(HtmChecker& c, const std::vector<Event>& events) {
  for (const Event& e : events) {
    switch (e.type) {
      case Event::kBegin:
        c.begin(e.cycle, e.core);
        break;
      case Event::kTxRead:
        c.tx_read(e.cycle, e.core, e.addr, e.size, e.value);
        break;
      case Event::kTxWrite:
        c.tx_write(e.cycle, e.core, e.addr, e.size, e.value);
        break;
      case Event::kCommit:
        c.commit(e.cycle, e.core);
        break;
      case Event::kAbort:
        c.abort(e.cycle, e.core);
        break;
      case Event::kRead:
        c.read(e.cycle, e.core, e.addr, e.size, e.value);
        break;
      case Event::kWrite:
        c.write(e.cycle, e.core, e.addr, e.size, e.value);
        break;
    }
  }
}

TEST(HtmCheckerRandom, SerialHistoriesPassAndOneWrongReadFails) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    const uint32_t cores = 2 + seed % 7;
    History h = random_history(seed, cores, 200, 0x1000, 48, 6);  // 48 bytes: three blocks, many conflicts
    {
      HtmChecker c(cores, kBlock, fill_initial);
      replay(c, h.events);
      ASSERT_FALSE(c.failed()) << "seed " << seed << ": " << c.report();
      ASSERT_EQ(c.events(), h.events.size());
      ASSERT_EQ(c.reads_checked(), h.checked_reads.size());
    }
    ASSERT_FALSE(h.checked_reads.empty());
    std::mt19937 rng(seed * 7919u);
    Event& e = h.events[h.checked_reads[rng() % h.checked_reads.size()]];
    const uint32_t original = e.value;
    const uint32_t size_mask = e.size == 4 ? ~0u : (1u << (8 * e.size)) - 1;
    uint32_t flip = static_cast<uint32_t>(rng()) & size_mask;
    if (flip == 0) flip = 1;
    e.value ^= flip;
    HtmChecker c(cores, kBlock, fill_initial);
    replay(c, h.events);
    ASSERT_TRUE(c.failed()) << "seed " << seed;
    const HtmFailure& f = c.failure();
    EXPECT_EQ(f.kind, HtmFailure::Kind::kValue) << "seed " << seed;
    EXPECT_EQ(f.cycle, e.commit_cycle) << "seed " << seed;
    EXPECT_EQ(f.read_cycle, e.cycle) << "seed " << seed;
    EXPECT_EQ(f.core, e.core) << "seed " << seed;
    EXPECT_EQ(f.addr, e.addr) << "seed " << seed;
    EXPECT_EQ(f.actual, e.value) << "seed " << seed;
    EXPECT_EQ(f.expected, original) << "seed " << seed;
    EXPECT_EQ(f.in_transaction, e.type == Event::kTxRead) << "seed " << seed;
    if (f.in_transaction) {
      EXPECT_EQ(f.begin_cycle, e.begin_cycle) << "seed " << seed;
    }
  }
}

// The random tester runs 1,000,000 operations through the checker for each
// of 40 configurations; this measures the checker alone on such a history
// (8 cores, 4 KiB of shared data in 64-byte blocks, transactions of up to 8
// accesses, 15% aborted). The figure is recorded in docs/htm.md.
TEST(HtmCheckerSpeed, MillionEvents) {
  const History h = random_history(42, 8, 230000, 0x80000000, 4096, 8);
  ASSERT_GE(h.events.size(), 1000000u);
  HtmChecker c(8, 64, [](uint64_t block, uint8_t* out) {
    for (uint32_t i = 0; i < 64; ++i) out[i] = initial_byte(block + i);
  });
  // Wall time and this process's CPU time: on a shared machine the CPU time
  // is the steadier figure.
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  replay(c, h.events);
  const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(c.failed()) << c.report();
  const double rate = static_cast<double>(h.events.size()) / seconds;
  std::printf("HTM checker: %zu events in %.3f s wall (%.1f million events/s), %.3f s CPU (%.1f million events/s)\n",
              h.events.size(), seconds, rate / 1e6, cpu, static_cast<double>(h.events.size()) / cpu / 1e6);
  ::testing::Test::RecordProperty("events_per_second", std::to_string(static_cast<uint64_t>(rate)));
}

}  // namespace
}  // namespace tessera::mem
