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
};

struct SystemStats {
  uint64_t requests = 0, read_requests = 0, write_requests = 0;
  uint64_t bursts = 0, bytes = 0;
  uint64_t read_latency_sum = 0;                 // cycles, arrival to data end
  std::vector<uint64_t> read_latency_histogram;  // bucket = cycles
  uint64_t rejected = 0;                         // enqueue refused (queue full)
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

  // Accepts the whole request (all its bursts) or nothing (false: a queue is
  // full). `cycle` must be >= now(); cycles before it are decided first.
  // Throws std::out_of_range for an address beyond capacity.
  bool enqueue(const MemRequest& request, uint64_t cycle);
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
  std::vector<unsigned> need_;        // scratch: bursts per channel of one request
  std::vector<DramAddress> decoded_;  // scratch: the bursts of one request
  size_t live_ = 0;
  uint64_t now_ = 0;
  SystemStats stats_;
};

}  // namespace tessera::dram
