#include <gtest/gtest.h>

#include <fmt/format.h>

#include <deque>
#include <map>

#include "debug/debugger.h"
#include "debug/rsp.h"

namespace tessera::debug {
namespace {

TEST(Rsp, FramesWithChecksumAndEscapes) {
  // The GDB manual's example: "$m4015bc,2#5a" (checksum 0x5a).
  EXPECT_EQ(rsp::frame("m4015bc,2"), "$m4015bc,2#5a");
  // '#', '$', '}' and '*' are escaped as '}' followed by the byte ^ 0x20.
  // 'a' + '}' + 0x03 + 'b' = 0x143: checksum 0x43.
  EXPECT_EQ(rsp::frame("a#b"), std::string("$a}\x03"
                                           "b#43"));
  EXPECT_EQ(rsp::unescape("a}\x03"
                          "b}]"),
            "a#b}");
}

TEST(Rsp, HexHelpers) {
  EXPECT_EQ(rsp::hex_le(0x80000010u, 4), "10000080");
  EXPECT_EQ(rsp::hex("OK"), "4f4b");
  EXPECT_EQ(rsp::parse_hex("1f"), 0x1fu);
  EXPECT_FALSE(rsp::parse_hex("").has_value());
  EXPECT_FALSE(rsp::parse_hex("xyz").has_value());
  EXPECT_FALSE(rsp::unhex("abc").has_value());
  EXPECT_EQ(*rsp::unhex("00ff10"), (std::vector<uint8_t>{0x00, 0xff, 0x10}));
}

TEST(Rsp, ReaderSplitsPacketsAndChecksBadSums) {
  rsp::Reader r;
  std::vector<rsp::Reader::Event> events;
  for (char c : std::string("+$g#67\x03$g#00-")) events.push_back(r.feed(c));
  using E = rsp::Reader::Event;
  EXPECT_EQ(events[0], E::kAck);
  EXPECT_EQ(events[5], E::kPacket);
  EXPECT_EQ(r.packet(), "g");
  EXPECT_EQ(events[6], E::kInterrupt);
  EXPECT_EQ(events[11], E::kBadChecksum);
  EXPECT_EQ(events[12], E::kNack);
}

// Thread 1: a core (key 7). Thread 2: a warp (key 9) whose lanes 0-3 exist.
// Memory: 256 bytes at 0x1000, another 16 at 0x2000 seen by the warp only.
class FakeSource final : public ThreadSource {
 public:
  FakeSource() {
    core.pc = 0x80000000;
    core.x[10] = 0x1234;
    for (unsigned l = 0; l < 4; ++l) {
      warp[l].pc = 0x80000100;
      warp[l].x[5] = 100 + l;
    }
    memory.assign(256, 0);
    for (unsigned i = 0; i < 256; ++i) memory[i] = static_cast<uint8_t>(i);
    shared.assign(16, 0xab);
  }
  void threads(std::vector<Thread>& out) override {
    out.push_back({7, "chip.cluster.core0"});
    if (warp_alive) out.push_back({9, "chip.sm0 warp 0 block (0,0,0)"});
  }
  uint32_t lanes(uint64_t key) override { return key == 7 ? 1u : key == 9 && warp_alive ? 0xfu : 0u; }
  unsigned default_lane(uint64_t) override { return 0; }
  isa::ThreadState* state(uint64_t key, unsigned lane) override {
    if (key == 7) return lane == 0 ? &core : nullptr;
    return key == 9 && warp_alive && lane < 4 ? &warp[lane] : nullptr;
  }
  bool access_memory(uint64_t key, unsigned, uint32_t addr, uint8_t* data, uint32_t len, bool write) override {
    std::vector<uint8_t>* region = nullptr;
    uint32_t base = 0;
    if (addr >= 0x1000 && addr + len <= 0x1100) {
      region = &memory;
      base = 0x1000;
    } else if (key == 9 && addr >= 0x2000 && addr + len <= 0x2010) {
      region = &shared;
      base = 0x2000;
    }
    if (!region) return false;
    for (uint32_t i = 0; i < len; ++i) {
      if (write) {
        (*region)[addr - base + i] = data[i];
      } else {
        data[i] = (*region)[addr - base + i];
      }
    }
    return true;
  }
  std::string activity(uint64_t key) override { return key == 7 ? "running" : "at the barrier"; }

  isa::ThreadState core, warp[4];
  std::vector<uint8_t> memory, shared;
  bool warp_alive = true;
};

class DebuggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Every packet is answered through a connection; handle_for_test
    // bypasses the framing (tested above).
    d.add_source(src);
    d.connect(std::make_unique<NullConnection>());
  }
  struct NullConnection final : Connection {
    int read_byte() override { return -1; }
    bool readable() override { return false; }
    bool write(std::string_view) override { return true; }
  };
  std::string ask(const std::string& p) { return d.handle_for_test(p); }

  FakeSource src;
  Debugger d;
};

TEST_F(DebuggerTest, ListsThreadsWithNames) {
  EXPECT_EQ(ask("qfThreadInfo"), "m1,2");
  EXPECT_EQ(ask("qsThreadInfo"), "l");
  const std::string xml = ask("qXfer:threads:read::0,1000");
  EXPECT_NE(xml.find("<thread id=\"1\" name=\"chip.cluster.core0\">running</thread>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<thread id=\"2\" name=\"chip.sm0 warp 0 block (0,0,0)\">at the barrier</thread>"),
            std::string::npos);
  EXPECT_EQ(xml[0], 'l');
  EXPECT_EQ(ask("T2"), "OK");
  src.warp_alive = false;
  EXPECT_EQ(ask("T2"), "E01");
  EXPECT_EQ(ask("qfThreadInfo"), "m1");
}

TEST_F(DebuggerTest, RegistersOfTheSelectedThreadAndLane) {
  const std::string g = ask("g");
  // x0..x31, pc (4 bytes each), f0..f31 (8 bytes), fflags, frm, fcsr.
  EXPECT_EQ(g.size(), 2u * (33 * 4 + 32 * 8 + 3 * 4));
  EXPECT_EQ(g.substr(10 * 8, 8), "34120000");  // a0 of core 0
  EXPECT_EQ(g.substr(32 * 8, 8), "00000080");  // pc
  EXPECT_EQ(ask("Hg2"), "OK");
  EXPECT_EQ(ask("p5"), "64000000");  // t0 of lane 0: 100
  EXPECT_EQ(d.handle_for_test("qRcmd," + rsp::hex("lane 3")), rsp::hex("thread 2: lane 3\n"));
  EXPECT_EQ(ask("p5"), "67000000");  // lane 3: 103
  EXPECT_EQ(ask("P5=78563412"), "OK");
  EXPECT_EQ(src.warp[3].x[5], 0x12345678u);
  EXPECT_EQ(ask("P0=01000000"), "OK");
  EXPECT_EQ(src.warp[3].x[0], 0u) << "x0 stays zero";
  const auto bad = rsp::unhex(d.handle_for_test("qRcmd," + rsp::hex("lane 9")));
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(std::string(bad->begin(), bad->end()), "monitor lane: '9' is not a lane of thread 2 (lanes 0x0000000f)\n");
  EXPECT_EQ(ask("Hg5"), "E01") << "no thread 5";
}

TEST_F(DebuggerTest, MemoryAsTheThreadSeesIt) {
  EXPECT_EQ(ask("m1000,4"), "00010203");
  // A read past the end of a region returns the bytes that exist.
  EXPECT_EQ(ask("m10fe,4"), "feff");
  EXPECT_EQ(ask("m5000,4"), "E14");
  EXPECT_EQ(ask("m2000,2"), "E14") << "core 0 has no shared window";
  EXPECT_EQ(ask("Hg2"), "OK");
  EXPECT_EQ(ask("m2000,2"), "abab");
  EXPECT_EQ(ask("M1004,2:beef"), "OK");
  EXPECT_EQ(src.memory[4], 0xbe);
  EXPECT_EQ(src.memory[5], 0xef);
  EXPECT_EQ(ask("X1006,2:}]x"), "OK");  // "}]" is an escaped '}'
  EXPECT_EQ(src.memory[6], '}');
  EXPECT_EQ(src.memory[7], 'x');
  EXPECT_EQ(ask("M1004,3:beef"), "E01") << "length and data disagree";
}

TEST_F(DebuggerTest, BreakpointStopsTheThreadBeforeItsInstruction) {
  EXPECT_TRUE(d.armed()) << "connected: every instruction is looked at";
  EXPECT_EQ(ask("Z0,80000100,4"), "OK");
  isa::Inst nop;
  // The core does not stop at another pc. (A stop would serve the null
  // connection, which is closed: the debugger detaches.)
  d.before(0, 7, 0x80000004, 1, nop, &src.core, 1);
  EXPECT_TRUE(d.connected());
  d.before(0, 9, 0x80000100, 1, nop, src.warp, 0xf);
  EXPECT_FALSE(d.connected()) << "stopped, served, found the connection closed";
  EXPECT_FALSE(d.armed());
}

// gdb's interrupt byte while the run goes on stops the next thread that
// runs an instruction, with SIGINT.
TEST(DebuggerInterrupt, CtrlCStopsTheRunningThread) {
  // What the debugger wrote outlives the connection, which it closes when
  // the stream ends after the stop.
  struct Interrupting final : Connection {
    explicit Interrupting(std::string& w) : written(w) {}
    std::string& written;
    bool sent = false;
    int read_byte() override {
      if (sent) return -1;
      sent = true;
      return 0x03;
    }
    bool readable() override { return !sent; }
    bool write(std::string_view b) override {
      written += b;
      return true;
    }
  };
  FakeSource src;
  Debugger d;
  d.add_source(src);
  std::string written;
  d.connect(std::make_unique<Interrupting>(written));
  isa::Inst nop;
  // Looked for every 4096 instructions: the first 4095 run on.
  for (int i = 0; i < 4095; ++i) ASSERT_TRUE(d.before(0, 7, 0x80000000, static_cast<uint64_t>(i), nop, &src.core, 1));
  EXPECT_EQ(written, "");
  d.before(0, 7, 0x80000000, 4095, nop, &src.core, 1);
  EXPECT_EQ(written, rsp::frame("T02thread:1;"));
  EXPECT_FALSE(d.connected()) << "the stream ended while stopped: detached";
}

TEST_F(DebuggerTest, WatchpointMatchesALaneAccess) {
  EXPECT_EQ(ask("Z2,1010,4"), "OK");
  isa::Inst sw = isa::decode(0x0062a023);  // sw t1,0(t0)
  ASSERT_TRUE(sw.is_store);
  src.warp[0].x[5] = 0x1000;
  src.warp[1].x[5] = 0x1004;
  d.before(0, 9, 0x80000100, 1, sw, src.warp, 0x3);
  EXPECT_TRUE(d.connected()) << "neither lane stores to [0x1010, 0x1014)";
  isa::Inst lw = isa::decode(0x0002a303);  // lw t1,0(t0)
  src.warp[1].x[5] = 0x1012;
  d.before(0, 9, 0x80000100, 2, lw, src.warp, 0x3);
  EXPECT_TRUE(d.connected()) << "a write watchpoint ignores loads";
  d.before(0, 9, 0x80000100, 3, sw, src.warp, 0x3);
  EXPECT_FALSE(d.connected()) << "lane 1 stores into the watched word";
}

// --trigger store: the first store that changes a watched byte fires, once;
// a store of the value memory holds does not (crt0 zeroing .bss).
TEST(DebuggerTrigger, FiresOnceOnTheFirstStoreThatChangesMemory) {
  FakeSource src;
  Debugger d;
  d.add_source(src);
  std::vector<std::string> fired;
  d.set_store_trigger(0x1010, 4, [&](const std::string& thread, uint32_t pc, uint32_t addr) {
    fired.push_back(fmt::format("{} 0x{:x} 0x{:x}", thread, pc, addr));
  });
  EXPECT_TRUE(d.armed()) << "no gdb, but every instruction is looked at";
  const isa::Inst sw = isa::decode(0x0062a023);  // sw t1,0(t0)
  src.warp[0].x[5] = 0x1010;
  src.warp[0].x[6] = 0x13121110;  // what memory holds there
  d.before(0, 9, 0x80000100, 1, sw, src.warp, 0x1);
  EXPECT_TRUE(fired.empty()) << "the same value changes nothing";
  src.warp[1].x[5] = 0x1012;
  src.warp[1].x[6] = 7;
  d.before(0, 9, 0x80000104, 2, sw, src.warp, 0x3);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0], "chip.sm0 warp 0 block (0,0,0) 0x80000104 0x1012");
  EXPECT_FALSE(d.armed());
  d.before(0, 9, 0x80000104, 3, sw, src.warp, 0x3);
  EXPECT_EQ(fired.size(), 1u);
}

TEST_F(DebuggerTest, TargetDescriptionAndSupport) {
  const std::string s = ask("qSupported:multiprocess+;swbreak+;xmlRegisters=i386");
  EXPECT_NE(s.find("qXfer:features:read+"), std::string::npos);
  const std::string xml = ask("qXfer:features:read:target.xml:0,4000");
  EXPECT_EQ(xml[0], 'l');
  EXPECT_NE(xml.find("org.gnu.gdb.riscv.cpu"), std::string::npos);
  EXPECT_NE(xml.find("<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\" regnum=\"32\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<reg name=\"fcsr\" bitsize=\"32\" type=\"int\" regnum=\"67\"/>"), std::string::npos);
  // Read in windows: 'm' while more follows.
  EXPECT_EQ(ask("qXfer:features:read:target.xml:0,10")[0], 'm');
  EXPECT_EQ(ask("vCont?"), "vCont;c;C;s;S");
  EXPECT_EQ(ask("qUnknownPacket"), "");
  EXPECT_EQ(ask("Z9,0,0"), "");
  EXPECT_EQ(ask("m"), "E01");
}

}  // namespace
}  // namespace tessera::debug
