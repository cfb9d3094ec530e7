#include "noc/traffic.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "noc/network.h"
#include "sim/config.h"

namespace tessera::noc {

namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

uint32_t Rng::below(uint32_t n) { return static_cast<uint32_t>(((next() >> 32) * n) >> 32); }

const std::vector<std::string>& pattern_names() {
  static const std::vector<std::string> names{"uniform", "transpose", "bitcomp", "bitrev", "shuffle",
                                              "tornado", "neighbor",  "hotspot", "trace"};
  return names;
}

TrafficPattern::TrafficPattern(Pattern pattern, const Topology& topo, std::vector<int> hotspots,
                               double hotspot_fraction)
    : pattern_(pattern),
      topo_(topo),
      grid_(topo.grid()),
      hotspots_(std::move(hotspots)),
      hotspot_fraction_(hotspot_fraction) {
  const int n = topo.nodes();
  while ((1 << bits_) < n) ++bits_;
  const std::string& name = pattern_names()[static_cast<int>(pattern)];
  const bool bit_pattern =
      pattern == Pattern::kBitComplement || pattern == Pattern::kBitReverse || pattern == Pattern::kShuffle;
  if (bit_pattern && (1 << bits_) != n)
    throw sim::ConfigError(fmt::format(
        "noc.traffic: '{}' permutes node-number bits and needs a power-of-two node count (have {})", name, n));
  const bool needs_grid =
      pattern == Pattern::kTranspose || pattern == Pattern::kTornado || pattern == Pattern::kNeighbor;
  if (needs_grid && !grid_)
    throw sim::ConfigError(fmt::format(
        "noc.traffic: '{}' needs router coordinates (a ring, mesh or torus); a {} has none", name, topo.name()));
  if (pattern == Pattern::kTranspose && (grid_->dims() != 2 || grid_->k() != grid_->m()))
    throw sim::ConfigError("noc.traffic: 'transpose' needs a square mesh or torus (noc.k == noc.m)");
  if (pattern == Pattern::kHotspot) {
    if (hotspots_.empty()) throw sim::ConfigError("noc.hotspot.nodes: the hotspot pattern needs at least one node");
    for (int h : hotspots_)
      if (h < 0 || h >= n)
        throw sim::ConfigError(fmt::format("noc.hotspot.nodes: node {} does not exist (nodes 0..{})", h, n - 1));
  }
}

int TrafficPattern::destination(int src, Rng& rng) const {
  const int n = topo_.nodes();
  const int mask = (1 << bits_) - 1;
  switch (pattern_) {
    case Pattern::kUniform:
      return static_cast<int>(rng.below(static_cast<uint32_t>(n)));
    case Pattern::kTranspose:
      return grid_->node_at(grid_->y(src), grid_->x(src));
    case Pattern::kBitComplement:
      return ~src & mask;
    case Pattern::kBitReverse: {
      int d = 0;
      for (int b = 0; b < bits_; ++b)
        if (src & (1 << b)) d |= 1 << (bits_ - 1 - b);
      return d;
    }
    case Pattern::kShuffle:
      return ((src << 1) & mask) | ((src >> (bits_ - 1)) & 1);
    case Pattern::kTornado:
    case Pattern::kNeighbor: {
      // Tornado sends each coordinate ceil(k/2)-1 ahead, neighbour one ahead.
      int c[2] = {grid_->x(src), grid_->y(src)};
      for (int d = 0; d < grid_->dims(); ++d) {
        const int k = grid_->extent(d);
        const int shift = pattern_ == Pattern::kTornado ? (k + 1) / 2 - 1 : 1;
        c[d] = (c[d] + shift) % k;
      }
      return grid_->node_at(c[0], grid_->dims() == 2 ? c[1] : 0);
    }
    case Pattern::kHotspot:
      if (rng.uniform() < hotspot_fraction_) return hotspots_[rng.below(static_cast<uint32_t>(hotspots_.size()))];
      return static_cast<int>(rng.below(static_cast<uint32_t>(n)));
  }
  return src;
}

BernoulliSource::BernoulliSource(const Topology& topo, const TrafficPattern& pattern, double flit_rate,
                                 int packet_flits, int classes, uint64_t seed)
    : pattern_(pattern), packet_rate_(flit_rate / packet_flits), packet_flits_(packet_flits), classes_(classes) {
  if (packet_rate_ > 1.0)
    throw sim::ConfigError(
        fmt::format("noc.rate: {} flits/node/cycle with {}-flit packets is more than one packet "
                    "per node per cycle",
                    flit_rate, packet_flits));
  for (int n = 0; n < topo.nodes(); ++n) {
    uint64_t s = seed * 0x100000001B3ull + static_cast<uint64_t>(n);
    rngs_.emplace_back(splitmix64(s));
    next_.push_back(packet_rate_ > 0 ? gap(rngs_.back()) : std::numeric_limits<uint64_t>::max());
  }
}

// Failures before the first success of Bernoulli(p) trials: geometric.
uint64_t BernoulliSource::gap(Rng& rng) const {
  if (packet_rate_ >= 1.0) return 0;
  const double u = 1.0 - rng.uniform();  // (0, 1]
  return static_cast<uint64_t>(std::floor(std::log(u) / std::log1p(-packet_rate_)));
}

uint64_t BernoulliSource::generate(uint64_t now, Network& net, bool measured) {
  uint64_t flits = 0;
  for (size_t n = 0; n < next_.size(); ++n) {
    if (next_[n] != now) continue;
    Rng& rng = rngs_[n];
    Packet p;
    p.src = static_cast<int>(n);
    p.dst = pattern_.destination(p.src, rng);
    p.cls = classes_ > 1 ? static_cast<int>(rng.below(static_cast<uint32_t>(classes_))) : 0;
    p.flits = packet_flits_;
    p.create_cycle = now;
    p.measured = measured;
    net.enqueue(p);
    flits += static_cast<uint64_t>(packet_flits_);
    next_[n] = now + 1 + gap(rng);
  }
  return flits;
}

uint64_t BernoulliSource::next_creation() const { return *std::min_element(next_.begin(), next_.end()); }

namespace {

// A trace number: decimal (leading zeros too: "010" is ten, not octal eight)
// or hexadecimal with 0x, at most INT64_MAX (UINT64_MAX means "never" to the
// measurement loop).
std::optional<uint64_t> trace_number(const std::string& word, bool* too_large) {
  const bool hex = word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
  const char* begin = word.data() + (hex ? 2 : 0);
  const char* end = word.data() + word.size();
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, value, hex ? 16 : 10);
  if (begin == end || ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range)) return std::nullopt;
  *too_large = ec == std::errc::result_out_of_range || value > uint64_t{std::numeric_limits<int64_t>::max()};
  return value;
}

}  // namespace

std::vector<TraceRecord> read_trace(std::istream& in, const std::string& origin, int nodes, int classes,
                                    int default_flits) {
  std::vector<TraceRecord> records;
  std::string line;
  uint64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    std::vector<uint64_t> v;
    std::string word;
    while (fields >> word) {
      if (v.size() == 5)
        throw sim::ConfigError(fmt::format("{}:{}: expected 'cycle src dst [flits [class]]'", origin, line_no));
      bool too_large = false;
      const std::optional<uint64_t> x = trace_number(word, &too_large);
      if (!x) throw sim::ConfigError(fmt::format("{}:{}: '{}' is not a non-negative integer", origin, line_no, word));
      if (too_large)
        throw sim::ConfigError(
            fmt::format("{}:{}: '{}' is larger than {}", origin, line_no, word, std::numeric_limits<int64_t>::max()));
      v.push_back(*x);
    }
    if (v.empty()) continue;
    if (v.size() < 3)
      throw sim::ConfigError(fmt::format("{}:{}: expected 'cycle src dst [flits [class]]'", origin, line_no));
    // Every field is range-checked before it is narrowed to int.
    const uint64_t node_count = static_cast<uint64_t>(std::max(nodes, 0));
    if (v[1] >= node_count || v[2] >= node_count)
      throw sim::ConfigError(
          fmt::format("{}:{}: node {} does not exist (nodes 0..{})", origin, line_no, std::max(v[1], v[2]), nodes - 1));
    const uint64_t flits = v.size() > 3 ? v[3] : static_cast<uint64_t>(std::max(default_flits, 0));
    if (flits < 1 || flits > 65535)
      throw sim::ConfigError(fmt::format("{}:{}: packet length {} outside 1..65535 flits", origin, line_no, flits));
    const uint64_t cls = v.size() > 4 ? v[4] : 0;
    if (cls >= static_cast<uint64_t>(std::max(classes, 0)))
      throw sim::ConfigError(
          fmt::format("{}:{}: message class {} but noc.classes is {}", origin, line_no, cls, classes));
    TraceRecord r;
    r.cycle = v[0];
    r.src = static_cast<int>(v[1]);
    r.dst = static_cast<int>(v[2]);
    r.flits = static_cast<int>(flits);
    r.cls = static_cast<int>(cls);
    if (!records.empty() && r.cycle < records.back().cycle)
      throw sim::ConfigError(fmt::format("{}:{}: cycle {} is earlier than the previous record's {}", origin, line_no,
                                         r.cycle, records.back().cycle));
    records.push_back(r);
  }
  return records;
}

TraceSource::TraceSource(const std::string& path, int nodes, int classes, int default_flits) {
  std::ifstream in(path);
  if (!in) throw sim::ConfigError(fmt::format("noc.trace: cannot read trace file '{}'", path));
  records_ = read_trace(in, path, nodes, classes, default_flits);
}

uint64_t TraceSource::generate(uint64_t now, Network& net, bool measured) {
  uint64_t flits = 0;
  while (next_ < records_.size() && records_[next_].cycle <= now) {
    const TraceRecord& r = records_[next_++];
    Packet p;
    p.src = r.src;
    p.dst = r.dst;
    p.cls = r.cls;
    p.flits = r.flits;
    p.create_cycle = r.cycle;
    p.measured = measured;
    p.tag = next_ - 1;
    net.enqueue(p);
    flits += static_cast<uint64_t>(r.flits);
  }
  return flits;
}

uint64_t TraceSource::next_creation() const {
  return done() ? std::numeric_limits<uint64_t>::max() : records_[next_].cycle;
}

int TraceSource::max_flits() const {
  int m = 1;
  for (const auto& r : records_) m = std::max(m, r.flits);
  return m;
}

}  // namespace tessera::noc
