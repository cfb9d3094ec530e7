#include "sm/sm.h"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>

#include "isa/encoding.h"
#include "isa/trap_report.h"
#include "sm/shared_banks.h"

namespace tessera::sm {

using isa::Inst;
using isa::MemStatus;
using isa::Trap;

const char* stall_name(Stall s) {
  switch (s) {
    case Stall::kNone: return "none";
    case Stall::kScoreboard: return "scoreboard";
    case Stall::kMemory: return "memory";
    case Stall::kUnitBusy: return "unit_busy";
    case Stall::kBarrier: return "barrier";
    case Stall::kNoWarp: return "no_warp";
    case Stall::kCount: break;
  }
  return "?";
}

namespace {
// When several warps are blocked, the partition reports the reason closest to
// issuing: a busy unit before a pending result before a barrier.
int stall_rank(Stall s) {
  switch (s) {
    case Stall::kUnitBusy: return 5;
    case Stall::kScoreboard: return 4;
    case Stall::kMemory: return 3;
    case Stall::kBarrier: return 2;
    case Stall::kNoWarp: return 1;
    default: return 0;
  }
}

unsigned lanes_in(uint32_t mask) { return static_cast<unsigned>(std::bitset<32>(mask).count()); }

uint32_t align16(uint32_t v) { return (v + 15u) & ~15u; }
}  // namespace

Sm::Sm(const sc_core::sc_module_name& name, unsigned id, const Context& ctx)
    : sc_module(name),
      mem_socket("mem_socket"),
      id_(id),
      p_(ctx.params),
      clock_(ctx.clock),
      global_(ctx.global),
      program_(ctx.program),
      run_(ctx.run),
      atomics_(ctx.atomics),
      vcd_(ctx.vcd),
      num_sms_(ctx.num_sms),
      log_(std::string(this->name())),
      shared_(0, std::max<uint64_t>(ctx.params.shared_bytes, 16)),
      local_(0, uint64_t{ctx.params.max_warps} * kWarpSize * ctx.params.local_bytes),
      warps_(ctx.params.max_warps),
      blocks_(ctx.params.max_blocks),
      partitions_(ctx.params.partitions),
      stats_(fmt::format("sm{}", id), &ctx.stats_parent) {
  shared_passes_.assign(kWarpSize + 1, 0);
  mem_socket.register_nb_transport_bw(this, &Sm::nb_transport_bw);
  const CacheGeometry half{p_.l1_bytes / p_.l1_halves, p_.l1_ways, kLineBytes};
  l1_.reserve(p_.l1_halves);
  for (unsigned h = 0; h < p_.l1_halves; ++h) {
    l1_.emplace_back(half, p_.l1_mshrs);
    L1Half& l1 = l1_.back();
    l1.stats = std::make_unique<sim::StatGroup>(fmt::format("l1_half{}", h), &stats_);
    l1.stats->add_counter("requests", &l1.requests, "Line requests of cached loads (__ldg, or all with l1.cache_global_loads)");
    l1.stats->add_counter("hit_sectors", &l1.hit_sectors, "Requested sectors present");
    l1.stats->add_counter("miss_sectors", &l1.miss_sectors, "Requested sectors absent");
    l1.stats->add_counter("mshr_merged_sectors", &l1.merged_sectors, "Missing sectors already being fetched");
    l1.stats->add_counter("mshr_full_bypasses", &l1.bypassed, "Misses sent on uncached because every MSHR was busy");
    l1.stats->add_formula("sector_hit_rate", [&l1] {
      const uint64_t all = l1.hit_sectors + l1.miss_sectors;
      return all ? static_cast<double>(l1.hit_sectors) / static_cast<double>(all) : 0.0;
    }, "Hit sectors / requested sectors");
  }
  shared_free_.emplace_back(0, p_.shared_bytes);

  for (unsigned p = 0; p < partitions_.size(); ++p) {
    Partition& part = partitions_[p];
    part.scheduler = make_scheduler(p_.scheduler, p_.two_level_active);
    part.stats = std::make_unique<sim::StatGroup>(fmt::format("sched{}", p), &stats_);
    part.stats->add_counter("issued_warp_insts", &part.issued, "Warp instructions issued by this scheduler");
    part.stats->add_counter("dual_issued", &part.dual_issued, "Cycles in which a second instruction issued");
    for (int s = 1; s < static_cast<int>(Stall::kCount); ++s) {
      part.stats->add_counter(std::string("stall_") + stall_name(static_cast<Stall>(s)), &part.stalls[s],
                              "Cycles without issue for this reason");
    }
    part.stats->add_formula("ipc", [this, &part] {
      return active_cycles_ ? static_cast<double>(part.issued) / static_cast<double>(active_cycles_) : 0.0;
    }, "Warp instructions per active SM cycle");
    if (vcd_) {
      const std::string scope = fmt::format("{}.sched{}", this->name(), p);
      part.vcd_warp = vcd_->add_signal(scope, "issued_warp", 8);
      part.vcd_pc = vcd_->add_signal(scope, "pc", 32);
      part.vcd_unit = vcd_->add_signal(scope, "unit", 2);
      part.vcd_stall = vcd_->add_signal(scope, "stall", 3);
      part.vcd_lanes = vcd_->add_signal(scope, "active_lanes", 6);
    }
  }

  stats_.add_counter("cycles", &active_cycles_, "Cycles with at least one resident warp");
  stats_.add_counter("warp_insts", &warp_insts_, "Warp instructions executed");
  stats_.add_counter("thread_insts", &thread_insts_, "Thread instructions executed (active lanes)");
  stats_.add_formula("ipc", [this] {
    return active_cycles_ ? static_cast<double>(warp_insts_) / static_cast<double>(active_cycles_) : 0.0;
  }, "Warp instructions per active cycle");
  stats_.add_formula("lane_utilization", [this] {
    return warp_insts_ ? static_cast<double>(thread_insts_) / static_cast<double>(warp_insts_ * kWarpSize) : 0.0;
  }, "Active lanes per warp instruction / warp size");
  stats_.add_counter("sp_warp_insts", &unit_insts_[kUnitSp], "Warp instructions on the SP lanes");
  stats_.add_counter("sfu_warp_insts", &unit_insts_[kUnitSfu], "Warp instructions on the SFU lanes");
  stats_.add_counter("ldst_warp_insts", &unit_insts_[kUnitLdst], "Warp instructions on the LD/ST lanes");
  stats_.add_counter("ctrl_warp_insts", &ctrl_insts_, "Barrier, exit and other control instructions");
  stats_.add_counter("blocks_started", &blocks_started_, "Thread blocks placed on this SM");
  stats_.add_counter("blocks_finished", &blocks_finished_, "Thread blocks that finished");
  stats_.add_counter("global_sector_reads", &sector_reads_, "32-byte global read (and atomic) sector requests");
  stats_.add_counter("global_sector_writes", &sector_writes_, "32-byte global write sector requests");
  stats_.add_counter("global_line_requests", &line_requests_, "Requests sent towards L2 (one per 128-byte line)");
  stats_.add_counter("shared_warp_accesses", &shared_accesses_, "Warp instructions that accessed shared memory");
  stats_.add_histogram("shared_passes", &shared_passes_,
                       "Bank-array passes per shared-memory warp request (n-way conflict: n passes)");
  stats_.add_counter("shared_conflict_passes", &shared_conflict_passes_,
                     "Passes beyond the first caused by bank conflicts");
  stats_.add_counter("shared_broadcasts", &shared_broadcasts_, "Words read by several lanes in one pass");
  stats_.add_counter("shared_atomic_warp_insts", &shared_atomic_insts_,
                     "Atomic warp instructions on shared memory (executed beside the banks, not on the SP lanes)");
  stats_.add_counter("shared_atomic_ops", &shared_atomic_ops_, "Lane atomic operations on shared memory");
  stats_.add_counter("local_warp_accesses", &local_accesses_, "Warp instructions that accessed local memory");

  SC_HAS_PROCESS(Sm);
  SC_METHOD(cycle);
  sensitive << wake_;
  dont_initialize();
  next_planned_ = kPending;
}

Sm::~Sm() = default;

// ---------------------------------------------------------------- occupancy

bool Sm::can_accept(const KernelLaunch& k) const {
  const BlockFootprint f = footprint(k, kWarpSize, p_.register_granule);
  if (resident_blocks_ >= p_.max_blocks) return false;
  if (resident_warps_ + f.warps > p_.max_warps) return false;
  if (resident_threads_ + f.threads > p_.max_threads) return false;
  if (used_registers_ + f.registers > p_.registers) return false;
  const uint32_t need = align16(f.shared_bytes);
  if (need == 0) return true;
  return std::any_of(shared_free_.begin(), shared_free_.end(), [need](const auto& e) { return e.second >= need; });
}

void Sm::start_block(const KernelLaunch& k, uint64_t block_index) {
  // The current cycle ran (or was skipped) without this block.
  account_skipped(now_cycle() + 1);
  const BlockFootprint f = footprint(k, kWarpSize, p_.register_granule);
  if (!any_launch_ || k.id != launch_id_) {
    // L1 is not coherent: each kernel launch starts with it empty.
    for (L1Half& h : l1_) h.cache.invalidate_all();
    any_launch_ = true;
    launch_id_ = k.id;
  }
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
  blk.threads = f.threads;

  // First-fit shared-memory extent.
  const uint32_t need = align16(f.shared_bytes);
  if (need) {
    auto it = std::find_if(shared_free_.begin(), shared_free_.end(), [need](const auto& e) { return e.second >= need; });
    blk.shared_base = it->first;
    it->first += need;
    it->second -= need;
    if (it->second == 0) shared_free_.erase(it);
  }

  for (unsigned wi = 0; wi < f.warps; ++wi) {
    unsigned slot = 0;
    while (warps_[slot].resident) ++slot;
    Warp& w = warps_[slot];
    w.resident = true;
    w.block_slot = b;
    w.warp_in_block = wi;
    w.partition = slot % p_.partitions;
    w.existing = w.exited = w.at_barrier = 0;
    w.outstanding = 0;
    w.first_issue = now_cycle() + 1;
    w.ready.fill(0);
    for (unsigned lane = 0; lane < kWarpSize; ++lane) {
      const uint32_t t = wi * kWarpSize + lane;
      isa::ThreadState& ts = w.threads[lane];
      ts = isa::ThreadState{};
      if (t >= f.threads) continue;
      w.existing |= 1u << lane;
      ts.pc = k.start_pc;
      ts.x[10] = k.args;    // a0
      ts.x[11] = k.kernel;  // a1
      ts.x[2] = kLocalWindow + p_.local_bytes;  // sp: top of local memory
      w.tid[lane] = {static_cast<uint16_t>(t % k.block.x), static_cast<uint16_t>((t / k.block.x) % k.block.y),
                     static_cast<uint16_t>(t / (k.block.x * k.block.y))};
    }
    update_warp_pc(w);
    blk.warps.push_back(slot);
    ++blk.live_warps;
    partitions_[w.partition].warps.push_back(static_cast<uint16_t>(slot));
  }
  ++resident_blocks_;
  resident_warps_ += f.warps;
  resident_threads_ += f.threads;
  used_registers_ += f.registers;
  ++blocks_started_;
  log_.debug("block {} starts in slot {} ({} warps, {} B shared at {})", block_index, b, f.warps, f.shared_bytes,
             blk.shared_base);
  wake_at_next_cycle();
}

// ---------------------------------------------------------------- the clock

void Sm::wake_at_next_cycle() { wake_.notify(clock_.delay_until(now_cycle() + 1)); }

void Sm::account_skipped(uint64_t upto) {
  // Cycles after the last processed one and before `upto` were skipped: no
  // state changed in them, so each partition stalled for its last reason.
  if (!ever_ran_ || upto <= last_cycle_ + 1) return;
  const uint64_t n = upto - last_cycle_ - 1;
  if (resident_warps_ > 0) {
    active_cycles_ += n;
    for (Partition& part : partitions_) part.stalls[static_cast<size_t>(part.last_stall)] += n;
  }
  last_cycle_ = upto - 1;
}

void Sm::cycle() {
  if (run_.stopped()) return;
  const uint64_t now = now_cycle();
  if (ever_ran_ && now <= last_cycle_) {
    // A second activation in a cycle already processed: re-arm only.
    if (next_planned_ == kPending) {
      next_trigger(wake_);
    } else {
      next_trigger(clock_.delay_until(next_planned_), wake_);
    }
    return;
  }
  account_skipped(now);
  last_cycle_ = now;
  ever_ran_ = true;
  cur_cycle_ = now;

  apply_arrivals(now);
  send_requests();
  if (resident_warps_ > 0) run_.watch(sc_core::sc_time_stamp().value());
  if (run_.stopped()) return;
  bool issued = false;
  uint64_t wake = kPending;
  if (resident_warps_ > 0) {
    ++active_cycles_;
    for (unsigned p = 0; p < partitions_.size() && !run_.stopped(); ++p) issued |= issue_partition(p, now, wake);
  } else {
    for (Partition& part : partitions_) {
      if (part.last_stall != Stall::kNoWarp) trace_partition(part, -1, 0, 0, Stall::kNoWarp, 0);
      part.last_stall = Stall::kNoWarp;
    }
  }
  if (run_.stopped()) return;

  uint64_t next = std::min(wake, next_arrival());
  if (issued || (!outgoing_.empty() && !waiting_end_req_)) next = now + 1;
  if (!p_.skip_idle && resident_warps_ > 0) next = now + 1;  // tick every cycle
  next_planned_ = next;
  if (next == kPending) {
    next_trigger(wake_);
  } else {
    next_trigger(clock_.delay_until(next), wake_);
  }
}

// ---------------------------------------------------------------- issue

unsigned Sm::unit_occupancy(isa::Unit u) const {
  switch (u) {
    case isa::Unit::kSp: return (kWarpSize + p_.sp_lanes - 1) / p_.sp_lanes;
    case isa::Unit::kSfu: return (kWarpSize + p_.sfu_lanes - 1) / p_.sfu_lanes;
    case isa::Unit::kLdst: return (kWarpSize + p_.ldst_lanes - 1) / p_.ldst_lanes;
    case isa::Unit::kCtrl: return 0;
  }
  return 1;
}

unsigned Sm::latency(const Inst& inst) const {
  if (inst.unit == isa::Unit::kSfu) return p_.sfu_latency;
  switch (inst.op) {
    case isa::Op::kDiv:
    case isa::Op::kDivu:
    case isa::Op::kRem:
    case isa::Op::kRemu: return p_.idiv_latency;
    default: return p_.alu_latency;
  }
}

Stall Sm::check(const Warp& w, const Inst& inst, const Partition& part, uint64_t now, uint64_t& wake) const {
  // Events that land in a cycle (a block placed, a response, END_REQ) take
  // effect from the next one, whatever order SystemC runs the processes of
  // that cycle in: the results do not depend on idle skipping.
  if (w.first_issue > now) {
    wake = w.first_issue;
    return Stall::kNoWarp;
  }
  for (uint8_t r : {inst.src[0], inst.src[1], inst.src[2], inst.dst}) {
    if (r == isa::kNoReg) continue;
    const uint64_t t = w.ready[r];
    if (t <= now) continue;
    if (t == kPending) return Stall::kMemory;  // woken by the response
    wake = t;
    return Stall::kScoreboard;
  }
  if (inst.unit == isa::Unit::kCtrl) return Stall::kNone;
  const unsigned u = inst.unit == isa::Unit::kSp ? kUnitSp : inst.unit == isa::Unit::kSfu ? kUnitSfu : kUnitLdst;
  if (part.unit_free[u] > now) {
    wake = part.unit_free[u];
    return Stall::kUnitBusy;
  }
  if (u == kUnitLdst && outgoing_.size() >= p_.mem_queue) return Stall::kMemory;  // woken as requests drain
  return Stall::kNone;
}

bool Sm::issue_partition(unsigned p, uint64_t now, uint64_t& next_wake) {
  Partition& part = partitions_[p];
  if (part.warps.empty()) {
    if (part.last_stall != Stall::kNoWarp) trace_partition(part, -1, 0, 0, Stall::kNoWarp, 0);
    part.last_stall = Stall::kNoWarp;
    ++part.stalls[static_cast<size_t>(Stall::kNoWarp)];
    return false;
  }
  part.scheduler->order(part.warps, part.order);
  Stall reason = Stall::kNone;
  for (uint16_t slot : part.order) {
    Warp& w = warps_[slot];
    if (w.mask == 0) {  // every thread waits at the barrier or has exited
      const Stall s = w.at_barrier ? Stall::kBarrier : Stall::kMemory;
      if (stall_rank(s) > stall_rank(reason)) reason = s;
      continue;
    }
    const Inst* inst = program_.find(w.pc);
    if (!inst) {
      cur_warp_ = slot;
      isa::ExecResult r;
      r.trap = Trap::kIllegalInstruction;
      r.fault_addr = w.pc;
      fault(w, static_cast<unsigned>(__builtin_ctz(w.mask)), Inst{}, r);
      return false;
    }
    uint64_t wake = kPending;
    const Stall s = check(w, *inst, part, now, wake);
    if (s != Stall::kNone) {
      if (stall_rank(s) > stall_rank(reason)) reason = s;
      next_wake = std::min(next_wake, wake);
      continue;
    }

    const uint32_t pc = w.pc, mask = w.mask;
    if (!execute_warp(slot, *inst, now)) return false;
    part.scheduler->issued(slot);
    ++part.issued;
    part.last_stall = Stall::kNone;
    trace_partition(part, slot, pc, static_cast<int>(inst->unit), Stall::kNone, lanes_in(mask));

    // Dual issue: the warp's next instruction, if it needs another unit and
    // does not depend on the first (the scoreboard now holds the first's
    // destination, so check() sees any dependence).
    if (p_.dual_issue && w.resident && !inst->is_control && inst->unit != isa::Unit::kCtrl && w.mask == mask &&
        w.pc == pc + 4) {
      const Inst* next = program_.find(w.pc);
      uint64_t ignored = kPending;
      if (next && next->unit != inst->unit && next->unit != isa::Unit::kCtrl &&
          check(w, *next, part, now, ignored) == Stall::kNone) {
        if (!execute_warp(slot, *next, now)) return false;
        ++part.dual_issued;
      }
    }
    return true;
  }
  if (reason == Stall::kNone) reason = Stall::kNoWarp;
  ++part.stalls[static_cast<size_t>(reason)];
  if (part.last_stall != reason || part.last_stall == Stall::kNone) trace_partition(part, -1, 0, 0, reason, 0);
  part.last_stall = reason;
  return false;
}

bool Sm::execute_warp(unsigned slot, const Inst& inst, uint64_t now) {
  Warp& w = warps_[slot];
  Block& blk = blocks_[w.block_slot];
  cur_warp_ = slot;
  cur_cycle_ = now;
  cur_local_ = cur_shared_ = cur_read_only_ = false;
  cur_fault_why_ = FaultWhy::kUnmapped;
  cur_shared_mask_ = cur_global_lanes_ = cur_deferred_lanes_ = 0;
  cur_inst_ = &inst;
  coalescer_.clear();

  const uint32_t mask = w.mask;
  bool barrier = false, exited = false;
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
    cur_lane_ = lane;
    const isa::ExecResult r = isa::execute<false>(inst, w.threads[lane], *this);
    if (r.trap == Trap::kNone) continue;
    if (r.trap == Trap::kBarrier) {
      w.at_barrier |= 1u << lane;
      ++blk.waiting;
      barrier = true;
    } else if (r.trap == Trap::kThreadExit) {
      w.exited |= 1u << lane;
      ++blk.exited;
      exited = true;
    } else {
      fault(w, lane, inst, r);
      return false;
    }
  }

  ++warp_insts_;
  thread_insts_ += lanes_in(mask);
  Partition& part = partitions_[w.partition];
  switch (inst.unit) {
    case isa::Unit::kSp: ++unit_insts_[kUnitSp]; part.unit_free[kUnitSp] = now + unit_occupancy(inst.unit); break;
    case isa::Unit::kSfu: ++unit_insts_[kUnitSfu]; part.unit_free[kUnitSfu] = now + unit_occupancy(inst.unit); break;
    case isa::Unit::kLdst: ++unit_insts_[kUnitLdst]; part.unit_free[kUnitLdst] = now + unit_occupancy(inst.unit); break;
    case isa::Unit::kCtrl: ++ctrl_insts_; break;
  }

  // When the destination becomes readable.
  if (cur_shared_mask_) issue_shared(w, inst, now);
  if (!coalescer_.lines().empty()) {
    issue_global(slot, w, inst, now);
  } else if (inst.dst != isa::kNoReg && !cur_shared_mask_) {
    uint64_t lat = 0;
    if (inst.unit == isa::Unit::kLdst) {
      lat = cur_local_ ? p_.local_latency : p_.alu_latency;
    } else {
      lat = latency(inst);
    }
    w.ready[inst.dst] = now + lat;
  }
  if (cur_shared_) ++shared_accesses_;
  if (cur_local_) ++local_accesses_;

  update_warp_pc(w);
  if (barrier || exited) maybe_release_barrier(blk);
  if (exited) maybe_retire(slot);
  return true;
}

void Sm::issue_shared(Warp& w, const Inst& inst, uint64_t now) {
  // The bank array takes a warp request's passes one per cycle (an atomic's
  // read-modify-write shared_atomic_cycles each), after the passes of earlier
  // requests; the result is readable the base latency after the last pass.
  const bool atomic = inst.is_load && inst.is_store;
  const BankAccess a = arbitrate_banks(cur_shared_words_, cur_shared_mask_, p_.shared_banks, atomic);
  const uint64_t per_pass = atomic ? p_.shared_atomic_cycles : 1;
  const uint64_t start = std::max(now, shared_busy_until_);
  shared_busy_until_ = start + per_pass * a.passes;
  ++shared_passes_[std::min<size_t>(a.passes, shared_passes_.size() - 1)];
  shared_conflict_passes_ += a.passes - 1;
  shared_broadcasts_ += a.broadcasts;
  if (atomic) {
    ++shared_atomic_insts_;
    shared_atomic_ops_ += lanes_in(cur_shared_mask_);
  }
  if (inst.dst == isa::kNoReg) return;
  const uint64_t base = atomic ? p_.shared_atomic_latency : p_.shared_latency;
  uint64_t ready = start + base + per_pass * (a.passes - 1);
  if (cur_local_) ready = std::max<uint64_t>(ready, now + p_.local_latency);
  w.ready[inst.dst] = ready;
}

void Sm::issue_global(unsigned slot, Warp& w, const Inst& inst, uint64_t now) {
  unsigned g;
  if (free_groups_.empty()) {
    g = static_cast<unsigned>(groups_.size());
    groups_.emplace_back();
  } else {
    g = free_groups_.back();
    free_groups_.pop_back();
  }
  const auto& lines = coalescer_.lines();
  MemGroup& grp = groups_[g];
  grp.warp = slot;
  grp.dst = inst.is_load ? inst.dst : isa::kNoReg;
  grp.remaining = static_cast<unsigned>(lines.size());
  grp.last = now;
  ++w.outstanding;
  if (grp.dst != isa::kNoReg) {
    w.ready[grp.dst] = kPending;
    partitions_[w.partition].scheduler->long_latency_wait(static_cast<uint16_t>(slot));
  }

  const bool atomic = inst.is_load && inst.is_store;
  const sim::MemOp op = atomic ? sim::MemOp::kAtomic : inst.is_load ? sim::MemOp::kRead : sim::MemOp::kWrite;
  const bool cached = op == sim::MemOp::kRead && (cur_read_only_ || p_.l1_cache_global_loads);
  L1Half& l1 = l1_[w.partition * p_.l1_halves / p_.partitions];
  for (const LineRequest& line : lines) {
    if (op != sim::MemOp::kRead) {
      // Stores and atomics go through to L2; L1 drops its stale copies.
      for (L1Half& h : l1_) h.cache.invalidate(line.line, line.sectors);
      queue_request(line.line, line.sectors, op, op == sim::MemOp::kAtomic ? line.lanes : 0, g, slot);
      continue;
    }
    if (!cached) {
      queue_request(line.line, line.sectors, op, 0, g, slot);
      continue;
    }
    ++l1.requests;
    const uint8_t hit = l1.cache.lookup(line.line, line.sectors);
    const auto miss = static_cast<uint8_t>(line.sectors & ~hit);
    l1.hit_sectors += static_cast<unsigned>(__builtin_popcount(hit));
    l1.miss_sectors += static_cast<unsigned>(__builtin_popcount(miss));
    if (!miss) {
      // Served by L1: readable hit_latency cycles after issue.
      arrivals_.push_back(Arrival{now + p_.l1_hit_latency - 1, g, line.line, line.sectors});
      continue;
    }
    auto* entry = l1.mshr.find(line.line);
    if (!entry && l1.mshr.full()) {
      ++l1.bypassed;
      queue_request(line.line, line.sectors, op, 0, g, slot);
      continue;
    }
    if (!entry) entry = &l1.mshr.allocate(line.line);
    const auto fetch = static_cast<uint8_t>(miss & ~entry->requested);
    l1.merged_sectors += static_cast<unsigned>(__builtin_popcount(miss & entry->requested));
    entry->requested = static_cast<uint8_t>(entry->requested | fetch);
    entry->waiters.push_back({g, miss});
    const auto half = static_cast<uint32_t>(&l1 - l1_.data());
    if (fetch) queue_request(line.line, fetch, op, 0, kFillTag | half, slot);
  }
}

void Sm::queue_request(uint32_t line, uint8_t sectors, sim::MemOp op, unsigned atomic_ops, uint32_t tag,
                       unsigned slot) {
  // Timing only: the instruction already executed.
  tlm::tlm_generic_payload* gp = nullptr;
  sim::MemExt& ext =
      pool_.request(gp, line, kSectorBytes * static_cast<unsigned>(__builtin_popcount(sectors)), op);
  ext.source = static_cast<uint16_t>(id_);
  ext.warp = static_cast<uint16_t>(slot);
  ext.tag = tag;
  ext.sectors = sectors;
  ext.atomic_ops = static_cast<uint8_t>(atomic_ops);
  ++line_requests_;
  if (op == sim::MemOp::kWrite) {
    sector_writes_ += static_cast<unsigned>(__builtin_popcount(sectors));
  } else {
    sector_reads_ += static_cast<unsigned>(__builtin_popcount(sectors));
  }
  outgoing_.push_back(gp);
}

void Sm::update_warp_pc(Warp& w) {
  // Minimum-PC reconvergence: the warp issues next for the threads at the
  // lowest PC among those that can run.
  const uint32_t runnable = w.existing & ~w.exited & ~w.at_barrier;
  w.mask = 0;
  if (!runnable) return;
  uint32_t best = ~0u;
  for (uint32_t m = runnable; m; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
    const uint32_t pc = w.threads[lane].pc;
    if (pc < best) {
      best = pc;
      w.mask = 1u << lane;
    } else if (pc == best) {
      w.mask |= 1u << lane;
    }
  }
  w.pc = best;
}

void Sm::maybe_release_barrier(Block& b) {
  // Every thread of the block must arrive; a thread that exited never will,
  // so the others wait for ever and the watchdog reports the deadlock (CUDA:
  // __syncthreads() in code not all threads reach may hang).
  if (b.waiting == 0 || b.waiting != b.threads) return;
  b.waiting = 0;
  for (unsigned slot : b.warps) {
    Warp& w = warps_[slot];
    if (!w.resident || &blocks_[w.block_slot] != &b) continue;
    w.at_barrier = 0;
    update_warp_pc(w);
  }
}

void Sm::maybe_retire(unsigned slot) {
  Warp& w = warps_[slot];
  if (!w.resident || w.exited != w.existing || w.outstanding != 0) return;
  w.resident = false;
  auto& list = partitions_[w.partition].warps;
  list.erase(std::find(list.begin(), list.end(), slot));
  Block& blk = blocks_[w.block_slot];
  // Count, not a scan of blk.warps: a retired slot may already hold a warp
  // of another block.
  if (--blk.live_warps > 0) return;

  // The whole block is done: free its resources.
  blk.resident = false;
  --resident_blocks_;
  resident_warps_ -= blk.use.warps;
  resident_threads_ -= blk.use.threads;
  used_registers_ -= blk.use.registers;
  const uint32_t size = align16(blk.use.shared_bytes);
  if (size) {
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
  ++blocks_finished_;
  log_.debug("block {} finishes", blk.index);
  if (listener_) listener_->block_finished(*this);
}

// ---------------------------------------------------------------- faults

void Sm::fault(const Warp& w, unsigned lane, const Inst& inst, const isa::ExecResult& r) {
  const Block& blk = blocks_[w.block_slot];
  const auto& tid = w.tid[lane];
  const uint32_t pc = w.threads[lane].pc;
  std::string what = isa::describe_trap(inst, r, pc, program_.find(pc) != nullptr, "in kernels");
  const bool access = r.trap == Trap::kLoadAccessFault || r.trap == Trap::kStoreAccessFault;
  const std::string text = access ? isa::disassemble(inst, pc) : "";
  switch (access ? cur_fault_why_ : FaultWhy::kUnmapped) {
    case FaultWhy::kUnmapped: break;
    case FaultWhy::kSharedWindow:
      what += fmt::format(" (the shared-memory window 0x{:08x}: this block has {} bytes of shared memory)",
                          kSharedWindow, blk.use.shared_bytes);
      break;
    case FaultWhy::kStackOverflow:
      what = fmt::format("stack overflow: access at 0x{:08x} ({}), below the thread's local memory [0x{:08x}, "
                         "0x{:08x}) that holds its stack (sm.local_bytes = {})",
                         cur_fault_addr_, text, kLocalWindow, kLocalWindow + p_.local_bytes, p_.local_bytes);
      break;
    case FaultWhy::kLocalAtomic:
      what = fmt::format("atomic on local memory at 0x{:08x} ({}): atomics and LR/SC need shared or global memory",
                         cur_fault_addr_, text);
      break;
    case FaultWhy::kCodeStore:
      what = fmt::format("store into the program's code at 0x{:08x} ({}): the executable segment is read-only",
                         cur_fault_addr_, text);
      break;
  }
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}: {} at pc 0x{:08x}, warp slot {} (block ({},{},{}) warp {}), thread ({},{},{}) lane {}",
                        name(), what, pc, cur_warp_, blk.ctaid[0], blk.ctaid[1], blk.ctaid[2], w.warp_in_block,
                        tid[0], tid[1], tid[2], lane));
}

std::string Sm::dump_state() const {
  std::string out;
  for (unsigned slot = 0; slot < warps_.size(); ++slot) {
    const Warp& w = warps_[slot];
    if (!w.resident) continue;
    const Block& blk = blocks_[w.block_slot];
    const Inst* inst = program_.find(w.pc);
    const uint32_t barrier_pc =
        w.at_barrier ? w.threads[static_cast<unsigned>(__builtin_ctz(w.at_barrier))].pc - 4 : 0;
    out += fmt::format(
        "  {} warp slot {:2}: block ({},{},{}) warp {}, threads 0x{:08x}, exited 0x{:08x}, at barrier 0x{:08x}{}, "
        "next pc 0x{:08x} for 0x{:08x}{}, memory groups in flight {}\n",
        name(), slot, blk.ctaid[0], blk.ctaid[1], blk.ctaid[2], w.warp_in_block, w.existing, w.exited, w.at_barrier,
        w.at_barrier ? fmt::format(" (bar.sync at 0x{:08x})", barrier_pc) : "", w.pc, w.mask,
        (w.mask && inst) ? " (" + isa::disassemble(*inst, w.pc) + ")" : "", w.outstanding);
  }
  for (const Block& b : blocks_) {
    if (b.resident && b.waiting)
      out += fmt::format("  {} block ({},{},{}): {} of {} threads wait at the barrier, {} have exited\n", name(),
                         b.ctaid[0], b.ctaid[1], b.ctaid[2], b.waiting, b.threads, b.exited);
  }
  return out;
}

// ---------------------------------------------------------------- ExecEnv

void Sm::note_shared(uint32_t sm_offset) {
  cur_shared_ = true;
  cur_shared_mask_ |= 1u << cur_lane_;
  cur_shared_words_[cur_lane_] = sm_offset / p_.shared_bank_bytes;
}

MemStatus Sm::load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) {
  const Block& blk = blocks_[warps_[cur_warp_].block_slot];
  if (addr - kSharedWindow < blk.use.shared_bytes && addr - kSharedWindow + bytes <= blk.use.shared_bytes) {
    note_shared(blk.shared_base + (addr - kSharedWindow));
    *value = shared_.load(blk.shared_base + (addr - kSharedWindow), bytes);
    return MemStatus::kOk;
  }
  if (addr - kLocalWindow < p_.local_bytes) {
    if (is_atomic()) return access_fault(FaultWhy::kLocalAtomic, addr);
    cur_local_ = true;
    *value = local_.load((cur_warp_ * kWarpSize + cur_lane_) * p_.local_bytes + (addr - kLocalWindow), bytes);
    return MemStatus::kOk;
  }
  if (!global_.contains(addr, bytes)) return access_fault(FaultWhy::kUnmapped, addr);
  if (cur_inst_->is_store && program_.find(addr & ~3u)) return access_fault(FaultWhy::kCodeStore, addr);
  if (cur_inst_->is_store && cur_inst_->op != isa::Op::kLrW && cur_inst_->op != isa::Op::kScW) {
    // A global atomic: performed with this instant's others, in SM order.
    isa::ThreadState& t = warps_[cur_warp_].threads[cur_lane_];
    atomics_.add(id_, cur_inst_->op, addr, t.x[cur_inst_->rs2], t.x[cur_inst_->rs3],
                 cur_inst_->rd ? &t.x[cur_inst_->rd] : nullptr);
    cur_deferred_lanes_ |= 1u << cur_lane_;
    *value = 0;  // replaced by the old value when it is performed
  } else {
    *value = global_.load(addr, bytes);
  }
  cur_read_only_ |= read_only;
  cur_global_lanes_ |= 1u << cur_lane_;
  coalescer_.add(addr, bytes);
  return MemStatus::kOk;
}

MemStatus Sm::store(uint32_t addr, unsigned bytes, uint32_t value) {
  const Block& blk = blocks_[warps_[cur_warp_].block_slot];
  if (addr - kSharedWindow < blk.use.shared_bytes && addr - kSharedWindow + bytes <= blk.use.shared_bytes) {
    // An atomic's store follows its load on the same word: one bank access.
    if (!(cur_shared_mask_ & (1u << cur_lane_))) note_shared(blk.shared_base + (addr - kSharedWindow));
    const uint32_t offset = blk.shared_base + (addr - kSharedWindow);
    // A plain store is progress; an atomic (word-sized) only when it changes the word.
    if (!cur_inst_->is_load || shared_.load(offset, 4) != value) run_.note_change();
    shared_.store(offset, bytes, value);
    return MemStatus::kOk;
  }
  if (addr - kLocalWindow < p_.local_bytes) {
    cur_local_ = true;
    const uint32_t offset = (cur_warp_ * kWarpSize + cur_lane_) * p_.local_bytes + (addr - kLocalWindow);
    run_.note_change();  // local memory takes no atomics
    local_.store(offset, bytes, value);
    return MemStatus::kOk;
  }
  if (!global_.contains(addr, bytes)) return access_fault(FaultWhy::kUnmapped, addr);
  if (program_.find(addr & ~3u)) return access_fault(FaultWhy::kCodeStore, addr);
  if (!(cur_deferred_lanes_ & (1u << cur_lane_))) {
    run_.note_change();  // a plain store or a successful SC; deferred atomics tell for themselves
    global_.store(addr, bytes, value);
  }
  // An atomic's store follows its load on the same word: one request.
  if (!(cur_global_lanes_ & (1u << cur_lane_))) coalescer_.add(addr, bytes);
  return MemStatus::kOk;
}

MemStatus Sm::access_fault(FaultWhy why, uint32_t addr) {
  if (why == FaultWhy::kUnmapped) {
    if (addr - (kLocalWindow - kLocalStackGuardBytes) < kLocalStackGuardBytes) {
      why = FaultWhy::kStackOverflow;
    } else if (addr - kSharedWindow < kLocalWindow - kSharedWindow) {
      why = FaultWhy::kSharedWindow;
    }
  }
  cur_fault_why_ = why;
  cur_fault_addr_ = addr;
  return MemStatus::kAccessFault;
}

// AMOs and atom.* load and store; LR reserves.
bool Sm::is_atomic() const { return cur_inst_->is_store || cur_inst_->op == isa::Op::kLrW; }

namespace {
// LR/SC reservation owners: control cores use small numbers, SM threads
// start above them.
uint32_t thread_owner(unsigned sm, unsigned warp, unsigned lane) { return 0x10000u + (sm << 11) + warp * 32 + lane; }
}  // namespace

MemStatus Sm::load_reserved(uint32_t addr, uint32_t* value) {
  const MemStatus s = load(addr, 4, value, false);
  if (s != MemStatus::kOk) return s;
  const uint32_t owner = thread_owner(id_, cur_warp_, cur_lane_);
  if (cur_shared_) {
    const Block& blk = blocks_[warps_[cur_warp_].block_slot];
    shared_.reserve(owner, blk.shared_base + (addr - kSharedWindow));
  } else if (!cur_local_) {
    global_.reserve(owner, addr);
  }
  return MemStatus::kOk;
}

MemStatus Sm::store_conditional(uint32_t addr, uint32_t value, bool* success) {
  const uint32_t owner = thread_owner(id_, cur_warp_, cur_lane_);
  const Block& blk = blocks_[warps_[cur_warp_].block_slot];
  if (addr - kSharedWindow < blk.use.shared_bytes) {
    *success = shared_.take_reservation(owner, blk.shared_base + (addr - kSharedWindow));
  } else if (global_.contains(addr, 4)) {
    *success = global_.take_reservation(owner, addr);
  } else if (addr - kLocalWindow < p_.local_bytes) {
    return access_fault(FaultWhy::kLocalAtomic, addr);
  } else {
    return access_fault(FaultWhy::kUnmapped, addr);
  }
  return *success ? store(addr, 4, value) : MemStatus::kOk;
}

bool Sm::csr_read(uint16_t csr, uint32_t* value) {
  namespace c = isa::csr;
  const Warp& w = warps_[cur_warp_];
  const Block& blk = blocks_[w.block_slot];
  const KernelLaunch& k = blk.launch;
  switch (csr) {
    case c::kCycle: case c::kTime: *value = static_cast<uint32_t>(cur_cycle_); return true;
    case c::kCycleh: case c::kTimeh: *value = static_cast<uint32_t>(cur_cycle_ >> 32); return true;
    case c::kInstret: *value = static_cast<uint32_t>(warp_insts_); return true;
    case c::kInstreth: *value = static_cast<uint32_t>(warp_insts_ >> 32); return true;
    case c::kMhartid: *value = id_; return true;
    case c::kTidX: *value = w.tid[cur_lane_][0]; return true;
    case c::kTidY: *value = w.tid[cur_lane_][1]; return true;
    case c::kTidZ: *value = w.tid[cur_lane_][2]; return true;
    case c::kNtidX: *value = k.block.x; return true;
    case c::kNtidY: *value = k.block.y; return true;
    case c::kNtidZ: *value = k.block.z; return true;
    case c::kCtaidX: *value = blk.ctaid[0]; return true;
    case c::kCtaidY: *value = blk.ctaid[1]; return true;
    case c::kCtaidZ: *value = blk.ctaid[2]; return true;
    case c::kNctaidX: *value = k.grid.x; return true;
    case c::kNctaidY: *value = k.grid.y; return true;
    case c::kNctaidZ: *value = k.grid.z; return true;
    case c::kLaneid: *value = cur_lane_; return true;
    case c::kWarpid: *value = w.warp_in_block; return true;
    case c::kSmid: *value = id_; return true;
    case c::kNsmid: *value = num_sms_; return true;
    case c::kSharedBytes: *value = blk.use.shared_bytes; return true;
    default: return false;
  }
}

bool Sm::csr_write(uint16_t /*csr*/, uint32_t /*value*/) { return false; }

// ---------------------------------------------------------------- global memory

void Sm::send_requests() {
  // One sector request per cycle; the AT protocol allows a new BEGIN_REQ only
  // after the previous one's END_REQ.
  if (waiting_end_req_ || outgoing_.empty() || cur_cycle_ <= end_req_cycle_) return;
  tlm::tlm_generic_payload* gp = outgoing_.front();
  outgoing_.pop_front();
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum status = mem_socket->nb_transport_fw(*gp, phase, delay);
  end_req_cycle_ = cur_cycle_;
  if (status == tlm::TLM_ACCEPTED || (status == tlm::TLM_UPDATED && phase == tlm::BEGIN_REQ)) {
    waiting_end_req_ = true;
    awaiting_end_req_ = gp;
  } else if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP)) {
    complete_request(*gp);
  }
}

tlm::tlm_sync_enum Sm::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time&) {
  if (phase == tlm::END_REQ) {
    waiting_end_req_ = false;
    end_req_cycle_ = now_cycle();
    if (!outgoing_.empty()) wake_at_next_cycle();
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::BEGIN_RESP) {
    if (waiting_end_req_ && &gp == awaiting_end_req_) {  // its BEGIN_RESP implies its END_REQ
      waiting_end_req_ = false;
      end_req_cycle_ = now_cycle();
    }
    complete_request(gp);
    phase = tlm::END_RESP;
    return tlm::TLM_COMPLETED;
  }
  return tlm::TLM_ACCEPTED;
}

void Sm::complete_request(tlm::tlm_generic_payload& gp) {
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
              fmt::format("{}: global memory answered {} for address 0x{:08x}", name(), gp.get_response_string(),
                          static_cast<uint32_t>(gp.get_address())));
  }
  // Applied by cycle() from the next cycle on, so the result does not depend
  // on whether this SM's method ran before or after the response this cycle.
  const auto* ext = gp.get_extension<sim::MemExt>();
  arrivals_.push_back(Arrival{now_cycle(), ext->tag, static_cast<uint32_t>(gp.get_address()), ext->sectors});
  gp.release();
  wake_at_next_cycle();
}

void Sm::line_served(unsigned group, uint64_t cycle) {
  MemGroup& grp = groups_[group];
  grp.last = std::max(grp.last, cycle);
  if (--grp.remaining > 0) return;
  // The last line: the destination is readable from the cycle after it.
  Warp& w = warps_[grp.warp];
  if (grp.dst != isa::kNoReg) w.ready[grp.dst] = grp.last + 1;
  --w.outstanding;
  free_groups_.push_back(group);
  maybe_retire(grp.warp);
}

void Sm::apply_arrivals(uint64_t now) {
  size_t kept = 0;
  for (size_t i = 0; i < arrivals_.size(); ++i) {
    const Arrival a = arrivals_[i];
    if (a.cycle >= now) {
      arrivals_[kept++] = a;
      continue;
    }
    if (a.tag & kFillTag) {
      L1Half& l1 = l1_[a.tag & ~kFillTag];
      l1.cache.fill(a.line, a.sectors, false);
      l1.mshr.arrive(a.line, a.sectors, [&](unsigned group) { line_served(group, a.cycle); });
    } else {
      line_served(a.tag, a.cycle);
    }
  }
  arrivals_.resize(kept);
}

uint64_t Sm::next_arrival() const {
  uint64_t next = kPending;
  for (const Arrival& a : arrivals_) next = std::min(next, a.cycle + 1);
  return next;
}

void Sm::trace_partition(Partition& part, int warp, uint32_t pc, int unit, Stall stall, unsigned lanes) {
  if (!vcd_) return;
  const uint64_t t = static_cast<uint64_t>(sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_PS).value());
  vcd_->change(part.vcd_warp, warp < 0 ? 0xFF : static_cast<uint64_t>(warp), t);
  if (warp >= 0) {
    vcd_->change(part.vcd_pc, pc, t);
    vcd_->change(part.vcd_unit, static_cast<uint64_t>(unit), t);
  }
  vcd_->change(part.vcd_stall, static_cast<uint64_t>(stall), t);
  vcd_->change(part.vcd_lanes, lanes, t);
}

}  // namespace tessera::sm
