// The transient states of a cache controller's outstanding request (its
// MSHR), named as gem5's SLICC protocol files name them: the stable state
// the line leaves, the one it heads for, and what it still waits for:
// _A the request's place in the bus order (grant and snoop), _D the data.
//
//   IS_AD  load miss: BusRd requested          IS_D  BusRd ordered, fill due
//   IM_AD  store miss: BusRdX (Dragon: BusRd)  IM_D  ordered, fill due
//   SM_A   store to S: BusUpgr requested, no data comes back
//   FM_A   store to F (MESIF), OM_A store to O (MOESI): BusUpgr requested
//   ScM_A  store to Sc, SmM_A store to Sm (Dragon): BusUpd requested; the
//          write is performed when the update is ordered
//   MI_A   a dirty victim in the write-back buffer (from M; OI_A from O,
//          MOESI; SmI_A from Sm, Dragon): WriteBack requested. Snooped
//          meanwhile it answers like the dirty line and leaves the buffer.
//   MI_D   (OI_D, SmI_D) WriteBack ordered: its data is due on the
//          response bus to memory; the entry leaves the buffer when it has
//          crossed, so the line is not read from memory before it arrives
//
// Which stable-state row applies once the request is ordered (S or E after a
// BusRd, for instance) is still the protocol table's (mem::ProtocolTable);
// this table holds only what happens between asking and being answered.
// While a request waits for its grant, other caches' transactions on the
// line still take place and may take the copy away: SM_A becomes IM_AD when
// a snooped BusRdX or BusUpgr invalidates the S copy, exactly as the
// protocol's (I, PrWr) row asks. Once granted, the line is busy in the
// request table until the transaction completes (no other request for it is
// granted), so an _D state never sees a snoop. The same holds for a
// write-back: a snoop reaches MI_A only before its grant.
#pragma once

#include <cstdint>
#include <string>

#include "mem/coherence_protocol.h"

namespace tessera::bus {

enum class Transient : uint8_t {
  kNone,
  kIS_AD,
  kIS_D,
  kIM_AD,
  kIM_D,
  kSM_A,
  kFM_A,
  kOM_A,
  kScM_A,
  kSmM_A,
  kMI_A,
  kMI_D,
  kOI_A,
  kOI_D,
  kSmI_A,
  kSmI_D,
  kCount
};

// What happens to an outstanding request.
enum class TransientEvent : uint8_t {
  kOrdered,           // its snoop resolved: it holds its place in the bus order
  kData,              // the line crossed the response bus (a fill arrived, a write-back reached the bridge)
  kSnoopInvalidates,  // another cache's transaction took the stable copy (-> I)
  kSnoopDemotes,      // another cache's transaction lowered the copy (F -> S, Sm -> Sc)
  // Snoops of a write-back buffer entry (its line is I in the array):
  kSnoopWantsData,       // another cache's BusRd or BusRdX
  kSnoopTakesOwnership,  // a sharer's BusUpgr or BusUpd: it holds the same data and becomes the owner
  kCount
};

// What a transient row does, as bits.
enum TransientAction : uint16_t {
  kWaitData = 1 << 0,      // keep the request table entry: the fill ends the state
  kTakeRowState = 1 << 1,  // the line takes the state of the protocol row the snoop result chose
  kRetryAccess = 1 << 2,   // the port's access is looked up again (now with permission)
  kPerformWrite = 1 << 3,  // the write is performed at its place in the bus order; sharers take the word
  kReask = 1 << 4,         // ask the bus for what the protocol's row for the new stable state asks
  kSendData = 1 << 5,      // a write-back: queue the line for memory on the response bus
  kSupplyData = 1 << 6,    // a write-back entry answers a snooped read: the line to the requester and memory
  kRetire = 1 << 7,        // the write-back buffer entry leaves the buffer
};

// One row of the transient table: in `state`, on `event`, do `actions` and
// go to `next` (kNone: the line is in a stable state again).
struct TransientRow {
  Transient state;
  TransientEvent event;
  Transient next;
  uint16_t actions;
};

const char* transient_name(Transient t);
const char* transient_event_name(TransientEvent e);
// Every row, in table order (docs/coherence.md prints the same table).
const TransientRow* transient_rows(size_t* count);

// The transient state a miss enters: from the line's stable state, the
// processor event and the bus transaction the protocol table asked for.
// kNone when no transient state fits (a table that asks for something no
// controller can wait for: a protocol error).
Transient begin_transient(mem::State from, mem::Event event, mem::BusOp op);
// The transient state a victim's write-back enters from the line's stable
// state (the protocol's Replace row asked to write it back); kNone when no
// state fits (a protocol error).
Transient begin_write_back(mem::State from);
// The row for (state, event), nullptr when the table has none (a protocol
// error); next_transient gives its next state, kCount when there is none.
const TransientRow* transient_row(Transient state, TransientEvent event);
Transient next_transient(Transient state, TransientEvent event);
std::string transient_actions_text(uint16_t actions);

// Waiting for its place in the bus order (may still be snooped) or for data.
bool awaits_order(Transient t);
bool awaits_data(Transient t);

}  // namespace tessera::bus
