#include "bus/transient.h"

namespace tessera::bus {

namespace {

using T = Transient;
using TE = TransientEvent;

constexpr uint8_t kFill = kTakeRowState | kRetryAccess;

constexpr TransientRow kRows[] = {
    {T::kIS_AD, TE::kOrdered, T::kIS_D, kWaitData},
    {T::kIS_D, TE::kData, T::kNone, kFill},
    {T::kIM_AD, TE::kOrdered, T::kIM_D, kWaitData},
    {T::kIM_D, TE::kData, T::kNone, kFill},
    // Upgrades and updates carry no data: ordered is done.
    {T::kSM_A, TE::kOrdered, T::kNone, kTakeRowState | kRetryAccess},
    {T::kSM_A, TE::kSnoopInvalidates, T::kIM_AD, kReask},
    {T::kFM_A, TE::kOrdered, T::kNone, kTakeRowState | kRetryAccess},
    {T::kFM_A, TE::kSnoopInvalidates, T::kIM_AD, kReask},
    {T::kFM_A, TE::kSnoopDemotes, T::kSM_A, kReask},  // another BusRd made the newest sharer F: this copy is S
    {T::kOM_A, TE::kOrdered, T::kNone, kTakeRowState | kRetryAccess},
    {T::kOM_A, TE::kSnoopInvalidates, T::kIM_AD, kReask},
    {T::kScM_A, TE::kOrdered, T::kNone, kTakeRowState | kPerformWrite},
    {T::kSmM_A, TE::kOrdered, T::kNone, kTakeRowState | kPerformWrite},
    {T::kSmM_A, TE::kSnoopDemotes, T::kScM_A, kReask},  // another cache's BusUpd took ownership
    // Write-backs. A snooped entry answers like the dirty line and retires:
    // the requester (or, for a read, the requester and memory) now has the
    // data. Only an owner with sharers (O, Sm) can see a sharer's upgrade.
    {T::kMI_A, TE::kOrdered, T::kMI_D, kSendData},
    {T::kMI_A, TE::kSnoopWantsData, T::kNone, kSupplyData | kRetire},
    {T::kMI_D, TE::kData, T::kNone, kRetire},
    {T::kOI_A, TE::kOrdered, T::kOI_D, kSendData},
    {T::kOI_A, TE::kSnoopWantsData, T::kNone, kSupplyData | kRetire},
    {T::kOI_A, TE::kSnoopTakesOwnership, T::kNone, kRetire},
    {T::kOI_D, TE::kData, T::kNone, kRetire},
    {T::kSmI_A, TE::kOrdered, T::kSmI_D, kSendData},
    {T::kSmI_A, TE::kSnoopWantsData, T::kNone, kSupplyData | kRetire},
    {T::kSmI_A, TE::kSnoopTakesOwnership, T::kNone, kRetire},
    {T::kSmI_D, TE::kData, T::kNone, kRetire},
};

}  // namespace

const char* transient_name(Transient t) {
  static const char* const kNames[] = {"-",     "IS_AD", "IS_D", "IM_AD", "IM_D", "SM_A", "FM_A",  "OM_A",
                                       "ScM_A", "SmM_A", "MI_A", "MI_D",  "OI_A", "OI_D", "SmI_A", "SmI_D"};
  return t < T::kCount ? kNames[static_cast<size_t>(t)] : "?";
}

const char* transient_event_name(TransientEvent e) {
  static const char* const kNames[] = {"Ordered",      "Data",           "SnoopInvalidates",
                                       "SnoopDemotes", "SnoopWantsData", "SnoopTakesOwnership"};
  return e < TE::kCount ? kNames[static_cast<size_t>(e)] : "?";
}

const TransientRow* transient_rows(size_t* count) {
  *count = sizeof(kRows) / sizeof(kRows[0]);
  return kRows;
}

Transient begin_transient(mem::State from, mem::Event event, mem::BusOp op) {
  using mem::BusOp;
  using mem::State;
  if (from == State::kI) {
    if (event == mem::Event::kPrRd && op == BusOp::kBusRd) return T::kIS_AD;
    // Dragon's write miss reads the line first and retries the write.
    if (event == mem::Event::kPrWr && (op == BusOp::kBusRdX || op == BusOp::kBusRd)) return T::kIM_AD;
    return T::kNone;
  }
  if (event != mem::Event::kPrWr) return T::kNone;
  switch (from) {
    case State::kS:
      return op == BusOp::kBusUpgr ? T::kSM_A : T::kNone;
    case State::kF:
      return op == BusOp::kBusUpgr ? T::kFM_A : T::kNone;
    case State::kO:
      return op == BusOp::kBusUpgr ? T::kOM_A : T::kNone;
    case State::kSc:
      return op == BusOp::kBusUpd ? T::kScM_A : T::kNone;
    case State::kSm:
      return op == BusOp::kBusUpd ? T::kSmM_A : T::kNone;
    default:
      return T::kNone;
  }
}

Transient begin_write_back(mem::State from) {
  switch (from) {
    case mem::State::kM:
      return T::kMI_A;
    case mem::State::kO:
      return T::kOI_A;
    case mem::State::kSm:
      return T::kSmI_A;
    default:
      return T::kNone;
  }
}

const TransientRow* transient_row(Transient state, TransientEvent event) {
  for (const TransientRow& r : kRows)
    if (r.state == state && r.event == event) return &r;
  return nullptr;
}

Transient next_transient(Transient state, TransientEvent event) {
  const TransientRow* r = transient_row(state, event);
  return r ? r->next : T::kCount;
}

std::string transient_actions_text(uint16_t actions) {
  static const char* const kNames[] = {"WaitData", "TakeRowState", "RetryAccess", "PerformWrite",
                                       "Reask",    "SendData",     "SupplyData",  "Retire"};
  std::string out;
  for (size_t bit = 0; bit < sizeof(kNames) / sizeof(kNames[0]); ++bit)
    if (actions & (1u << bit)) out += (out.empty() ? "" : "+") + std::string(kNames[bit]);
  return out.empty() ? "-" : out;
}

bool awaits_order(Transient t) {
  switch (t) {
    case T::kIS_AD:
    case T::kIM_AD:
    case T::kSM_A:
    case T::kFM_A:
    case T::kOM_A:
    case T::kScM_A:
    case T::kSmM_A:
    case T::kMI_A:
    case T::kOI_A:
    case T::kSmI_A:
      return true;
    default:
      return false;
  }
}

bool awaits_data(Transient t) {
  return t == T::kIS_D || t == T::kIM_D || t == T::kMI_D || t == T::kOI_D || t == T::kSmI_D;
}

}  // namespace tessera::bus
