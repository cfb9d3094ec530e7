#include "mem/coherence_protocol.h"

#include <fmt/format.h>

#include <stdexcept>

namespace tessera::mem {

namespace {

using S = State;
using E = Event;
using C = Cond;

// Rows for a line that is not present (I) are the misses; snoops of a line
// that is not present change nothing and have no rows. Every (state, event)
// pair a protocol can reach has a row; a missing row is reported as a
// protocol error by the controller, never ignored.

// MSI, Culler & Singh Fig. 5.13 (with BusUpgr for S->M, §5.3.2).
constexpr Row kMsi[] = {
    {S::kI, E::kPrRd, C::kAny, S::kS, kIssueBusRd},
    {S::kI, E::kPrWr, C::kAny, S::kM, kIssueBusRdX},
    {S::kS, E::kPrRd, C::kAny, S::kS, kHit},
    {S::kS, E::kPrWr, C::kAny, S::kM, kIssueBusUpgr},
    {S::kS, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kS, E::kBusRd, C::kAny, S::kS, kNoAction},
    {S::kS, E::kBusRdX, C::kAny, S::kI, kNoAction},
    {S::kS, E::kBusUpgr, C::kAny, S::kI, kNoAction},
    {S::kM, E::kPrRd, C::kAny, S::kM, kHit},
    {S::kM, E::kPrWr, C::kAny, S::kM, kHit},
    {S::kM, E::kReplace, C::kAny, S::kI, kWriteBackLine},
    {S::kM, E::kBusRd, C::kAny, S::kS, kFlush},
    {S::kM, E::kBusRdX, C::kAny, S::kI, kFlush},
};

// MESI (Illinois), Culler & Singh Fig. 5.15. E answers BusRd from memory.
constexpr Row kMesi[] = {
    {S::kI, E::kPrRd, C::kShared, S::kS, kIssueBusRd},
    {S::kI, E::kPrRd, C::kNotShared, S::kE, kIssueBusRd},
    {S::kI, E::kPrWr, C::kAny, S::kM, kIssueBusRdX},
    {S::kS, E::kPrRd, C::kAny, S::kS, kHit},
    {S::kS, E::kPrWr, C::kAny, S::kM, kIssueBusUpgr},
    {S::kS, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kS, E::kBusRd, C::kAny, S::kS, kNoAction},
    {S::kS, E::kBusRdX, C::kAny, S::kI, kNoAction},
    {S::kS, E::kBusUpgr, C::kAny, S::kI, kNoAction},
    {S::kE, E::kPrRd, C::kAny, S::kE, kHit},
    {S::kE, E::kPrWr, C::kAny, S::kM, kHit},
    {S::kE, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kE, E::kBusRd, C::kAny, S::kS, kNoAction},
    {S::kE, E::kBusRdX, C::kAny, S::kI, kNoAction},
    {S::kM, E::kPrRd, C::kAny, S::kM, kHit},
    {S::kM, E::kPrWr, C::kAny, S::kM, kHit},
    {S::kM, E::kReplace, C::kAny, S::kI, kWriteBackLine},
    {S::kM, E::kBusRd, C::kAny, S::kS, kFlush},
    {S::kM, E::kBusRdX, C::kAny, S::kI, kFlush},
};

// MESIF (Hum & Goodman, "Forward state for use in cache coherency in a
// multiprocessor system", US patent 6,922,756, Intel): the most recent sharer is the Forward state and the
// only clean responder; E also forwards. F is dropped silently on eviction,
// after which memory answers.
constexpr Row kMesif[] = {
    {S::kI, E::kPrRd, C::kShared, S::kF, kIssueBusRd},
    {S::kI, E::kPrRd, C::kNotShared, S::kE, kIssueBusRd},
    {S::kI, E::kPrWr, C::kAny, S::kM, kIssueBusRdX},
    {S::kS, E::kPrRd, C::kAny, S::kS, kHit},
    {S::kS, E::kPrWr, C::kAny, S::kM, kIssueBusUpgr},
    {S::kS, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kS, E::kBusRd, C::kAny, S::kS, kNoAction},
    {S::kS, E::kBusRdX, C::kAny, S::kI, kNoAction},
    {S::kS, E::kBusUpgr, C::kAny, S::kI, kNoAction},
    {S::kF, E::kPrRd, C::kAny, S::kF, kHit},
    {S::kF, E::kPrWr, C::kAny, S::kM, kIssueBusUpgr},
    {S::kF, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kF, E::kBusRd, C::kAny, S::kS, kSupply},
    {S::kF, E::kBusRdX, C::kAny, S::kI, kSupply},
    {S::kF, E::kBusUpgr, C::kAny, S::kI, kNoAction},
    {S::kE, E::kPrRd, C::kAny, S::kE, kHit},
    {S::kE, E::kPrWr, C::kAny, S::kM, kHit},
    {S::kE, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kE, E::kBusRd, C::kAny, S::kS, kSupply},
    {S::kE, E::kBusRdX, C::kAny, S::kI, kSupply},
    {S::kM, E::kPrRd, C::kAny, S::kM, kHit},
    {S::kM, E::kPrWr, C::kAny, S::kM, kHit},
    {S::kM, E::kReplace, C::kAny, S::kI, kWriteBackLine},
    {S::kM, E::kBusRd, C::kAny, S::kS, kFlush},
    {S::kM, E::kBusRdX, C::kAny, S::kI, kFlush},
};

// MOESI (Sweazey & Smith, "A class of compatible cache consistency
// protocols and their support by the IEEE Futurebus", ISCA 1986): a modified line read by another cache becomes Owned
// and keeps answering; memory is written only when the owner is evicted.
constexpr Row kMoesi[] = {
    {S::kI, E::kPrRd, C::kShared, S::kS, kIssueBusRd},
    {S::kI, E::kPrRd, C::kNotShared, S::kE, kIssueBusRd},
    {S::kI, E::kPrWr, C::kAny, S::kM, kIssueBusRdX},
    {S::kS, E::kPrRd, C::kAny, S::kS, kHit},
    {S::kS, E::kPrWr, C::kAny, S::kM, kIssueBusUpgr},
    {S::kS, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kS, E::kBusRd, C::kAny, S::kS, kNoAction},
    {S::kS, E::kBusRdX, C::kAny, S::kI, kNoAction},
    {S::kS, E::kBusUpgr, C::kAny, S::kI, kNoAction},
    {S::kE, E::kPrRd, C::kAny, S::kE, kHit},
    {S::kE, E::kPrWr, C::kAny, S::kM, kHit},
    {S::kE, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kE, E::kBusRd, C::kAny, S::kS, kSupply},
    {S::kE, E::kBusRdX, C::kAny, S::kI, kSupply},
    {S::kO, E::kPrRd, C::kAny, S::kO, kHit},
    {S::kO, E::kPrWr, C::kAny, S::kM, kIssueBusUpgr},
    {S::kO, E::kReplace, C::kAny, S::kI, kWriteBackLine},
    {S::kO, E::kBusRd, C::kAny, S::kO, kSupply},
    {S::kO, E::kBusRdX, C::kAny, S::kI, kSupply},
    {S::kO, E::kBusUpgr, C::kAny, S::kI, kNoAction},
    {S::kM, E::kPrRd, C::kAny, S::kM, kHit},
    {S::kM, E::kPrWr, C::kAny, S::kM, kHit},
    {S::kM, E::kReplace, C::kAny, S::kI, kWriteBackLine},
    {S::kM, E::kBusRd, C::kAny, S::kO, kSupply},
    {S::kM, E::kBusRdX, C::kAny, S::kI, kSupply},
};

// Dragon update protocol, Culler & Singh Fig. 5.18. A write miss is a BusRd
// (to M when nobody shares, else Sc) after which the write is retried: in Sc
// it becomes the BusUpd of the figure's PrWrMiss(S) edge, ending in Sm.
constexpr Row kDragon[] = {
    {S::kI, E::kPrRd, C::kShared, S::kSc, kIssueBusRd},
    {S::kI, E::kPrRd, C::kNotShared, S::kE, kIssueBusRd},
    {S::kI, E::kPrWr, C::kShared, S::kSc, kIssueBusRd},
    {S::kI, E::kPrWr, C::kNotShared, S::kM, kIssueBusRd},
    {S::kE, E::kPrRd, C::kAny, S::kE, kHit},
    {S::kE, E::kPrWr, C::kAny, S::kM, kHit},
    {S::kE, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kE, E::kBusRd, C::kAny, S::kSc, kNoAction},
    {S::kSc, E::kPrRd, C::kAny, S::kSc, kHit},
    {S::kSc, E::kPrWr, C::kShared, S::kSm, kIssueBusUpd},
    {S::kSc, E::kPrWr, C::kNotShared, S::kM, kIssueBusUpd},
    {S::kSc, E::kReplace, C::kAny, S::kI, kNoAction},
    {S::kSc, E::kBusRd, C::kAny, S::kSc, kNoAction},
    {S::kSc, E::kBusUpd, C::kAny, S::kSc, kApplyUpdate},
    {S::kSm, E::kPrRd, C::kAny, S::kSm, kHit},
    {S::kSm, E::kPrWr, C::kShared, S::kSm, kIssueBusUpd},
    {S::kSm, E::kPrWr, C::kNotShared, S::kM, kIssueBusUpd},
    {S::kSm, E::kReplace, C::kAny, S::kI, kWriteBackLine},
    {S::kSm, E::kBusRd, C::kAny, S::kSm, kSupply},
    {S::kSm, E::kBusUpd, C::kAny, S::kSc, kApplyUpdate},
    {S::kM, E::kPrRd, C::kAny, S::kM, kHit},
    {S::kM, E::kPrWr, C::kAny, S::kM, kHit},
    {S::kM, E::kReplace, C::kAny, S::kI, kWriteBackLine},
    {S::kM, E::kBusRd, C::kAny, S::kSm, kSupply},
};

template <size_t N>
std::vector<Row> rows_of(const Row (&table)[N]) {
  return std::vector<Row>(table, table + N);
}

constexpr uint16_t kIssueMask = kIssueBusRd | kIssueBusRdX | kIssueBusUpgr | kIssueBusUpd;

}  // namespace

Permission permission_of(State s) {
  switch (s) {
    case State::kM:
    case State::kE:
      return Permission::kWrite;
    case State::kS:
    case State::kO:
    case State::kF:
    case State::kSc:
    case State::kSm:
      return Permission::kRead;
    default:
      return Permission::kNone;
  }
}

bool is_dirty(State s) { return s == State::kM || s == State::kO || s == State::kSm; }

const char* state_name(State s) {
  static const char* const kNames[] = {"I", "S", "E", "M", "O", "F", "Sc", "Sm"};
  return kNames[static_cast<size_t>(s)];
}

const char* event_name(Event e) {
  static const char* const kNames[] = {"PrRd", "PrWr", "Replace", "BusRd", "BusRdX", "BusUpgr", "BusUpd"};
  return kNames[static_cast<size_t>(e)];
}

const char* cond_name(Cond c) {
  static const char* const kNames[] = {"", "(S)", "(!S)"};
  return kNames[static_cast<size_t>(c)];
}

const char* bus_op_name(BusOp op) {
  static const char* const kNames[] = {"none", "BusRd", "BusRdX", "BusUpgr", "BusUpd", "WriteBack"};
  return kNames[static_cast<size_t>(op)];
}

std::string actions_text(uint16_t actions) {
  static const char* const kNames[] = {"hit",   "BusRd",  "BusRdX",    "BusUpgr",    "BusUpd",
                                       "Flush", "Supply", "WriteBack", "ApplyUpdate"};
  std::string out;
  for (size_t bit = 0; bit < sizeof(kNames) / sizeof(kNames[0]); ++bit)
    if (actions & (1u << bit)) out += (out.empty() ? "" : "+") + std::string(kNames[bit]);
  return out.empty() ? "-" : out;
}

const std::vector<std::string>& protocol_names() {
  static const std::vector<std::string> kNames{"msi", "mesi", "mesif", "moesi", "dragon"};
  return kNames;
}

const char* protocol_name(Protocol p) { return protocol_names()[static_cast<size_t>(p)].c_str(); }

Protocol parse_protocol(const std::string& name) {
  const auto& names = protocol_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<Protocol>(i);
  std::string valid;
  for (const auto& n : names) valid += (valid.empty() ? "" : "|") + n;
  throw std::invalid_argument(fmt::format("unknown coherence protocol '{}' (valid: {})", name, valid));
}

BusOp bus_op_of(uint16_t actions) {
  if (actions & kIssueBusRd) return BusOp::kBusRd;
  if (actions & kIssueBusRdX) return BusOp::kBusRdX;
  if (actions & kIssueBusUpgr) return BusOp::kBusUpgr;
  if (actions & kIssueBusUpd) return BusOp::kBusUpd;
  return BusOp::kNone;
}

ProtocolTable::ProtocolTable(std::string name, std::vector<Row> rows, bool has_exclusive_clean)
    : name_(std::move(name)), rows_(std::move(rows)), has_exclusive_clean_(has_exclusive_clean) {
  index();
}

ProtocolTable ProtocolTable::standard(Protocol p) {
  switch (p) {
    case Protocol::kMsi:
      return ProtocolTable("msi", rows_of(kMsi), false);
    case Protocol::kMesi:
      return ProtocolTable("mesi", rows_of(kMesi), true);
    case Protocol::kMesif:
      return ProtocolTable("mesif", rows_of(kMesif), true);
    case Protocol::kMoesi:
      return ProtocolTable("moesi", rows_of(kMoesi), true);
    case Protocol::kDragon:
      return ProtocolTable("dragon", rows_of(kDragon), true);
  }
  throw std::logic_error("unknown protocol");
}

void ProtocolTable::set_row(size_t index_in_table, const Row& row) {
  rows_.at(index_in_table) = row;
  index();
}

void ProtocolTable::index() {
  for (auto& per_state : first_) per_state.fill(-1);
  for (size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    auto& slot = first_[static_cast<size_t>(r.state)][static_cast<size_t>(r.event)];
    if (slot < 0) {
      slot = static_cast<int16_t>(i);
    } else {
      // Rows of one (state, event) differ only by the snoop condition, and
      // must start the same bus transaction: the controller picks the
      // transaction before the snoop result exists.
      const Row& first = rows_[static_cast<size_t>(slot)];
      if (bus_op_of(first.actions) != bus_op_of(r.actions) || r.cond == Cond::kAny || first.cond == Cond::kAny)
        throw std::logic_error(fmt::format("protocol {}: rows {} and {} for ({}, {}) conflict", name_, slot, i,
                                           state_name(r.state), event_name(r.event)));
    }
    if ((r.actions & kIssueMask) && (r.event != Event::kPrRd && r.event != Event::kPrWr))
      throw std::logic_error(fmt::format("protocol {}: row {} issues a bus transaction on a snoop", name_, i));
  }
}

int ProtocolTable::first_row(State s, Event e) const { return first_[static_cast<size_t>(s)][static_cast<size_t>(e)]; }

int ProtocolTable::find(State s, Event e, bool shared) const {
  int i = first_row(s, e);
  if (i < 0) return -1;
  for (size_t k = static_cast<size_t>(i); k < rows_.size(); ++k) {
    const Row& r = rows_[k];
    if (r.state != s || r.event != e) continue;
    if (r.cond == Cond::kAny || (r.cond == Cond::kShared) == shared) return static_cast<int>(k);
  }
  return -1;
}

}  // namespace tessera::mem
