#include "bus/cache_controller.h"

#include <fmt/format.h>

namespace tessera::bus {

using mem::BusOp;
using mem::State;

std::string CacheController::name() const { return fmt::format("{}{}", id % 2 ? "l1i" : "l1d", id / 2); }

const CacheController::Miss* CacheController::miss_for(uint64_t line) const {
  for (const auto& m : misses)
    if (m.active() && m.line == line) return &m;
  return nullptr;
}

std::string CacheController::snooped(uint64_t line, const mem::ProtocolTable& table) {
  for (auto& m : misses) {
    if (m.line != line || !awaits_order(m.state)) continue;
    const State now_state = array.line(m.way).state;
    const TransientEvent ev =
        now_state == State::kI ? TransientEvent::kSnoopInvalidates : TransientEvent::kSnoopDemotes;
    const Transient next = next_transient(m.state, ev);
    const int row = table.first_row(now_state, m.event);
    const BusOp op = row < 0 ? BusOp::kNone : mem::bus_op_of(table.rows()[static_cast<size_t>(row)].actions);
    if (next == Transient::kCount || begin_transient(now_state, m.event, op) != next)
      return fmt::format("{}: {} has no transition on {} to ({}, {})", table.name(), transient_name(m.state),
                         transient_event_name(ev), mem::state_name(now_state), mem::event_name(m.event));
    m.state = next;
    m.op = op;
  }
  return "";
}

std::string CacheController::describe_in_flight() const {
  std::string out;
  const std::string who = fmt::format("cluster.core{}.{}", id / 2, id % 2 ? "l1i" : "l1d");
  for (size_t p = 0; p < kControllerPorts; ++p) {
    const auto& m = misses[p];
    if (m.active())
      out += fmt::format("{}: {} {:#x} in {}{} since cycle {}\n", who, mem::bus_op_name(m.op), m.line,
                         transient_name(m.state), m.granted() ? fmt::format(" (tag {})", m.tag) : "", m.since);
    else if (ports[p].busy && !ports[p].performed)
      out += fmt::format("{}: {} port access at {:#x} waiting\n", who, p == 2 ? "fetch" : "data", ports[p].op.addr);
  }
  if (!store_buffer.empty()) out += fmt::format("{}: {} buffered stores\n", who, store_buffer.size());
  for (const auto& w : wb)
    out += fmt::format("{}: write-back {:#x} in {}{} since cycle {}\n", who, w.line, transient_name(w.state),
                       w.granted() ? fmt::format(" (tag {})", w.tag) : "", w.since);
  if (!responses.empty()) out += fmt::format("{}: {} responses queued\n", who, responses.size());
  return out;
}

}  // namespace tessera::bus
