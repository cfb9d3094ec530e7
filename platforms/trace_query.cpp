#include "platforms/trace_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "bus/cluster_waves.h"
#include "dram/hbm_memory.h"
#include "isa/elf_loader.h"
#include "sim/config.h"
#include "sim/mem_ext.h"

namespace tessera::platform {

namespace {

using rtl::SignalTrace;
using Signals = std::map<std::string, SignalTrace>;

constexpr uint64_t kSmLineBytes = 128;  // mem::kLineBytes: SM and L2 requests are for lines
constexpr uint64_t kBurstBytes = 32;    // the L2 asks memory for 32-byte sectors
enum DramCode : uint64_t { kNop = 0, kAct = 1, kRd = 2, kWr = 3, kRda = 4, kWra = 5, kPre = 6 };

uint64_t value_at(const SignalTrace* s, uint64_t t) {
  if (!s) return 0;
  const auto& c = s->changes;
  auto it = std::upper_bound(c.begin(), c.end(), t, [](uint64_t x, const auto& ch) { return x < ch.first; });
  return it == c.begin() ? 0 : std::prev(it)->second;
}

const SignalTrace* find(const Signals& s, const std::string& name) {
  const auto it = s.find(name);
  return it == s.end() ? nullptr : &it->second;
}

std::string enum_name(const sim::WaveEnum& e, uint64_t v) {
  for (const auto& [value, name] : e.values)
    if (value == v) return name;
  return std::to_string(v);
}

// A clock's period from the times a signal changes at its edges: their
// greatest common divisor (0 when it never changed after time 0).
// `after_edge`: the signal changes that many ps after the edge (HBM's
// signals change 1 ps after it, when the controller decides the cycle).
uint64_t period_of(const SignalTrace* s, uint64_t after_edge = 0) {
  uint64_t g = 0;
  if (!s) return 0;
  for (const auto& change : s->changes)
    if (change.first > after_edge) g = std::gcd(g, change.first - after_edge);
  return g;
}

bool overlaps(uint64_t a, uint64_t size, const AddressQuery& q) { return a < q.addr + q.len && q.addr < a + size; }

// "chip.sm2.mem" -> "sm2.mem".
std::string unit_name(const std::string& scope) { return scope.rfind("chip.", 0) == 0 ? scope.substr(5) : scope; }

// Scopes S with a signal S.<leaf>.
std::vector<std::string> scopes_with(const Signals& s, const std::string& leaf) {
  std::vector<std::string> out;
  const std::string tail = "." + leaf;
  for (const auto& [name, trace] : s)
    if (name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
      out.push_back(name.substr(0, name.size() - tail.size()));
  return out;
}

// The instants of each cycle a one-cycle strobe is high: a strobe high for
// n cycles in a row stands for n events. One still high when the file ends
// (the run stopped before the cycle that clears it) stands for one.
std::vector<uint64_t> strobe_cycles(const SignalTrace& strobe, uint64_t period) {
  std::vector<uint64_t> out;
  const auto& c = strobe.changes;
  for (size_t i = 0; i < c.size(); ++i) {
    if (!c[i].second) continue;
    const uint64_t n = period && i + 1 < c.size() ? std::max<uint64_t>(1, (c[i + 1].first - c[i].first) / period) : 1;
    for (uint64_t k = 0; k < n; ++k) out.push_back(c[i].first + k * period);
  }
  return out;
}

// Line requests (an SM's towards L2, an L2 slice's): each cycle the scope's
// `req` strobe is high and its `req_addr` line touches the range gives
// describe(scope, t, line), a Transaction without its time and cycle. The
// scopes are those with a signal `marker` (req_warp: SMs, req_sm: slices).
template <typename Describe>
void line_requests(const Signals& s, const char* marker, const AddressQuery& q, std::vector<Transaction>& out,
                   Describe describe) {
  for (const std::string& scope : scopes_with(s, marker)) {
    const SignalTrace* strobe = find(s, scope + ".req");
    const SignalTrace* addr = find(s, scope + ".req_addr");
    if (!strobe || !addr) continue;
    const uint64_t period = period_of(strobe);
    for (const uint64_t t : strobe_cycles(*strobe, period)) {
      const uint64_t a = value_at(addr, t);
      if (!overlaps(a, kSmLineBytes, q)) continue;
      Transaction e = describe(scope, t, a);
      e.time_ps = t;
      e.cycle = period ? t / period : 0;
      out.push_back(std::move(e));
    }
  }
}

void sm_requests(const Signals& s, const AddressQuery& q, std::vector<Transaction>& out) {
  line_requests(s, "req_warp", q, out, [&](const std::string& scope, uint64_t t, uint64_t line) {
    return Transaction{0,
                       0,
                       1,
                       unit_name(scope),
                       enum_name(sim::kMemOpWave, value_at(find(s, scope + ".req_op"), t)),
                       line,
                       fmt::format("warp {}", value_at(find(s, scope + ".req_warp"), t))};
  });
}

void l2_requests(const Signals& s, const AddressQuery& q, std::vector<Transaction>& out) {
  line_requests(s, "req_sm", q, out, [&](const std::string& scope, uint64_t t, uint64_t line) {
    const bool hit = value_at(find(s, scope + ".hit"), t), miss = value_at(find(s, scope + ".miss"), t);
    return Transaction{0,
                       0,
                       2,
                       unit_name(scope),
                       enum_name(sim::kMemOpWave, value_at(find(s, scope + ".req_kind"), t)),
                       line,
                       fmt::format("from sm{}{}", value_at(find(s, scope + ".req_sm"), t),
                                   hit    ? ", hit"
                                   : miss ? ", miss"
                                          : "")};
  });
}

void dram_commands(const Signals& s, const AddressQuery& q, std::vector<Transaction>& out) {
  for (const std::string& scope : scopes_with(s, "cmd_addr")) {
    const SignalTrace* cmd = find(s, scope + ".cmd");
    if (!cmd) continue;
    const uint64_t period = period_of(cmd, 1);
    const auto cycle = [&](uint64_t t) { return period ? t / period : 0; };
    // Column commands (in `cmd`): each instant cmd, its address, bank or row changes.
    std::set<uint64_t> times;
    for (const char* part : {"", "_addr", "_bank", "_row"})
      if (const SignalTrace* p = find(s, scope + ".cmd" + part))
        for (const auto& change : p->changes) times.insert(change.first);
    std::set<std::pair<uint64_t, uint64_t>> rows;  // (bank, row) of the bursts on the range
    for (const uint64_t t : times) {
      const uint64_t c = value_at(cmd, t);
      if (c != kRd && c != kWr && c != kRda && c != kWra) continue;
      const uint64_t a = value_at(find(s, scope + ".cmd_addr"), t);
      if (!overlaps(a, kBurstBytes, q)) continue;
      const uint64_t bank = value_at(find(s, scope + ".cmd_bank"), t), row = value_at(find(s, scope + ".cmd_row"), t);
      rows.emplace(bank, row);
      out.push_back({t, cycle(t), 3, unit_name(scope), enum_name(dram::kDramCmd, c), a,
                     fmt::format("bank {} row 0x{:x}", bank, row)});
    }
    // Row commands (in `cmd`, or `cmd2` beside a column command) that open
    // or close a row those bursts use.
    for (const std::string& slot : {scope + ".cmd", scope + ".cmd2"}) {
      const SignalTrace* c = find(s, slot);
      if (!c) continue;
      std::set<uint64_t> at;
      for (const char* part : {"", "_bank", "_row"})
        if (const SignalTrace* p = find(s, slot + part))
          for (const auto& change : p->changes) at.insert(change.first);
      for (const uint64_t t : at) {
        const uint64_t kind = value_at(c, t);
        if (kind != kAct && kind != kPre) continue;
        const uint64_t bank = value_at(find(s, slot + "_bank"), t);
        // An ACT names its row; a PRE closes the row the bank holds.
        const uint64_t row = kind == kAct ? value_at(find(s, slot + "_row"), t)
                                          : value_at(find(s, fmt::format("{}.bank{}.row", scope, bank)), t);
        if (!rows.count({bank, row})) continue;
        out.push_back({t, cycle(t), 3, unit_name(scope), enum_name(dram::kDramCmd, kind), 0,
                       fmt::format("bank {} row 0x{:x}", bank, row), false});
      }
    }
  }
}

void bus_requests(const Signals& s, const AddressQuery& q, std::vector<Transaction>& out) {
  for (const std::string& scope : scopes_with(s, "req_valid")) {
    const SignalTrace* valid = find(s, scope + ".req_valid");
    const SignalTrace* addr = find(s, scope + ".req_addr");
    if (!addr) continue;
    const uint64_t period = period_of(valid);
    // A grant raises req_valid or, right after another, changes what it carries.
    std::set<uint64_t> times;
    for (const char* part : {"valid", "addr", "cmd", "core", "tag"})
      if (const SignalTrace* p = find(s, scope + ".req_" + part))
        for (const auto& change : p->changes) times.insert(change.first);
    for (const uint64_t t : times) {
      if (!value_at(valid, t)) continue;
      const uint64_t a = value_at(addr, t);
      if (!overlaps(a, q.bus_line_bytes, q)) continue;
      out.push_back({t, period ? t / period : 0, 0, unit_name(scope),
                     enum_name(bus::kBusCmdWave, value_at(find(s, scope + ".req_cmd"), t)), a,
                     fmt::format("core {} tag {}", value_at(find(s, scope + ".req_core"), t),
                                 value_at(find(s, scope + ".req_tag"), t))});
    }
  }
}

struct QueryArgs {
  std::string file, range, program;
  uint64_t bus_line_bytes = 64;
};

AddressQuery parse_range(const QueryArgs& a) {
  const auto bad = [&](const std::string& why) {
    return sim::ConfigError(
        fmt::format("--addr {}: {} (ADDR[:LEN], ADDR hex, decimal or a symbol of --program)", a.range, why));
  };
  AddressQuery q;
  q.bus_line_bytes = a.bus_line_bytes;
  std::string addr = a.range, len = "1";
  if (const size_t colon = addr.find(':'); colon != std::string::npos) {
    len = addr.substr(colon + 1);
    addr.resize(colon);
  }
  char* end = nullptr;
  if (!addr.empty() && std::isdigit(static_cast<unsigned char>(addr[0]))) {
    q.addr = std::strtoull(addr.c_str(), &end, 0);
    if (*end != '\0' || q.addr > 0xffffffffull) throw bad(fmt::format("'{}' is not a 32-bit address", addr));
  } else if (a.program.empty()) {
    throw bad(fmt::format("'{}' is not a number; name the program with --program ELF to use its symbols", addr));
  } else if (const auto sym = isa::load_elf(a.program).symbol(addr)) {
    q.addr = *sym;
  } else {
    throw bad(fmt::format("{} has no symbol '{}'", a.program, addr));
  }
  q.len = std::strtoull(len.c_str(), &end, 0);
  if (len.empty() || *end != '\0' || q.len == 0 || q.len > 0x100000000ull)
    throw bad(fmt::format("length '{}' is not a number of bytes from 1 to 4 GiB", len));
  if (a.bus_line_bytes == 0 || (a.bus_line_bytes & (a.bus_line_bytes - 1)))
    throw sim::ConfigError(fmt::format("--bus-line-bytes {}: not a power of two", a.bus_line_bytes));
  return q;
}

}  // namespace

bool transaction_signal(const std::string& name) {
  static const std::set<std::string> leaves = {"req",       "req_addr", "req_op",   "req_warp",  "req_kind",
                                               "req_sm",    "hit",      "miss",     "cmd",       "cmd_addr",
                                               "cmd_bank",  "cmd_row",  "cmd2",     "cmd2_bank", "cmd2_row",
                                               "req_valid", "req_cmd",  "req_core", "req_tag",   "row"};
  const size_t dot = name.rfind('.');
  return leaves.count(dot == std::string::npos ? name : name.substr(dot + 1)) != 0;
}

std::vector<Transaction> query_transactions(const Signals& signals, const AddressQuery& q) {
  std::vector<Transaction> out;
  bus_requests(signals, q, out);
  sm_requests(signals, q, out);
  l2_requests(signals, q, out);
  dram_commands(signals, q, out);
  std::stable_sort(out.begin(), out.end(), [](const Transaction& a, const Transaction& b) {
    return std::tie(a.time_ps, a.order, a.unit) < std::tie(b.time_ps, b.order, b.unit);
  });
  return out;
}

std::string format_transactions(const std::vector<Transaction>& t, const AddressQuery& q, const std::string& file) {
  std::string out =
      fmt::format("{} transactions on [0x{:08x}, 0x{:08x}) in {}\n", t.size(), q.addr, q.addr + q.len, file);
  if (t.empty()) return out;
  out += fmt::format("{:>14}  {:<14} {:>10}  {:<9} {}\n", "time (ns)", "unit", "cycle", "op", "address");
  for (const Transaction& e : t)
    out += fmt::format("{:>14.3f}  {:<14} {:>10}  {:<9} {:<10}  {}\n", static_cast<double>(e.time_ps) / 1000.0, e.unit,
                       e.cycle, e.op, e.has_addr ? fmt::format("0x{:08x}", e.addr) : "", e.detail);
  return out;
}

sim::ToolCommand add_trace_query_command(CLI::App& app) {
  auto args = std::make_shared<QueryArgs>();
  CLI::App* cmd =
      app.add_subcommand("trace-query",
                         "List every transaction on an address range in an FST waveform of a run: SM requests, L2 "
                         "requests, DRAM commands and coherent-bus requests, in time order (docs/waveforms.md)");
  cmd->add_option("file", args->file, "The waveform (.fst) of a run: tessera run ... --vcd FILE.fst")->required();
  cmd->add_option("--addr", args->range, "ADDR[:LEN]: the byte range (ADDR hex, decimal or a symbol of --program)")
      ->required();
  cmd->add_option("--program", args->program, "The run's ELF, for --addr by symbol");
  cmd->add_option("--bus-line-bytes", args->bus_line_bytes,
                  "The control cluster's line size (cluster.line_bytes) a bus request covers")
      ->capture_default_str();
  return {
      cmd, [args] {
        const AddressQuery q = parse_range(*args);
        const std::string& f = args->file;
        if (f.size() < 4 || f.compare(f.size() - 4, 4, ".fst") != 0)
          throw sim::ConfigError(fmt::format(
              "tessera trace-query {}: give an FST file (tessera run ... --vcd RUN.fst; vcd2fst converts a VCD)", f));
        const rtl::FstContents wave = rtl::read_fst(f, transaction_signal);
        if (wave.timescale != -12)
          throw sim::ConfigError(fmt::format("{}: time unit 1e{} s, not Tessera's 1 ps", f, wave.timescale));
        if (wave.signals.empty())
          throw sim::ConfigError(
              fmt::format("{}: no signal that carries an address (chip.smN.mem.req_addr, chip.l2.sliceS.req_addr, "
                          "chip.hbm.pcP.cmd_addr, chip.cluster.bus.req_addr); were they left out by --trace-scope?",
                          f));
        fmt::print("{}", format_transactions(query_transactions(wave.signals, q), q, f));
        return 0;
      }};
}

}  // namespace tessera::platform
