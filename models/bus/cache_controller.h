// One cache's controller in the cluster (a core's L1D or L1I, a bus agent):
// its array with the stable state of every line, the processor ports it
// serves, one outstanding request (MSHR) per port in its transient state
// (bus/transient.h), its write-back buffer and its response queue, and the
// core's store buffer and LR reservation (L1D). Like a gem5 SLICC
// controller it takes events and answers with transitions and actions:
// its processor's accesses (run_port: hit, miss and MSHR allocation, victim
// write-back, store-buffer drain, LR/SC), its fills (fill) and the snoops of
// other caches' transactions (apply_snoop, snoop_write_back). The cluster
// (bus/cluster.h) delivers those events in the fixed phases of a bus cycle;
// the protocol table says which stable-state row applies, the transient
// table what a waiting request does. What the ordering point delivers
// (ordered, snoops, fills) is the CoherenceAgent interface
// (bus/ordering_point.h), so the controller does not depend on the bus.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bus/bridge.h"
#include "bus/bus_response.h"
#include "bus/htm.h"
#include "bus/op.h"
#include "bus/ordering_point.h"
#include "bus/transient.h"
#include "bus/tx_manager.h"
#include "mem/cache_array.h"
#include "mem/coherence_checker.h"
#include "mem/coherence_failure.h"
#include "mem/coherence_protocol.h"
#include "mem/htm_checker.h"
#include "mem/store_buffer.h"

namespace tessera::bus {

struct AgentCounters {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t bus_transactions = 0;  // requests this cache had ordered on the bus
  uint64_t invalidations = 0;     // copies lost to another agent's transaction
  uint64_t nacked = 0;
  uint64_t grant_wait_max = 0;
};

// The ports a controller serves: the core's data port and its store
// buffer's head (L1D), the fetch port (L1I), and the transaction port (L1D):
// a running transaction's undo-log stores, an eager abort's walk over the
// log, a commit's acquisitions and publishing stores.
enum class ControllerPort : uint8_t { kData, kStoreBuffer, kFetch, kTx };
inline constexpr size_t kControllerPorts = 4;

// A port's operation completes at `at` with `value`.
struct PortCompletion {
  uint64_t at;
  uint32_t agent;
  ControllerPort port;
  uint32_t value;
};

class CacheController;

// "l1d<c>" or "l1i<c>": core c's L1D is agent 2c, its L1I agent 2c+1.
std::string agent_name(uint32_t agent);

// What the controllers of one cluster share with it: the protocol, the
// parameters a controller needs, the checker, the cluster's clock and
// progress (the watchdog), the completions it delivers to the cores and the
// failure that stops it.
struct ControllerContext {
  const mem::ProtocolTable* table = nullptr;
  const mem::CacheView* view = nullptr;      // describes a line in a failure report
  mem::CoherenceChecker* checker = nullptr;  // null when not checking
  mem::HtmChecker* htm_checker = nullptr;    // null when not checking
  uint32_t line_bytes = 64;
  uint32_t hit_latency = 1;
  uint32_t wb_buffer_entries = 2;
  bool tso = false;
  std::vector<uint64_t>* row_hits = nullptr;  // per protocol-table row
  uint64_t* value_changes = nullptr;          // stores, SCs and AMOs that changed the word
  uint64_t* sb_forwards = nullptr;            // loads served by the store buffer
  mem::WrittenBytes* written = nullptr;       // bytes stored since their line was in memory (the bridge's)
  std::vector<PortCompletion> completions;
  // HTM: the parameters, the cluster's commit token (the agent publishing a
  // commit, -1: none) and the aborts since the last progress (the watchdog
  // tells a livelock from a deadlock by it).
  const HtmParams* htm = nullptr;
  int commit_token = -1;
  // The livelock watchdog: transactions aborted since the last commit or
  // plain access performed (last_useful).
  uint64_t aborts_since_useful = 0;
  uint64_t last_useful = 0;
  // Lines the commit token's holder has published into: other caches wait
  // to access them until its commit ends (an update protocol leaves copies
  // that must not show half a commit).
  std::vector<uint64_t> frozen;
  std::vector<std::unique_ptr<CacheController>>* agents = nullptr;
  // Told (agent, line) after a line of an L1D changed its stable or
  // transient state (the waveform's line_state); empty when not traced.
  std::function<void(uint32_t, uint64_t)> on_line;
  uint64_t now = 0;
  uint64_t last_progress = 0;
  bool active = true;  // something changed in this tick
  mem::CoherenceFailure failure;
  std::string failure_text;

  bool failed() const { return static_cast<bool>(failure); }
  void progress() { last_progress = now; }
  void useful() {
    last_useful = now;
    aborts_since_useful = 0;
  }
  void count_row(int row) { ++(*row_hits)[static_cast<size_t>(row)]; }
  void fail(mem::CoherenceFailure f);
  void protocol_error(uint64_t line, const std::string& what);
  void check_failure();  // the checker's failure, if any, stops the cluster
};

class CacheController final : public CoherenceAgent {
 public:
  struct PortState {
    bool busy = false;
    bool performed = false;  // done, completion scheduled
    Op op;
    DoneFn done;
  };
  // One outstanding request (MSHR) per port, in its transient state.
  struct Miss {
    Transient state = Transient::kNone;
    int tag = -1;                       // its request-table entry while the bus holds it (granted), else -1
    mem::BusOp op = mem::BusOp::kNone;  // what it asks the bus for
    uint64_t line = 0;
    int way = -1;
    mem::Event event = mem::Event::kPrRd;
    uint64_t since = 0;
    uint64_t retry_at = 0;
    bool active() const { return state != Transient::kNone; }
    bool granted() const { return tag >= 0; }
  };
  // A dirty victim in the write-back buffer, in its transient state (MI_A,
  // OI_A, SmI_A until its WriteBack is ordered; snooped meanwhile, it
  // answers like the dirty line; then MI_D, OI_D, SmI_D until its data
  // crossed the response bus).
  struct WriteBack {
    uint64_t line;
    std::vector<uint8_t> data;
    Transient state = Transient::kNone;
    int tag = -1;  // its request-table entry while the bus holds it (granted), else -1
    uint64_t since = 0;
    uint64_t retry_at = 0;
    bool granted() const { return tag >= 0; }
  };

  // `ctx` may be null for a controller only snooped (tests); run_port,
  // fill, apply_snoop and snoop_write_back need it.
  CacheController(uint32_t agent_id, const mem::CacheGeometry& g, uint32_t sb_entries, ControllerContext* ctx = nullptr)
      : id(agent_id), array(g), store_buffer(sb_entries), ctx_(ctx) {}

  // "l1d<c>" or "l1i<c>" (core c's L1D is agent 2c, its L1I 2c+1).
  std::string name() const;

  PortState& port(ControllerPort p) { return ports[static_cast<size_t>(p)]; }
  Miss& miss(ControllerPort p) { return misses[static_cast<size_t>(p)]; }
  WriteBack* find_wb(uint64_t line) {
    for (auto& w : wb)
      if (w.line == line) return &w;
    return nullptr;
  }
  const WriteBack* find_wb(uint64_t line) const { return const_cast<CacheController*>(this)->find_wb(line); }
  // The transient state of the request for  (kNone: none).
  const Miss* miss_for(uint64_t line) const;
  // The line's state for the waveform (bus/cluster_waves.h): the transient
  // state of its request or write-back in flight, else its stable state.
  uint8_t coh_code_of(uint64_t line) const;

  // Another cache's transaction moved  to a new stable state while a
  // request of this controller waits for its grant: the request follows
  // the transient table (SM_A -> IM_AD when the copy is taken, FM_A -> SM_A
  // when F becomes S) and asks for what the protocol's row for the new
  // state asks. Returns an error text when no row fits (a protocol error).
  std::string snooped(uint64_t line, const mem::ProtocolTable& table);

  // Processor side: the port's operation (or the store buffer's head) is
  // performed if the line's state allows it, else its miss starts or waits.
  void run_port(ControllerPort port);
  // The port's operation, nullptr for the store buffer or an idle port.
  const Op* port_op(ControllerPort port) const;
  // Performs `op` on the present line in `way` (a hit, or a write at its
  // place in the bus order).
  void perform(int way, const Op& op, uint32_t* result);
  // The port's operation completes `latency` cycles from now.
  void finish_port(ControllerPort port, uint32_t value, uint32_t latency);

  // The fill for the port's request (Data): the line takes the state of
  // protocol row `row`. The caller frees the tag, then runs the port again.
  void fill(ControllerPort port, int row, const uint8_t* data) override;
  // Another cache's transaction `op` on `line`, ordered: the line takes
  // protocol row `row`; a waiting request follows the transient table.
  // *update: the row takes the written word (BusUpd). Returns an error text
  // (a protocol error) or "".
  std::string apply_snoop(uint64_t line, int row, mem::BusOp op, bool* update) override;
  // Another cache's transaction hit `line` in the write-back buffer
  // (SnoopWantsData for a read, else SnoopTakesOwnership): the entry's row
  // says whether it supplies the line (returned, for tag `tag`) and
  // retires. *error: a protocol error, or "".
  std::unique_ptr<BusResponse> snoop_write_back(uint64_t line, uint32_t tag, bool needs_data,
                                                std::string* error) override;

  // The port's request won the bus: an SC whose reservation is gone asks
  // for nothing, its request is withdrawn and it fails on its own (true).
  bool withdraw_lost_sc(ControllerPort port);
  // Its request on `port` holds its place in the bus order (Ordered), the
  // snoop result's shared line is `shared`: *row is the protocol row the
  // line ends in; returns the transient row, nullptr for none (a protocol
  // error, *error says which).
  const TransientRow* ordered(ControllerPort port, bool shared, int* row, std::string* error) override;
  // An ordered request that waits for no data (an upgrade or update) ends:
  // the line takes protocol row `row`'s state.
  void complete_without_data(ControllerPort port, int row) override;
  // PerformWrite: the port's write (or the store buffer's head) is
  // performed at its place in the bus order and the port completes. Returns
  // the write; *way is the line's way (the sharers take the same bytes).
  Op perform_ordered_write(ControllerPort port, int* way);
  // Its WriteBack for `line` was ordered (Ordered): the entry's row queues
  // the line for memory on the response queue. An error text or "".
  std::string write_back_ordered(uint64_t line, uint32_t tag) override;
  // The WriteBack's data crossed the response bus (Data): the entry retires.
  std::string write_back_sent(uint64_t line) override;

  // The coherence point with the rest of the chip (only when idle): every
  // dirty line, in the write-back buffer or the array, goes to memory
  // through the bridge and the cache is emptied. Returns the lines written.
  uint32_t write_back_and_invalidate(Bridge& bridge);

  // HTM. The transaction aborts (reason, code for explicit aborts): with
  // lazy versioning it is gone at once, with eager versioning it walks its
  // undo log back first (TxPhase::kRollingBack). Its core's operation in
  // flight is withdrawn and completes without effect. No effect unless the
  // transaction is running.
  void tx_abort(TxReason reason, uint8_t code = 0);
  // The word mask of [addr, addr+size) in its line (every word with line
  // granularity).
  uint64_t tx_words(uint64_t addr, uint32_t size) const;
  // The words the port's current request covers (conflict detection).
  uint64_t request_words(ControllerPort port) const;
  // A transaction port's acquisition or publishing, an eager walk: the
  // write that was ordered on the bus is performed (or, for an
  // acquisition, only its permission taken) and the queue moves on.
  bool tx_port_ordered_write(int* way, Op* performed);

  // One line per outstanding request, buffered store group, write-back and
  // queued response ("cluster.core0.l1d: BusUpgr 0x40 in SM_A ...").
  std::string describe_in_flight() const;

  uint32_t id;
  mem::CacheArray array;
  PortState ports[kControllerPorts];
  Miss misses[kControllerPorts];
  std::vector<WriteBack> wb;
  std::deque<std::unique_ptr<BusResponse>> responses;
  mem::StoreBuffer store_buffer;
  uint64_t sb_drained_at = 0;
  bool reservation = false;
  uint64_t reservation_line = 0;
  uint64_t lru_clock = 0;
  AgentCounters counters;
  TxManager tx;  // this L1D's core's transaction (bus/tx_manager.h)

 private:
  // Tells ctx_->on_line that `line` changed state (an L1D's, when traced).
  void note(uint64_t line) const {
    if (ctx_->on_line && id % 2 == 0) ctx_->on_line(id, line);
  }
  // Performs `op` if the line's state allows it (true); else starts or waits
  // for the bus transaction the table asks for (false). `transactional`: the
  // transactional path (tx_perform instead of perform); `event` overrides
  // the event (a transactional store that only needs the line present).
  bool access(ControllerPort port, const Op& op, uint32_t* result, bool transactional = false, int event = -1);
  bool start_miss(ControllerPort port, uint64_t line, mem::Event event);
  // HTM (cache_controller_htm.cpp).
  void run_tx_data(const Op& op);
  void run_tx_port();
  void run_tx_port_ops();
  bool tx_access(ControllerPort port, const Op& op, uint32_t* result);
  bool tx_perform(int way, const Op& op, uint32_t* result);
  void tx_begin_commit();
  void tx_finish_commit();
  void tx_release();
  void withdraw_miss(ControllerPort port);
  void finish_quietly(ControllerPort port, uint32_t value, uint32_t latency);
  bool internal_access_ = false;  // a transaction port's log or walk access: not progress
  bool tx_port_access_ = false;   // any transaction-port access: not in the HTM checker's history
  const mem::ProtocolTable& table() const { return *ctx_->table; }

  ControllerContext* ctx_;
};

}  // namespace tessera::bus
