// The shared waveform reader (testbenches/wave_reader.h) on files Tessera's
// own sinks write: a VCD from sim::VcdSink and an FST from rtl::FstSink
// (read through fst2vcd) give the same signals, widths and changes.
#include "wave_reader.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rtl/common/fst_sink.h"
#include "sim/vcd.h"
#include "sim/waveform.h"
#include "tessera_run.h"

namespace {

using tessera::test::WaveChange;
using tessera::test::WaveFile;

const tessera::sim::WaveEnum kTestCmd{"test_cmd", {{0, "NOP"}, {1, "ACT"}, {2, "RD"}}};

// Writes a small waveform: two scopes, a strobe, a 32-bit counter and an
// enum; a change back within one instant leaves no trace.
void write_wave(const std::string& path) {
  tessera::sim::TraceOptions options;
  options.path = path;
  tessera::sim::Waveform wave(
      options, [](const std::string& option, const std::string& p) { return tessera::rtl::make_wave_sink(option, p); });
  const int req = wave.add_signal("chip.l2.slice0", "req", 1);
  const int count = wave.add_signal("chip.l2.slice0", "mshr", 8);
  const int pc = wave.add_signal("chip.sm1.sched2", "pc", 32);
  const int cmd = wave.add_signal("chip.hbm.pc0", "cmd", 4, &kTestCmd);
  wave.start();
  wave.change(req, 1, 1000);
  wave.change(count, 3, 1000);
  wave.change(pc, 0x80001234, 1000);
  wave.change(req, 0, 2000);
  wave.change(cmd, 2, 2000);
  wave.change(count, 7, 3000);
  wave.change(cmd, 1, 3000);
  wave.change(cmd, 2, 3000);  // back within the instant: no change
  wave.change(cmd, 0, 4000);
  wave.close(5000);
}

void expect_contents(const WaveFile& w) {
  EXPECT_EQ(w.paths(), (std::vector<std::string>{"chip.hbm.pc0.cmd", "chip.l2.slice0.mshr", "chip.l2.slice0.req",
                                                 "chip.sm1.sched2.pc"}));
  EXPECT_EQ(w.width("chip.l2.slice0.req"), 1u);
  EXPECT_EQ(w.width("chip.l2.slice0.mshr"), 8u);
  EXPECT_EQ(w.width("chip.sm1.sched2.pc"), 32u);
  EXPECT_EQ(w.width("chip.hbm.pc0.cmd"), 4u);
  EXPECT_EQ(w.changes("chip.l2.slice0.req"), (std::vector<WaveChange>{{0, 0}, {1000, 1}, {2000, 0}}));
  EXPECT_EQ(w.changes("chip.hbm.pc0.cmd"), (std::vector<WaveChange>{{0, 0}, {2000, 2}, {4000, 0}}));
  EXPECT_EQ(w.value_at("chip.l2.slice0.mshr", 999), 0u);
  EXPECT_EQ(w.value_at("chip.l2.slice0.mshr", 1000), 3u);
  EXPECT_EQ(w.value_at("chip.l2.slice0.mshr", 2999), 3u);
  EXPECT_EQ(w.value_at("chip.l2.slice0.mshr", 3000), 7u);
  EXPECT_EQ(w.value_at("chip.sm1.sched2.pc", 4000), 0x80001234u);
  EXPECT_EQ(w.times_of("chip.l2.slice0.req", 1), (std::vector<uint64_t>{1000}));
  EXPECT_EQ(w.paths_matching("chip.l2.*"), (std::vector<std::string>{"chip.l2.slice0.mshr", "chip.l2.slice0.req"}));
  EXPECT_EQ(w.paths_matching("*.pc"), (std::vector<std::string>{"chip.sm1.sched2.pc"}));
  EXPECT_FALSE(w.has("chip.l2.slice1.req"));
  EXPECT_THROW(w.changes("chip.l2.slice1.req"), std::out_of_range);
}

TEST(WaveReader, ReadsTheVcdSinksOutput) {
  const std::string path = tessera::test::temp_path("reader.vcd");
  write_wave(path);
  expect_contents(WaveFile::read(path));
}

TEST(WaveReader, ReadsTheFstSinksOutputThroughFst2vcd) {
  const std::string path = tessera::test::temp_path("reader.fst");
  write_wave(path);
  const WaveFile w = WaveFile::read(path);
  expect_contents(w);
  EXPECT_EQ(w.end_time(), 5000u);
}

TEST(WaveReader, AMissingFileIsAnErrorNamingIt) {
  try {
    WaveFile::read("/nonexistent/x.fst");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.fst"), std::string::npos) << e.what();
  }
}

}  // namespace
