// Waveforms of the coherent control-core cluster, read back from the FST
// that `tessera run --vcd X.fst` writes (fst2vcd): the false-sharing
// program's stores to a line another core holds Shared are BusUpgr
// transactions on chip.cluster.bus (the MSI and MESI tables' (S, PrWr)
// row), the sharer's L1D line goes to I when the upgrade's snoop resolves
// and the writer's to M; each core's retire strobe counts exactly its
// retired-instruction statistic; every PC lies in the ELF's executable
// segments; and tracing changes no statistic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "isa/elf_loader.h"
#include "tessera_run.h"
#include "wave_reader.h"

using tessera::test::read_file;
using tessera::test::run_tessera;
using tessera::test::temp_path;

namespace {

std::string fw(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }
std::string chip() { return std::string(PLATFORM_DIR) + "/chip.yaml"; }

// The control-core clock of these runs (--set clock.cpu_mhz=1000): 1000 ps.
constexpr uint64_t kCpuPs = 1000;
// cluster.bus.snoop_latency (default): a request is snooped 2 cycles after its grant.
constexpr uint64_t kSnoopLatency = 2;

// bus_cmd and coh_state values (models/bus/cluster_waves.h).
constexpr uint64_t kBusRd = 1, kBusRdX = 2, kBusUpgr = 3;
constexpr uint64_t kI = 0, kS = 1, kM = 3, kIM_AD = 10, kSM_A = 12;

// A waveform: every signal's changes by full name ("chip.cluster.bus.req_cmd").
struct Wave {
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> changes;  // (time ps, value)
  uint64_t end = 0;                                                           // the last time stamp

  const std::vector<std::pair<uint64_t, uint64_t>>& of(const std::string& name) const {
    static const std::vector<std::pair<uint64_t, uint64_t>> kNone;
    const auto it = changes.find(name);
    EXPECT_NE(it, changes.end()) << "no signal " << name;
    return it == changes.end() ? kNone : it->second;
  }
  // The value at time t (after every change at t).
  uint64_t at(const std::string& name, uint64_t t) const {
    uint64_t v = 0;
    for (const auto& [time, value] : of(name)) {
      if (time > t) break;
      v = value;
    }
    return v;
  }
};

Wave read_wave(const std::string& path) {
  const tessera::test::WaveFile file = tessera::test::WaveFile::read(path);
  Wave w;
  w.end = file.end_time();
  for (const std::string& name : file.paths()) {
    auto& c = w.changes[name];
    for (const auto& change : file.changes(name)) c.emplace_back(change.time_ps, change.value);
  }
  return w;
}

struct TracedRun {
  Wave wave;
  nlohmann::json stats;
  std::string out;
  std::string insts;  // the run's --trace-insts file
};

TracedRun run_traced(const std::string& program, const std::string& protocol) {
  const std::string fst = temp_path("waves_cluster_" + protocol + ".fst");
  const std::string stats = temp_path("waves_cluster_" + protocol + ".json");
  const std::string insts = temp_path("waves_cluster_" + protocol + ".insts");
  const auto r = run_tessera({"run", chip(), fw(program), "--set", "clock.cpu_mhz=1000", "--set",
                              "cluster.protocol=" + protocol, "--trace-scope", "cluster*", "--vcd", fst, "--stats",
                              stats, "--trace-insts", insts, "--trace-insts-unit", "cluster.*"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  TracedRun t;
  t.out = r.out;
  t.wave = read_wave(fst);
  t.stats = nlohmann::json::parse(read_file(stats));
  t.insts = read_file(insts);
  std::filesystem::remove(fst);
  std::filesystem::remove(stats);
  std::filesystem::remove(insts);
  return t;
}

std::string core(unsigned c) { return "chip.cluster.core" + std::to_string(c); }

// A grant: the cycle a request takes the request bus.
struct Grant {
  uint64_t t, cmd, addr, core, tag;
};

// req_valid rises, or stays 1 while a new request's fields appear (grants in
// consecutive cycles).
std::vector<Grant> grants(const Wave& w) {
  std::vector<uint64_t> times;
  for (const char* s : {"req_valid", "req_cmd", "req_addr", "req_core", "req_tag"})
    for (const auto& [t, v] : w.of(std::string("chip.cluster.bus.") + s)) times.push_back(t);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  std::vector<Grant> out;
  for (uint64_t t : times) {
    if (w.at("chip.cluster.bus.req_valid", t) != 1) continue;
    out.push_back(Grant{t, w.at("chip.cluster.bus.req_cmd", t), w.at("chip.cluster.bus.req_addr", t),
                        w.at("chip.cluster.bus.req_core", t), w.at("chip.cluster.bus.req_tag", t)});
  }
  return out;
}

class ClusterWaves : public ::testing::TestWithParam<std::string> {};

// A store to a line the writer and another core hold Shared: the writer's
// L1D waits in SM_A and its request on the bus is a BusUpgr (MSI and MESI:
// (S, PrWr) -> M, BusUpgr); when the snoop resolves, snoop_latency cycles
// after the grant, the sharer's copy is I (IM_AD when it was itself waiting
// to write the line) and the writer's line is M.
TEST_P(ClusterWaves, WriteToASharedLineIsABusUpgradeThatInvalidatesTheSharer) {
  const TracedRun run = run_traced("false_sharing", GetParam());
  const Wave& w = run.wave;
  const auto gs = grants(w);
  ASSERT_FALSE(gs.empty());
  constexpr unsigned cores = 4;  // chip.yaml's cluster.cores
  ASSERT_TRUE(run.stats["chip"]["cluster"]["core3"].is_object());
  unsigned upgrades = 0, invalidated = 0, to_i = 0;
  for (const Grant& g : gs) {
    const std::string writer = core(static_cast<unsigned>(g.core)) + ".l1d.";
    if (w.at(writer + "line_addr", g.t) != g.addr || w.at(writer + "line_state", g.t) != kSM_A) continue;
    for (unsigned y = 0; y < cores; ++y) {
      if (y == g.core) continue;
      const std::string sharer = core(y) + ".l1d.";
      if (w.at(sharer + "line_addr", g.t) != g.addr || w.at(sharer + "line_state", g.t) != kS) continue;
      // The writer holds the line in S and asks for it: the table's BusUpgr.
      ++upgrades;
      EXPECT_EQ(g.cmd, kBusUpgr) << "grant at " << g.t << " ps by core " << g.core << " for 0x" << std::hex << g.addr;
      const uint64_t resolved = g.t + kSnoopLatency * kCpuPs;
      // The sharer's line as of the snoop (skipped when another of its
      // lines changed state in the same cycle and hides this one).
      if (w.at(sharer + "line_addr", resolved) != g.addr) continue;
      const uint64_t state = w.at(sharer + "line_state", resolved);
      EXPECT_TRUE(state == kI || state == kIM_AD)
          << "core " << y << "'s copy of 0x" << std::hex << g.addr << " is " << std::dec << state << " at " << resolved
          << " ps, after core " << g.core << "'s BusUpgr at " << g.t << " ps";
      // Nothing changed between the grant and the snoop but the sharer's own request.
      for (const auto& [t, v] : w.of(sharer + "line_state")) {
        if (t > g.t && t < resolved && w.at(sharer + "line_addr", t) == g.addr) {
          EXPECT_EQ(v, kSM_A) << "core " << y << " at " << t << " ps";
        }
      }
      ++invalidated;
      if (state == kI) ++to_i;
      if (w.at(writer + "line_addr", resolved) == g.addr) {
        EXPECT_EQ(w.at(writer + "line_state", resolved), kM);
      }
    }
  }
  // The packed phase: 4 cores x 500 increments of one line, most of them a
  // read that makes the line Shared followed by the upgrade.
  EXPECT_GT(upgrades, 100u);
  EXPECT_GT(invalidated, 100u);
  EXPECT_GT(to_i, 0u);
  // No NACKs in this program: every grant is ordered, so the grants of each
  // command are the bus statistics.
  const auto& bus = run.stats["chip"]["cluster"]["bus"];
  ASSERT_EQ(bus["nacks"].get<uint64_t>(), 0u);
  EXPECT_TRUE(w.of("chip.cluster.bus.nack").empty() || w.of("chip.cluster.bus.nack").back().second == 0);
  std::map<uint64_t, uint64_t> by_cmd;
  for (const Grant& g : gs) ++by_cmd[g.cmd];
  EXPECT_EQ(by_cmd[kBusRd], bus["BusRd"].get<uint64_t>());
  EXPECT_EQ(by_cmd[kBusRdX], bus["BusRdX"].get<uint64_t>());
  EXPECT_EQ(by_cmd[kBusUpgr], bus["BusUpgr"].get<uint64_t>());
}

// retire is the number of instructions a core retired in a cycle, for one
// cycle: summed over cycles it is the core's instructions statistic. PCs are
// in the program's executable segments and change where straight-line code
// does not go on (their values are exactly the instruction trace's PCs that
// do not follow the one before by 0, 2 or 4 bytes, less a jump to the value
// shown, as a loop's); parked cores show stall =
// halted (3).
TEST_P(ClusterWaves, RetireStrobesCountRetiredInstructionsAndPcsAreInTheText) {
  const TracedRun run = run_traced("false_sharing", GetParam());
  const Wave& w = run.wave;
  const tessera::isa::ElfImage elf = tessera::isa::load_elf(fw("false_sharing"));
  auto in_text = [&elf](uint64_t pc) {
    for (const auto& s : elf.segments)
      if (s.executable && pc >= s.addr && pc + 4 <= s.addr + s.bytes.size()) return true;
    return false;
  };
  for (unsigned c = 0; c < 4; ++c) {
    const auto& retire = w.of(core(c) + ".retire");
    uint64_t retired = 0;
    for (size_t i = 0; i < retire.size(); ++i) {
      const uint64_t until = i + 1 < retire.size() ? retire[i + 1].first : w.end;
      ASSERT_EQ((until - retire[i].first) % kCpuPs, 0u);
      retired += retire[i].second * ((until - retire[i].first) / kCpuPs);
    }
    ASSERT_FALSE(retire.empty());
    EXPECT_EQ(retire.back().second, 0u) << "core " << c << " still retiring at the end";
    EXPECT_EQ(retired, run.stats["chip"]["cluster"]["core" + std::to_string(c)]["instructions"].get<uint64_t>())
        << "core " << c;
    const auto& pcs = w.of(core(c) + ".pc");
    ASSERT_GT(pcs.size(), 10u);
    std::vector<uint64_t> jumps, shown;
    std::istringstream lines(run.insts);
    std::string line, unit = "cluster.core" + std::to_string(c);
    uint64_t last = 0;
    while (std::getline(lines, line)) {
      std::istringstream f(line);
      std::string cycle, who, pc;
      f >> cycle >> who >> pc;
      if (who != unit) continue;
      const uint64_t v = std::stoull(pc, nullptr, 16);
      // A jump back to where the run began (a loop) leaves the value as it is.
      if (v != last && v != last + 2 && v != last + 4 && (jumps.empty() || jumps.back() != v)) jumps.push_back(v);
      last = v;
    }
    for (const auto& [t, pc] : pcs)
      if (t > 0 || pc != 0) shown.push_back(pc);
    EXPECT_EQ(shown, jumps) << "core " << c;
    for (const auto& [t, pc] : pcs) {
      if (t > 0 || pc != 0) {
        EXPECT_TRUE(in_text(pc)) << "core " << c << " pc 0x" << std::hex << pc << " at " << t;
      }
    }
    // Cores 1-3 start parked.
    if (c > 0) {
      EXPECT_EQ(w.at(core(c) + ".stall", 0), 3u);
    }
    for (const auto& [t, s] : w.of(core(c) + ".stall")) EXPECT_LE(s, 3u);
  }
}

INSTANTIATE_TEST_SUITE_P(Protocols, ClusterWaves, ::testing::Values("mesi", "msi"));

// Every statistic of a run is the same with and without the waveform (host
// time aside).
TEST(ClusterWavesStats, TracingChangesNoStatistic) {
  const std::string fst = temp_path("waves_cluster_stats.fst");
  const std::string with = temp_path("waves_cluster_with.json"), without = temp_path("waves_cluster_without.json");
  const auto a = run_tessera({"run", chip(), fw("false_sharing"), "--stats", without});
  const auto b = run_tessera({"run", chip(), fw("false_sharing"), "--stats", with, "--vcd", fst});
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  nlohmann::json x = nlohmann::json::parse(read_file(without)).flatten();
  nlohmann::json y = nlohmann::json::parse(read_file(with)).flatten();
  for (auto* j : {&x, &y})
    for (auto it = j->begin(); it != j->end();)
      it = it.key().find("host") != std::string::npos ? j->erase(it) : std::next(it);
  EXPECT_EQ(x, y) << nlohmann::json::diff(x, y).dump(1);
  ASSERT_GT(x.size(), 100u);
  std::filesystem::remove(fst);
  std::filesystem::remove(with);
  std::filesystem::remove(without);
}

}  // namespace
