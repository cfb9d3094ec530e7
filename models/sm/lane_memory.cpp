#include "sm/lane_memory.h"

#include <algorithm>

#include "isa/encoding.h"

namespace tessera::sm {

using isa::MemStatus;

LaneMemory::LaneMemory(const Context& ctx)
    : p_(ctx.params),
      global_(ctx.global),
      program_(ctx.program),
      run_(ctx.run),
      atomics_(ctx.atomics),
      sm_id_(ctx.sm_id),
      num_sms_(ctx.num_sms),
      warp_insts_(ctx.warp_insts),
      shared_(ctx.shared),
      defer_shared_(ctx.defer_shared),
      local_(0, uint64_t{ctx.params.max_warps} * kWarpSize * ctx.params.local_bytes) {
  // tessera.ld brackets the __constant__ data (section .tessera.constant).
  const isa::ElfImage& image = program_.image();
  const auto lo = image.symbol("__tessera_constant_start"), hi = image.symbol("__tessera_constant_end");
  if (lo && hi && *hi > *lo) {
    const_lo_ = *lo;
    const_hi_ = *hi;
  }
}

MemStatus LaneMemory::load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) {
  uint32_t offset = 0;
  if (in_shared(addr, bytes, &offset)) {
    note_shared(offset);
    if (!defer_shared_) {
      *value = shared_.load(offset, bytes);
      return MemStatus::kOk;
    }
    rec_.shared_offset[lane_] = offset;
    if (inst_->is_store) {  // an atomic: the unit's ALU applies the operands
      const isa::ThreadState& t = warp_->threads[lane_];
      rec_.shared_data[lane_] = t.x[inst_->rs2];
      rec_.shared_swap[lane_] = t.x[inst_->rs3];
      // Whether a CAS stores is known only when the unit performs it: it
      // breaks LR reservations on the word either way.
      if (inst_->op == isa::Op::kAtomCas && !shared_reservations_.empty()) break_shared_reservations(offset);
    }
    *value = 0;  // written by the engine when the unit answers
    return MemStatus::kOk;
  }
  if (addr - kLocalWindow < p_.local_bytes) {
    if (is_atomic()) return access_fault(FaultWhy::kLocalAtomic, addr);
    rec_.local = true;
    *value = local_.load((slot_ * kWarpSize + lane_) * p_.local_bytes + (addr - kLocalWindow), bytes);
    return MemStatus::kOk;
  }
  if (!global_.contains(addr, bytes)) {
    if (devices_ && devices_->maps(addr)) return device_access(false, addr, bytes, value);
    return access_fault(FaultWhy::kUnmapped, addr);
  }
  if (inst_->is_store && program_.find(addr & ~3u)) return access_fault(FaultWhy::kCodeStore, addr);
  if (inst_->is_store && inst_->op != isa::Op::kLrW && inst_->op != isa::Op::kScW) {
    // A global atomic: performed with this instant's others, in SM order.
    isa::ThreadState& t = warp_->threads[lane_];
    atomics_.add(sm_id_, inst_->op, addr, t.x[inst_->rs2], t.x[inst_->rs3], inst_->rd ? &t.x[inst_->rd] : nullptr);
    rec_.deferred_lanes |= 1u << lane_;
    *value = 0;  // replaced by the old value when it is performed
  } else {
    *value = global_.load(addr, bytes);
    if (in_constant(addr)) note_constant(addr);
  }
  rec_.read_only |= read_only;
  rec_.global_lanes |= 1u << lane_;
  rec_.global.add(addr, bytes);
  return MemStatus::kOk;
}

MemStatus LaneMemory::store(uint32_t addr, unsigned bytes, uint32_t value) {
  uint32_t offset = 0;
  if (in_shared(addr, bytes, &offset)) {
    // An atomic's store follows its load on the same word: one bank access.
    if (!(rec_.shared_mask & (1u << lane_))) note_shared(offset);
    if (defer_shared_ && inst_->is_load) {
      // An atomic: its operands were recorded by its load; the engine notes
      // its progress when the unit answers.
      if (inst_->op != isa::Op::kAtomCas && !shared_reservations_.empty()) break_shared_reservations(offset);
      return MemStatus::kOk;
    }
    if (!shared_reservations_.empty()) break_shared_reservations(offset);
    if (defer_shared_) {
      run_.note_change();
      const unsigned shift = 8 * (offset & 3);
      rec_.shared_offset[lane_] = offset;
      rec_.shared_be[lane_] = static_cast<uint8_t>(((1u << bytes) - 1) << (offset & 3));
      rec_.shared_data[lane_] = value << shift;
      return MemStatus::kOk;
    }
    // A plain store is progress; an atomic (word-sized) only when it changes the word.
    if (!inst_->is_load || shared_.load(offset, 4) != value) run_.note_change();
    shared_.store(offset, bytes, value);
    return MemStatus::kOk;
  }
  if (addr - kLocalWindow < p_.local_bytes) {
    rec_.local = true;
    const uint32_t local_offset = (slot_ * kWarpSize + lane_) * p_.local_bytes + (addr - kLocalWindow);
    run_.note_change();  // local memory takes no atomics
    local_.store(local_offset, bytes, value);
    return MemStatus::kOk;
  }
  if (!global_.contains(addr, bytes)) {
    if (devices_ && devices_->maps(addr)) return device_access(true, addr, bytes, &value);
    return access_fault(FaultWhy::kUnmapped, addr);
  }
  if (program_.find(addr & ~3u)) return access_fault(FaultWhy::kCodeStore, addr);
  if (!(rec_.deferred_lanes & (1u << lane_))) {
    run_.note_change();  // a plain store or a successful SC; deferred atomics tell for themselves
    global_.store(addr, bytes, value);
  }
  // An atomic's store follows its load on the same word: one request.
  if (!(rec_.global_lanes & (1u << lane_))) rec_.global.add(addr, bytes);
  return MemStatus::kOk;
}

// The wide loads and stores and the 64-bit atomics: one lane's 8 or 16
// aligned bytes, one shared bank-word group or one coalescer entry.
MemStatus LaneMemory::load_wide(uint32_t addr, unsigned bytes, uint32_t* words) {
  const unsigned n = bytes / 4;
  const bool atomic = inst_->is_store;
  uint32_t offset = 0;
  if (in_shared(addr, bytes, &offset)) {
    if (defer_shared_) return access_fault(FaultWhy::kWideSharedRtl, addr);
    note_shared(offset);
    for (unsigned k = 0; k < n; ++k) words[k] = shared_.load(offset + 4 * k, 4);
    return MemStatus::kOk;
  }
  if (addr - kLocalWindow < p_.local_bytes) {
    if (atomic) return access_fault(FaultWhy::kLocalAtomic, addr);
    if (addr - kLocalWindow + bytes > p_.local_bytes) return access_fault(FaultWhy::kUnmapped, addr);
    rec_.local = true;
    const uint32_t base = (slot_ * kWarpSize + lane_) * p_.local_bytes + (addr - kLocalWindow);
    for (unsigned k = 0; k < n; ++k) words[k] = local_.load(base + 4 * k, 4);
    return MemStatus::kOk;
  }
  if (!global_.contains(addr, bytes)) return access_fault(FaultWhy::kUnmapped, addr);
  if (atomic) {
    if (program_.find(addr & ~3u) || program_.find((addr + 4) & ~3u)) return access_fault(FaultWhy::kCodeStore, addr);
    // A 64-bit global atomic: performed with this instant's others, in SM order.
    isa::ThreadState& t = warp_->threads[lane_];
    const auto pair = [&t](uint8_t r) { return uint64_t{t.x[r + 1]} << 32 | t.x[r]; };
    const uint64_t swap = inst_->op == isa::Op::kAtomCas64 ? pair(inst_->rs3) : 0;
    atomics_.add64(sm_id_, inst_->op, addr, pair(inst_->rs2), swap, &t.x[inst_->rd]);
    rec_.deferred_lanes |= 1u << lane_;
    for (unsigned k = 0; k < n; ++k) words[k] = 0;  // replaced by the old value when it is performed
  } else {
    for (unsigned k = 0; k < n; ++k) words[k] = global_.load(addr + 4 * k, 4);
    if (in_constant(addr)) note_constant(addr);
  }
  rec_.global_lanes |= 1u << lane_;
  rec_.global.add(addr, bytes);
  return MemStatus::kOk;
}

MemStatus LaneMemory::store_wide(uint32_t addr, unsigned bytes, const uint32_t* words) {
  const unsigned n = bytes / 4;
  uint32_t offset = 0;
  if (in_shared(addr, bytes, &offset)) {
    if (defer_shared_) return access_fault(FaultWhy::kWideSharedRtl, addr);
    // An atomic's store follows its load on the same words: one bank access.
    if (!(rec_.shared_mask & (1u << lane_))) note_shared(offset);
    for (unsigned k = 0; k < n; ++k) {
      if (!shared_reservations_.empty()) break_shared_reservations(offset + 4 * k);
      // A plain store is progress; an atomic only when it changes a word.
      if (!inst_->is_load || shared_.load(offset + 4 * k, 4) != words[k]) run_.note_change();
      shared_.store(offset + 4 * k, 4, words[k]);
    }
    return MemStatus::kOk;
  }
  if (addr - kLocalWindow < p_.local_bytes) {
    if (addr - kLocalWindow + bytes > p_.local_bytes) return access_fault(FaultWhy::kUnmapped, addr);
    rec_.local = true;
    const uint32_t base = (slot_ * kWarpSize + lane_) * p_.local_bytes + (addr - kLocalWindow);
    run_.note_change();
    for (unsigned k = 0; k < n; ++k) local_.store(base + 4 * k, 4, words[k]);
    return MemStatus::kOk;
  }
  if (!global_.contains(addr, bytes)) return access_fault(FaultWhy::kUnmapped, addr);
  for (unsigned k = 0; k < n; ++k)
    if (program_.find((addr + 4 * k) & ~3u)) return access_fault(FaultWhy::kCodeStore, addr);
  if (!(rec_.deferred_lanes & (1u << lane_))) {
    run_.note_change();
    for (unsigned k = 0; k < n; ++k) global_.store(addr + 4 * k, 4, words[k]);
  }
  if (!(rec_.global_lanes & (1u << lane_))) {
    rec_.global_lanes |= 1u << lane_;
    rec_.global.add(addr, bytes);
  }
  return MemStatus::kOk;
}

MemStatus LaneMemory::access_fault(FaultWhy why, uint32_t addr) {
  if (why == FaultWhy::kUnmapped) {
    // A frame larger than the guard puts sp, and the accesses relative to it
    // (12-bit offsets), further below the local window: still the stack.
    const uint32_t sp = warp_->threads[lane_].x[2];
    const bool sp_below = sp < kLocalWindow && kLocalWindow - sp > kLocalStackGuardBytes;
    const bool near_sp = addr < kLocalWindow && addr + kSpOffsetReach >= sp && addr < sp + kSpOffsetReach;
    if (addr - (kLocalWindow - kLocalStackGuardBytes) < kLocalStackGuardBytes || (sp_below && near_sp)) {
      why = FaultWhy::kStackOverflow;
    } else if (addr - kSharedWindow < kLocalWindow - kSharedWindow) {
      why = FaultWhy::kSharedWindow;
    }
  }
  rec_.fault_why = why;
  rec_.fault_addr = addr;
  return MemStatus::kAccessFault;
}

bool LaneMemory::is_atomic() const { return inst_->is_store || inst_->op == isa::Op::kLrW; }

// In lane order, as the executor runs the lanes: each access runs the
// device until it answers, and the next lane's starts after it.
MemStatus LaneMemory::device_access(bool write, uint32_t addr, unsigned bytes, uint32_t* value) {
  // An atomic reaches here with its load; LR/SC reserve memory.
  if (bytes != 4 || (addr & 3) != 0 || (inst_->is_load && inst_->is_store) || inst_->op == isa::Op::kLrW ||
      inst_->op == isa::Op::kScW)
    return access_fault(FaultWhy::kDeviceAccess, addr);
  uint64_t ready = 0;
  const uint64_t from = std::max(cycle_, rec_.device_ready);
  if (!devices_->access(write, addr, value, from, &ready)) return access_fault(FaultWhy::kDeviceError, addr);
  if (write) run_.note_change();
  rec_.device_lanes |= 1u << lane_;
  rec_.device_ready = std::max(rec_.device_ready, ready);
  return MemStatus::kOk;
}

MemStatus LaneMemory::load_reserved(uint32_t addr, uint32_t* value) {
  const MemStatus s = load(addr, 4, value, false);
  if (s != MemStatus::kOk) return s;
  // This lane's address decides where it reserves: the lanes of one LR may
  // address shared and global memory (an LR on local memory faulted above).
  const uint32_t owner = thread_owner(sm_id_, slot_, lane_);
  uint32_t offset = 0;
  if ((rec_.shared_mask & (1u << lane_)) && in_shared(addr, 4, &offset)) {
    reserve_shared(owner, offset);
  } else {
    global_.reserve(owner, addr);
  }
  return MemStatus::kOk;
}

MemStatus LaneMemory::store_conditional(uint32_t addr, uint32_t value, bool* success) {
  const uint32_t owner = thread_owner(sm_id_, slot_, lane_);
  uint32_t offset = 0;
  if (in_shared(addr, 4, &offset)) {
    *success = take_shared_reservation(owner, offset);
  } else if (global_.contains(addr, 4)) {
    *success = global_.take_reservation(owner, addr);
  } else if (addr - kLocalWindow < p_.local_bytes) {
    return access_fault(FaultWhy::kLocalAtomic, addr);
  } else {
    return access_fault(FaultWhy::kUnmapped, addr);
  }
  return *success ? store(addr, 4, value) : MemStatus::kOk;
}

void LaneMemory::reserve_shared(uint32_t owner, uint32_t offset) {
  for (Reservation& r : shared_reservations_) {
    if (r.owner == owner) {
      r.offset = offset;
      return;
    }
  }
  shared_reservations_.push_back(Reservation{owner, offset});
}

bool LaneMemory::take_shared_reservation(uint32_t owner, uint32_t offset) {
  for (size_t i = 0; i < shared_reservations_.size(); ++i) {
    if (shared_reservations_[i].owner != owner) continue;
    const bool held = shared_reservations_[i].offset == offset;
    shared_reservations_.erase(shared_reservations_.begin() + static_cast<std::ptrdiff_t>(i));
    return held;
  }
  return false;
}

void LaneMemory::break_shared_reservations(uint32_t offset) {
  const uint32_t word = offset & ~3u;
  shared_reservations_.erase(std::remove_if(shared_reservations_.begin(), shared_reservations_.end(),
                                            [word](const Reservation& r) { return (r.offset & ~3u) == word; }),
                             shared_reservations_.end());
}

bool LaneMemory::csr_read(uint16_t csr, uint32_t* value) {
  namespace c = isa::csr;
  const Warp& w = *warp_;
  const Block& blk = *block_;
  const KernelLaunch& k = blk.launch;
  if (c::read_counter(csr, cycle_, *warp_insts_, sm_id_, value)) return true;
  switch (csr) {
    case c::kTidX:
      *value = w.tid[lane_][0];
      return true;
    case c::kTidY:
      *value = w.tid[lane_][1];
      return true;
    case c::kTidZ:
      *value = w.tid[lane_][2];
      return true;
    case c::kNtidX:
      *value = k.block.x;
      return true;
    case c::kNtidY:
      *value = k.block.y;
      return true;
    case c::kNtidZ:
      *value = k.block.z;
      return true;
    case c::kCtaidX:
      *value = blk.ctaid[0];
      return true;
    case c::kCtaidY:
      *value = blk.ctaid[1];
      return true;
    case c::kCtaidZ:
      *value = blk.ctaid[2];
      return true;
    case c::kNctaidX:
      *value = k.grid.x;
      return true;
    case c::kNctaidY:
      *value = k.grid.y;
      return true;
    case c::kNctaidZ:
      *value = k.grid.z;
      return true;
    case c::kLaneid:
      *value = lane_;
      return true;
    case c::kWarpid:
      *value = w.warp_in_block;
      return true;
    case c::kSmid:
      *value = sm_id_;
      return true;
    case c::kNsmid:
      *value = num_sms_;
      return true;
    case c::kSharedBytes:
      *value = blk.use.shared_bytes;
      return true;
    default:
      return false;
  }
}

bool LaneMemory::csr_write(uint16_t /*csr*/, uint32_t /*value*/) { return false; }

bool LaneMemory::debug_byte(unsigned slot, unsigned lane, const Block& blk, uint32_t addr, uint8_t* byte, bool write) {
  uint32_t offset = 0;
  if (blk.launch.shared_offset(addr, 1, &offset)) {
    offset += blk.shared_base;
    if (write) {
      shared_.store(offset, 1, *byte);
    } else {
      *byte = static_cast<uint8_t>(shared_.load(offset, 1));
    }
    return true;
  }
  if (addr - kLocalWindow < p_.local_bytes) {
    const uint64_t at = (uint64_t{slot} * kWarpSize + lane) * p_.local_bytes + (addr - kLocalWindow);
    return write ? local_.write(static_cast<uint32_t>(at), byte, 1) : local_.read(static_cast<uint32_t>(at), byte, 1);
  }
  if (!global_.contains(addr, 1)) return false;
  return write ? global_.write(addr, byte, 1) : global_.read(addr, byte, 1);
}

}  // namespace tessera::sm
