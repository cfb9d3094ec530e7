#include "bus/tx_manager.h"

#include "mem/bytes.h"

namespace tessera::bus {

uint64_t exact_words(uint64_t offset, uint32_t size) {
  uint64_t m = 0;
  for (uint64_t w = offset / 4; w <= (offset + size - 1) / 4; ++w) m |= uint64_t{1} << w;
  return m;
}

void TxManager::begin(uint64_t now, uint32_t base, uint32_t size) {
  phase = TxPhase::kActive;
  begin_cycle = now;
  if (!keep_timestamp) timestamp = now;
  log_base = base;
  log_size = size;
  log_used = log_stores_done = 0;
  lines.clear();
  ops.clear();
  deferred.clear();
  stalled = wait_log = false;
  ++counters.started;
}

TxLine& TxManager::open(uint64_t line, uint32_t line_bytes) {
  if (TxLine* tl = find(line)) return *tl;
  lines.push_back(TxLine{line, 0, 0, 0, std::vector<uint8_t>(line_bytes), std::vector<uint8_t>(line_bytes)});
  return lines.back();
}

bool TxManager::log(TxLine& tl, uint64_t words, const uint8_t* committed) {
  const uint64_t unlogged = words & ~tl.logged;
  if (!unlogged) return true;
  const auto entries = static_cast<uint32_t>(__builtin_popcountll(unlogged));
  if (log_used + 8 * entries > log_size) return false;
  for (uint32_t w = 0; w < 64; ++w) {
    if (!(unlogged >> w & 1)) continue;
    const uint32_t old = mem::read_le(committed + 4 * w, 4);
    const uint64_t entry = log_base + log_used;
    ops.push_back(Op{OpKind::kStore, entry, 4, static_cast<uint32_t>(tl.line + 4 * w), AmoKind::kAdd});
    ops.push_back(Op{OpKind::kStore, entry + 4, 4, old, AmoKind::kAdd});
    log_used += 8;
    counters.undo_log_bytes += 8;
  }
  tl.logged |= unlogged;
  wait_log = true;
  return true;
}

void TxManager::begin_commit(uint64_t now) {
  phase = TxPhase::kAcquiring;
  commit_started = now;
  ops.clear();
  for (const auto& l : lines)
    if (l.wmask) {
      Op o{OpKind::kStore, l.line, 4, 0, AmoKind::kAdd};
      o.intent = true;
      ops.push_back(o);
    }
}

void TxManager::publish(uint32_t line_bytes) {
  phase = TxPhase::kPublishing;
  for (const auto& l : lines) {
    if (!l.wmask) continue;
    for (uint32_t w = 0; w < line_bytes / 4; ++w) {
      const uint8_t* m = &l.written[4 * w];
      if (m[0] && m[1] && m[2] && m[3]) {
        ops.push_back(Op{OpKind::kStore, l.line + 4 * w, 4, mem::read_le(&l.data[4 * w], 4), AmoKind::kAdd});
        continue;
      }
      for (uint32_t b = 0; b < 4; ++b)
        if (m[b]) ops.push_back(Op{OpKind::kStore, l.line + 4 * w + b, 1, l.data[4 * w + b], AmoKind::kAdd});
    }
  }
}

void TxManager::committed(uint64_t now) {
  ++counters.committed;
  counters.committed_cycles += now - begin_cycle;
  phase = TxPhase::kIdle;
  keep_timestamp = false;
  karma = 0;
}

TxManager::Deferred TxManager::abort(TxReason reason, uint8_t code, uint64_t now) {
  status = tx_status(reason, code);
  ++counters.aborts[static_cast<size_t>(reason)];
  counters.aborted_cycles += now - begin_cycle;
  keep_timestamp = true;
  karma += lines.size();
  Deferred readers = std::move(deferred);
  deferred.clear();
  ops.clear();
  wait_log = false;
  return readers;
}

bool TxManager::walk_back(bool eager, uint64_t now) {
  const uint32_t entries = log_stores_done / 2;
  if (!eager || entries == 0) return false;
  phase = TxPhase::kRollingBack;
  walk_started = now;
  for (uint32_t i = entries; i-- > 0;) {
    ops.push_back(Op{OpKind::kLoad, log_base + 8u * i, 4, 0, AmoKind::kAdd});
    ops.push_back(Op{OpKind::kFence, 0, 4, 0, AmoKind::kAdd});  // the restore write
  }
  return true;
}

void TxManager::clear_sets() {
  lines.clear();
  deferred.clear();
  stalled = false;
}

}  // namespace tessera::bus
