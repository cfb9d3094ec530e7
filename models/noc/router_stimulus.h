// Constrained-random stimulus for one NoC router (docs/cosim.md, "Block-level
// random testing"): upstream senders on every input port with their own
// credit-tracked VCs (packets of 1 to 20 flits, longer than a VC buffer, of
// every class), and downstream buffers on every output that return credits
// at a rate that changes every 2,000 cycles (down to none: credit stalls and
// back-pressure), all from one seeded generator. The router under test sits
// behind Dut: the C++ Router, the RTL, or both in lockstep. Used by the
// co-simulation tests (testbenches/cosim/noc_router_test.cpp) and by
// `tessera rtl-test noc_router`. No SystemC.
#pragma once

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "noc/channel.h"
#include "noc/flit.h"
#include "noc/noc_params.h"
#include "noc/router.h"
#include "noc/topology_grid.h"

namespace tessera::noc::stimulus {

// xorshift64*: the same sequence on every host.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545F4914F6CDD1Dull;
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }

 private:
  uint64_t s_;
};

// One router under test, the C++ model or the RTL, behind the same calls.
class Dut {
 public:
  virtual ~Dut() = default;
  virtual void connect(int port, FlitTarget out, OutputChannel* credits_to) = 0;
  virtual void deliver(int port, const Flit& f) = 0;
  virtual void credit(int port, uint64_t ready, int vc) = 0;
  virtual void step(uint64_t now) = 0;
  virtual nlohmann::json stats() const = 0;
};

// What a router did, in the order it did it.
struct SentFlit {
  int port, vc;
  uint64_t packet_id, ready_cycle;
  int index, hops;
  bool operator==(const SentFlit& o) const {
    return port == o.port && vc == o.vc && packet_id == o.packet_id && ready_cycle == o.ready_cycle &&
           index == o.index && hops == o.hops;
  }
};
std::string describe(const SentFlit& s);
struct ReturnedCredit {
  int port, vc;
  uint64_t ready;
  bool operator==(const ReturnedCredit& o) const { return port == o.port && vc == o.vc && ready == o.ready; }
};

// Knobs of the random environment (percentages).
struct Traffic {
  int new_packet = 30;                  // an idle sender starts a packet
  int send = 85;                        // a sender with a credit sends its next flit
  int long_packets = 30;                // packets of 9..20 flits (longer than a VC buffer: credit stalls)
  int drain_min = 20, drain_max = 100;  // a downstream buffer returns a credit (varies by phase)
};

// Upstream senders on every input port and downstream buffers on every
// output port of one router, all from one seeded generator.
class Environment {
 public:
  Environment(const NocParams& p, const GridTopology& topo, int id, Dut& dut, uint64_t seed, Traffic traffic);

  // Cycle `now`: senders send, the router steps, buffers drain. What the
  // router sent is appended to `flits` and `credits` (the caller takes it).
  void step(uint64_t now);

  std::deque<SentFlit> flits;
  std::deque<ReturnedCredit> credits;
  uint64_t packets = 0, flits_sent = 0;

 private:
  struct Sender {
    OutputChannel channel;
    bool busy = false;
    int dst = 0, cls = 0, size = 0, index = 0, vc = -1, pointer = 0;
    uint64_t packet_id = 0;
  };
  struct Sink {
    std::deque<Flit> arriving;
    std::vector<int> held;  // per VC: flits in the buffer, credits not returned
  };

  void send(int port, uint64_t now);
  void drain(int port, uint64_t now);

  const NocParams& p_;
  const GridTopology& topo_;
  int id_;
  Dut& dut_;
  Rng rng_;
  Traffic traffic_;
  int drain_ = 100;
  std::vector<Sender> senders_;
  std::vector<Sink> sinks_;
  std::vector<std::deque<Flit>> captured_flits_;
  std::vector<OutputChannel> captured_credits_;
};

}  // namespace tessera::noc::stimulus
