// sim::Waveform with the VCD sink: header with nested scopes and 1ps
// timescale, change-only output, scope filtering with globs, the trace
// window, the ROI start and the flight recorder.
#include "sim/waveform.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/clock.h"
#include "sim/config.h"
#include "sim/vcd.h"

namespace {

using tessera::sim::TraceOptions;
using tessera::sim::Waveform;

std::unique_ptr<tessera::sim::WaveSink> vcd_sink(const std::string& option, const std::string& path) {
  return std::make_unique<tessera::sim::VcdSink>(option, path);
}

// A Waveform writing VCD that starts at its first change, as the platform
// starts it after elaboration.
class VcdWriter {
 public:
  VcdWriter(const std::string& path, std::vector<std::string> patterns, TraceOptions options = {})
      : wave_(with(std::move(options), path, std::move(patterns)), vcd_sink) {}
  bool scope_enabled(const std::string& scope) const { return wave_.scope_enabled(scope); }
  int add_signal(const std::string& scope, const std::string& name, unsigned width) {
    return wave_.add_signal(scope, name, width);
  }
  void change(int id, uint64_t v, uint64_t t) {
    start();
    wave_.change(id, v, t);
  }
  void close(uint64_t t) {
    start();
    wave_.close(t);
  }
  size_t signal_count() const { return wave_.signal_count(); }
  Waveform& wave() { return wave_; }
  void start() {
    if (!started_) wave_.start();
    started_ = true;
  }

 private:
  static TraceOptions with(TraceOptions o, const std::string& path, std::vector<std::string> patterns) {
    o.path = path;
    o.scopes = std::move(patterns);
    return o;
  }
  Waveform wave_;
  bool started_ = false;
};

std::string tmp_path(const std::string& name) { return std::string(SIM_TEST_TMP_DIR) + "/" + name; }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The identifier code of signal `name` from its $var line.
std::string code_of(const std::string& text, const std::string& name) {
  for (const auto& line : lines_of(text)) {
    std::istringstream in(line);
    std::string var, wire, width, code, n;
    in >> var >> wire >> width >> code >> n;
    if (var == "$var" && n == name) return code;
  }
  return "";
}

// The section of the file after $enddefinitions.
std::string body_of(const std::string& text) {
  const auto pos = text.find("$enddefinitions $end\n");
  return pos == std::string::npos ? "" : text.substr(pos + 21);
}

TEST(Vcd, HeaderHasNestedScopesAndPicosecondTimescale) {
  const std::string path = tmp_path("two_scopes.vcd");
  {
    VcdWriter vcd(path, {});
    const int a = vcd.add_signal("chip.sm0.sched0", "warp", 8);
    const int b = vcd.add_signal("chip.sm1.sched0", "warp", 8);
    const int c = vcd.add_signal("chip.sm0.sched0", "stall", 1);
    ASSERT_GE(a, 0);
    ASSERT_GE(b, 0);
    ASSERT_GE(c, 0);
    EXPECT_EQ(vcd.signal_count(), 3u);
    vcd.change(a, 3, 1000);
    vcd.close(5000);
  }
  const std::string text = read_file(path);
  EXPECT_NE(text.find("$timescale 1ps $end"), std::string::npos) << text;
  ASSERT_NE(text.find("$enddefinitions $end"), std::string::npos) << text;

  // Walk the header: scopes nest chip > sm0 > sched0 and chip > sm1 > sched0,
  // every $scope closes, and each $var sits at depth 3.
  std::vector<std::string> stack;
  std::vector<std::string> var_scopes;
  int chip_opened = 0;
  for (const auto& line : lines_of(text)) {
    if (line == "$enddefinitions $end") break;
    std::istringstream in(line);
    std::string kw, kind, name;
    in >> kw;
    if (kw == "$scope") {
      in >> kind >> name;
      EXPECT_EQ(kind, "module");
      stack.push_back(name);
      if (name == "chip") ++chip_opened;
    } else if (kw == "$upscope") {
      ASSERT_FALSE(stack.empty()) << "unbalanced $upscope";
      stack.pop_back();
    } else if (kw == "$var") {
      std::string joined;
      for (const auto& s : stack) joined += (joined.empty() ? "" : ".") + s;
      var_scopes.push_back(joined);
    }
  }
  EXPECT_TRUE(stack.empty()) << "unclosed $scope";
  EXPECT_EQ(chip_opened, 1) << "both SMs belong to one chip scope";
  ASSERT_EQ(var_scopes.size(), 3u);
  EXPECT_EQ(var_scopes[0], "chip.sm0.sched0");
  EXPECT_EQ(var_scopes[1], "chip.sm0.sched0");
  EXPECT_EQ(var_scopes[2], "chip.sm1.sched0");
  EXPECT_NE(text.find("$var wire 8 "), std::string::npos);
  EXPECT_NE(text.find("$var wire 1 "), std::string::npos);
}

TEST(Vcd, ValuesWrittenOnlyOnChange) {
  const std::string path = tmp_path("changes.vcd");
  {
    VcdWriter vcd(path, {});
    const int w = vcd.add_signal("chip.sm0.sched0", "warp", 4);
    const int s = vcd.add_signal("chip.sm0.sched0", "busy", 1);
    vcd.change(w, 5, 100);
    vcd.change(w, 5, 200);  // same value: nothing, not even the time
    vcd.change(s, 0, 250);  // same as the initial 0: nothing
    vcd.change(w, 6, 300);
    vcd.change(s, 1, 300);  // same time: one #300
    vcd.change(w, 6, 400);
    vcd.close(1000);
  }
  const std::string text = read_file(path);
  const std::string w = code_of(text, "warp"), s = code_of(text, "busy");
  ASSERT_FALSE(w.empty());
  ASSERT_FALSE(s.empty());
  ASSERT_NE(w, s);
  const std::string body = body_of(text);
  // Initial dump at #0, then #100, #300 and the end time.
  const std::string want =
      "#0\nb0000 " + w + "\n0" + s + "\n#100\nb0101 " + w + "\n#300\nb0110 " + w + "\n1" + s + "\n#1000\n";
  EXPECT_EQ(body, want) << text;
  EXPECT_EQ(text.find("#200"), std::string::npos);
  EXPECT_EQ(text.find("#250"), std::string::npos);
  EXPECT_EQ(text.find("#400"), std::string::npos);
}

TEST(Vcd, ChangesOfOneInstantAreWrittenInSignalOrder) {
  // Two processes of one instant may run in either order; the file is the
  // same both ways.
  const auto write = [](const std::string& path, bool reversed) {
    VcdWriter vcd(path, {});
    const int a = vcd.add_signal("chip.sm0.sched0", "pc", 8);
    const int b = vcd.add_signal("chip.sm1.sched0", "pc", 8);
    if (reversed) {
      vcd.change(b, 2, 100);
      vcd.change(a, 1, 100);
    } else {
      vcd.change(a, 1, 100);
      vcd.change(b, 2, 100);
    }
    vcd.change(a, 3, 200);
    vcd.close(300);
  };
  write(tmp_path("order_ab.vcd"), false);
  write(tmp_path("order_ba.vcd"), true);
  const std::string ab = read_file(tmp_path("order_ab.vcd")), ba = read_file(tmp_path("order_ba.vcd"));
  EXPECT_EQ(body_of(ab), body_of(ba));
  const std::string sm0 = code_of(ab, "pc");  // the first $var named pc: chip.sm0's
  EXPECT_NE(body_of(ab).find("#100\nb00000001 " + sm0 + "\n"), std::string::npos) << ab;
}

TEST(Vcd, ScopeFilterGlobRelativeToTop) {
  VcdWriter vcd(tmp_path("filter_probe.vcd"), {"sm0.*"});
  EXPECT_TRUE(vcd.scope_enabled("chip.sm0.sched0"));
  EXPECT_TRUE(vcd.scope_enabled("chip.sm0.sched3"));
  EXPECT_FALSE(vcd.scope_enabled("chip.sm1.sched0"));
  EXPECT_FALSE(vcd.scope_enabled("chip.memory"));
  EXPECT_FALSE(vcd.scope_enabled("chip.sm10.sched0"));
}

TEST(Vcd, ScopeFilterPlainNameCoversDescendants) {
  VcdWriter vcd(tmp_path("filter_probe2.vcd"), {"sm1"});
  EXPECT_TRUE(vcd.scope_enabled("chip.sm1"));
  EXPECT_TRUE(vcd.scope_enabled("chip.sm1.sched0"));
  EXPECT_FALSE(vcd.scope_enabled("chip.sm0.sched0"));
}

TEST(Vcd, ScopeFilterFullPathAndSeveralPatterns) {
  VcdWriter vcd(tmp_path("filter_probe3.vcd"), {"chip.sm2.*", "memory"});
  EXPECT_TRUE(vcd.scope_enabled("chip.sm2.sched1"));
  EXPECT_TRUE(vcd.scope_enabled("chip.memory"));
  EXPECT_FALSE(vcd.scope_enabled("chip.sm0.sched1"));
}

TEST(Vcd, NoPatternsEnablesEverything) {
  VcdWriter vcd(tmp_path("filter_probe4.vcd"), {});
  EXPECT_TRUE(vcd.scope_enabled("chip.sm0.sched0"));
  EXPECT_TRUE(vcd.scope_enabled("anything"));
}

TEST(Vcd, FilteredScopeExcludedFromFile) {
  const std::string path = tmp_path("filtered.vcd");
  {
    VcdWriter vcd(path, {"sm0.*"});
    const int in = vcd.add_signal("chip.sm0.sched0", "warp_in", 8);
    const int out = vcd.add_signal("chip.sm1.sched0", "warp_out", 8);
    EXPECT_GE(in, 0);
    EXPECT_EQ(out, -1);
    EXPECT_EQ(vcd.signal_count(), 1u);
    vcd.change(out, 7, 100);  // ignored
    vcd.change(in, 2, 200);
    vcd.close(300);
  }
  const std::string text = read_file(path);
  EXPECT_NE(text.find("$scope module sm0 $end"), std::string::npos) << text;
  EXPECT_EQ(text.find("sm1"), std::string::npos) << text;
  EXPECT_EQ(text.find("warp_out"), std::string::npos) << text;
  EXPECT_EQ(text.find("#100"), std::string::npos) << text;
  EXPECT_NE(text.find("#200"), std::string::npos) << text;
}

TEST(Vcd, SignalAfterTheStartIsALogicError) {
  VcdWriter vcd(tmp_path("late.vcd"), {});
  const int a = vcd.add_signal("chip.sm0", "a", 1);
  vcd.change(a, 1, 10);
  EXPECT_THROW(vcd.add_signal("chip.sm0", "b", 1), std::logic_error);
}

TEST(Vcd, CloseWithoutChangesWritesHeader) {
  const std::string path = tmp_path("empty.vcd");
  {
    VcdWriter vcd(path, {});
    vcd.add_signal("chip.sm0", "a", 2);
    vcd.close(0);
    vcd.close(0);  // second close is harmless
  }
  const std::string text = read_file(path);
  EXPECT_NE(text.find("$enddefinitions $end"), std::string::npos);
  EXPECT_NE(text.find("#0\nb00 "), std::string::npos) << text;
}

TEST(Vcd, ManySignalsGetDistinctCodes) {
  const std::string path = tmp_path("many.vcd");
  {
    VcdWriter vcd(path, {});
    for (int i = 0; i < 200; ++i) vcd.add_signal("chip.s", "sig" + std::to_string(i), 1);
    vcd.close(1);
  }
  const std::string text = read_file(path);
  std::set<std::string> codes;
  for (int i = 0; i < 200; ++i) {
    const std::string c = code_of(text, "sig" + std::to_string(i));
    ASSERT_FALSE(c.empty()) << i;
    for (char ch : c) EXPECT_TRUE(ch >= 33 && ch <= 126);
    codes.insert(c);
  }
  EXPECT_EQ(codes.size(), 200u);
}

TEST(Vcd, UnwritablePathIsConfigError) {
  EXPECT_THROW(VcdWriter("/nonexistent/dir/x.vcd", {}), tessera::sim::ConfigError);
}

// ---------------------------------------------------------------- control

TEST(TraceScope, APatternThatMatchesNothingIsAnErrorListingTheScopes) {
  VcdWriter vcd(tmp_path("nomatch.vcd"), {"sm0", "l2x*"});
  vcd.add_signal("chip.sm0.sched0", "pc", 32);
  vcd.add_signal("chip.l2.slice0", "hit", 1);
  try {
    vcd.start();
    FAIL() << "no error";
  } catch (const tessera::sim::ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--trace-scope 'l2x*' matches no scope"), std::string::npos) << m;
    EXPECT_NE(m.find("\n  chip.l2.slice0"), std::string::npos) << m;  // left out, but it exists
    EXPECT_NE(m.find("\n  chip.sm0.sched0"), std::string::npos) << m;
  }
}

TEST(TraceWindow, ParsesStartEndAndClock) {
  TraceOptions o;
  tessera::sim::parse_trace_window("100:250", o);
  EXPECT_TRUE(o.window);
  EXPECT_EQ(o.window_start, 100u);
  EXPECT_EQ(o.window_end, 250u);
  EXPECT_EQ(o.window_clock, "sm");
  tessera::sim::parse_trace_window("0:7@cpu", o);
  EXPECT_EQ(o.window_end, 7u);
  EXPECT_EQ(o.window_clock, "cpu");
}

TEST(TraceWindow, BadTextIsAConfigErrorSayingWhy) {
  const auto message = [](const std::string& text) {
    TraceOptions o;
    try {
      tessera::sim::parse_trace_window(text, o);
    } catch (const tessera::sim::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("200:100").find("END (100) must be after START (200)"), std::string::npos);
  EXPECT_NE(message("5:5").find("must be after"), std::string::npos);
  EXPECT_NE(message("100").find("expected START:END"), std::string::npos);
  EXPECT_NE(message("-1:5").find("cycle numbers"), std::string::npos);
  EXPECT_NE(message("1:5@").find("clock name"), std::string::npos);
}

TEST(TraceWindow, OnlyTheWindowIsWrittenStartingWithTheValuesAtItsStart) {
  const tessera::sim::ClockDomain clock("sm", 1000.0);  // 1000 ps cycles
  TraceOptions o;
  tessera::sim::parse_trace_window("2:4", o);
  const std::string path = tmp_path("window.vcd");
  {
    VcdWriter vcd(path, {}, o);
    vcd.wave().add_clock(clock);
    const int a = vcd.add_signal("chip.x", "a", 4);
    vcd.change(a, 1, 1000);  // before the window: only its value at the start shows
    vcd.change(a, 3, 2500);
    vcd.change(a, 5, 3000);
    vcd.change(a, 7, 4000);  // the window has ended
    vcd.close(9000);
  }
  const std::string text = read_file(path);
  const std::string a = code_of(text, "a");
  EXPECT_EQ(body_of(text), "#2000\nb0001 " + a + "\n#2500\nb0011 " + a + "\n#3000\nb0101 " + a + "\n#4000\n") << text;
}

TEST(TraceWindow, AnUnknownClockIsAnErrorListingTheClocks) {
  const tessera::sim::ClockDomain sm("sm", 1000.0), cpu("cpu", 500.0);
  TraceOptions o;
  tessera::sim::parse_trace_window("1:2@hbm", o);
  VcdWriter vcd(tmp_path("clock.vcd"), {}, o);
  vcd.wave().add_clock(sm);
  vcd.wave().add_clock(cpu);
  try {
    vcd.start();
    FAIL() << "no error";
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("trace clock 'hbm' does not exist on this platform; its clocks are: sm, cpu"),
              std::string::npos)
        << e.what();
  }
}

TEST(TraceAfterRoi, TheFileStartsAtTheRoiMark) {
  TraceOptions o;
  o.after_roi = true;
  const std::string path = tmp_path("roi.vcd");
  {
    VcdWriter vcd(path, {}, o);
    const int a = vcd.add_signal("chip.x", "a", 4);
    vcd.change(a, 1, 1000);
    vcd.wave().roi(true, 1500);
    vcd.change(a, 2, 2000);
    vcd.wave().roi(false, 2500);  // the end of the ROI does not stop the waveform
    vcd.change(a, 3, 3000);
    vcd.close(4000);
  }
  const std::string text = read_file(path);
  const std::string a = code_of(text, "a");
  EXPECT_EQ(body_of(text), "#1500\nb0001 " + a + "\n#2000\nb0010 " + a + "\n#3000\nb0011 " + a + "\n#4000\n") << text;
}

TEST(FlightRecorder, DumpsTheLastCyclesOfEverySignal) {
  const tessera::sim::ClockDomain clock("sm", 1000.0);
  TraceOptions o;
  o.flight_cycles = 3;
  o.flight_dir = SIM_TEST_TMP_DIR;
  o.program = "prog";
  // The dump goes through the same sink factory: VCD content, whatever the name.
  Waveform wave(o, vcd_sink);
  wave.add_clock(clock);
  const int a = wave.add_signal("chip.x", "a", 8);
  const int b = wave.add_signal("chip.y", "b", 1);
  wave.start();
  for (uint64_t c = 1; c <= 10; ++c) {
    wave.change(a, c, c * 1000);
    if (c == 2) wave.change(b, 1, c * 1000);  // long before the last 3 cycles: only its value shows
  }
  const std::string path = wave.dump_flight_recorder("deadlock", 10000);
  EXPECT_EQ(path, std::string(SIM_TEST_TMP_DIR) + "/prog-deadlock.fst");
  const std::string text = read_file(path);
  const std::string ca = code_of(text, "a"), cb = code_of(text, "b");
  EXPECT_EQ(body_of(text), "#7000\nb00000111 " + ca + "\n1" + cb + "\n#8000\nb00001000 " + ca + "\n#9000\nb00001001 " +
                               ca + "\n#10000\nb00001010 " + ca + "\n")
      << text;
}

TEST(FlightRecorder, ASizeBeyondMemoryIsRefusedWithTheSizeItNeeds) {
  const tessera::sim::ClockDomain clock("sm", 1000.0);
  TraceOptions o;
  o.flight_cycles = 1000000000;
  o.flight_dir = SIM_TEST_TMP_DIR;
  Waveform wave(o, vcd_sink);
  wave.add_clock(clock);
  for (int i = 0; i < 1000; ++i) wave.add_signal("chip.x", "s" + std::to_string(i), 8);
  try {
    wave.start();
    FAIL() << "no error";
  } catch (const tessera::sim::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--flight-recorder 1000000000: keeping 1000 signals for 1000000000 cycles "
                                         "needs up to 22351.7 GiB"),
              std::string::npos)
        << e.what();
  }
}

TEST(FlightRecorder, AMissingDirectoryIsAnErrorBeforeTheRun) {
  TraceOptions o;
  o.flight_cycles = 10;
  o.flight_dir = "/nonexistent/waves";
  EXPECT_THROW(Waveform(o, vcd_sink), tessera::sim::ConfigError);
}

}  // namespace
