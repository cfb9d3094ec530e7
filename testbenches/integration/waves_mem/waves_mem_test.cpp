// Waveforms of the memory system through the tessera binary: runs with HBM
// (chip_hbm) and with the fixed-latency memory (chip) write an FST that
// gtkwave's fst2vcd reads back. On every pseudo channel, every RD and WR
// comes at least tRCD (of the HBM preset, in ps of the DRAM clock) after
// its bank's ACT of the same row with no PRE in between, REF only when
// every bank of the pseudo channel is closed, and the command signals show
// exactly as many ACT, RD/WR and REF as the statistics count. The L2
// slices' request, hit and miss strobes agree with each slice's statistics;
// the memories' outstanding counts return to 0. A request's line shows on
// the SM's, the L2 slice's and the DRAM's signals. Tracing changes no
// statistic.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tessera_run.h"
#include "wave_reader.h"

namespace {

using tessera::test::run_tessera;
using tessera::test::RunResult;

std::string elf(const std::string& name) { return std::string(FW_DIR) + "/" + name + ".elf"; }

// A waveform: every signal's changes by full name.
struct Change {
  uint64_t t, v;
};
struct Wave {
  std::map<std::string, std::vector<Change>> signals;
  const std::vector<Change>& at(const std::string& name) const {
    static const std::vector<Change> none;
    auto it = signals.find(name);
    return it == signals.end() ? none : it->second;
  }
  bool has(const std::string& name) const { return signals.count(name) != 0; }
  // The value after every change at or before t.
  uint64_t value(const std::string& name, uint64_t t) const {
    const auto& c = at(name);
    auto it = std::upper_bound(c.begin(), c.end(), t, [](uint64_t x, const Change& ch) { return x < ch.t; });
    return it == c.begin() ? 0 : std::prev(it)->v;
  }
};

Wave read_wave(const std::string& path) {
  const tessera::test::WaveFile file = tessera::test::WaveFile::read(path);
  Wave w;
  for (const std::string& name : file.paths()) {
    auto& c = w.signals[name];
    for (const auto& change : file.changes(name)) c.push_back({change.time_ps, change.value});
  }
  return w;
}

// High cycles of a one-cycle strobe (a strobe high in consecutive cycles
// stays high: each cycle counts).
uint64_t strobe_count(const Wave& w, const std::string& name, uint64_t period, uint64_t end) {
  const auto& c = w.at(name);
  uint64_t n = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i].v != 1) continue;
    const uint64_t until = i + 1 < c.size() ? c[i + 1].t : end;
    EXPECT_EQ((until - c[i].t) % period, 0u) << name << " at " << c[i].t;
    n += (until - c[i].t) / period;
  }
  return n;
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(tessera::test::read_file(path)); }

// Drops host-time fields (they differ between any two runs).
void drop_host_fields(nlohmann::json& j) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end();) {
    if (it.key().find("host") != std::string::npos) {
      it = j.erase(it);
    } else {
      drop_host_fields(*it);
      ++it;
    }
  }
}

struct Traced {
  Wave wave;
  nlohmann::json stats;
  uint64_t end_ps = 0;
};

// Runs a program with and without --vcd; the statistics must be identical.
Traced run_traced(const std::string& platform, const std::string& program, const std::vector<std::string>& extra) {
  const std::string stem = tessera::test::temp_path("waves_mem_" + platform + "_" + program);
  std::vector<std::string> plain = {"run", platform, elf(program), "-q", "--stats", stem + ".plain.json"};
  plain.insert(plain.end(), extra.begin(), extra.end());
  std::vector<std::string> traced = {"run",     platform,       elf(program), "-q",
                                     "--stats", stem + ".json", "--vcd",      stem + ".fst"};
  traced.insert(traced.end(), extra.begin(), extra.end());
  const RunResult a = run_tessera(plain, 200), b = run_tessera(traced, 200);
  EXPECT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(b.status, 0) << b.err;
  Traced r;
  nlohmann::json with = read_json(stem + ".json"), without = read_json(stem + ".plain.json");
  r.stats = with;
  drop_host_fields(with);
  drop_host_fields(without);
  EXPECT_EQ(with, without) << "tracing changed the statistics";
  r.wave = read_wave(stem + ".fst");
  EXPECT_GT(r.wave.signals.size(), 0u) << "no signals in " << stem << ".fst";
  for (const auto& [name, c] : r.wave.signals)
    if (!c.empty()) r.end_ps = std::max(r.end_ps, c.back().t);
  r.end_ps += 1;
  if (!::testing::Test::HasFailure())  // kept for a look when a check failed
    for (const char* ext : {".json", ".plain.json", ".fst"}) std::filesystem::remove(stem + ext);
  return r;
}

// A number of the HBM preset file (models/dram/presets/NAME.yaml).
uint64_t preset(const std::string& spec, const std::string& key) {
  const std::string text = tessera::test::read_file(std::string(PRESET_DIR) + "/" + spec + ".yaml");
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("(^|\\n)\\s*" + key + ":\\s*(\\d+)"))) {
    ADD_FAILURE() << key << " not in preset " << spec;
    return 0;
  }
  return std::stoull(m[2]);
}

enum Cmd : uint64_t {
  kNop = 0,
  kAct = 1,
  kRd = 2,
  kWr = 3,
  kRda = 4,
  kWra = 5,
  kPre = 6,
  kPrea = 7,
  kRef = 8,
  kRefsb = 9
};

struct Command {
  uint64_t t, cmd, bank, row;
};

std::string fmt_pc(unsigned p) { return "chip.hbm.pc" + std::to_string(p); }

// Every command a pseudo channel's `cmd` and `cmd2` signals show: one per
// DRAM cycle while the signal holds a command.
std::vector<Command> commands(const Wave& w, const std::string& pc, uint64_t tck, uint64_t end) {
  std::vector<Command> out;
  for (const std::string& prefix : {pc + ".cmd", pc + ".cmd2"}) {
    std::vector<uint64_t> times;
    for (const char* part : {"", "_bank", "_row"})
      for (const Change& c : w.at(prefix + part)) times.push_back(c.t);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    for (size_t i = 0; i < times.size(); ++i) {
      const uint64_t cmd = w.value(prefix, times[i]);
      if (cmd == kNop) continue;
      const uint64_t until = i + 1 < times.size() ? times[i + 1] : end;
      for (uint64_t t = times[i]; t < until; t += tck)
        out.push_back({t, cmd, w.value(prefix + "_bank", times[i]), w.value(prefix + "_row", times[i])});
    }
  }
  // Row-bus commands before column commands of the same instant.
  std::stable_sort(out.begin(), out.end(), [](const Command& a, const Command& b) {
    const bool ca = a.cmd == kRd || a.cmd == kWr, cb = b.cmd == kRd || b.cmd == kWr;
    return a.t != b.t ? a.t < b.t : (!ca && cb);
  });
  return out;
}

void check_hbm(const Traced& r, unsigned expect_min_writes) {
  const std::string spec = r.stats["config"]["parameters"]["dram.spec"];
  const uint64_t tck = preset(spec, "tck_ps");
  const uint64_t trcdrd = preset(spec, "tRCDRD") * tck, trcdwr = preset(spec, "tRCDWR") * tck;
  ASSERT_GT(trcdrd, 0u);
  const Wave& w = r.wave;
  uint64_t acts = 0, columns = 0, writes = 0, refreshes = 0;
  unsigned pcs = 0;
  for (unsigned p = 0; w.has(fmt_pc(p) + ".cmd"); ++p, ++pcs) {
    const std::string pc = fmt_pc(p);
    unsigned banks = 0;
    while (w.has(pc + ".bank" + std::to_string(banks) + ".open")) ++banks;
    ASSERT_GT(banks, 0u) << pc;
    struct Bank {
      bool open = false;
      uint64_t act_t = 0, row = 0;
    };
    std::vector<Bank> bank(banks);
    for (const Command& c : commands(w, pc, tck, r.end_ps)) {
      SCOPED_TRACE(pc + " at " + std::to_string(c.t) + " ps, command " + std::to_string(c.cmd) + " bank " +
                   std::to_string(c.bank) + " row " + std::to_string(c.row));
      ASSERT_LT(c.bank, banks);
      Bank& b = bank[c.bank];
      const std::string bank_scope = pc + ".bank" + std::to_string(c.bank);
      switch (c.cmd) {
        case kAct:
          EXPECT_FALSE(b.open) << "ACT to an open bank";
          b = Bank{true, c.t, c.row};
          EXPECT_EQ(w.value(bank_scope + ".open", c.t), 1u);
          EXPECT_EQ(w.value(bank_scope + ".row", c.t), c.row);
          ++acts;
          break;
        case kPre:
          b.open = false;
          EXPECT_EQ(w.value(bank_scope + ".open", c.t), 0u);
          break;
        case kRd:
        case kWr:
          ASSERT_TRUE(b.open) << "column command to a closed bank (a PRE since its ACT, or no ACT)";
          EXPECT_EQ(c.row, b.row) << "column command to another row than the ACT opened";
          EXPECT_GE(c.t - b.act_t, c.cmd == kRd ? trcdrd : trcdwr) << "less than tRCD after the ACT";
          EXPECT_EQ(w.value(bank_scope + ".open", c.t), 1u);
          EXPECT_EQ(w.value(bank_scope + ".row", c.t), c.row);
          ++columns;
          writes += c.cmd == kWr;
          break;
        case kRef:
          for (unsigned k = 0; k < banks; ++k) {
            EXPECT_FALSE(bank[k].open) << "REF with bank " << k << " open";
            EXPECT_EQ(w.value(pc + ".bank" + std::to_string(k) + ".open", c.t), 0u) << "bank " << k;
          }
          EXPECT_EQ(w.value(pc + ".refresh", c.t), 1u);
          ++refreshes;
          break;
        case kRefsb:
          EXPECT_FALSE(b.open) << "REFSB of an open bank";
          EXPECT_EQ(w.value(pc + ".refresh", c.t), 1u);
          ++refreshes;
          break;
        default:
          ADD_FAILURE() << "a command the model does not issue";
      }
    }
  }
  EXPECT_GT(pcs, 0u) << "no pseudo channel signals";
  const auto& dram = r.stats["chip"]["dram"];
  EXPECT_EQ(acts, dram["acts"].get<uint64_t>());
  EXPECT_EQ(columns, dram["bursts"].get<uint64_t>());
  EXPECT_EQ(refreshes, dram["refreshes"].get<uint64_t>());
  EXPECT_GE(writes, expect_min_writes);
  EXPECT_GT(columns, 0u);
}

void check_l2(const Traced& r) {
  const uint64_t period =
      static_cast<uint64_t>(1e6 / std::stod(r.stats["config"]["parameters"]["clock.l2_mhz"].get<std::string>()));
  const auto& l2 = r.stats["chip"]["l2"];
  unsigned slices = 0;
  uint64_t total = 0;
  for (unsigned s = 0; l2.contains("slice" + std::to_string(s)); ++s, ++slices) {
    const auto& st = l2["slice" + std::to_string(s)];
    const std::string scope = "chip.l2.slice" + std::to_string(s);
    SCOPED_TRACE(scope);
    const uint64_t reads = st["reads"], writes = st["writes"], atomics = st["atomics"];
    const uint64_t hits = strobe_count(r.wave, scope + ".hit", period, r.end_ps);
    const uint64_t misses = strobe_count(r.wave, scope + ".miss", period, r.end_ps);
    EXPECT_EQ(hits + misses, reads + atomics);
    EXPECT_EQ(strobe_count(r.wave, scope + ".req", period, r.end_ps), reads + writes + atomics);
    if (st["miss_sectors"].get<uint64_t>() > 0) {
      EXPECT_GT(misses, 0u);
    }
    if (st["hit_sectors"].get<uint64_t>() > 0) {
      EXPECT_GT(hits, 0u);
    }
    EXPECT_EQ(r.wave.value(scope + ".mem_outstanding", r.end_ps), 0u);
    EXPECT_EQ(r.wave.value(scope + ".mshr", r.end_ps), 0u);
    total += hits + misses;
  }
  EXPECT_GT(slices, 0u);
  EXPECT_GT(total, 0u);
}

TEST(WavesHbm, SgemmCommandsKeepTheProtocolAndMatchTheStatistics) {
  const Traced r = run_traced("chip_hbm", "sgemm", {});
  check_hbm(r, 0);
  check_l2(r);
}

TEST(WavesHbm, VecaddWithASmallL2WritesBackAndKeepsTheProtocol) {
  // An 8 KiB L2 evicts dirty lines: DRAM writes.
  const Traced r = run_traced("chip_hbm", "vecadd", {"--set", "l2.size_kb=8"});
  check_hbm(r, 1);
  check_l2(r);
}

uint64_t period_ps(const Traced& r, const std::string& clock) {
  return static_cast<uint64_t>(1e6 / std::stod(r.stats["config"]["parameters"][clock].get<std::string>()));
}

// (the value of each of `values` at each high cycle of `strobe`).
std::vector<std::vector<uint64_t>> at_strobes(const Wave& w, const std::string& strobe,
                                              const std::vector<std::string>& values, uint64_t period, uint64_t end) {
  std::vector<std::vector<uint64_t>> out;
  const auto& c = w.at(strobe);
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i].v != 1) continue;
    const uint64_t until = i + 1 < c.size() ? c[i + 1].t : end;
    for (uint64_t t = c[i].t; t < until; t += period) {
      std::vector<uint64_t> row;
      for (const std::string& v : values) row.push_back(w.value(v, t));
      out.push_back(row);
    }
  }
  return out;
}

// Memory request signals carry addresses: every request an SM sends
// (chip.smN.mem.req, its req_addr, req_op) reaches an L2 slice as one
// request of the same line, operation and SM (req_addr, req_kind, req_sm),
// and every DRAM burst (a RD or WR, cmd_addr) is of a line the SMs asked L2
// for. An 8 KiB L2 makes write-backs.
TEST(WavesAddresses, ARequestCarriesItsLineFromTheSmToTheDram) {
  const Traced r = run_traced("chip_hbm", "vecadd", {"--set", "l2.size_kb=8"});
  const Wave& w = r.wave;
  const uint64_t sm_period = period_ps(r, "clock.sm_mhz"), l2_period = period_ps(r, "clock.l2_mhz");
  std::multiset<std::vector<uint64_t>> sent, received;
  std::set<uint64_t> lines;
  for (unsigned sm = 0; w.has("chip.sm" + std::to_string(sm) + ".mem.req"); ++sm) {
    const std::string m = "chip.sm" + std::to_string(sm) + ".mem";
    for (auto row : at_strobes(w, m + ".req", {m + ".req_addr", m + ".req_op"}, sm_period, r.end_ps)) {
      lines.insert(row[0]);
      row.push_back(sm);
      sent.insert(row);
    }
  }
  for (unsigned s = 0; w.has("chip.l2.slice" + std::to_string(s) + ".req"); ++s) {
    const std::string l = "chip.l2.slice" + std::to_string(s);
    for (const auto& row :
         at_strobes(w, l + ".req", {l + ".req_addr", l + ".req_kind", l + ".req_sm"}, l2_period, r.end_ps))
      received.insert(row);
  }
  EXPECT_GT(sent.size(), 100u);
  EXPECT_TRUE(sent == received) << sent.size() << " requests sent by the SMs, " << received.size()
                                << " received by the L2 slices";
  const uint64_t tck = preset(r.stats["config"]["parameters"]["dram.spec"], "tck_ps");
  uint64_t bursts = 0;
  for (unsigned p = 0; w.has(fmt_pc(p) + ".cmd"); ++p) {
    for (const Command& c : commands(w, fmt_pc(p), tck, r.end_ps)) {
      if (c.cmd != kRd && c.cmd != kWr) continue;
      const uint64_t addr = w.value(fmt_pc(p) + ".cmd_addr", c.t);
      EXPECT_EQ(lines.count(addr & ~uint64_t{127}), 1u)
          << fmt_pc(p) << " at " << c.t << ": a burst of 0x" << std::hex << addr << ", a line no SM asked for";
      ++bursts;
    }
  }
  EXPECT_EQ(bursts, r.stats["chip"]["dram"]["bursts"].get<uint64_t>());
}

// `tessera trace-query RUN.fst --addr A:LEN` on a real run lists, for a
// line, exactly the SM requests, L2 requests and DRAM bursts the waveform
// holds for it (counted here through fst2vcd), in time order.
TEST(TraceQuery, ARunsTransactionsOnALineAreThoseOfItsWaveform) {
  const std::string fst = tessera::test::temp_path("trace_query_vecadd.fst");
  const std::string json = tessera::test::temp_path("trace_query_vecadd.json");
  RunResult r =
      run_tessera({"run", "chip_hbm", elf("vecadd"), "-q", "--vcd", fst, "--stats", json, "--set", "l2.size_kb=8"});
  ASSERT_EQ(r.status, 0) << r.err;
  Traced run;
  run.stats = read_json(json);
  const Wave& w = run.wave = read_wave(fst);
  uint64_t end = 0;
  for (const auto& [name, c] : w.signals)
    if (!c.empty()) end = std::max(end, c.back().t + 1);
  const uint64_t sm_period = period_ps(run, "clock.sm_mhz"), l2_period = period_ps(run, "clock.l2_mhz");
  const uint64_t tck = preset(run.stats["config"]["parameters"]["dram.spec"], "tck_ps");
  // The line of sm1's fifth request, and what the signals say of it.
  const auto requests = at_strobes(w, "chip.sm1.mem.req", {"chip.sm1.mem.req_addr"}, sm_period, end);
  ASSERT_GT(requests.size(), 5u);
  const uint64_t line = requests[4][0];
  unsigned sm = 0, l2 = 0, bursts = 0;
  for (unsigned i = 0; w.has("chip.sm" + std::to_string(i) + ".mem.req"); ++i) {
    const std::string m = "chip.sm" + std::to_string(i) + ".mem";
    for (const auto& row : at_strobes(w, m + ".req", {m + ".req_addr"}, sm_period, end)) sm += row[0] == line;
  }
  for (unsigned i = 0; w.has("chip.l2.slice" + std::to_string(i) + ".req"); ++i) {
    const std::string l = "chip.l2.slice" + std::to_string(i);
    for (const auto& row : at_strobes(w, l + ".req", {l + ".req_addr"}, l2_period, end)) l2 += row[0] == line;
  }
  for (unsigned p = 0; w.has(fmt_pc(p) + ".cmd"); ++p)
    for (const Command& c : commands(w, fmt_pc(p), tck, end))
      if ((c.cmd == kRd || c.cmd == kWr) && (w.value(fmt_pc(p) + ".cmd_addr", c.t) & ~uint64_t{127}) == line) ++bursts;
  ASSERT_GT(l2, 0u);

  std::ostringstream range;
  range << "0x" << std::hex << line << ":128";
  r = run_tessera({"trace-query", fst, "--addr", range.str()});
  ASSERT_EQ(r.status, 0) << r.err;
  unsigned got_sm = 0, got_l2 = 0, got_bursts = 0;
  double last = 0;
  std::istringstream out(r.out);
  std::string text;
  std::getline(out, text);
  std::ostringstream title;
  title << std::hex << std::setfill('0') << " transactions on [0x" << std::setw(8) << line << ", 0x" << std::setw(8)
        << line + 128 << ") in " << fst;
  EXPECT_NE(text.find(title.str()), std::string::npos) << text;
  std::getline(out, text);  // the header
  while (std::getline(out, text)) {
    std::istringstream fields(text);
    double ns = 0;
    std::string unit, cycle, op;
    fields >> ns >> unit >> cycle >> op;
    EXPECT_GE(ns, last) << text;
    last = ns;
    got_sm += unit.rfind("sm", 0) == 0;
    got_l2 += unit.rfind("l2.", 0) == 0;
    got_bursts += unit.rfind("hbm.", 0) == 0 && (op == "RD" || op == "WR");
  }
  EXPECT_EQ(got_sm, sm) << r.out;
  EXPECT_EQ(got_l2, l2) << r.out;
  EXPECT_EQ(got_bursts, bursts) << r.out;
  std::filesystem::remove(fst);
  std::filesystem::remove(json);
}

// A query names what is wrong with its input.
TEST(TraceQuery, BadInputIsNamed) {
  RunResult r = run_tessera({"trace-query", "/nonexistent.fst", "--addr", "0x100"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/nonexistent.fst: not a readable FST file"), std::string::npos) << r.err;
  r = run_tessera({"trace-query", "run.vcd", "--addr", "0x100"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("give an FST file"), std::string::npos) << r.err;
  r = run_tessera({"trace-query", "run.fst", "--addr", "counter"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("name the program with --program ELF"), std::string::npos) << r.err;
  r = run_tessera({"trace-query", "run.fst", "--addr", "0x100:0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("length '0'"), std::string::npos) << r.err;
}

TEST(WavesFixedMemory, OutstandingRequestsStayWithinTheQueueAndDrain) {
  const Traced r = run_traced("chip", "vecadd", {});
  const auto& c = r.wave.at("chip.memory.outstanding");
  ASSERT_FALSE(c.empty());
  const uint64_t depth = std::stoull(r.stats["config"]["parameters"]["memory.queue_depth"].get<std::string>());
  uint64_t max = 0, rises = 0, prev = 0;
  for (const Change& ch : c) {
    max = std::max(max, ch.v);
    if (ch.v > prev) rises += ch.v - prev;
    prev = ch.v;
  }
  EXPECT_GT(max, 0u);
  EXPECT_LE(max, depth);
  EXPECT_EQ(c.back().v, 0u);
  const auto& mem = r.stats["chip"]["memory"];
  EXPECT_LE(rises, mem["reads"].get<uint64_t>() + mem["writes"].get<uint64_t>());
  check_l2(r);
}

}  // namespace
