#include "sm/block_slots.h"

#include <algorithm>

namespace tessera::sm {

BlockSlots::BlockSlots(const SmParams& p) : p_(p), blocks_(p.max_blocks) {
  shared_free_.emplace_back(0, p_.shared_bytes);
}

bool BlockSlots::can_accept(const KernelLaunch& k) const {
  const BlockFootprint f = footprint(k, kWarpSize, p_.register_granule);
  if (resident_blocks_ >= p_.max_blocks) return false;
  if (resident_warps_ + f.warps > p_.max_warps) return false;
  if (resident_threads_ + f.threads > p_.max_threads) return false;
  if (used_registers_ + f.registers > p_.registers) return false;
  const uint32_t need = align16(f.shared_bytes);
  if (need == 0) return true;
  return std::any_of(shared_free_.begin(), shared_free_.end(), [need](const auto& e) { return e.second >= need; });
}

unsigned BlockSlots::start(const KernelLaunch& k, uint64_t block_index) {
  const BlockFootprint f = footprint(k, kWarpSize, p_.register_granule);
  unsigned b = 0;
  while (blocks_[b].resident) ++b;
  Block& blk = blocks_[b];
  blk = Block{};
  blk.resident = true;
  blk.index = block_index;
  blk.ctaid[0] = static_cast<uint32_t>(block_index % k.grid.x);
  blk.ctaid[1] = static_cast<uint32_t>((block_index / k.grid.x) % k.grid.y);
  blk.ctaid[2] = static_cast<uint32_t>(block_index / (uint64_t{k.grid.x} * k.grid.y));
  blk.launch = k;
  blk.use = f;
  blk.threads = static_cast<unsigned>(f.threads);

  const uint32_t need = align16(f.shared_bytes);
  if (need) {
    auto it =
        std::find_if(shared_free_.begin(), shared_free_.end(), [need](const auto& e) { return e.second >= need; });
    blk.shared_base = it->first;
    it->first += need;
    it->second -= need;
    if (it->second == 0) shared_free_.erase(it);
  }
  ++resident_blocks_;
  resident_warps_ += static_cast<unsigned>(f.warps);
  resident_threads_ += static_cast<unsigned>(f.threads);
  used_registers_ += static_cast<unsigned>(f.registers);
  return b;
}

void BlockSlots::retire(unsigned slot) {
  Block& blk = blocks_[slot];
  blk.resident = false;
  --resident_blocks_;
  resident_warps_ -= static_cast<unsigned>(blk.use.warps);
  resident_threads_ -= static_cast<unsigned>(blk.use.threads);
  used_registers_ -= static_cast<unsigned>(blk.use.registers);
  const uint32_t size = align16(blk.use.shared_bytes);
  if (!size) return;
  shared_free_.emplace_back(blk.shared_base, size);
  std::sort(shared_free_.begin(), shared_free_.end());
  for (size_t i = 0; i + 1 < shared_free_.size();) {  // merge neighbours
    if (shared_free_[i].first + shared_free_[i].second == shared_free_[i + 1].first) {
      shared_free_[i].second += shared_free_[i + 1].second;
      shared_free_.erase(shared_free_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    } else {
      ++i;
    }
  }
}

}  // namespace tessera::sm
