#include "gpu/l2_slice.h"

#include <algorithm>

namespace tessera::gpu {

using mem::kSectorBytes;
using mem::kSectorsPerLine;
using sim::MemOp;

unsigned slice_for_line(uint32_t line_number, unsigned slices, bool hashed) {
  if (hashed && slices > 1) {
    unsigned bits = 0;
    while ((2u << bits) <= slices) ++bits;  // floor(log2(slices))
    uint32_t folded = 0;
    for (uint32_t v = line_number; v; v >>= bits) folded ^= v;
    line_number = folded;
  }
  return line_number % slices;
}

L2Slice::L2Slice(const L2Params& p) : p_(p), cache_(p.geometry), mshr_(p.mshrs) {}

void L2Slice::push(const L2Request& r, uint64_t arrival) { input_.push_back(Queued{r, arrival}); }

void L2Slice::cycle(uint64_t now) {
  if (input_.empty() || input_.front().arrival > now) return;
  if (serve(input_.front().req, now)) {
    input_.pop_front();
  } else {
    ++stats_.mshr_full_cycles;
  }
}

uint64_t L2Slice::next_work(uint64_t now) const {
  uint64_t next = kNever;
  if (!input_.empty()) next = std::max(now + 1, input_.front().arrival);
  if (!answers_.empty()) next = std::min(next, std::max(now + 1, answers_.front().cycle));
  return next;
}

bool L2Slice::serve(const L2Request& r, uint64_t now) {
  if (r.op == MemOp::kWrite) {
    ++stats_.writes;
    write_back(cache_.fill(r.line, r.sectors, true));
    answer(r.handle, r.op, 0, now + p_.hit_latency);
    return true;
  }
  const uint8_t hit = cache_.lookup(r.line, r.sectors);
  const uint8_t miss = static_cast<uint8_t>(r.sectors & ~hit);
  auto* entry = miss ? mshr_.find(r.line) : nullptr;
  if (miss && !entry && mshr_.full()) return false;

  if (r.op == MemOp::kAtomic) {
    ++stats_.atomics;
    stats_.atomic_ops += r.atomic_ops;
  } else {
    ++stats_.reads;
  }
  stats_.hit_sectors += static_cast<unsigned>(__builtin_popcount(hit));
  if (r.op == MemOp::kAtomic && hit) cache_.fill(r.line, hit, true);  // the atomic unit writes them
  if (!miss) {
    answer(r.handle, r.op, r.atomic_ops, now + p_.hit_latency);
    return true;
  }
  if (!entry) entry = &mshr_.allocate(r.line);
  // Fetch only the sectors no earlier miss asked for.
  // A sector already on its way from memory is neither a hit nor a miss: how
  // many requests find it in flight depends on memory timing, while the
  // misses (the sectors fetched) do not.
  const uint8_t fetch = static_cast<uint8_t>(miss & ~entry->requested);
  stats_.miss_sectors += static_cast<unsigned>(__builtin_popcount(fetch));
  stats_.mshr_merged_sectors += static_cast<unsigned>(__builtin_popcount(miss & entry->requested));
  entry->requested = static_cast<uint8_t>(entry->requested | fetch);
  for (unsigned s = 0; s < kSectorsPerLine; ++s) {
    if (fetch & (1u << s)) {
      to_memory_.push_back(MemoryRequest{r.line + s * kSectorBytes, false, r.handle});
      ++stats_.mem_reads;
    }
  }
  entry->waiters.push_back({Waiter{r.handle, r.op, r.atomic_ops, miss}, miss});
  return true;
}

void L2Slice::fill(uint32_t sector_addr, uint64_t now) {
  const uint32_t line = sector_addr & ~(mem::kLineBytes - 1);
  const auto sector = static_cast<uint8_t>(1u << ((sector_addr % mem::kLineBytes) / kSectorBytes));
  write_back(cache_.fill(line, sector, false));
  mshr_.arrive(line, sector, [&](const Waiter& w) {
    if (w.op == MemOp::kAtomic) cache_.fill(line, w.sectors, true);
    answer(w.handle, w.op, w.atomic_ops, now + p_.hit_latency);
  });
}

void L2Slice::answer(uint64_t handle, MemOp op, unsigned atomic_ops, uint64_t data_ready) {
  uint64_t at = data_ready;
  if (op == MemOp::kAtomic) {
    // The atomic unit reads, modifies and writes one lane's word at a time.
    const uint64_t start = std::max(data_ready, atomic_free_);
    atomic_free_ = start + uint64_t{p_.atomic_cycles} * std::max(atomic_ops, 1u);
    at = atomic_free_;
    if (atomic_log_) {
      if (!atomic_log_->empty() && atomic_log_->back().second == start) {
        atomic_log_->back().second = atomic_free_;
      } else {
        atomic_log_->emplace_back(start, atomic_free_);
      }
    }
  }
  // Keep the answers in cycle order (an atomic may finish after a later hit).
  auto it = answers_.end();
  while (it != answers_.begin() && std::prev(it)->cycle > at) --it;
  answers_.insert(it, Answer{handle, at});
}

void L2Slice::write_back(const mem::SectorCache::Victim& v) {
  for (unsigned s = 0; s < kSectorsPerLine; ++s) {
    if (v.dirty & (1u << s)) {
      to_memory_.push_back(MemoryRequest{v.line + s * kSectorBytes, true});
      ++stats_.writebacks;
    }
  }
}

}  // namespace tessera::gpu
