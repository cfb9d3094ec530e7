// Waveform signals of the network (docs/waveforms.md), kept apart from the
// routers so a network without a waveform does no tracing work at all (the
// routers only test a null pointer). Under the interconnect's scope
// (chip.noc):
// - rR.outP.{valid, vc, packet, head, tail}: per router output link, valid
//   is 1 in the cycle a flit enters the link (the switch granted it at s,
//   it enters the link at s + sa + st and is in the next buffer from
//   s + sa + st + link); the other signals hold that flit's output VC,
//   packet id (low 32 bits), head and tail bits until the next flit.
// - rR.inP.vcV.occupancy: flits present in an input VC buffer (from the
//   cycle a flit arrives, its ready cycle, until the switch takes it).
// - niN.{inject_queue, eject_queue}: set by the interconnect.
// Ports: 0 local (the network interface; out0 is the ejection link), 1 +x
// (east), 2 -x (west), 3 +y (north), 4 -y (south); ports without a link (a
// mesh edge) have no signals. Events are stamped for the cycle they happen
// in and written when the network has been stepped to that cycle (flush()):
// the network is stepped every cycle while a flit is in flight, so no event
// waits longer than its own cycle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "noc/flit.h"
#include "noc/noc_params.h"
#include "noc/topology.h"

namespace tessera::sim {
class Waveform;
class ClockDomain;
}  // namespace tessera::sim

namespace tessera::noc {

class NocWaves {
 public:
  // Registers the signals of every router in `scope` (+ ".rR..."); `model`
  // says which routers are C++ models (the co-simulated ones have no
  // signals).
  NocWaves(sim::Waveform& wave, const std::string& scope, const NocParams& p, const Topology& topo,
           const std::vector<bool>& model);

  // Whether any router signal passed --trace-scope (else the routers need
  // not report to it).
  bool any() const { return any_; }

  // A flit placed in router `router`'s input VC buffer `index` (port * vcs
  // + vc), present from f.ready_cycle.
  void arrived(int router, int index, const Flit& f);
  // A flit that left input VC `index` of `router` at `now` through output
  // `port` (f already carries its output VC).
  void sent(int router, int index, int port, const Flit& f, uint64_t now);
  // Writes every event of cycles up to `cycle` (the network's last stepped
  // cycle) at its cycle's time on `clock`.
  void flush(uint64_t cycle, const sim::ClockDomain& clock);

 private:
  struct Link {
    int valid = -1, vc = -1, packet = -1, head = -1, tail = -1;
    uint64_t last_cycle = UINT64_MAX;  // cycle of the last flit on it
    uint64_t vc_v = 0, packet_v = 0, head_v = 0, tail_v = 0;
    bool high = false;
  };
  struct Vc {
    int occupancy = -1;
    int count = 0;
  };
  enum class Kind : uint8_t { kArrive, kLeave, kLink, kLinkClear };
  struct Event {
    Kind kind;
    uint32_t target;  // a Vc or Link index
    uint64_t packet;
    uint8_t vc;
    bool head, tail;
  };
  void push(uint64_t cycle, const Event& e);

  sim::Waveform& wave_;
  int ports_, vcs_;
  int link_delay_;           // switch grant to entering the link: sa + st
  std::vector<Link> links_;  // router * ports + port
  std::vector<Vc> vcs_of_;   // (router * ports + port) * vcs + vc
  // Events by cycle, in a ring of buckets (cycle mod size); no event is
  // stamped more than size - 1 cycles ahead.
  std::vector<std::vector<Event>> buckets_;
  uint64_t flushed_ = 0;  // every cycle before this has been written
  bool any_ = false;
};

}  // namespace tessera::noc
