// The bridge's slot accounting: a memory read or a write-back holds one of
// cluster.bridge.queue_entries slots until its data has crossed the
// response bus; memory's answer is ready one read latency after the snoop.
#include <gtest/gtest.h>

#include <vector>

#include "bus/bridge.h"

namespace tessera::bus::test {
namespace {

constexpr uint32_t kLine = 64;
constexpr uint32_t kLatency = 30;

struct Fixture {
  mem::SimpleMemory memory{0, 4096, kLatency};
  uint64_t reads = 0, writes = 0;
  Bridge bridge{memory, 2, kLine, &reads, &writes};
};

TEST(Bridge, ReadTakesASlotAndIsReadyOneLatencyLater) {
  Fixture f;
  std::vector<uint8_t> line(kLine, 0);
  line[3] = 0xab;
  f.memory.write_line(0x80, line.data(), kLine);
  f.bridge.read(5, 0x80, 100);
  EXPECT_EQ(f.bridge.used(), 1u);
  EXPECT_EQ(f.reads, 1u);
  ASSERT_TRUE(f.bridge.has_response());
  EXPECT_EQ(f.bridge.next_ready(), 100u + kLatency);  // 130
  auto r = f.bridge.pop_response();
  EXPECT_EQ(r->tag, 5u);
  EXPECT_EQ(r->source, -1);
  EXPECT_TRUE(r->to_requester);
  EXPECT_FALSE(r->to_memory);
  EXPECT_EQ(r->data[3], 0xab);
  // Popped for the response bus, the slot stays taken until the line has crossed.
  EXPECT_FALSE(f.bridge.has_response());
  EXPECT_EQ(f.bridge.next_ready(), Bridge::kNever);
  EXPECT_EQ(f.bridge.used(), 1u);
  f.bridge.free_slot();
  EXPECT_EQ(f.bridge.used(), 0u);
}

TEST(Bridge, IsFullWhenEverySlotHoldsALine) {
  Fixture f;  // 2 slots
  EXPECT_FALSE(f.bridge.full());
  f.bridge.read(0, 0x40, 0);
  EXPECT_FALSE(f.bridge.full());
  f.bridge.take_write_back_slot();
  EXPECT_TRUE(f.bridge.full());
  EXPECT_EQ(f.bridge.used(), 2u);
  f.bridge.free_slot();
  EXPECT_FALSE(f.bridge.full());
}

TEST(Bridge, WritesReachMemoryAndAreCounted) {
  Fixture f;
  std::vector<uint8_t> line(kLine, 7);
  f.bridge.written().mark(0x100, 4);
  for (uint32_t w = 0; w < kLine; w += 4) f.bridge.written().mark(0x140 + w, 4);
  f.bridge.write(0x100, line.data());
  f.bridge.write(0x140, line.data());
  EXPECT_EQ(f.writes, 2u);
  EXPECT_EQ(f.bridge.used(), 0u);  // a write itself takes no slot: its WriteBack did when ordered
  std::vector<uint8_t> back(kLine);
  f.memory.read_line(0x140, back.data(), kLine);
  EXPECT_EQ(back, line);
}

// Between coherence points the SMs write memory behind the cluster: a line
// reaching memory carries only the bytes the cores wrote, whatever else its
// copy holds.
TEST(Bridge, AWriteCarriesOnlyTheBytesTheCoresWrote) {
  Fixture f;
  std::vector<uint8_t> sm(kLine, 0x55);  // what a kernel wrote after the cores read the line
  f.memory.write_line(0x200, sm.data(), kLine);
  std::vector<uint8_t> copy(kLine, 0);  // the cores' copy: stale but for bytes 60..63
  for (uint32_t b = 60; b < 64; ++b) copy[b] = 0xc0;
  f.bridge.written().mark(0x200 + 60, 4);
  f.bridge.write(0x200, copy.data());
  std::vector<uint8_t> back(kLine);
  f.memory.read_line(0x200, back.data(), kLine);
  for (uint32_t b = 0; b < kLine; ++b) EXPECT_EQ(back[b], b >= 60 ? 0xc0 : 0x55) << "byte " << b;
  // Written, the line has no written bytes left: a second write changes nothing.
  std::vector<uint8_t> zeros(kLine, 0);
  f.bridge.write(0x200, zeros.data());
  f.memory.read_line(0x200, back.data(), kLine);
  EXPECT_EQ(back[0], 0x55);
  EXPECT_EQ(back[63], 0xc0);
  EXPECT_EQ(f.writes, 2u);
}

TEST(Bridge, ResponsesLeaveOldestFirst) {
  Fixture f;
  f.bridge.read(1, 0x40, 10);
  f.bridge.read(2, 0x80, 11);
  EXPECT_EQ(f.bridge.next_ready(), 40u);
  EXPECT_EQ(f.bridge.pop_response()->tag, 1u);
  EXPECT_EQ(f.bridge.next_ready(), 41u);
  EXPECT_EQ(f.bridge.pop_response()->tag, 2u);
}

TEST(Bridge, DescribesItsSlotsOnlyWhenInUse) {
  Fixture f;
  EXPECT_EQ(f.bridge.describe_in_flight(), "");
  f.bridge.read(3, 0x40, 0);
  const std::string s = f.bridge.describe_in_flight();
  EXPECT_NE(s.find("cluster.bridge: 1 of 2 slots in use"), std::string::npos) << s;
  EXPECT_NE(s.find("memory read for tag 3 ready at cycle 30"), std::string::npos) << s;
}

}  // namespace
}  // namespace tessera::bus::test
