// The co-simulation harness (models/rtl/common): stepping a Verilated block,
// replaying its last cycles from a checkpoint into an FST waveform that
// gtkwave's fst2vcd reads back, and the lockstep mismatch report.
#include <gtest/gtest.h>
#include <Vaccumulator.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "rtl/common/lockstep.h"
#include "rtl/common/rtl_harness.h"
#include "tessera_run.h"
#include "test_scratch.h"

namespace {

using tessera::rtl::RtlHarness;
using tessera::rtl::WaveOptions;

struct AccIn {
  bool enable = false;
  uint16_t value = 0;
};
void apply(Vaccumulator& m, const AccIn& in) {
  m.enable = in.enable;
  m.value = in.value;
}
using Harness = RtlHarness<Vaccumulator, AccIn>;

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::path(tessera::test::scratch_dir()) / ("cosim_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

// A VCD as fst2vcd prints it: the time stamps and each signal's changes.
struct Vcd {
  std::string text;
  std::vector<uint64_t> times;
  std::map<std::string, std::string> code_of;               // signal name -> identifier code
  std::map<std::string, std::vector<std::string>> changes;  // code -> values in time order
  uint64_t last_value(const std::string& name) const {
    const auto c = code_of.find(name);
    if (c == code_of.end() || changes.count(c->second) == 0) return ~uint64_t{0};
    return std::stoull(changes.at(c->second).back(), nullptr, 2);
  }
};

Vcd read_fst(const std::string& path) {
  Vcd v;
  v.text = tessera::test::command_output(std::string(FST2VCD) + " " + path + " 2>&1");
  std::istringstream in(v.text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string w;
    words >> w;
    if (w == "$var") {
      std::string type, width, code, name;
      words >> type >> width >> code >> name;
      v.code_of.emplace(name, code);
    } else if (!w.empty() && w[0] == '#') {
      v.times.push_back(std::stoull(w.substr(1)));
    } else if (!w.empty() && w[0] == 'b') {
      std::string code;
      words >> code;
      v.changes[code].push_back(w.substr(1));
    } else if (w.size() >= 2 && (w[0] == '0' || w[0] == '1')) {
      v.changes[w.substr(1)].push_back(w.substr(0, 1));
    }
  }
  return v;
}

TEST(RtlHarness, StepsTheBlockOneClockCycleAtATime) {
  Harness h("test.acc", apply, WaveOptions{});
  h.step({true, 5});
  EXPECT_EQ(h.model().sum, 5);  // registered: visible after the rising edge
  h.step({false, 100});
  h.step({true, 7});
  EXPECT_EQ(h.model().sum, 12);
  EXPECT_EQ(h.model().count, 2u);
  EXPECT_EQ(h.steps(), 3u);
  h.reset();
  EXPECT_EQ(h.model().sum, 0);
  EXPECT_EQ(h.steps(), 0u);
}

TEST(RtlHarness, WaveformReplaysTheLastCyclesFromACheckpoint) {
  const std::string dir = temp_dir("window");
  Harness h("test.acc", apply, WaveOptions{4, dir});
  // Ten cycles numbered 100..109, adding 1..10: the sum ends at 55.
  for (uint16_t i = 0; i < 10; ++i) h.step({true, static_cast<uint16_t>(i + 1)}, 100 + i);
  ASSERT_EQ(h.model().sum, 55);
  const std::string path = h.dump_window("acc_window");
  EXPECT_EQ(path, dir + "/acc_window.fst");
  ASSERT_TRUE(std::filesystem::exists(path));

  // Checkpoints every 4 steps: the window starts at the one taken before
  // step 4 (cycle 104) and replays cycles 104..109.
  const Vcd vcd = read_fst(path);
  ASSERT_FALSE(vcd.times.empty()) << "fst2vcd (package gtkwave) read nothing:\n" << vcd.text;
  EXPECT_EQ(vcd.times.front(), 104000u);
  EXPECT_EQ(vcd.times.back(), 109999u);
  // The sum's last value is 55: the checkpoint restored the state before
  // cycle 104 (sum 10) and the replay added 5..10.
  EXPECT_EQ(vcd.last_value("sum"), 55u) << vcd.text;
  std::filesystem::remove_all(dir);
}

TEST(RtlHarness, WindowBeforeTheFirstCheckpointStartsAtReset) {
  const std::string dir = temp_dir("early");
  Harness h("test.acc", apply, WaveOptions{64, dir});
  h.step({true, 3}, 7);
  const Vcd vcd = read_fst(h.dump_window("early"));
  ASSERT_FALSE(vcd.times.empty()) << vcd.text;
  EXPECT_EQ(vcd.times.front(), 0u);  // the checkpoint taken at reset
  EXPECT_EQ(vcd.times.back(), 7999u);
  EXPECT_EQ(vcd.last_value("sum"), 3u);
  std::filesystem::remove_all(dir);
}

TEST(RtlHarness, WithoutRecordingStepsAlikeAndRefusesAWaveform) {
  WaveOptions waves;
  waves.cycles = 2;
  Harness recorded("test.acc", apply, waves), bare("test.acc", apply, waves.without_recording());
  for (uint16_t i = 0; i < 9; ++i) {
    recorded.step({i % 3 != 0, i});
    bare.step({i % 3 != 0, i});
    ASSERT_EQ(bare.model().sum, recorded.model().sum) << "step " << i;
  }
  EXPECT_EQ(bare.model().sum, 1 + 2 + 4 + 5 + 7 + 8);
  EXPECT_THROW(bare.dump_window("never"), std::logic_error);
}

TEST(MismatchReport, NamesTheCycleTheInstanceAndMarksTheDifferingOutputs) {
  tessera::rtl::MismatchReport r("accumulator", "chip.acc0", 1234);
  r.input("value", "0x0005");
  r.output("sum", "0x000a", "0x000a");
  r.output("count", "2", "3");
  r.set_wave("waves/x.fst");
  EXPECT_EQ(r.differences(), 1u);
  const std::string t = r.text();
  EXPECT_NE(t.find("lockstep mismatch in chip.acc0 (accumulator) at cycle 1234: 1 of 2 outputs differ"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("! count"), std::string::npos) << t;
  EXPECT_NE(t.find("  sum"), std::string::npos) << t;
  EXPECT_NE(t.find("waves/x.fst"), std::string::npos) << t;
  const tessera::rtl::LockstepMismatch e(r);
  EXPECT_EQ(e.cycle(), 1234u);
  EXPECT_EQ(e.instance(), "chip.acc0");
  EXPECT_EQ(e.wave_path(), "waves/x.fst");
}

TEST(Impl, NamesRoundTrip) {
  for (const auto& n : tessera::rtl::impl_names())
    EXPECT_EQ(tessera::rtl::impl_name(tessera::rtl::impl_from_name(n)), n);
  EXPECT_THROW(tessera::rtl::impl_from_name("gates"), std::invalid_argument);
}

}  // namespace
