// Synthetic traffic as BookSim generates it (Dally & Towles ch. 3): a
// destination pattern, Bernoulli injection at a given rate, and trace-driven
// injection from a file.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "noc/flit.h"
#include "noc/topology_grid.h"

namespace tessera::noc {

class Network;

// xoshiro256** (Blackman & Vigna): fast, and the same sequence on every
// platform, so a seed reproduces a run exactly.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  double uniform();            // [0, 1)
  uint32_t below(uint32_t n);  // [0, n)

 private:
  uint64_t s_[4];
};

enum class Pattern { kUniform, kTranspose, kBitComplement, kBitReverse, kShuffle, kTornado, kNeighbor, kHotspot };
const std::vector<std::string>& pattern_names();  // in Pattern order, then "trace"

class TrafficPattern {
 public:
  // Throws sim::ConfigError (naming noc.traffic / noc.hotspot.*) when the
  // pattern does not fit the topology.
  TrafficPattern(Pattern pattern, const Topology& topo, std::vector<int> hotspots = {}, double hotspot_fraction = 0);
  int destination(int src, Rng& rng) const;

 private:
  Pattern pattern_;
  const Topology& topo_;
  const GridTopology* grid_;  // coordinates, for the patterns that need them
  int bits_ = 0;
  std::vector<int> hotspots_;
  double hotspot_fraction_;
};

// Where packets come from: creates the packets of a cycle and tells when
// the next one will be created (so an empty network can jump to it).
class PacketSource {
 public:
  virtual ~PacketSource() = default;
  // Enqueues the packets created in cycle `now`; returns the flits created.
  virtual uint64_t generate(uint64_t now, Network& net, bool measured) = 0;
  virtual uint64_t next_creation() const = 0;  // UINT64_MAX: never again
};

// Each node creates a packet in a cycle with probability rate / flits; the
// gaps are drawn as geometric variates from the node's own generator, so the
// next creation cycle is known ahead (idle skipping jumps to it) and the
// sequence does not depend on whether cycles were skipped.
class BernoulliSource : public PacketSource {
 public:
  BernoulliSource(const Topology& topo, const TrafficPattern& pattern, double flit_rate, int packet_flits, int classes,
                  uint64_t seed);
  uint64_t generate(uint64_t now, Network& net, bool measured) override;
  uint64_t next_creation() const override;

 private:
  uint64_t gap(Rng& rng) const;
  const TrafficPattern& pattern_;
  double packet_rate_;
  int packet_flits_, classes_;
  std::vector<Rng> rngs_;
  std::vector<uint64_t> next_;
};

struct TraceRecord {
  uint64_t cycle = 0;
  int src = 0, dst = 0, flits = 1, cls = 0;
};

// A trace: one packet per line, "cycle src dst [flits [class]]", cycles in
// non-decreasing order, '#' starts a comment. Throws sim::ConfigError
// "<origin>:<line>: ..." for a malformed line.
std::vector<TraceRecord> read_trace(std::istream& in, const std::string& origin, int nodes, int classes,
                                    int default_flits);

// Packets from a trace file (read_trace); errors name file and line.
class TraceSource : public PacketSource {
 public:
  TraceSource(const std::string& path, int nodes, int classes, int default_flits);
  uint64_t generate(uint64_t now, Network& net, bool measured) override;
  uint64_t next_creation() const override;
  bool done() const { return next_ >= records_.size(); }
  int max_flits() const;
  size_t size() const { return records_.size(); }

 private:
  std::vector<TraceRecord> records_;
  size_t next_ = 0;
};

}  // namespace tessera::noc
