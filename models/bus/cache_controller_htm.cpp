// The transactional half of a cache controller (bus/htm.h, docs/htm.md):
// transactional accesses into the write buffer and read/write sets, the
// undo log of eager versioning, aborts and their rollback, and commits
// (acquiring the write set, then publishing it under the commit token).
// What the transaction's state becomes and what its port queues is the
// TxManager's (bus/tx_manager.h); this file performs the accesses.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "bus/amo.h"
#include "bus/cache_controller.h"
#include "mem/bytes.h"

namespace tessera::bus {

using mem::Event;
using mem::State;

uint64_t CacheController::tx_words(uint64_t addr, uint32_t size) const {
  if (!ctx_->htm || !ctx_->htm->word_granularity) return ~uint64_t{0};
  return exact_words(addr - array.line_of(addr), size);
}

uint64_t CacheController::request_words(ControllerPort port) const {
  if (port == ControllerPort::kStoreBuffer) {
    if (store_buffer.empty()) return ~uint64_t{0};
    return tx_words(store_buffer.front().addr, store_buffer.front().size);
  }
  const Op* op = port_op(port);
  if (!op || is_tx_control(op->kind) || op->kind == OpKind::kFence) return ~uint64_t{0};
  if (op->intent) {
    for (const auto& l : tx.lines)
      if (l.line == array.line_of(op->addr)) return l.wmask;
    return ~uint64_t{0};
  }
  return tx_words(op->addr, op->size);
}

void CacheController::finish_quietly(ControllerPort port, uint32_t value, uint32_t latency) {
  auto& p = this->port(port);
  p.performed = true;
  ctx_->completions.push_back(PortCompletion{ctx_->now + latency, id, port, value});
  ctx_->active = true;
}

void CacheController::withdraw_miss(ControllerPort port) {
  auto& m = miss(port);
  m.state = Transient::kNone;
  m.tag = -1;
  array.line(m.way).reserved = false;
  note(m.line);
}

void CacheController::run_tx_data(const Op& op) {
  const HtmParams& htm = *ctx_->htm;
  switch (op.kind) {
    case OpKind::kTxBegin: {
      if (!store_buffer.empty()) return;  // begin orders like a fence
      if (tx.phase != TxPhase::kIdle) {
        ctx_->protocol_error(0, fmt::format("{}: a transaction began while the previous one was not finished", name()));
        return;
      }
      tx.begin(ctx_->now, static_cast<uint32_t>(op.addr), op.value);
      if (ctx_->htm_checker) ctx_->htm_checker->begin(ctx_->now, id / 2);
      finish_quietly(ControllerPort::kData, 0, 1);
      return;
    }
    case OpKind::kTxCommit:
      if (tx.phase == TxPhase::kActive && !tx.wait_log) return tx_begin_commit();
      if (tx.phase == TxPhase::kActive || tx.phase == TxPhase::kAcquiring || tx.phase == TxPhase::kPublishing)
        return;                                     // under way
      finish_quietly(ControllerPort::kData, 1, 1);  // it had aborted
      return;
    case OpKind::kTxAbort:
      if (tx.running()) tx_abort(static_cast<TxReason>(op.value & 0xFF), static_cast<uint8_t>(op.value >> 8));
      if (!port(ControllerPort::kData).performed) finish_quietly(ControllerPort::kData, 0, 1);
      return;
    case OpKind::kTxRollback:
      if (tx.phase == TxPhase::kRollingBack) return;
      if (tx.phase == TxPhase::kAborted) {
        tx.phase = TxPhase::kIdle;
        finish_quietly(ControllerPort::kData, 0, htm.versioning == Versioning::kLazy ? htm.abort_cycles : 1);
        return;
      }
      finish_quietly(ControllerPort::kData, 0, 1);
      return;
    default:
      break;
  }
  if (tx.phase != TxPhase::kActive) {
    // The transaction aborted: the access has no effect.
    finish_quietly(ControllerPort::kData, 0, 1);
    return;
  }
  if (tx.wait_log) {
    if (tx.ops.empty()) {
      tx.wait_log = false;
      finish_quietly(ControllerPort::kData, tx.saved_result, ctx_->hit_latency);
    }
    return;
  }
  if (op.kind == OpKind::kFence) {
    finish_quietly(ControllerPort::kData, 0, 1);
    return;
  }
  uint32_t result = 0;
  if (!tx_access(ControllerPort::kData, op, &result)) return;
  if (tx.wait_log)
    tx.saved_result = result;
  else
    finish_quietly(ControllerPort::kData, result, ctx_->hit_latency);
}

bool CacheController::tx_access(ControllerPort port, const Op& op, uint32_t* result) {
  const HtmParams& htm = *ctx_->htm;
  const bool write = op.kind != OpKind::kLoad && op.kind != OpKind::kLr;
  // Pessimistic detection announces a write at once (an exclusive request
  // others' snoops check); eager versioning must own the line to write in
  // place. Lazy optimistic writes only need the line present.
  const bool exclusive_now =
      write && (htm.detection == Detection::kPessimistic || htm.versioning == Versioning::kEager);
  const uint64_t line = array.line_of(op.addr);
  if (array.find(line) < 0 && array.pinned_set(line)) {
    tx_abort(TxReason::kCapacity);
    return false;
  }
  return access(port, op, result, true, static_cast<int>(exclusive_now ? Event::kPrWr : Event::kPrRd));
}

bool CacheController::tx_perform(int way, const Op& op, uint32_t* result) {
  const HtmParams& htm = *ctx_->htm;
  auto& l = array.line(way);
  l.last_use = ++lru_clock;
  const uint64_t line = l.line_addr;
  const uint32_t offset = static_cast<uint32_t>(op.addr - line);
  TxLine* tl = &tx.open(line, ctx_->line_bytes);
  const bool reads = op.kind == OpKind::kLoad || op.kind == OpKind::kLr || op.kind == OpKind::kAmo;
  const bool writes_word = op.kind != OpKind::kLoad && op.kind != OpKind::kLr;
  if (writes_word && htm.versioning == Versioning::kEager &&
      !tx.log(*tl, exact_words(offset, op.size), array.data(way))) {
    tx_abort(TxReason::kLogOverflow);
    return false;
  }
  // The transaction's view: its write buffer over the committed line.
  uint8_t bytes[4];
  for (uint32_t i = 0; i < op.size; ++i)
    bytes[i] = tl->written[offset + i] ? tl->data[offset + i] : array.data(way)[offset + i];
  const uint32_t value = mem::read_le(bytes, op.size);
  const uint64_t words = tx_words(op.addr, op.size);
  if (reads) {
    tl->rmask |= words;
    if (ctx_->htm_checker) ctx_->htm_checker->tx_read(ctx_->now, id / 2, op.addr, op.size, value);
  }
  if (writes_word) {
    const uint32_t updated = op.kind == OpKind::kAmo ? amo_result(op.amo, value, op.value) : op.value;
    for (uint32_t i = 0; i < op.size; ++i) {
      tl->data[offset + i] = static_cast<uint8_t>(updated >> (8 * i));
      tl->written[offset + i] = 1;
    }
    tl->wmask |= words;
    if (ctx_->htm_checker)
      ctx_->htm_checker->tx_write(ctx_->now, id / 2, op.addr, op.size, mem::read_le(&tl->data[offset], op.size));
  }
  ctx_->check_failure();
  *result = op.kind == OpKind::kStore || op.kind == OpKind::kSc ? 0 : value;
  l.pinned = true;
  tx.stalled = false;
  ctx_->active = true;
  return true;
}

void CacheController::run_tx_port() {
  if (tx.port_cycle == ctx_->now) return;
  tx_port_access_ = true;
  run_tx_port_ops();
  tx_port_access_ = false;
}

void CacheController::run_tx_port_ops() {
  const HtmParams& htm = *ctx_->htm;
  uint32_t result = 0;
  switch (tx.phase) {
    case TxPhase::kActive: {
      // Undo-log stores, one per cycle, through the L1D like any store.
      if (tx.ops.empty()) return;
      const Op& o = tx.ops.front();
      if (array.find(array.line_of(o.addr)) < 0 && array.pinned_set(o.addr)) return tx_abort(TxReason::kCapacity);
      internal_access_ = true;
      const bool done = access(ControllerPort::kTx, o, &result);
      internal_access_ = false;
      if (done) {
        tx.ops.pop_front();
        ++tx.log_stores_done;
        tx.port_cycle = ctx_->now;
      }
      return;
    }
    case TxPhase::kRollingBack: {
      // The walk: each entry, newest first, is read from the log and its
      // old word written back (a cycle: the line is held by this cache).
      if (!tx.ops.empty()) {
        const Op& o = tx.ops.front();
        bool done = true;
        if (o.kind == OpKind::kLoad && !(array.find(array.line_of(o.addr)) < 0 && array.pinned_set(o.addr))) {
          internal_access_ = true;
          done = access(ControllerPort::kTx, o, &result);
          internal_access_ = false;
        }
        if (!done) return;
        tx.ops.pop_front();
        tx.port_cycle = ctx_->now;
        ctx_->active = true;
        if (!tx.ops.empty()) return;
      }
      tx.counters.rollback_cycles += ctx_->now - tx.walk_started;
      tx_release();
      tx.phase = TxPhase::kAborted;
      ctx_->active = true;
      return;
    }
    case TxPhase::kAcquiring: {
      // Write permission for every written line; those already held cost
      // nothing.
      while (!tx.ops.empty()) {
        const Op& o = tx.ops.front();
        if (array.find(o.addr) < 0 && array.pinned_set(o.addr)) return tx_abort(TxReason::kCapacity);
        if (!access(ControllerPort::kTx, o, &result, false, static_cast<int>(Event::kPrWr))) return;
        tx.ops.pop_front();
      }
      if (ctx_->commit_token >= 0 && ctx_->commit_token != static_cast<int>(id)) return;  // another commit publishes
      ctx_->commit_token = static_cast<int>(id);
      tx.publish(ctx_->line_bytes);
      [[fallthrough]];
    }
    case TxPhase::kPublishing: {
      // Eager versioning's values are in place: one cycle. Lazy: the write
      // buffer drains a line per cycle.
      while (!tx.ops.empty()) {
        const Op o = tx.ops.front();
        const uint64_t line = array.line_of(o.addr);
        if (!access(ControllerPort::kTx, o, &result)) return;
        tx.ops.pop_front();
        if (std::find(ctx_->frozen.begin(), ctx_->frozen.end(), line) == ctx_->frozen.end())
          ctx_->frozen.push_back(line);
        if (htm.versioning == Versioning::kLazy && !tx.ops.empty() && array.line_of(tx.ops.front().addr) != line) {
          tx.port_cycle = ctx_->now;
          return;
        }
      }
      tx_finish_commit();
      return;
    }
    case TxPhase::kIdle:
    case TxPhase::kAborted:
      return;
  }
}

bool CacheController::tx_port_ordered_write(int* way, Op* performed) {
  const auto& m = miss(ControllerPort::kTx);
  *way = array.find(m.line);
  *performed = Op{};
  performed->size = 0;
  if (tx.ops.empty() || array.line_of(tx.ops.front().addr) != m.line) return false;  // its operation was dropped
  const Op o = tx.ops.front();
  uint32_t result = 0;
  internal_access_ = tx.phase != TxPhase::kPublishing;
  tx_port_access_ = true;
  perform(*way, o, &result);
  internal_access_ = tx_port_access_ = false;
  tx.ops.pop_front();
  if (tx.phase == TxPhase::kActive) ++tx.log_stores_done;
  if (tx.phase == TxPhase::kPublishing &&
      std::find(ctx_->frozen.begin(), ctx_->frozen.end(), m.line) == ctx_->frozen.end())
    ctx_->frozen.push_back(m.line);
  if (!o.intent) *performed = o;
  return true;
}

void CacheController::tx_begin_commit() {
  tx.begin_commit(ctx_->now);
  ctx_->active = true;
}

void CacheController::tx_finish_commit() {
  for (const auto& [agent, begun] : tx.deferred) {
    CacheController& v = *(*ctx_->agents)[agent];
    if (v.tx.running() && v.tx.begin_cycle == begun) v.tx_abort(TxReason::kConflictWR);
  }
  if (ctx_->htm_checker) {
    ctx_->htm_checker->commit(ctx_->now, id / 2);
    ctx_->check_failure();
  }
  tx_release();
  tx.committed(ctx_->now);
  if (ctx_->commit_token == static_cast<int>(id)) {
    ctx_->commit_token = -1;
    ctx_->frozen.clear();
  }
  ctx_->useful();
  finish_port(ControllerPort::kData, 0, 1);  // a commit is progress
}

void CacheController::tx_release() {
  for (const auto& l : tx.lines) {
    const int way = array.find(l.line);
    if (way >= 0) array.line(way).pinned = false;
  }
  tx.clear_sets();
}

void CacheController::tx_abort(TxReason reason, uint8_t code) {
  if (!tx.running()) return;
  const HtmParams& htm = *ctx_->htm;
  const TxManager::Deferred deferred = tx.abort(reason, code, ctx_->now);
  ++ctx_->aborts_since_useful;
  if (ctx_->htm_checker) ctx_->htm_checker->abort(ctx_->now, id / 2);
  if (miss(ControllerPort::kTx).active() && !miss(ControllerPort::kTx).granted()) withdraw_miss(ControllerPort::kTx);
  auto& p = port(ControllerPort::kData);
  if (p.busy && !p.performed && (p.op.tx || p.op.kind == OpKind::kTxCommit)) {
    if (miss(ControllerPort::kData).active() && !miss(ControllerPort::kData).granted())
      withdraw_miss(ControllerPort::kData);
    // A request on the bus finishes first; run_tx_data then completes it.
    if (!miss(ControllerPort::kData).active())
      finish_quietly(ControllerPort::kData, p.op.kind == OpKind::kTxCommit ? 1 : 0, 1);
  }
  if (!tx.walk_back(htm.versioning == Versioning::kEager, ctx_->now)) {
    tx_release();
    tx.phase = TxPhase::kAborted;
  }
  ctx_->active = true;
  // Readers whose lines this transaction's writes took cannot see what
  // happens to those lines next: they abort with it.
  for (const auto& [agent, begun] : deferred) {
    CacheController& v = *(*ctx_->agents)[agent];
    if (v.tx.running() && v.tx.begin_cycle == begun) v.tx_abort(TxReason::kConflictWR);
  }
}

}  // namespace tessera::bus
