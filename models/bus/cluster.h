// The control-core cluster: N cores' private L1 instruction and data caches,
// kept coherent by snooping on one split-transaction bus, with a bridge to
// the rest of the chip (a mem::MemorySide). A pure C++ cycle-stepped engine:
// the SystemC shell (cpu::ControlCluster) calls tick()/advance_to() from one
// SC_METHOD and sleeps until next_event_cycle().
//
// Its parts, one per file: a CacheController per cache (stable states from
// the protocol table, outstanding requests in the transient states of
// transient.h), the SnoopBus (request table, arbiters, snoop order,
// response bus) with snoop() deciding what a snoop does to every cache, and
// the Bridge (slots toward memory). The snoop bus is the cluster's
// ordering point and the controllers its coherence agents
// (bus/ordering_point.h): a directory could take the bus's place. The
// cluster runs them through the phases of a cycle, delivering each event
// (an access, a grant, an ordered transaction, a snoop, a fill) to the
// controller it concerns, and
// decides only what no single cache can: the bus order, the snoop result
// and the sharers taking a BusUpd's word. It keeps the watchdog and
// registers the statistics.
//
// Bus (Culler & Singh §6.5, the SGI Challenge design):
//  - request bus: one arbitrated request per cycle (BusUpd two cycles: it
//    carries its word); the winner gets a tag in the request table
//    (cluster.bus.request_table entries system-wide). A line with an
//    outstanding transaction is not requested again until it completes, so
//    the order in which requests win the bus is the serialization order.
//  - snoop: cluster.bus.snoop_latency cycles after the grant every other
//    cache (and write-back buffer) looks the line up in the protocol table;
//    the wired-OR shared/dirty lines decide the requester's row. A supplier
//    whose response queue (or the bridge, when memory must answer) is full
//    NACKs: nothing changes, the tag is freed and the requester retries
//    after cluster.bus.nack_backoff cycles.
//  - response bus: its own arbiter over every cache's response queue and
//    the bridge; a line takes line_bits / cluster.bus.width_bits cycles.
//    Responses carry the tag and return in any order.
// Every cycle runs the same fixed phases, in agent order, so nothing depends
// on the order a simulator runs processes in: deliver finished responses;
// start the next response; resolve snoops due; grant the request bus;
// cores' accesses.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bus/arbiter.h"
#include "bus/bridge.h"
#include "bus/bus_response.h"
#include "bus/cache_controller.h"
#include "bus/contention_manager.h"
#include "bus/op.h"
#include "bus/snoop_bus.h"
#include "bus/transient.h"
#include "mem/cache_array.h"
#include "mem/coherence_checker.h"
#include "mem/coherence_failure.h"
#include "mem/coherence_protocol.h"
#include "mem/memory_side.h"
#include "mem/store_buffer.h"
#include "sim/in_flight.h"
#include "sim/timeline.h"

namespace tessera::sim {
class Config;
class StatGroup;
}  // namespace tessera::sim

namespace tessera::bus {

struct ClusterParams {
  uint32_t cores = 4;
  mem::Protocol protocol = mem::Protocol::kMesi;
  mem::CacheGeometry l1d = mem::CacheGeometry::make("cluster.l1d", 32 * 1024, 4, 64);
  mem::CacheGeometry l1i = mem::CacheGeometry::make("cluster.l1i", 32 * 1024, 4, 64);
  uint32_t hit_latency = 1;  // cycles from a hit to completion
  std::string arbiter = "round_robin";
  uint32_t request_table = 8;
  uint32_t width_bits = 256;
  uint32_t snoop_latency = 2;
  bool tso = false;
  uint32_t store_buffer_entries = 8;
  uint32_t wb_buffer_entries = 2;
  uint32_t response_queue_entries = 2;
  uint32_t bridge_queue_entries = 4;
  uint32_t nack_backoff = 4;
  bool skip_idle = true;
  uint64_t deadlock_cycles = 100000;
  bool check = true;  // run the coherence checker on every access
  HtmParams htm;
  // On the chip only (for_chip): the bridge's path to global memory and the
  // kernel-launch coherence points.
  uint32_t memory_latency = 120;
  bool launch_coherence = true;

  // Declares and reads the cluster.* parameters of the engine (the
  // coherence-test command's cluster).
  static ClusterParams from_config(sim::Config& cfg);
  // The same plus the chip's cluster.memory_latency and
  // cluster.launch_coherence: every cluster.* key the chip has.
  static ClusterParams for_chip(sim::Config& cfg);
};

// Counters for statistics and the tester's summary.
struct ClusterCounters {
  uint64_t bus_ops[static_cast<size_t>(mem::BusOp::kCount)] = {};
  uint64_t value_changes = 0;  // stores, SCs, and AMOs that changed the word (the progress watchdog)
  uint64_t cache_to_cache = 0;
  uint64_t memory_reads = 0;
  uint64_t memory_writes = 0;  // write-backs and flushes reaching memory
  uint64_t nacks = 0;
  uint64_t wb_snoop_hits = 0;
  uint64_t data_beats = 0;
  uint64_t request_bus_busy = 0;
  uint64_t max_grant_wait = 0;  // longest wait from wanting the bus to its grant
  uint64_t ops_completed = 0;
  uint64_t sb_forwards = 0;
};

// One bus event, for tests and traces.
struct BusEvent {
  // kData: a response starts crossing the response bus (kResponse: it has
  // crossed); `until` is the cycle the bus is free again.
  enum Kind { kGrant, kNack, kOrdered, kResponse, kData } kind;
  uint64_t cycle;
  mem::BusOp op;
  uint32_t agent;  // requester
  uint32_t tag;
  uint64_t line;
  int source;           // kResponse, kData: supplying agent, or -1 for the bridge
  uint64_t until = 0;   // kGrant: the cycle the request bus is free again; kData: the response bus
  bool shared = false;  // kOrdered: the wired-OR shared line of the snoop
  bool dirty = false;   // kOrdered: a dirty copy (or a write-back buffer) answered instead of memory
};

class Cluster : public sim::InFlightReporter, private mem::CacheView {
 public:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

  // `table` replaces the protocol's standard table (tests mutate rows).
  Cluster(const ClusterParams& params, mem::MemorySide& memory, sim::StatGroup* stats_parent = nullptr,
          std::optional<mem::ProtocolTable> table = std::nullopt);
  ~Cluster() override;
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  // Processor side. A core has a data port (loads, stores, AMOs, LR/SC,
  // fences) and a fetch port; each takes one operation at a time. The
  // operation starts at the next tick; on_done runs at the end of the tick
  // in which it completes (a TSO store completes when it enters the store
  // buffer) and may issue the port's next operation. Throws
  // std::invalid_argument for a misaligned, badly sized or unmapped access
  // and std::logic_error when the port is busy.
  bool port_free(uint32_t core, bool fetch) const;
  void issue(uint32_t core, const Op& op, DoneFn on_done);

  void tick();                      // one bus cycle
  void advance_to(uint64_t cycle);  // ticks (or skips idle cycles) up to and including `cycle`
  uint64_t now() const { return ctx_.now; }
  // The next cycle at which anything can change; kNever when nothing is in
  // flight and no port has work.
  uint64_t next_event_cycle() const;
  bool idle() const;  // no operation, buffered store or bus transaction anywhere

  // Functional access for loaders and debuggers: the coherent value (a
  // cached copy, a write-back buffer or memory); the write updates every
  // copy and memory. Buffered stores are not seen. The line must have no
  // bus transaction in flight (std::logic_error otherwise).
  uint32_t debug_read(uint64_t addr, uint32_t size) const;
  void debug_write(uint64_t addr, uint32_t size, uint32_t value);
  // The same a line at a time (a line-aligned address): the newest copy of
  // every byte of the line into out[line_bytes()]; pieces of one line
  // written in order (a later piece wins), memory read and written once.
  struct DebugPiece {
    uint32_t offset, size, value;  // size 1, 2 or 4 at offset in the line
  };
  void debug_read_line(uint64_t line, uint8_t* out) const;
  void debug_write_line(uint64_t line, const DebugPiece* pieces, size_t count);
  uint32_t line_bytes() const { return line_bytes_; }

  // Coherence point with agents outside the cluster (the SMs): every dirty
  // line (caches and write-back buffers) is written to memory and every
  // cache is emptied, so the next access of any line reads memory. Only when
  // idle() (std::logic_error otherwise). Returns the lines written back.
  uint32_t write_back_and_invalidate_all();

  // HTM (bus/htm.h, docs/htm.md): a core's transaction has aborted (its
  // operations complete without effect) and it must issue kTxRollback and
  // restore its register checkpoint; the status its tx.begin then returns.
  bool tx_abort_pending(uint32_t core) const;
  bool tx_running(uint32_t core) const;
  uint32_t tx_status(uint32_t core) const;
  const HtmCounters& htm_counters(uint32_t core) const { return agents_.at(l1d_agent(core))->tx.counters; }
  // Firmware counts its fallback-lock acquisitions here (CSR txfallback).
  uint64_t& fallback_locks(uint32_t core) { return agents_.at(l1d_agent(core))->tx.counters.fallback_locks; }

  // A coherence violation, protocol error or deadlock stops the cluster.
  bool failed() const { return ctx_.failed(); }
  const mem::CoherenceFailure& failure_info() const { return ctx_.failure; }
  const std::string& failure() const { return ctx_.failure_text; }  // failure_info().text()

  const ClusterParams& params() const { return params_; }
  // The cluster's statistics node ("cluster", with bus, bridge and
  // core0..N children holding l1d and l1i); the SystemC shell adds the
  // cores' own counters to the core nodes.
  sim::StatGroup& stats() { return *stats_; }
  sim::StatGroup& core_stats(uint32_t core) { return *core_stats_.at(core); }
  const mem::ProtocolTable& table() const { return table_; }
  const std::vector<uint64_t>& row_hits() const { return row_hits_; }
  const ClusterCounters& counters() const { return counters_; }
  const AgentCounters& agent_counters(uint32_t agent) const;
  uint64_t checker_checks() const;
  // Events the HTM (serialisability) checker has checked.
  uint64_t htm_checker_events() const { return htm_checker_ ? htm_checker_->events() : 0; }
  // Agents: core c's L1D is agent 2c, its L1I agent 2c+1.
  static uint32_t l1d_agent(uint32_t core) { return 2 * core; }
  static uint32_t l1i_agent(uint32_t core) { return 2 * core + 1; }
  mem::State state_of(uint32_t agent, uint64_t addr) const;
  // The transient state of the agent's outstanding request or write-back
  // for the line of `addr` (kNone: none; a line never has both), and whether
  // the bus has granted it.
  Transient transient_of(uint32_t agent, uint64_t addr) const;
  bool granted(uint32_t agent, uint64_t addr) const;
  void set_bus_trace(std::function<void(const BusEvent&)> trace) { trace_ = std::move(trace); }
  // Called with (agent, line, state) whenever an L1D line changes state;
  // state as bus/cluster_waves.h codes it (stable or transient).
  void set_line_trace(std::function<void(uint32_t, uint64_t, uint8_t)> trace);
  // --timeline: each bus transaction, grant to the freeing of its tag, as an
  // async slice on `track`; NACKs as instants. Cycles are `cycle_ps` long.
  void set_timeline(sim::Timeline* t, int track, uint64_t cycle_ps);
  std::string describe_line(uint64_t line) const override;
  // sim::InFlightReporter: each core's outstanding bus requests with their
  // transient states, buffered stores and write-backs, the request table,
  // the response queues and bus, and the bridge's slots.
  std::string describe_in_flight() const override;

 private:
  using Agent = CacheController;
  using Txn = SnoopBus::Txn;
  using Response = BusResponse;
  using Completion = PortCompletion;
  using Port = ControllerPort;

  // mem::CacheView
  uint32_t agent_count() const override;
  mem::State line_state(uint32_t agent, uint64_t line) const override;
  const uint8_t* line_data(uint32_t agent, uint64_t line) const override;

  void validate(const Op& op, uint32_t core) const;
  void deliver_responses();
  void start_response();
  void resolve_snoops();
  void resolve(uint32_t tag);
  // The contention manager at a snoop (cluster_contention.cpp): aborts the
  // holders it decides against; returns whether the requester waits (NACK)
  // or aborts.
  enum class Contention { kProceed, kNack, kAbortRequester };
  Contention contend(const Txn& t, TxReason* requester_reason);
  void grant_request();
  void run_cores();
  void free_tag(uint32_t tag);
  void protocol_error(uint64_t line, const std::string& what) { ctx_.protocol_error(line, what); }
  void check_failure() { ctx_.check_failure(); }
  void fail(mem::CoherenceFailure failure) { ctx_.fail(std::move(failure)); }
  void progress() { ctx_.progress(); }
  void count_row(int row) { ctx_.count_row(row); }
  void trace(BusEvent::Kind kind, mem::BusOp op, uint32_t agent, uint32_t tag, uint64_t line, int source,
             uint64_t until = 0, bool shared = false, bool dirty = false);
  void register_stats(sim::StatGroup* parent);

  ClusterParams params_;
  mem::MemorySide& memory_;
  mem::ProtocolTable table_;
  uint32_t line_bytes_;
  std::vector<uint8_t> debug_line_;  // debug_write_line's copy of the line
  uint32_t beats_per_line_;
  // The bus-deadlock watchdog: cluster.deadlock_cycles, and at least
  // kDeadlockLatencies memory read latencies.
  static constexpr uint32_t kDeadlockLatencies = 8;
  uint64_t deadlock_window_;
  std::vector<std::unique_ptr<Agent>> agents_;
  SnoopBus bus_;
  ClusterCounters counters_;  // before bridge_, which counts memory reads and writes into it
  Bridge bridge_;
  std::vector<std::pair<DoneFn, uint32_t>> callback_buffer_;
  // grant_request's per-cycle working sets, kept to avoid reallocating.
  struct Presented {
    int port = -1;  // the cache's oldest eligible demand miss
    int wb = -1;    // else its oldest write-back
    uint64_t since = 0;
  };
  std::vector<Presented> presented_scratch_;
  void prioritise_transactions(std::vector<Candidate>& candidates, const std::vector<Presented>& presented) const;
  std::vector<Candidate> candidate_scratch_;
  std::unique_ptr<mem::CoherenceChecker> checker_;
  std::unique_ptr<mem::HtmChecker> htm_checker_;
  std::function<void(const BusEvent&)> trace_;
  sim::Timeline* timeline_ = nullptr;
  int timeline_track_ = -1;
  uint64_t timeline_cycle_ps_ = 0, timeline_seq_ = 0;
  std::vector<uint64_t> timeline_ids_;  // per tag: its transaction's id in the timeline (0: none)
  void timeline_event(BusEvent::Kind kind, mem::BusOp op, uint32_t agent, uint32_t tag, uint64_t line);
  std::vector<uint64_t> row_hits_;
  // What the controllers share with the cluster: the clock, progress,
  // completions and the failure.
  ControllerContext ctx_;
  std::unique_ptr<sim::StatGroup> stats_;
  std::unique_ptr<sim::StatGroup> bus_stats_, bridge_stats_;
  std::vector<std::unique_ptr<sim::StatGroup>> core_stats_;
  std::vector<std::unique_ptr<sim::StatGroup>> agent_stats_;
  std::vector<std::unique_ptr<sim::StatGroup>> htm_stats_;
  std::unique_ptr<ContentionManager> contention_;  // htm.policy
};

}  // namespace tessera::bus
