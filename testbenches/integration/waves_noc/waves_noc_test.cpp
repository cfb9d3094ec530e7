// Waveforms of the interconnect through the tessera binary, read back with
// gtkwave's fst2vcd. Every expected number comes from the documented
// routing and timing (docs/noc.md, "Timing" and "Topologies, routing,
// deadlock"), never from a run: routers x + k y, ports 0 local, 1 +x,
// 2 -x, 3 +y, 4 -y, x first; a flit granted the switch at s enters the link
// at s + sa + st (outP.valid) and its head, present in the next router at
// s + sa + st + link, is granted there rc + va cycles later at zero load,
// so a head's link strobes are rc + va + sa + st + link cycles apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tessera_run.h"
#include "wave_reader.h"

namespace {

using tessera::test::run_tessera;
using tessera::test::RunResult;

std::string elf(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }

// The signals of a waveform by full name ("chip.noc.r0.out1.valid"), each
// as its value changes (time in ps, value) in time order.
class Vcd {
 public:
  explicit Vcd(const tessera::test::WaveFile& file) {
    for (const std::string& name : file.paths()) {
      auto& c = signals_[name];
      for (const auto& change : file.changes(name)) c.emplace_back(change.time_ps, change.value);
    }
  }
  bool has(const std::string& name) const { return signals_.count(name) != 0; }
  const std::vector<std::pair<uint64_t, uint64_t>>& changes(const std::string& name) const { return signals_.at(name); }
  uint64_t at(const std::string& name, uint64_t t) const {
    const auto& c = signals_.at(name);
    auto it = std::upper_bound(c.begin(), c.end(), std::make_pair(t, UINT64_MAX));
    return it == c.begin() ? 0 : std::prev(it)->second;
  }
  // Start times of the clock cycles (period_ps) in which `valid` is 1.
  std::vector<uint64_t> valid_cycles(const std::string& valid, uint64_t period_ps) const {
    std::vector<uint64_t> out;
    const auto& c = signals_.at(valid);
    for (size_t i = 0; i < c.size(); ++i) {
      if (c[i].second != 1) continue;
      const uint64_t end = i + 1 < c.size() ? c[i + 1].first : c[i].first + period_ps;
      for (uint64_t t = c[i].first; t < end; t += period_ps) out.push_back(t);
    }
    return out;
  }
  std::vector<std::string> names_with(const std::string& prefix, const std::string& suffix) const {
    std::vector<std::string> out;
    for (const auto& [n, c] : signals_)
      if (n.rfind(prefix, 0) == 0 && n.size() >= suffix.size() &&
          n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        out.push_back(n);
    return out;
  }

 private:
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> signals_;
};

Vcd run_traced(const std::string& platform, const std::string& program, const std::vector<std::string>& sets,
               const std::string& stem) {
  const std::string fst = tessera::test::temp_path(stem + ".fst");
  std::vector<std::string> args{"run", platform, elf(program), "-q", "--vcd", fst};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const RunResult r = run_tessera(args);
  EXPECT_EQ(r.status, 0) << r.err;
  Vcd wave(tessera::test::WaveFile::read(fst));
  std::filesystem::remove(fst);
  return wave;
}

// The NoC of chip_noc with every timing parameter the test relies on set.
constexpr int kK = 4, kM = 2, kVcBuf = 8;
constexpr int kRc = 1, kVa = 1, kSa = 1, kSt = 1, kLink = 2;
constexpr uint64_t kNocPeriodPs = 1000;  // clock.icnt_mhz = 1000
const std::vector<std::string> kNocSets{"clock.icnt_mhz=1000", "noc.k=4",         "noc.m=2",        "noc.vc_buf=8",
                                        "noc.routing=dor",     "noc.delay.rc=1",  "noc.delay.va=1", "noc.delay.sa=1",
                                        "noc.delay.st=1",      "noc.delay.link=2"};

struct LinkFlit {
  uint64_t time;
  int router, port;
  uint64_t vc, packet;
  bool head, tail;
};

// Every flit on every router output link, in time order.
std::vector<LinkFlit> link_flits(const Vcd& vcd) {
  std::vector<LinkFlit> out;
  for (int r = 0; r < kK * kM; ++r) {
    for (int p = 0; p <= 4; ++p) {
      const std::string link = "chip.noc.r" + std::to_string(r) + ".out" + std::to_string(p) + ".";
      if (!vcd.has(link + "valid")) continue;
      for (uint64_t t : vcd.valid_cycles(link + "valid", kNocPeriodPs))
        out.push_back(LinkFlit{t, r, p, vcd.at(link + "vc", t), vcd.at(link + "packet", t),
                               vcd.at(link + "head", t) == 1, vcd.at(link + "tail", t) == 1});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const LinkFlit& a, const LinkFlit& b) { return a.time < b.time; });
  return out;
}

// The output links (router, port) of the dimension-order route from src to
// dst on the k x m mesh, ending with the ejection link (dst, 0).
std::vector<std::pair<int, int>> xy_route(int src, int dst) {
  std::vector<std::pair<int, int>> route;
  int x = src % kK, y = src / kK;
  const int dx = dst % kK, dy = dst / kK;
  while (x != dx) {
    route.emplace_back(x + kK * y, dx > x ? 1 : 2);
    x += dx > x ? 1 : -1;
  }
  while (y != dy) {
    route.emplace_back(x + kK * y, dy > y ? 3 : 4);
    y += dy > y ? 1 : -1;
  }
  route.emplace_back(dst, 0);
  return route;
}

TEST(NocWaves, APacketsHeadCrossesItsDimensionOrderRouteOneHopDelayAtATime) {
  const Vcd vcd = run_traced("chip_noc", "mem_latency", kNocSets, "noc_route");
  const std::vector<LinkFlit> flits = link_flits(vcd);
  ASSERT_FALSE(flits.empty());
  // The packet: the lowest id whose route has at least 2 router-to-router
  // links. Its source is the router whose link carries its head first, its
  // destination the router that ejects it.
  std::map<uint64_t, std::vector<LinkFlit>> heads;  // by packet
  for (const LinkFlit& f : flits)
    if (f.head) heads[f.packet].push_back(f);
  const int per_hop = kRc + kVa + kSa + kSt + kLink;
  int checked = 0;
  for (const auto& [packet, hs] : heads) {
    const int src = hs.front().router;
    const auto eject = std::find_if(hs.begin(), hs.end(), [](const LinkFlit& f) { return f.port == 0; });
    ASSERT_NE(eject, hs.end()) << "packet " << packet << " never ejected";
    const auto route = xy_route(src, eject->router);
    if (route.size() < 3) continue;
    ASSERT_EQ(hs.size(), route.size()) << "packet " << packet << " head on other links than its route";
    for (size_t h = 0; h < route.size(); ++h) {
      EXPECT_EQ(hs[h].router, route[h].first) << "packet " << packet << " hop " << h;
      EXPECT_EQ(hs[h].port, route[h].second) << "packet " << packet << " hop " << h;
      EXPECT_EQ(hs[h].time, hs[0].time + h * per_hop * kNocPeriodPs) << "packet " << packet << " hop " << h;
    }
    ++checked;
    break;
  }
  EXPECT_EQ(checked, 1) << "no packet crossed two links";
}

TEST(NocWaves, OccupancyStaysWithinTheBufferAndHeadsPrecedeTails) {
  const Vcd vcd = run_traced("chip_noc", "vecadd", kNocSets, "noc_load");
  uint64_t max_occupancy = 0;
  const auto occupancy = vcd.names_with("chip.noc.r", ".occupancy");
  // Every present input VC: the local port and the mesh links of 8 routers.
  EXPECT_EQ(occupancy.size(), static_cast<size_t>((kK * kM + 2 * (kK - 1) * kM + 2 * kK * (kM - 1)) * 4));
  for (const auto& name : occupancy)
    for (const auto& [t, v] : vcd.changes(name)) {
      EXPECT_LE(v, static_cast<uint64_t>(kVcBuf)) << name << " at " << t;
      max_occupancy = std::max(max_occupancy, v);
    }
  EXPECT_GE(max_occupancy, 2u) << "no buffer ever held two flits";

  // Per link and packet: the head first (once), then body flits, then the tail.
  std::map<std::tuple<int, int, uint64_t>, int> state;  // 1 head seen, 2 tail seen
  size_t packets = 0;
  for (const LinkFlit& f : link_flits(vcd)) {
    int& s = state[{f.router, f.port, f.packet}];
    if (f.head) {
      EXPECT_EQ(s, 0) << "second head of packet " << f.packet << " on r" << f.router << ".out" << f.port;
      s = 1;
      ++packets;
    } else {
      EXPECT_EQ(s, 1) << "flit of packet " << f.packet << " before its head or after its tail on r" << f.router
                      << ".out" << f.port << " at " << f.time;
    }
    if (f.tail) s = 2;
  }
  for (const auto& [key, s] : state) EXPECT_EQ(s, 2) << "packet " << std::get<2>(key) << " never saw its tail";
  EXPECT_GT(packets, 100u);
  // The network interfaces' queues were used.
  uint64_t max_inject = 0;
  for (const auto& name : vcd.names_with("chip.noc.ni", ".inject_queue"))
    for (const auto& [t, v] : vcd.changes(name)) max_inject = std::max(max_inject, v);
  EXPECT_GE(max_inject, 1u);
}

TEST(NocWaves, TraceScopeKeepsOneLinkAndItsFlits) {
  const std::string fst = tessera::test::temp_path("noc_scope.fst");
  const RunResult r =
      run_tessera({"run", "chip_noc", elf("vecadd"), "-q", "--vcd", fst, "--trace-scope", "noc.r5.out1"});
  ASSERT_EQ(r.status, 0) << r.err;
  const Vcd vcd(tessera::test::WaveFile::read(fst));
  std::filesystem::remove(fst);
  const auto all = vcd.names_with("chip.", "");
  EXPECT_EQ(all, (std::vector<std::string>{"chip.noc.r5.out1.head", "chip.noc.r5.out1.packet", "chip.noc.r5.out1.tail",
                                           "chip.noc.r5.out1.valid", "chip.noc.r5.out1.vc"}));
}

TEST(CrossbarWaves, EveryInputStrobeReachesTheOutputNamedByDest) {
  constexpr uint64_t kPeriodPs = 1000;  // clock.l2_mhz = 1000
  const Vcd vcd = run_traced("chip", "vecadd", {"clock.l2_mhz=1000"}, "xbar");
  const auto ins = vcd.names_with("chip.xbar.in", ".valid");
  ASSERT_EQ(ins.size(), 4u);  // chip: 4 SMs
  size_t crossings = 0;
  for (const auto& valid : ins) {
    const std::string port = valid.substr(0, valid.size() - 6);
    const uint64_t in = std::stoull(port.substr(std::string("chip.xbar.in").size()));
    for (uint64_t t : vcd.valid_cycles(valid, kPeriodPs)) {
      const std::string out = "chip.xbar.out" + std::to_string(vcd.at(port + ".dest", t));
      ASSERT_TRUE(vcd.has(out + ".valid")) << out;
      EXPECT_EQ(vcd.at(out + ".valid", t), 1u) << port << " at " << t;
      EXPECT_EQ(vcd.at(out + ".src", t), in) << port << " at " << t;
      ++crossings;
    }
  }
  EXPECT_GT(crossings, 100u);
  uint64_t max_queue = 0;
  for (const auto& name : vcd.names_with("chip.xbar.in", ".queue"))
    for (const auto& [t, v] : vcd.changes(name)) max_queue = std::max(max_queue, v);
  EXPECT_GE(max_queue, 1u);
}

// Statistics without host-time fields. The network's cycles_stepped and
// cycles_skipped stay: a traced network also wakes at the cycle a strobe
// returns to 0, and skips that cycle as an untraced one jumps over it.
nlohmann::json strip_host(nlohmann::json j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key().find("host") == std::string::npos) out[it.key()] = strip_host(it.value());
    return out;
  }
  return j;
}

nlohmann::json stats_of(const std::string& platform, const std::string& program, bool traced) {
  const std::string stats = tessera::test::temp_path(platform + (traced ? "_traced.json" : "_plain.json"));
  const std::string fst = tessera::test::temp_path(platform + "_stats.fst");
  std::vector<std::string> args{"run", platform, elf(program), "-q", "--stats", stats};
  if (traced) {
    args.push_back("--vcd");
    args.push_back(fst);
  }
  const RunResult r = run_tessera(args);
  EXPECT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = strip_host(nlohmann::json::parse(tessera::test::read_file(stats)));
  std::filesystem::remove(stats);
  std::filesystem::remove(fst);
  return j;
}

TEST(InterconnectWaves, TracingChangesNoStatistic) {
  for (const std::string platform : {"chip_noc", "chip"}) {
    const nlohmann::json plain = stats_of(platform, "vecadd", false);
    const nlohmann::json traced = stats_of(platform, "vecadd", true);
    EXPECT_EQ(nlohmann::json::diff(plain, traced), nlohmann::json::array()) << platform;
  }
}

}  // namespace
