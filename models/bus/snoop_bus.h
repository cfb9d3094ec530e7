// The cluster's split-transaction snooping bus (Culler & Singh §6.5, the SGI
// Challenge design), as shared state and its order:
//  - the request bus: an arbiter over the caches' requests, one grant a
//    cycle (a BusUpd holds the bus two cycles: it carries its word);
//  - the request table: one tagged entry per transaction from its grant to
//    its completion; a line with an entry is not granted again, so the order
//    of grants is the serialization order of every line;
//  - the snoop pipeline: granted tags in grant order, each resolved
//    cluster.bus.snoop_latency cycles after its grant;
//  - the response bus: an arbiter over the caches' response queues and the
//    bridge, one line at a time, line_bits / width_bits cycles each.
// The cluster decides what a snoop does to each cache (bus/cluster.cpp,
// resolve); the bus keeps who holds which tag, when, and in what order.
// It is the cluster's ordering point (bus/ordering_point.h): a directory
// would implement the same interface.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bus/arbiter.h"
#include "bus/bus_response.h"
#include "bus/cache_controller.h"
#include "bus/ordering_point.h"
#include "mem/coherence_protocol.h"

namespace tessera::bus {

class SnoopBus;

// What the snoop of a transaction finds in every other cache and write-back
// buffer, decided before anything is applied (a NACK must leave every cache
// as it was): each cache's row (the wired-OR shared line is a row keeping a
// copy; the dirty line, memory inhibit, a row that flushes or supplies or a
// write-back buffer holding the line).
struct SnoopResult {
  std::vector<int> rows;  // per agent: its row index, -1 when it has no copy (or is the requester)
  bool shared = false;    // some other cache keeps a copy
  int supplier = -1;      // the first cache whose row flushes or supplies
  bool flush = false;     // the supplier's row also writes memory
  int wb_holder = -1;     // a write-back buffer holding the line
  std::string error;      // a cache with no row for its state and the snooped event
};

class SnoopBus final : public OrderingPoint {
 public:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

  // One request-table entry.
  struct Txn {
    bool valid = false;
    uint32_t agent = 0;
    mem::BusOp op = mem::BusOp::kNone;
    uint64_t line = 0;
    bool write_back = false;                      // a WriteBack from the agent's write-back buffer
    ControllerPort port = ControllerPort::kData;  // the miss it serves
    uint64_t resolve_at = 0;
    bool resolved = false;
    int row = -1;  // the requester's row, chosen by the snoop result
  };

  // `agents` caches request; the response arbiter has one more input, the
  // bridge (index `agents`).
  SnoopBus(const std::string& arbiter, uint32_t agents, uint32_t table_entries);

  // Request table.
  int free_tag() const override;                 // the lowest free tag, -1 when the table is full
  bool line_free(uint64_t line) const override;  // no transaction for the line in flight
  bool table_full() const override;
  bool table_empty() const override;
  size_t table_size() const { return entries_.size(); }
  Txn& txn(uint32_t tag) { return *entries_[tag]; }
  const Txn& txn(uint32_t tag) const { return *entries_[tag]; }
  void free(uint32_t tag) override { entries_[tag]->valid = false; }

  // Request bus.
  uint64_t request_free_at() const { return request_free_at_; }
  uint32_t pick_request(const std::vector<Candidate>& candidates) { return request_arbiter_->pick(candidates); }
  // `tag` was granted; it holds the request bus until `busy_until` and its
  // snoop resolves at txn(tag).resolve_at.
  void granted(uint32_t tag, uint64_t busy_until) override;

  // Snoop pipeline, in grant order.
  bool snooping() const override { return !snooping_.empty(); }
  uint64_t next_snoop() const override { return snooping_.empty() ? kNever : entries_[snooping_.front()]->resolve_at; }
  uint32_t pop_snoop() override;

  // Response bus.
  bool responding() const { return on_bus_ != nullptr; }
  uint64_t response_free_at() const { return response_free_at_; }
  uint32_t pick_response(const std::vector<Candidate>& candidates) { return response_arbiter_->pick(candidates); }
  void start_response(std::unique_ptr<BusResponse> response, uint64_t free_at);
  const BusResponse& on_bus() const { return *on_bus_; }
  std::unique_ptr<BusResponse> finish_response() { return std::move(on_bus_); }

  // "cluster.bus: ..." lines for every transaction in flight and the
  // response on the data bus; `agent_name` names a requester.
  std::string describe_in_flight(std::string (*agent_name)(uint32_t)) const;

 private:
  std::vector<std::unique_ptr<Txn>> entries_;  // indexed by tag
  std::deque<uint32_t> snooping_;              // granted tags in grant order
  std::unique_ptr<Arbiter> request_arbiter_;
  std::unique_ptr<Arbiter> response_arbiter_;
  std::unique_ptr<BusResponse> on_bus_;
  uint64_t response_free_at_ = 0;
  uint64_t request_free_at_ = 0;
};

// The snoop of `t` by every cache but its requester.
SnoopResult snoop(const std::vector<std::unique_ptr<CacheController>>& caches, const SnoopBus::Txn& t,
                  const mem::ProtocolTable& table);

}  // namespace tessera::bus
