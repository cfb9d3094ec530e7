// Snooping coherence protocols as data: one table of rows
// {state, event, condition, next state, actions} per protocol, read side by
// side with the state diagrams of Culler & Singh, "Parallel Computer
// Architecture", §5.3-5.4 (MSI Fig. 5.13, MESI Fig. 5.15, Dragon Fig. 5.18)
// and, for MESIF and MOESI, Hum & Goodman's Forward-state patent (Intel,
// US 6,922,756) and Sweazey & Smith (ISCA 1986). The cache controllers
// (bus::CacheController, with the transient states of bus/transient.h) are
// generic over the table: a new protocol (or the transactional states of
// HTM) is a new table plus, at most, new State/Event/Action values.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::mem {

// Stable line states. kSc/kSm are Dragon's shared-clean and shared-modified.
enum class State : uint8_t { kI, kS, kE, kM, kO, kF, kSc, kSm, kCount };

// Processor-side events come from the own core; bus events are another
// agent's transaction seen by the snooper. kReplace is the own controller
// choosing the line as a victim.
enum class Event : uint8_t { kPrRd, kPrWr, kReplace, kBusRd, kBusRdX, kBusUpgr, kBusUpd, kCount };

// Condition on the wired-OR "shared" snoop result of the row's own bus
// transaction (Culler & Singh write BusRd(S) and BusRd(S-bar)).
enum class Cond : uint8_t { kAny, kShared, kNotShared };

// Bus transaction kinds. kWriteBack carries a victim from the write-back
// buffer to memory.
enum class BusOp : uint8_t { kNone, kBusRd, kBusRdX, kBusUpgr, kBusUpd, kWriteBack, kCount };

// Actions of a row, as bits.
enum Action : uint16_t {
  kNoAction = 0,
  kHit = 1 << 0,  // the processor access is performed in this state
  kIssueBusRd = 1 << 1,
  kIssueBusRdX = 1 << 2,
  kIssueBusUpgr = 1 << 3,
  kIssueBusUpd = 1 << 4,    // the write is performed when the update is ordered
  kFlush = 1 << 5,          // supply the line to the requester and to memory
  kSupply = 1 << 6,         // cache-to-cache transfer; memory is not updated
  kWriteBackLine = 1 << 7,  // victim goes to the write-back buffer
  kApplyUpdate = 1 << 8,    // take the word carried by a BusUpd
};

struct Row {
  State state;
  Event event;
  Cond cond;
  State next;
  uint16_t actions;
};

enum class Protocol : uint8_t { kMsi, kMesi, kMesif, kMoesi, kDragon };

// What a state lets its holder do without a bus transaction. This is a
// property of the state's definition, used by the independent checker to
// compare a cache's claim with the permission the bus actually granted.
enum class Permission : uint8_t { kNone, kRead, kWrite };
Permission permission_of(State s);
bool is_dirty(State s);  // memory may be stale while the line is in this state

const char* state_name(State s);
const char* event_name(Event e);
const char* cond_name(Cond c);
const char* bus_op_name(BusOp op);
std::string actions_text(uint16_t actions);
const char* protocol_name(Protocol p);
// The --protocol / cluster.protocol spellings, in table order.
const std::vector<std::string>& protocol_names();
// Throws std::invalid_argument naming the valid protocols.
Protocol parse_protocol(const std::string& name);

BusOp bus_op_of(uint16_t actions);

// A protocol's rows. Built from the literal tables below; a test may change a
// row (mutation testing of the checker) before handing the table to a
// cluster.
class ProtocolTable {
 public:
  ProtocolTable(std::string name, std::vector<Row> rows, bool has_exclusive_clean);
  static ProtocolTable standard(Protocol p);

  const std::string& name() const { return name_; }
  const std::vector<Row>& rows() const { return rows_; }
  // Test-only mutation hook: replaces one row (proves the checker can fail).
  void set_row(size_t index, const Row& row);
  // Whether a BusRd that nobody shares may grant a silently writable copy
  // (E in MESI/MESIF/MOESI/Dragon, not in MSI).
  bool has_exclusive_clean() const { return has_exclusive_clean_; }

  // Index of the row for (state, event) whose condition is kAny or matches
  // `shared`; -1 when the table has no such row. Rows with a shared
  // condition are resolved when the snoop result is known, so processor
  // events before that ask with `shared` unset via first_row().
  int find(State s, Event e, bool shared) const;
  int first_row(State s, Event e) const;  // the first row for (s, e), any condition

 private:
  void index();
  std::string name_;
  std::vector<Row> rows_;
  bool has_exclusive_clean_;
  // (state, event) -> first row index, or -1.
  std::array<std::array<int16_t, static_cast<size_t>(Event::kCount)>, static_cast<size_t>(State::kCount)> first_{};
};

}  // namespace tessera::mem
