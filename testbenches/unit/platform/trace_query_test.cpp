// `tessera trace-query` on hand-made signals (platforms/trace_query.h): the
// transactions on an address range from the SM's, the L2's, the DRAM's and
// the coherent bus's signals, each at its own clock's cycle, in time order.
#include <gtest/gtest.h>

#include "platforms/trace_query.h"

namespace {

using tessera::platform::AddressQuery;
using tessera::platform::query_transactions;
using tessera::platform::Transaction;
using tessera::rtl::SignalTrace;

SignalTrace sig(unsigned width, std::vector<std::pair<uint64_t, uint64_t>> changes) { return {width, changes}; }

// SM clock 1000 ps, L2 clock 500 ps, DRAM clock 2000 ps (its signals
// change 1 ps after the edge), bus clock 250 ps.
std::map<std::string, SignalTrace> chip() {
  std::map<std::string, SignalTrace> s;
  // sm0 asks for line 0x100 in cycle 1, line 0x200 in cycles 3 and 4 (the
  // strobe stays high, the address does not change), line 0x280 in cycle 5.
  s["chip.sm0.mem.req"] = sig(1, {{0, 0}, {1000, 1}, {2000, 0}, {3000, 1}, {6000, 0}});
  s["chip.sm0.mem.req_addr"] = sig(32, {{0, 0}, {1000, 0x100}, {3000, 0x200}, {5000, 0x280}});
  s["chip.sm0.mem.req_op"] = sig(2, {{0, 0}, {4000, 1}});
  s["chip.sm0.mem.req_warp"] = sig(8, {{0, 0}, {3000, 7}});
  // L2 slice 2 takes line 0x200 in its cycles 9 and 10: a miss, then a store.
  s["chip.l2.slice2.req"] = sig(1, {{0, 0}, {4500, 1}, {5500, 0}});
  s["chip.l2.slice2.req_addr"] = sig(32, {{0, 0}, {4500, 0x200}});
  s["chip.l2.slice2.req_kind"] = sig(2, {{0, 0}, {5000, 1}});
  s["chip.l2.slice2.req_sm"] = sig(8, {{0, 0}});
  s["chip.l2.slice2.miss"] = sig(1, {{0, 0}, {4500, 1}, {5000, 0}});
  s["chip.l2.slice2.hit"] = sig(1, {{0, 0}});
  // Pseudo channel 1: ACT bank 3 row 9 (cycle 4), ACT bank 4 row 9 (cycle 5:
  // cmd stays ACT, its bank changes),
  // RD of 0x220 in bank 3 (cycle 8) beside a PRE of bank 4 in cmd2, PRE of
  // bank 3 (cycle 11).
  s["chip.hbm.pc1.cmd"] = sig(4, {{0, 0}, {8001, 1}, {12001, 0}, {16001, 2}, {18001, 0}, {22001, 6}, {24001, 0}});
  s["chip.hbm.pc1.cmd_bank"] = sig(6, {{0, 0}, {8001, 3}, {10001, 4}, {16001, 3}});
  s["chip.hbm.pc1.cmd_row"] = sig(18, {{0, 0}, {8001, 9}});
  s["chip.hbm.pc1.cmd_addr"] = sig(32, {{0, 0}, {16001, 0x220}});
  s["chip.hbm.pc1.cmd2"] = sig(4, {{0, 0}, {16001, 6}, {18001, 0}});
  s["chip.hbm.pc1.cmd2_bank"] = sig(6, {{0, 0}, {16001, 4}});
  s["chip.hbm.pc1.cmd2_row"] = sig(18, {{0, 0}});
  s["chip.hbm.pc1.bank3.row"] = sig(18, {{0, 0}, {8001, 9}});
  s["chip.hbm.pc1.bank4.row"] = sig(18, {{0, 0}, {10001, 9}});
  // The bus: core 2 BusRdX of line 0x200 for 2 cycles, then at once core 1
  // BusRd of 0x240 (another 64-byte line).
  s["chip.cluster.bus.req_valid"] = sig(1, {{0, 0}, {750, 1}, {1750, 0}});
  s["chip.cluster.bus.req_addr"] = sig(32, {{0, 0}, {750, 0x200}, {1250, 0x240}});
  s["chip.cluster.bus.req_cmd"] = sig(3, {{0, 0}, {750, 2}, {1250, 1}});
  s["chip.cluster.bus.req_core"] = sig(4, {{0, 0}, {750, 2}, {1250, 1}});
  s["chip.cluster.bus.req_tag"] = sig(8, {{0, 0}, {750, 4}});
  return s;
}

std::string line(const Transaction& t) {
  return t.unit + " @" + std::to_string(t.cycle) + " " + t.op + " " + std::to_string(t.addr) + " " + t.detail;
}

std::vector<std::string> lines(const std::vector<Transaction>& t) {
  std::vector<std::string> out;
  for (const Transaction& e : t) out.push_back(line(e));
  return out;
}

TEST(TraceQuery, ListsTheTransactionsOnARangeInTimeOrder) {
  // [0x210, 0x230): in the lines 0x200 of the SM and L2 (128 bytes) and of
  // the bus (64 bytes), and in the DRAM burst 0x220 (32 bytes).
  const auto got = lines(query_transactions(chip(), AddressQuery{0x210, 0x20, 64}));
  const std::vector<std::string> want = {
      "cluster.bus @3 BusRdX 512 core 2 tag 4",  // 750 ps
      "sm0.mem @3 read 512 warp 7",              // 3000 ps
      "sm0.mem @4 write 512 warp 7",             // 4000 ps: the strobe held high, a second request
      "l2.slice2 @9 read 512 from sm0, miss",    // 4500 ps
      "l2.slice2 @10 write 512 from sm0",        // 5000 ps
      "hbm.pc1 @4 ACT 0 bank 3 row 0x9",         // 8001 ps: opens the burst's row (not bank 4's ACT)
      "hbm.pc1 @8 RD 544 bank 3 row 0x9",        // 16001 ps (not the PRE of bank 4 beside it)
      "hbm.pc1 @11 PRE 0 bank 3 row 0x9",        // 22001 ps: closes it
  };
  EXPECT_EQ(got, want);
}

TEST(TraceQuery, ARangeOutsideEveryLineFindsNothing) {
  EXPECT_TRUE(query_transactions(chip(), AddressQuery{0x1000, 0x100, 64}).empty());
  // The line below: sm0's request of 0x100 and nothing else.
  const auto got = lines(query_transactions(chip(), AddressQuery{0x17f, 1, 64}));
  EXPECT_EQ(got, std::vector<std::string>{"sm0.mem @1 read 256 warp 0"});
}

TEST(TraceQuery, TheBusLineSizeDecidesWhichRequestsTouchTheRange) {
  // 0x260 lies in core 1's BusRd line 0x240 when lines are 64 bytes, not
  // when they are 32; in sm0's line 0x200 (128 bytes) either way.
  auto got = lines(query_transactions(chip(), AddressQuery{0x260, 4, 64}));
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got[0], "cluster.bus @5 BusRd 576 core 1 tag 4");
  got = lines(query_transactions(chip(), AddressQuery{0x260, 4, 32}));
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got[0], "sm0.mem @3 read 512 warp 7");
}

TEST(TraceQuery, AStrobeStillHighWhenTheFileEndsIsOneRequest) {
  // The run stopped in the cycle of sm1's request, before the cycle that clears it.
  std::map<std::string, SignalTrace> s;
  s["chip.sm1.mem.req"] = sig(1, {{0, 0}, {1000, 1}, {2000, 0}, {5000, 1}});
  s["chip.sm1.mem.req_addr"] = sig(32, {{0, 0}, {1000, 0x400}});
  s["chip.sm1.mem.req_op"] = sig(2, {{0, 0}});
  s["chip.sm1.mem.req_warp"] = sig(8, {{0, 0}, {5000, 3}});
  EXPECT_EQ(lines(query_transactions(s, AddressQuery{0x400, 4, 64})),
            (std::vector<std::string>{"sm1.mem @1 read 1024 warp 0", "sm1.mem @5 read 1024 warp 3"}));
}

TEST(TraceQuery, ReadsOnlyTheSignalsThatCarryTransactions) {
  EXPECT_TRUE(tessera::platform::transaction_signal("chip.sm3.mem.req_addr"));
  EXPECT_TRUE(tessera::platform::transaction_signal("chip.hbm.pc7.bank2.row"));
  EXPECT_FALSE(tessera::platform::transaction_signal("chip.sm3.sched0.pc"));
  EXPECT_FALSE(tessera::platform::transaction_signal("chip.sm3.warp5.state"));
}

}  // namespace
