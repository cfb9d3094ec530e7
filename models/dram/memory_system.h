// The DRAM engine: the HBM stacks' channels, one controller each, the
// address map, the protocol checker and the energy model. Pure C++ driven
// by an explicit cycle API (command-clock cycles):
//   enqueue(request, cycle)  a request of any size (split into bursts)
//   advance_to(cycle)        decide every cycle before `cycle`
//   next_event_cycle()       the next cycle anything can happen
// Completion is reported when the last burst's column command issues, with
// the cycle its data transfer ends.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dram/address_map.h"
#include "dram/checker.h"
#include "dram/controller.h"
#include "dram/energy.h"
#include "dram/spec.h"

namespace tessera::dram {

struct DramConfig {
  DramSpec spec;
  ControllerParams controller;
  std::string address_map = "ro-ba-co-bg-pc-ch";
  bool xor_bank_hash = false;
  bool skip_idle = true;
  bool check_protocol = true;
  unsigned logic_layer_cycles = 0;  // base-die PHY + TSV crossing, added to every access
};

struct MemRequest {
  uint64_t id = 0;
  uint64_t address = 0;  // DRAM address (0 .. capacity)
  uint32_t bytes = 32;
  bool is_write = false;
  uint8_t source = 0;  // the requester, for schedulers that rank sources (Transaction::source)
};

struct SystemStats {
  uint64_t requests = 0, read_requests = 0, write_requests = 0;
  uint64_t bursts = 0, bytes = 0;
  uint64_t read_latency_sum = 0;                 // cycles, arrival to data end
  std::vector<uint64_t> read_latency_histogram;  // bucket = cycles
  uint64_t rejected = 0;                         // enqueue refused (queue full or closed)
  uint64_t last_done = 0;
};

class MemorySystem {
 public:
  using Completion = std::function<void(uint64_t id, uint64_t done_cycle)>;

  MemorySystem(const DramConfig& config, Completion on_complete);
  MemorySystem(const MemorySystem&) = delete;
  MemorySystem& operator=(const MemorySystem&) = delete;

  const DramSpec& spec() const { return config_.spec; }
  const DramConfig& config() const { return config_; }
  const AddressMap& address_map() const { return map_; }
  uint64_t capacity() const { return config_.spec.capacity_bytes(); }

  // Accepts the whole request (all its bursts) or nothing (false): it is
  // refused if the queue of one of its bursts (a pseudo channel's read or
  // write queue) is full, or if one of its pseudo channels is closed. A
  // refused request closes the pseudo channels of its bursts to every later
  // request of the same cycle, so a source that offers its waiting requests
  // oldest first lets younger ones pass a request waiting for a full queue,
  // never one to the same pseudo channel: the requests to one address keep
  // their order. `cycle` must be >= now(); cycles before it are decided
  // first. Throws std::out_of_range for an address beyond capacity.
  bool enqueue(const MemRequest& request, uint64_t cycle);
  // A request split into its bursts once, for a source that offers it
  // again every cycle until it is accepted.
  struct Split {
    MemRequest request;
    std::vector<DramAddress> bursts;
  };
  // Fills `out` (reusing its storage). Throws std::out_of_range for an
  // address beyond capacity.
  void split(const MemRequest& request, Split& out) const;
  bool enqueue(const Split& request, uint64_t cycle);
  // False if a queue of one of the bursts is full, so that enqueue would
  // refuse the request now (true does not promise that it accepts it).
  bool may_accept(const Split& request) const {
    for (const DramAddress& a : request.bursts)
      if (!channels_[a.channel]->can_accept(a.pc, request.request.is_write, 1)) return false;
    return true;
  }
  // The pseudo channels of the whole system, numbered 0 .. queue_count()-1:
  // each has its own read and write queue.
  unsigned queue_id(const DramAddress& a) const { return a.channel * config_.spec.org.pseudo_channels + a.pc; }
  unsigned queue_count() const { return static_cast<unsigned>(closed_.size()); }
  void advance_to(uint64_t cycle);
  uint64_t next_event_cycle() const;
  uint64_t now() const { return now_; }
  bool idle() const;
  size_t outstanding() const { return live_; }

  // Ends the run at `end`: background energy, end-of-run checker rules.
  void finish(uint64_t end);

  void add_observer(CommandObserver* o);
  const ProtocolChecker& checker() const { return checker_; }
  const EnergyModel& energy() const { return energy_; }
  const SystemStats& stats() const { return stats_; }
  ChannelStats channel_totals() const;
  const ChannelController& channel(unsigned c) const { return *channels_[c]; }
  unsigned channels() const { return static_cast<unsigned>(channels_.size()); }
  double p99_read_latency_cycles() const;

 private:
  struct Pending {
    uint64_t id = 0, arrival = 0, done = 0;
    unsigned bursts_left = 0;
    bool is_write = false;
  };
  void burst_done(const Transaction& t, uint64_t done);

  DramConfig config_;
  Completion on_complete_;
  AddressMap map_;
  ProtocolChecker checker_;
  EnergyModel energy_;
  std::vector<std::unique_ptr<ChannelController>> channels_;
  std::vector<Pending> pending_;  // slot per request in flight
  std::vector<uint32_t> free_slots_;
  std::vector<unsigned> need_;      // scratch: bursts per pseudo channel of one request
  std::vector<uint8_t> closed_;     // per pseudo channel: closed for the rest of closed_cycle_
  uint64_t closed_cycle_ = kNever;  // the cycle closed_ applies to (kNever: none closed)
  Split scratch_;                   // the bursts of a request offered unsplit
  size_t live_ = 0;
  uint64_t now_ = 0;
  SystemStats stats_;
};

}  // namespace tessera::dram
