// The L2 slices (docs/architecture.md, "Memory system"): address-interleaved, sectored,
// write-back, with MSHRs and an atomic unit (gpu/l2_slice.h). The
// interconnect in front binds slice_socket once per slice, in slice order
// (binding k = slice k): the crossbar (gpu::CrossbarInterconnect) or the
// network-on-chip (noc::NocInterconnect). The slices reach memory through
// memory_socket, bound once per slice in slice order, so any TLM-2.0 AT memory
// (the fixed-latency one, HBM) plugs in.
//
// slice_socket is a sim::AtTargetPort. Behind the crossbar (`network_ports`
// false) a slice takes a request at once (TLM_UPDATED, END_REQ), with the
// annotated delay saying in which cycle it arrives; the crossbar asks
// has_room() first. Behind the network each binding has a one-request input
// queue: a request that arrives during cycle c is admitted from cycle c + 1
// (END_REQ), in the port's order (oldest first, then by binding), and moves
// into its slice when the slice has room.
//
// One SC_METHOD on the L2 clock advances every slice. A request or memory
// answer that arrives during cycle c is handled from cycle c + 1, whatever
// order SystemC runs the processes of that instant in, and the method sleeps
// through cycles in which nothing is due (l2.skip_idle; sim::ClockedMethod).
// A slice's answers leave as BEGIN_RESP in the cycle they are due, in slice
// order.
#pragma once

#include <deque>
#include <memory>
#include <queue>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpu/crossbar_interconnect.h"
#include "gpu/l2_slice.h"
#include "sim/at_initiator_port.h"
#include "sim/at_target_port.h"
#include "sim/clock.h"
#include "sim/clocked_method.h"
#include "sim/config.h"
#include "sim/in_flight.h"
#include "sim/payload_pool.h"
#include "sim/run_control.h"
#include "sim/stats.h"
#include "sim/timeline.h"
#include "sim/waveform.h"

namespace tessera::gpu {

class L2System : public sc_core::sc_module, public sim::InFlightReporter, public CrossbarTargets {
 public:
  using TargetPort = sim::AtTargetPort<L2System>;
  using MemoryPort = sim::AtInitiatorPort<L2System>;

 private:
  TargetPort sm_port_;

 public:
  decltype(sm_port_.socket)& slice_socket = sm_port_.socket;

  L2System(const sc_core::sc_module_name& name, sim::Config& cfg, bool network_ports, sim::RunControl& run,
           sim::StatGroup& stats_parent);
  ~L2System() override;

  unsigned slices() const { return static_cast<unsigned>(slices_.size()); }
  uint32_t capacity_bytes() const { return capacity_bytes_; }  // all slices
  // The memory-side socket; bind it once per slice, in slice order.
  decltype(std::declval<MemoryPort>().socket)& memory_socket(unsigned /*slice*/) { return mem_port_->socket; }
  unsigned slice_of(uint32_t addr) const;
  // CrossbarTargets: the slice of an address; whether a slice's input queue
  // had room at the start of `cycle`, counting the requests it took in it.
  unsigned targets() const override { return slices(); }
  const sim::ClockDomain& targets_clock() const override { return clock_; }
  unsigned target_of(uint64_t address) const override { return slice_of(static_cast<uint32_t>(address)); }
  bool has_room(unsigned slice, uint64_t cycle) const override;
  const sim::ClockDomain& clock() const { return clock_; }
  bool idle() const;
  // Requested sectors of reads and atomics over every slice.
  struct SectorTotals {
    uint64_t hits = 0, merged = 0, misses = 0;  // merged: found already being fetched
  };
  SectorTotals sector_totals() const;
  std::string describe_in_flight() const override;
  // Traces every slice (scope <name>.slice<S>): `req` when the tag pipeline
  // accepts a request, its `req_kind`, and for a read or atomic `hit` (every
  // requested sector present) or `miss` (strobes, one cycle), `mshr` (MSHRs
  // in use), `atomic_busy`, `mem_outstanding` (sector requests sent to
  // memory and not answered). Call during elaboration; null traces nothing.
  void set_waveform(sim::Waveform* wave);
  // --timeline: the L2 stage of sampled SM requests, sampled memory requests.
  void set_timeline(sim::Timeline* t);

 private:
  uint32_t capacity_bytes_ = 0;
  struct SliceWave {
    int req = -1, kind = -1, addr = -1, sm = -1, hit = -1, miss = -1, mshr = -1, atomic_busy = -1, mem_outstanding = -1;
    uint64_t strobe_cycle = L2Slice::kNever;  // the cycle whose strobes are up
    uint64_t outstanding = 0;
    std::deque<std::pair<uint64_t, uint64_t>> atomic;  // busy stretches of the atomic unit
  };
  struct Delivery {
    uint64_t cycle;
    uint64_t seq;  // keeps same-cycle deliveries in the order they were sent
    tlm::tlm_generic_payload* gp;
    bool operator>(const Delivery& o) const { return cycle != o.cycle ? cycle > o.cycle : seq > o.seq; }
  };
  struct Origin {
    int sm;                  // SM port
    sc_core::sc_time since;  // BEGIN_REQ
  };

  void on_request(const TargetPort::Request& r);
  bool take_request(const TargetPort::Request& r, const sc_core::sc_time& delay);
  void on_memory_answer(unsigned slice, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at);
  void on_memory_end_req(unsigned slice);
  void cycle();
  void admit(const sc_core::sc_time& now_time);
  void forward_requests(uint64_t now);
  void collect_answers(uint64_t now);
  void deliver(uint64_t now);
  void send_to_memory(uint64_t now);
  uint64_t next_cycle(uint64_t now) const;
  uint64_t now_ps() const { return sc_core::sc_time_stamp().value() / ps_; }
  void trace_begin(uint64_t now);
  // `served`: the request the slice looked up this cycle (a copy; nullptr: none).
  void trace_slice(unsigned s, const L2Stats& before, const L2Request* served, uint64_t now);
  uint64_t trace_next(uint64_t now) const;

  sim::RunControl& run_;
  sim::ClockDomain clock_;
  bool skip_idle_;
  bool xor_interleave_;
  std::vector<std::unique_ptr<L2Slice>> slices_;
  std::unique_ptr<MemoryPort> mem_port_;
  std::vector<size_t> popped_;  // requests each slice's queue released in the last processed cycle
  std::vector<std::deque<tlm::tlm_generic_payload*>> input_;      // per SM port, admitted
  std::unordered_map<tlm::tlm_generic_payload*, Origin> origin_;  // each request in flight
  // Answers crossing the crossbar, earliest first.
  std::priority_queue<Delivery, std::vector<Delivery>, std::greater<Delivery>> deliveries_;
  struct Fill {
    unsigned slice;
    uint32_t addr;
    uint64_t cycle;
  };
  std::vector<Fill> fills_;  // memory answers not yet applied
  sim::PayloadPool pool_;
  uint64_t seq_ = 0;
  sim::ClockedMethod clocked_;
  sim::Waveform* wave_ = nullptr;
  std::vector<SliceWave> wave_slices_;
  uint64_t ps_ = 1;

  sim::StatGroup stats_;
  std::vector<std::unique_ptr<sim::StatGroup>> slice_stats_;
  uint64_t slice_full_stall_cycles_ = 0;  // behind a network

  // A sampled SM request entered slice `slice` in `cycle`.
  void timeline_stage(const tlm::tlm_generic_payload& gp, unsigned slice, uint64_t cycle);
  void timeline_memory_request(const MemoryRequest& m, unsigned slice, uint64_t now);
  sim::Timeline* timeline_ = nullptr;
  int timeline_track_ = -1;
};

}  // namespace tessera::gpu
