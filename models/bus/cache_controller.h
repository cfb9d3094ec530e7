// One cache's controller in the cluster (a core's L1D or L1I, a bus agent):
// its array with the stable state of every line, the processor ports it
// serves, one outstanding request (MSHR) per port in its transient state
// (bus/transient.h), its write-back buffer and its response queue, and the
// core's store buffer and LR reservation (L1D). The cluster steps every
// controller through the fixed phases of a bus cycle (bus/cluster.h); the
// protocol table says which stable-state row applies, the transient table
// what a waiting request does.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "bus/bus_response.h"
#include "bus/op.h"
#include "bus/transient.h"
#include "mem/cache_array.h"
#include "mem/coherence_protocol.h"
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
// buffer's head (L1D), the fetch port (L1I).
enum class ControllerPort : uint8_t { kData, kStoreBuffer, kFetch };
inline constexpr size_t kControllerPorts = 3;

class CacheController {
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

  CacheController(uint32_t agent_id, const mem::CacheGeometry& g, uint32_t sb_entries)
      : id(agent_id), array(g), store_buffer(sb_entries) {}

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

  // Another cache's transaction moved  to a new stable state while a
  // request of this controller waits for its grant: the request follows
  // the transient table (SM_A -> IM_AD when the copy is taken, FM_A -> SM_A
  // when F becomes S) and asks for what the protocol's row for the new
  // state asks. Returns an error text when no row fits (a protocol error).
  std::string snooped(uint64_t line, const mem::ProtocolTable& table);

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
};

}  // namespace tessera::bus
