#include "bus/cache_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "bus/amo.h"
#include "bus/cluster_waves.h"
#include "mem/bytes.h"

namespace tessera::bus {

using mem::BusOp;
using mem::Event;
using mem::State;

namespace {

bool writes(OpKind k) { return k == OpKind::kStore || k == OpKind::kAmo || k == OpKind::kSc; }

}  // namespace

void ControllerContext::fail(mem::CoherenceFailure f) {
  failure = std::move(f);
  failure_text = failure.text();
}

void ControllerContext::protocol_error(uint64_t line, const std::string& what) {
  if (failed()) return;
  fail(mem::CoherenceFailure::make(mem::CoherenceFailure::Kind::kProtocolError, now, line, what,
                                   view->describe_line(line)));
}

void ControllerContext::check_failure() {
  if (checker && checker->failed() && !failed()) fail(checker->failure());
  if (htm_checker && htm_checker->failed() && !failed()) fail(htm_checker->coherence_failure());
}

std::string agent_name(uint32_t agent) { return fmt::format("{}{}", agent % 2 ? "l1i" : "l1d", agent / 2); }

std::string CacheController::name() const { return agent_name(id); }

const CacheController::Miss* CacheController::miss_for(uint64_t line) const {
  for (const auto& m : misses)
    if (m.active() && m.line == line) return &m;
  return nullptr;
}

uint8_t CacheController::coh_code_of(uint64_t line) const {
  if (const Miss* m = miss_for(line)) return coh_code(m->state);
  if (const WriteBack* w = find_wb(line)) return coh_code(w->state);
  return coh_code(array.state_of(line));
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

const Op* CacheController::port_op(ControllerPort port) const {
  if (port == ControllerPort::kStoreBuffer) return nullptr;
  const auto& p = ports[static_cast<size_t>(port)];
  return p.busy ? &p.op : nullptr;
}

void CacheController::run_port(ControllerPort port) {
  if (ctx_->failed() || this->miss(port).active()) return;
  if (port == ControllerPort::kTx) return run_tx_port();
  if (port == ControllerPort::kData && ports[0].busy && !ports[0].performed &&
      (ports[0].op.tx || is_tx_control(ports[0].op.kind)))
    return run_tx_data(ports[0].op);
  uint32_t result = 0;
  if (port == ControllerPort::kStoreBuffer) {
    // Stores leave the buffer in order, one per cycle, each performed with
    // write permission in the L1.
    if (store_buffer.empty() || sb_drained_at == ctx_->now) return;
    const mem::BufferedStore& s = store_buffer.front();
    const Op op{OpKind::kStore, s.addr, s.size, s.value, AmoKind::kAdd};
    if (access(port, op, &result)) {
      store_buffer.pop();
      sb_drained_at = ctx_->now;
    }
    return;
  }
  auto& p = this->port(port);
  if (!p.busy || p.performed) return;
  const Op& op = p.op;
  if (op.kind == OpKind::kFence) {
    if (store_buffer.empty()) finish_port(port, 0, 1);
    return;
  }
  if (ctx_->tso && port == ControllerPort::kData) {
    if (op.kind == OpKind::kLoad) {
      const auto fwd = store_buffer.forward(op.addr, op.size);
      if (fwd.kind == mem::StoreBuffer::Forward::kPartial) return;  // wait until it drains
      if (fwd.kind == mem::StoreBuffer::Forward::kHit) {
        ++*ctx_->sb_forwards;
        if (ctx_->checker) ctx_->checker->on_forward(ctx_->now, id, op.addr, op.size, fwd.value);
        finish_port(port, fwd.value, ctx_->hit_latency);
        ctx_->check_failure();
        return;
      }
    } else if (op.kind == OpKind::kStore) {
      if (store_buffer.full()) return;
      const mem::BufferedStore s{op.addr, op.size, op.value};
      store_buffer.push(s);
      if (ctx_->checker) ctx_->checker->on_buffered(id, s);
      finish_port(port, 0, 1);
      return;
    } else if (!store_buffer.empty()) {
      return;  // AMO, LR, SC order like fences under TSO
    }
  }
  if (access(port, op, &result)) finish_port(port, result, ctx_->hit_latency);
}

// Performs `op` if the line's state allows it (true); otherwise starts or
// waits for the bus transaction the table asks for (false).
bool CacheController::access(ControllerPort port, const Op& op, uint32_t* result, bool transactional,
                             int event_override) {
  const uint64_t line = array.line_of(op.addr);
  if (!ctx_->frozen.empty() && ctx_->commit_token != static_cast<int>(id) &&
      std::find(ctx_->frozen.begin(), ctx_->frozen.end(), line) != ctx_->frozen.end())
    return false;  // half published by a commit: wait for its end
  if (!transactional && op.kind == OpKind::kSc && !(reservation && reservation_line == line)) {
    *result = 1;  // reservation lost: SC fails without writing
    return true;
  }
  const int way = array.find(line);
  const State state = way < 0 ? State::kI : array.line(way).state;
  const Event event = event_override >= 0 ? static_cast<Event>(event_override)
                      : writes(op.kind)   ? Event::kPrWr
                                          : Event::kPrRd;
  const int row = table().first_row(state, event);
  if (row < 0) {
    ctx_->protocol_error(line, fmt::format("{} has no row for ({}, {})", table().name(), mem::state_name(state),
                                           mem::event_name(event)));
    return false;
  }
  const mem::Row& r = table().rows()[static_cast<size_t>(row)];
  if (r.actions & mem::kHit) {
    if (way < 0) {
      ctx_->protocol_error(line, fmt::format("{}: a hit row for a line that is not present", table().name()));
      return false;
    }
    ctx_->count_row(row);
    if (r.next != state) {
      array.line(way).state = r.next;
      note(line);
    }
    ++counters.hits;
    if (transactional) return tx_perform(way, op, result);
    perform(way, op, result);
    return true;
  }
  start_miss(port, line, event);
  return false;
}

bool CacheController::start_miss(ControllerPort port, uint64_t line, Event event) {
  for (size_t p = 0; p < kControllerPorts; ++p)
    if (misses[p].active() && misses[p].line == line) return false;  // the other port's fill comes first
  if (find_wb(line)) return false;                                   // the victim must reach memory first
  int way = array.find(line);
  if (way < 0) {
    way = array.victim(line);
    if (way < 0) return false;  // every way waits for a fill
    auto& victim = array.line(way);
    if (victim.state != State::kI) {
      const int row = table().first_row(victim.state, Event::kReplace);
      if (row < 0) {
        ctx_->protocol_error(victim.line_addr, fmt::format("{} has no row for ({}, Replace)", table().name(),
                                                           mem::state_name(victim.state)));
        return false;
      }
      const mem::Row& r = table().rows()[static_cast<size_t>(row)];
      if (r.actions & mem::kWriteBackLine) {
        if (wb.size() >= ctx_->wb_buffer_entries) return false;
        const Transient wb_state = begin_write_back(victim.state);
        if (wb_state == Transient::kNone) {
          ctx_->protocol_error(victim.line_addr,
                               fmt::format("{}: no transient state waits for WriteBack after ({}, Replace)",
                                           table().name(), mem::state_name(victim.state)));
          return false;
        }
        WriteBack w;
        w.state = wb_state;
        w.line = victim.line_addr;
        w.data.assign(array.data(way), array.data(way) + ctx_->line_bytes);
        w.since = ctx_->now;
        wb.push_back(std::move(w));
      }
      ctx_->count_row(row);
      if (reservation && reservation_line == victim.line_addr) reservation = false;
      victim.state = r.next;
    }
    const uint64_t evicted = victim.line_addr;
    victim.line_addr = line;
    if (victim.state != State::kI || find_wb(evicted)) note(evicted);
  }
  // The transient state the miss waits in, from the protocol's row for the
  // line's stable state (I once a victim made room).
  const State from = array.line(way).state;
  const int row = table().first_row(from, event);
  const BusOp op = row < 0 ? BusOp::kNone : mem::bus_op_of(table().rows()[static_cast<size_t>(row)].actions);
  const Transient transient = begin_transient(from, event, op);
  if (transient == Transient::kNone) {
    ctx_->protocol_error(line, fmt::format("{}: no transient state waits for {} after ({}, {})", table().name(),
                                           mem::bus_op_name(op), mem::state_name(from), mem::event_name(event)));
    return false;
  }
  array.line(way).reserved = true;
  auto& m = this->miss(port);
  m = Miss{};
  m.state = transient;
  m.op = op;
  m.line = line;
  m.way = way;
  m.event = event;
  m.since = ctx_->now;
  ++counters.misses;
  ctx_->active = true;
  note(line);
  return true;
}

void CacheController::perform(int way, const Op& op, uint32_t* result) {
  auto& l = array.line(way);
  l.last_use = ++lru_clock;
  if (op.intent) {  // a commit's acquisition: the permission is all it wanted
    ctx_->active = true;
    return;
  }
  uint8_t* bytes = array.data(way) + (op.addr - l.line_addr);
  const uint32_t old = mem::read_le(bytes, op.size);
  if (!internal_access_) {
    ctx_->progress();
    ctx_->useful();
  }
  ctx_->active = true;
  switch (op.kind) {
    case OpKind::kLoad:
    case OpKind::kIfetch:
    case OpKind::kLr:
      *result = old;
      if (ctx_->checker) ctx_->checker->on_load(ctx_->now, id, op.addr, op.size, old);
      if (op.kind == OpKind::kLr) {
        reservation = true;
        reservation_line = l.line_addr;
      }
      break;
    case OpKind::kStore:
    case OpKind::kSc:
      mem::write_le(bytes, op.size, op.value);
      if (ctx_->written) ctx_->written->mark(op.addr, op.size);
      ++*ctx_->value_changes;
      *result = 0;
      if (ctx_->checker) ctx_->checker->on_store(ctx_->now, id, op.addr, op.size, op.value);
      if (op.kind == OpKind::kSc) reservation = false;
      break;
    case OpKind::kAmo: {
      const uint32_t updated = amo_result(op.amo, old, op.value);
      mem::write_le(bytes, op.size, updated);
      if (ctx_->written) ctx_->written->mark(op.addr, op.size);
      if (updated != old) ++*ctx_->value_changes;
      *result = old;
      if (ctx_->checker) {
        ctx_->checker->on_load(ctx_->now, id, op.addr, op.size, old);
        ctx_->checker->on_store(ctx_->now, id, op.addr, op.size, updated);
      }
      break;
    }
    case OpKind::kFence:
    case OpKind::kTxBegin:
    case OpKind::kTxCommit:
    case OpKind::kTxAbort:
    case OpKind::kTxRollback:
      break;
  }
  // The HTM checker sees every plain data access as it is performed; a
  // commit's publishing is its commit, undo-log traffic is not program data.
  if (ctx_->htm_checker && !tx_port_access_ && id % 2 == 0) {
    const uint32_t core = id / 2;
    if (op.kind == OpKind::kLoad || op.kind == OpKind::kLr || op.kind == OpKind::kAmo)
      ctx_->htm_checker->read(ctx_->now, core, op.addr, op.size, old);
    if (op.kind == OpKind::kStore || op.kind == OpKind::kSc)
      ctx_->htm_checker->write(ctx_->now, core, op.addr, op.size, mem::read_le(bytes, op.size));
    if (op.kind == OpKind::kAmo)
      ctx_->htm_checker->write(ctx_->now, core, op.addr, op.size, amo_result(op.amo, old, op.value));
  }
  ctx_->check_failure();
}

void CacheController::finish_port(ControllerPort port, uint32_t value, uint32_t latency) {
  if (port == ControllerPort::kStoreBuffer || port == ControllerPort::kTx) return;
  auto& p = this->port(port);
  p.performed = true;
  ctx_->completions.push_back(PortCompletion{ctx_->now + latency, id, port, value});
  ctx_->progress();
  ctx_->active = true;
}

void CacheController::fill(ControllerPort port, int row, const uint8_t* data) {
  auto& m = miss(port);
  auto& l = array.line(m.way);
  std::memcpy(array.data(m.way), data, ctx_->line_bytes);
  l.state = table().rows()[static_cast<size_t>(row)].next;
  l.reserved = false;
  l.last_use = ++lru_clock;
  ctx_->count_row(row);
  if (ctx_->htm_checker && id % 2 == 0) ctx_->htm_checker->seed(m.line, data);
  if (ctx_->checker) {
    ctx_->checker->on_fill(ctx_->now, id, m.line, data);
    ctx_->checker->check_line(ctx_->now, m.line);
    ctx_->check_failure();
  }
  m.state = next_transient(m.state, TransientEvent::kData);
  m.tag = -1;
  note(m.line);
}

std::string CacheController::apply_snoop(uint64_t line, int row, BusOp op, bool* update) {
  const mem::Row& rw = table().rows()[static_cast<size_t>(row)];
  ctx_->count_row(row);
  auto& l = array.line(array.find(line));
  const State before = l.state;
  l.state = rw.next;
  if (rw.next != before) {
    std::string error = snooped(line, table());
    if (!error.empty()) return error;
  }
  if (rw.next == State::kI) {
    ++counters.invalidations;
    l.pinned = false;  // a transaction keeps its sets (TxLine) when a line is taken without a conflict
  }
  *update = rw.actions & mem::kApplyUpdate;
  // Another core's write (invalidation or update) ends a reservation.
  if (reservation && reservation_line == line && (rw.next == State::kI || op == BusOp::kBusUpd)) reservation = false;
  if (rw.next != before) note(line);
  return "";
}

std::unique_ptr<BusResponse> CacheController::snoop_write_back(uint64_t line, uint32_t tag, bool needs_data,
                                                               std::string* error) {
  auto it = std::find_if(wb.begin(), wb.end(), [line](const WriteBack& w) { return w.line == line; });
  const TransientEvent ev = needs_data ? TransientEvent::kSnoopWantsData : TransientEvent::kSnoopTakesOwnership;
  const TransientRow* row = transient_row(it->state, ev);
  if (!row) {
    *error = fmt::format("{}: {} has no transition on {} in {}", table().name(), transient_name(it->state),
                         transient_event_name(ev), name());
    return nullptr;
  }
  it->state = row->next;
  std::unique_ptr<BusResponse> data;
  if (row->actions & kSupplyData)
    data = std::make_unique<BusResponse>(
        BusResponse{tag, static_cast<int>(id), ctx_->now + ctx_->hit_latency, true, true, it->data});
  if (row->actions & kRetire) wb.erase(it);
  note(line);
  return data;
}

bool CacheController::withdraw_lost_sc(ControllerPort port) {
  auto& m = miss(port);
  const Op* op = port_op(port);
  if (!op || op->kind != OpKind::kSc || (reservation && reservation_line == m.line)) return false;
  m.state = Transient::kNone;
  array.line(m.way).reserved = false;
  note(m.line);
  run_port(port);
  return true;
}

const TransientRow* CacheController::ordered(ControllerPort port, bool shared, int* protocol_row, std::string* error) {
  auto& m = miss(port);
  const State rs = array.line(m.way).state;
  *protocol_row = table().find(rs, m.event, shared);
  if (*protocol_row < 0) {
    *error = fmt::format("{} has no row for ({}, {}{}) in {}", table().name(), mem::state_name(rs),
                         mem::event_name(m.event), shared ? "(S)" : "(!S)", name());
    return nullptr;
  }
  const TransientRow* row = transient_row(m.state, TransientEvent::kOrdered);
  if (!row) {
    *error = fmt::format("{}: {} has no transition on Ordered", table().name(), transient_name(m.state));
    return nullptr;
  }
  m.state = row->next;
  note(m.line);
  return row;
}

void CacheController::complete_without_data(ControllerPort port, int row) {
  auto& m = miss(port);
  auto& l = array.line(m.way);
  l.state = table().rows()[static_cast<size_t>(row)].next;
  ctx_->count_row(row);
  m.tag = -1;
  l.reserved = false;
  note(m.line);
}

Op CacheController::perform_ordered_write(ControllerPort port, int* way) {
  if (port == ControllerPort::kTx) {
    Op performed;
    tx_port_ordered_write(way, &performed);
    return performed;
  }
  const Op* op = port_op(port);
  if (op && op->tx) {
    // A transactional write whose permission was just ordered: it goes to
    // the write buffer; the sharers of an update keep the committed bytes.
    // If its transaction aborted meanwhile it has no effect.
    uint32_t result = 0;
    *way = array.find(array.line_of(op->addr));
    Op performed = *op;
    if (tx.phase != TxPhase::kActive) {
      finish_quietly(port, 0, 1);
      performed.size = 0;
      return performed;
    }
    if (tx_perform(*way, performed, &result)) {
      if (tx.wait_log)
        tx.saved_result = result;
      else
        finish_quietly(port, result, ctx_->hit_latency);
    }
    return performed;
  }
  Op drained;
  if (!op) {
    const auto& s = store_buffer.front();
    drained = Op{OpKind::kStore, s.addr, s.size, s.value, AmoKind::kAdd};
    op = &drained;
  }
  uint32_t result = 0;
  const Op performed = *op;
  *way = array.find(array.line_of(performed.addr));
  perform(*way, performed, &result);
  if (port == ControllerPort::kStoreBuffer) {
    store_buffer.pop();
    sb_drained_at = ctx_->now;
  } else {
    finish_port(port, result, ctx_->hit_latency);
  }
  return performed;
}

std::string CacheController::write_back_ordered(uint64_t line, uint32_t tag) {
  WriteBack* w = find_wb(line);
  const TransientRow* row = transient_row(w->state, TransientEvent::kOrdered);
  if (!row) return fmt::format("{}: {} has no transition on Ordered", table().name(), transient_name(w->state));
  w->state = row->next;
  if (row->actions & kSendData)
    responses.push_back(std::make_unique<BusResponse>(
        BusResponse{tag, static_cast<int>(id), ctx_->now + ctx_->hit_latency, false, true, w->data}));
  note(line);
  return "";
}

std::string CacheController::write_back_sent(uint64_t line) {
  WriteBack* w = find_wb(line);
  const TransientRow* row = w ? transient_row(w->state, TransientEvent::kData) : nullptr;
  if (!row)
    return fmt::format("{}: {} has no transition on Data", table().name(),
                       transient_name(w ? w->state : Transient::kNone));
  w->state = row->next;
  w->tag = -1;
  if (row->actions & kRetire)
    wb.erase(std::remove_if(wb.begin(), wb.end(), [line](const WriteBack& e) { return e.line == line; }), wb.end());
  note(line);
  return "";
}

uint32_t CacheController::write_back_and_invalidate(Bridge& bridge) {
  uint32_t written = 0;
  std::vector<uint64_t> emptied;
  for (auto& w : wb) {
    bridge.write(w.line, w.data.data());
    ++written;
    if (ctx_->on_line) emptied.push_back(w.line);
  }
  wb.clear();
  for (uint64_t line : emptied) note(line);
  for (size_t way = 0; way < array.num_lines(); ++way) {
    auto& l = array.line(static_cast<int>(way));
    if (l.state == State::kI) continue;
    if (mem::is_dirty(l.state)) {
      bridge.write(l.line_addr, array.data(static_cast<int>(way)));
      ++written;
    }
    l.state = State::kI;
    note(l.line_addr);
  }
  reservation = false;
  return written;
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
  if (tx.phase != TxPhase::kIdle) {
    static constexpr const char* kPhase[] = {"idle",       "running",      "acquiring its write set",
                                             "publishing", "rolling back", "aborted"};
    out += fmt::format("{}: transaction begun at cycle {} {}, {} lines in its sets, {} queued transaction-port ops\n",
                       who, tx.begin_cycle, kPhase[static_cast<size_t>(tx.phase)], tx.lines.size(), tx.ops.size());
  }
  if (!store_buffer.empty()) out += fmt::format("{}: {} buffered stores\n", who, store_buffer.size());
  for (const auto& w : wb)
    out += fmt::format("{}: write-back {:#x} in {}{} since cycle {}\n", who, w.line, transient_name(w.state),
                       w.granted() ? fmt::format(" (tag {})", w.tag) : "", w.since);
  if (!responses.empty()) out += fmt::format("{}: {} responses queued\n", who, responses.size());
  return out;
}

}  // namespace tessera::bus
