#include "sm/sm_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>

#include "isa/encoding.h"
#include "isa/trap_report.h"
#include "isa/warp_ops.h"
#include "sm/shared_banks.h"

namespace tessera::sm {

using isa::Inst;
using isa::Trap;

namespace {
// A destination waiting for the shared-memory bank unit's answer (rtl,
// lockstep): later than any cycle, and not Warp::kPending, so the issue
// stage counts the wait as a scoreboard stall, as in model mode.
constexpr uint64_t kAwaiting = Warp::kPending - 1;
unsigned lanes_in(uint32_t mask) { return static_cast<unsigned>(std::bitset<32>(mask).count()); }
// The scoreboard entries of a destination: a register group (ld.v4,
// atom.add64, ...) becomes readable at once.
void set_ready(Warp& w, uint8_t dst, unsigned group, uint64_t cycle) {
  for (unsigned k = 0; k < group; ++k) w.ready[dst + k] = cycle;
}
}  // namespace

SmEngine::SmEngine(unsigned id, const Context& ctx)
    : id_(id),
      p_(ctx.params),
      program_(ctx.program),
      run_(ctx.run),
      name_(ctx.name),
      log_(ctx.name),
      stats_(fmt::format("sm{}", id), &ctx.stats_parent),
      l1_(ctx.params.l1, stats_),
      const_(ctx.params.constant, stats_, "const_cache", "Line requests of __constant__ loads"),
      slots_(ctx.params),
      warps_(ctx.params.max_warps),
      banks_(ctx.params.shared_banks, std::max(ctx.params.shared_bytes, 16u), ctx.params.shared_atomic_cycles),
      lanes_(LaneMemory::Context{ctx.params, ctx.global, ctx.program, ctx.run, ctx.atomics, id, ctx.num_sms,
                                 &warp_insts_, banks_, ctx.params.shared_impl != rtl::Impl::kModel}) {
  if (p_.shared_impl != rtl::Impl::kModel)
    bank_pins_ = make_shared_bank_pins(p_, banks_, stats_.path() + ".shared_banks");  // chip.sm3.shared_banks
  shared_passes_.assign(kWarpSize + 1, 0);
  partitions_.reserve(p_.partitions);  // the statistics formulas hold references into it
  for (unsigned p = 0; p < p_.partitions; ++p) partitions_.emplace_back(p, p_, stats_, &active_cycles_);

  stats_.add_counter("cycles", &active_cycles_, "Cycles with at least one resident warp");
  stats_.add_counter("warp_insts", &warp_insts_, "Warp instructions executed");
  stats_.add_counter("thread_insts", &thread_insts_, "Thread instructions executed (active lanes)");
  stats_.add_formula(
      "ipc",
      [this] { return active_cycles_ ? static_cast<double>(warp_insts_) / static_cast<double>(active_cycles_) : 0.0; },
      "Warp instructions per active cycle");
  stats_.add_formula(
      "lane_utilization",
      [this] {
        return warp_insts_ ? static_cast<double>(thread_insts_) / static_cast<double>(warp_insts_ * kWarpSize) : 0.0;
      },
      "Active lanes per warp instruction / warp size");
  stats_.add_counter("sp_warp_insts", &unit_insts_[IssueStage::kUnitSp], "Warp instructions on the SP lanes");
  stats_.add_counter("sfu_warp_insts", &unit_insts_[IssueStage::kUnitSfu], "Warp instructions on the SFU lanes");
  stats_.add_counter("ldst_warp_insts", &unit_insts_[IssueStage::kUnitLdst], "Warp instructions on the LD/ST lanes");
  stats_.add_counter("fp64_warp_insts", &unit_insts_[IssueStage::kUnitDp], "Warp instructions on the FP64 unit");
  stats_.add_counter("ctrl_warp_insts", &ctrl_insts_, "Barrier, exit and other control instructions");
  stats_.add_counter("blocks_started", &blocks_started_, "Thread blocks placed on this SM");
  stats_.add_counter("blocks_finished", &blocks_finished_, "Thread blocks that finished");
  stats_.add_counter("global_sector_reads", &sector_reads_, "32-byte global read (and atomic) sector requests");
  stats_.add_counter("global_sector_writes", &sector_writes_, "32-byte global write sector requests");
  stats_.add_counter("global_line_requests", &line_requests_, "Requests sent towards L2 (one per 128-byte line)");
  stats_.add_counter("shared_warp_accesses", &shared_accesses_, "Warp instructions that accessed shared memory");
  stats_.add_counter("const_warp_loads", &const_loads_, "Warp loads of __constant__ data (the constant cache)");
  stats_.add_counter("const_serialized_cycles", &const_serialized_,
                     "Cycles constant loads added for their distinct addresses beyond the first (one per cycle)");
  stats_.add_histogram("shared_passes", &shared_passes_,
                       "Bank-array passes per shared-memory warp request (n-way conflict: n passes)");
  stats_.add_counter("shared_conflict_passes", &shared_conflict_passes_,
                     "Passes beyond the first caused by bank conflicts");
  stats_.add_counter("shared_broadcasts", &shared_broadcasts_, "Words read by several lanes in one pass");
  stats_.add_counter("shared_atomic_warp_insts", &shared_atomic_insts_,
                     "Atomic warp instructions on shared memory (executed beside the banks, not on the SP lanes)");
  stats_.add_counter("shared_atomic_ops", &shared_atomic_ops_, "Lane atomic operations on shared memory");
  stats_.add_counter("local_warp_accesses", &local_accesses_, "Warp instructions that accessed local memory");
}

SmEngine::~SmEngine() = default;

void SmEngine::set_tracing(bool on) {
  for (IssueStage& part : partitions_) part.tracing = on;
  tracing_ = on;
  trace_.l1.assign(l1_.halves(), SmTrace::L1Half{});
}

unsigned SmEngine::barrier_warps() const {
  unsigned n = 0;
  for (const Warp& w : warps_) n += w.resident && w.at_barrier ? 1 : 0;
  return n;
}

// ---------------------------------------------------------------- blocks

void SmEngine::start_block(const KernelLaunch& k, uint64_t block_index, uint64_t now) {
  // The current cycle ran (or was skipped) without this block.
  account_skipped(now + 1);
  if (!any_launch_ || k.id != launch_id_) {
    // L1 is not coherent: each kernel launch starts with it empty. Nor is
    // the constant cache (the host may have written __constant__ data).
    l1_.invalidate_all();
    const_.invalidate_all();
    any_launch_ = true;
    launch_id_ = k.id;
  }
  const unsigned b = slots_.start(k, block_index);
  Block& blk = slots_[b];
  for (unsigned wi = 0; wi < blk.use.warps; ++wi) {
    unsigned slot = 0;
    while (warps_[slot].resident) ++slot;
    Warp& w = warps_[slot];
    w.start(b, wi, slot % p_.partitions, k, blk.use.threads, kLocalWindow + p_.local_bytes, now + 1);
    w.serial = ++warp_serial_;
    blk.warps.push_back(slot);
    ++blk.live_warps;
    partitions_[w.partition].add_warp(static_cast<uint16_t>(slot));
  }
  ++blocks_started_;
  log_.debug("block {} starts in slot {} ({} warps, {} B shared at {})", block_index, b, blk.use.warps,
             blk.use.shared_bytes, blk.shared_base);
  next_event_ = std::min(next_event_, now + 1);
}

void SmEngine::maybe_retire(unsigned slot) {
  Warp& w = warps_[slot];
  if (!w.resident || !w.done()) return;
  w.resident = false;
  partitions_[w.partition].remove_warp(static_cast<uint16_t>(slot));
  Block& blk = slots_[w.block_slot];
  // Count, not a scan of blk.warps: a retired slot may already hold a warp
  // of another block.
  if (--blk.live_warps > 0) return;
  slots_.retire(w.block_slot);
  ++blocks_finished_;
  log_.debug("block {} finishes", blk.index);
  if (port_) port_->block_finished();
}

// ---------------------------------------------------------------- the clock

void SmEngine::account_skipped(uint64_t upto) {
  // Cycles after the last processed one and before `upto` were skipped: no
  // state changed in them, so each partition stalled for its last reason.
  if (!ever_ran_ || upto <= last_cycle_ + 1) return;
  const uint64_t n = upto - last_cycle_ - 1;
  if (slots_.resident_warps() > 0) {
    active_cycles_ += n;
    for (IssueStage& part : partitions_) part.skip(n);
  }
  last_cycle_ = upto - 1;
}

void SmEngine::cycle(uint64_t now) {
  account_skipped(now);
  last_cycle_ = now;
  ever_ran_ = true;
  next_event_ = kNever;

  apply_arrivals(now);
  if (port_) port_->before_issue(now);
  if (run_.stopped()) return;
  bool issued = false;
  uint64_t wake = kNever;
  if (slots_.resident_warps() > 0) {
    ++active_cycles_;
    for (unsigned p = 0; p < partitions_.size() && !run_.stopped(); ++p) {
      issued |= partitions_[p].cycle(now, *this, wake);
    }
  } else {
    for (IssueStage& part : partitions_) part.idle();
  }
  if (run_.stopped()) return;
  // The unit's answer comes from its pins: look every cycle while it works,
  // and once more after an answer (the partitions' wake-up times above did
  // not know the register's readable cycle).
  const bool banks_busy = bank_pins_ && banks_have_work();
  if (banks_busy) step_banks(now);

  uint64_t next = std::min(wake, next_arrival());
  if (issued || banks_busy) next = now + 1;
  if (!p_.skip_idle && slots_.resident_warps() > 0) next = now + 1;  // tick every cycle
  next_event_ = next;
}

// ---------------------------------------------------------------- execute

unsigned SmEngine::latency(const Inst& inst) const {
  switch (inst.lat) {
    case isa::Lat::kSfu:
      return p_.sfu_latency;
    case isa::Lat::kIdiv:
      return p_.idiv_latency;
    case isa::Lat::kFp64:
      return p_.fp64_latency;
    case isa::Lat::kFp64Div:
      return p_.fp64_div_latency;
    default:
      return p_.alu_latency;
  }
}

bool SmEngine::execute(unsigned slot, const Inst& inst, uint64_t now) {
  if (isa::is_warp_op(inst.op)) return execute_warp_op(slot, inst, now);
  Warp& w = warps_[slot];
  Block& blk = slots_[w.block_slot];
  lanes_.begin(inst, slot, w, blk, now);

  const uint32_t mask = w.mask;
  const TraceCapture traced = trace_capture(slot, w, inst, mask, now);
  bool barrier = false, exited = false;
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
    lanes_.set_lane(lane);
    const isa::ExecResult r = isa::execute<false>(inst, w.threads[lane], lanes_);
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
      fault(w, slot, lane, inst, r);
      return false;
    }
  }

  count_issue(w, inst, mask, now);
  if (traced.on) trace_issue(slot, w, inst, traced, mask, now);

  // When the destination becomes readable.
  AccessRecord& rec = lanes_.record();
  if (rec.device_lanes && (rec.shared() || rec.local || rec.global_lanes)) {
    rec.fault_why = FaultWhy::kDeviceMixed;
    isa::ExecResult r;
    r.trap = inst.is_store ? Trap::kStoreAccessFault : Trap::kLoadAccessFault;
    fault(w, slot, static_cast<unsigned>(__builtin_ctz(rec.device_lanes)), inst, r);
    return false;
  }
  if (rec.shared()) issue_shared(slot, w, inst, now);
  if (!rec.global.lines().empty()) {
    issue_global(slot, w, inst, now);
  } else if (inst.dst != isa::kNoReg && !rec.shared()) {
    const uint64_t lat = inst.lat == isa::Lat::kMem && rec.local ? p_.local_latency : latency(inst);
    // A device register read is readable when the device answered (a
    // write is posted: the warp goes on).
    set_ready(w, inst.dst, inst.group, std::max(now + lat, rec.device_ready));
  }
  if (rec.shared()) ++shared_accesses_;
  if (rec.local) ++local_accesses_;

  if (exited) w.release_syncwarp_if_complete();  // an exited lane is not waited for
  w.reconverge();
  if (barrier || exited) release_barrier_if_complete(w.block_slot, blk, warps_, now + p_.alu_latency);
  if (exited) maybe_retire(slot);
  return true;
}

void SmEngine::count_issue(const Warp& w, const Inst& inst, uint32_t mask, uint64_t now) {
  ++warp_insts_;
  thread_insts_ += lanes_in(mask);
  switch (inst.unit) {
    case isa::Unit::kSp:
      ++unit_insts_[IssueStage::kUnitSp];
      break;
    case isa::Unit::kSfu:
      ++unit_insts_[IssueStage::kUnitSfu];
      break;
    case isa::Unit::kLdst:
      ++unit_insts_[IssueStage::kUnitLdst];
      break;
    case isa::Unit::kDp:
      ++unit_insts_[IssueStage::kUnitDp];
      break;
    case isa::Unit::kCtrl:
      ++ctrl_insts_;
      break;
  }
  partitions_[w.partition].occupy(inst.unit, now);
}

bool SmEngine::execute_warp_op(unsigned slot, const Inst& inst, uint64_t now) {
  // Timing (docs/architecture.md, "Warp-level instructions"): shuffles
  // occupy the LD/ST lanes' slot (32 / ldst_lanes cycles), votes and
  // activemask the SP lanes; their result, like bar.red's after the
  // barrier's release, is readable sm.alu_latency cycles later.
  Warp& w = warps_[slot];
  Block& blk = slots_[w.block_slot];
  const uint32_t mask = w.mask;
  const TraceCapture traced = trace_capture(slot, w, inst, mask, now);
  bool barrier = false, syncwarp = false;
  uint32_t group = mask;  // the lanes that execute it
  if (isa::is_warp_collective(inst.op)) {
    w.at_collective &= ~mask;
    const uint32_t live = w.existing & ~w.exited;
    isa::LaneInsts insts = isa::same_inst(inst);
    isa::MemberCheck c = isa::check_members(insts, w.threads.data(), mask, live);
    if (!c.ok && !c.self_missing) {
      if ((w.runnable() & ~mask) != 0) {
        // Named lanes are elsewhere and others can still run: wait for them
        // here (the attempt takes this cycle's issue slot, nothing executes).
        w.at_collective |= mask;
        w.reconverge();
        return true;
      }
      // No other lane can run: lanes parked at a copy of this call at
      // another pc (same op; the compiler may duplicate a call) join.
      for (uint32_t m = w.at_collective; m; m &= m - 1) {
        const auto lane = static_cast<unsigned>(__builtin_ctz(m));
        const Inst* other = program_.find(w.threads[lane].pc);
        if (!other || other->op != inst.op) continue;
        insts[lane] = other;
        group |= 1u << lane;
      }
      if (group != mask) c = isa::check_members(insts, w.threads.data(), group, live);
    }
    if (!c.ok) {
      const auto& tid = w.tid[c.lane];
      const std::string why =
          c.self_missing
              ? fmt::format("lane {} is not in its own member mask 0x{:08x}", c.lane, c.mask)
              : fmt::format(
                    "lane {}'s member mask 0x{:08x} names lanes 0x{:08x} that never execute it with the lanes "
                    "0x{:08x}: they wait at a barrier, a __syncwarp or another *_sync call (CUDA requires every "
                    "non-exited lane of the mask to execute the same *_sync call)",
                    c.lane, c.mask, c.not_converged, group);
      run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
                fmt::format("{}: {} ({}) at pc {}, warp slot {} (block ({},{},{}) warp {}), thread ({},{},{})", name_,
                            isa::op_name(inst.op), why, program_.image().format_pc(w.pc), slot, blk.ctaid[0],
                            blk.ctaid[1], blk.ctaid[2], w.warp_in_block, tid[0], tid[1], tid[2]));
      return false;
    }
    w.at_collective &= ~group;
    isa::execute_warp_collective(insts, w.threads.data(), group);
    for (uint32_t m = group; m; m &= m - 1) {
      const uint8_t dst = insts[static_cast<unsigned>(__builtin_ctz(m))]->dst;
      if (dst != isa::kNoReg) w.ready[dst] = now + p_.alu_latency;
    }
  } else {
    for (uint32_t m = mask; m; m &= m - 1) {
      const auto lane = static_cast<unsigned>(__builtin_ctz(m));
      isa::ThreadState& t = w.threads[lane];
      t.pc += 4;
      switch (inst.op) {
        case isa::Op::kSyncwarp:
          // The caller always takes part, whether or not its mask names it.
          w.syncwarp_need |= t.x[inst.rs1] | 1u << lane;
          syncwarp = true;
          break;
        case isa::Op::kBarRedPopc:
        case isa::Op::kBarRedAnd:
        case isa::Op::kBarRedOr:
          w.at_barrier |= 1u << lane;
          w.bar_op[lane] = static_cast<uint8_t>(
              kBarRedPopc + (static_cast<unsigned>(inst.op) - static_cast<unsigned>(isa::Op::kBarRedPopc)));
          w.bar_rd[lane] = inst.rd;
          ++blk.waiting;
          ++blk.red_arrived;
          blk.red_true += t.x[inst.rs1] != 0 ? 1 : 0;
          barrier = true;
          break;
        default:  // membar.cta: each SM thread's accesses are performed in order, at issue
          break;
      }
    }
    if (syncwarp) {
      w.at_syncwarp |= mask;
      w.release_syncwarp_if_complete();
    }
  }
  count_issue(w, inst, group, now);
  if (traced.on) trace_issue(slot, w, inst, traced, group, now);
  w.reconverge();
  if (barrier) release_barrier_if_complete(w.block_slot, blk, warps_, now + p_.alu_latency);
  return true;
}

void SmEngine::set_inst_trace(isa::InstTrace* trace) {
  inst_trace_ = trace;
  trace_units_.clear();
  for (size_t slot = 0; slot < warps_.size(); ++slot)
    trace_units_.push_back(trace ? trace->add_unit(fmt::format("{}.w{}", name_, slot), true) : isa::InstTrace::kOff);
}

void SmEngine::trace_issue(unsigned slot, const Warp& w, const Inst& inst, const TraceCapture& c, uint32_t mask,
                           uint64_t now) const {
  const isa::ThreadState& t = w.threads[c.lane];
  const uint64_t reg = inst.dst == isa::kNoReg      ? 0
                       : inst.dst < isa::kFpRegBase ? t.x[inst.dst]
                                                    : t.fd(inst.dst - isa::kFpRegBase);
  inst_trace_->record(trace_units_[slot], now, c.pc, inst, reg, c.addr, mask);
}

void SmEngine::issue_shared(unsigned slot, Warp& w, const Inst& inst, uint64_t now) {
  // The bank array takes a warp request's passes one per cycle (an atomic's
  // read-modify-write shared_atomic_cycles each), after the passes of earlier
  // requests. An atomic's result is readable the base latency after its last
  // pass; a load's the base latency plus the conflict curve's cycles for its
  // passes (sm.shared_conflict_cycles) after its first.
  // The statistics count the arbiter's passes at issue in every mode (the
  // lockstep mode checks the RTL's against them).
  const AccessRecord& rec = lanes_.record();
  const bool atomic = inst.is_load && inst.is_store;
  BankAccess a;
  if (rec.group > 1) {
    // A pass moves one word per bank: the lanes whose data fill the banks
    // once go together (16 lanes of 8 bytes or 8 of 16 with 32 4-byte banks).
    const unsigned access = 4u * rec.group;
    const unsigned words_per_lane = std::max(1u, access / p_.shared_bank_bytes);
    const unsigned lanes_per_pass = std::clamp(p_.shared_banks * p_.shared_bank_bytes / access, 1u, kWarpSize);
    a = arbitrate_banks_wide(rec.shared_words, rec.shared_mask, p_.shared_banks, atomic, words_per_lane,
                             lanes_per_pass);
  } else {
    a = arbitrate_banks(rec.shared_words, rec.shared_mask, p_.shared_banks, atomic);
  }
  ++shared_passes_[std::min<size_t>(a.passes, shared_passes_.size() - 1)];
  shared_conflict_passes_ += a.passes - 1;
  shared_broadcasts_ += a.broadcasts;
  if (tracing_) trace_.shared_passes = a.passes;
  if (atomic) {
    ++shared_atomic_insts_;
    shared_atomic_ops_ += lanes_in(rec.shared_mask);
  }
  if (bank_pins_) {
    // rtl, lockstep: a warp request for the unit's pins, in issue order.
    BankPending& q = bank_fifo_.emplace_back();
    q.req.op = atomic ? bank_op_of_atomic(inst.op) : inst.is_load ? BankOp::kLoad : BankOp::kStore;
    q.req.mask = rec.shared_mask;
    for (uint32_t m = rec.shared_mask; m; m &= m - 1) {
      const auto lane = static_cast<unsigned>(__builtin_ctz(m));
      q.req.word[lane] = rec.shared_offset[lane] / 4;
      q.byte[lane] = static_cast<uint8_t>(rec.shared_offset[lane] & 3);
      q.req.be[lane] = rec.shared_be[lane];
      q.req.data[lane] = rec.shared_data[lane];
      q.req.swap[lane] = rec.shared_swap[lane];
    }
    q.slot = slot;
    q.serial = w.serial;
    q.inst = &inst;
    q.min_ready = rec.local ? now + p_.local_latency : 0;
    if (!atomic && a.passes > 0) q.conflict_wait = p_.shared_conflict.extra(a.passes) - (a.passes - 1);
    // Readable when the unit answers: until then the scoreboard waits as on
    // any latency (kAwaiting is no cycle the run reaches).
    if (inst.dst != isa::kNoReg) w.ready[inst.dst] = kAwaiting;
    return;
  }
  const uint64_t per_pass = atomic ? p_.shared_atomic_cycles : 1;
  const uint64_t start = std::max(now, shared_busy_until_);
  shared_busy_until_ = start + per_pass * a.passes;
  if (inst.dst == isa::kNoReg) return;
  const uint64_t base = atomic ? p_.shared_atomic_latency : p_.shared_latency;
  uint64_t ready = start + base + (atomic ? per_pass * (a.passes - 1) : p_.shared_conflict.extra(a.passes));
  if (rec.local) ready = std::max<uint64_t>(ready, now + p_.local_latency);
  set_ready(w, inst.dst, inst.group, ready);
}

void SmEngine::step_banks(uint64_t now) {
  // The request at the head of the queue is on the pins; the unit takes it
  // at the end of the cycle when it is ready.
  const bool take = !bank_fifo_.empty() && bank_pins_->ready();
  bank_pins_->step(bank_fifo_.empty() ? nullptr : &bank_fifo_.front().req, now);
  if (take) {
    bank_taken_.push_back(std::move(bank_fifo_.front()));
    bank_fifo_.pop_front();
  }
  if (!bank_pins_->resp_valid() || bank_taken_.empty()) return;
  // The answer to the oldest request in service, after its last pass (cycle
  // now): the unit took it in cycle now - per_pass * passes, so the
  // destination is readable at that start + base + per_pass * (passes - 1)
  // (for a load plus the conflict curve's cycles beyond its passes), as in
  // model mode.
  const BankPending q = std::move(bank_taken_.front());
  bank_taken_.pop_front();
  const BankResponse& r = bank_pins_->response();
  const Inst& inst = *q.inst;
  const bool atomic = is_atomic(q.req.op);
  if (atomic) {
    // Progress for the watchdog: an atomic that changed a word.
    for (uint32_t m = r.mask; m; m &= m - 1) {
      const auto lane = static_cast<unsigned>(__builtin_ctz(m));
      if (isa::atomic_new_value(inst.op, r.data[lane], q.req.data[lane], q.req.swap[lane]) != r.data[lane]) {
        run_.note_change();
        break;
      }
    }
  }
  Warp& w = warps_[q.slot];
  if (!w.resident || w.serial != q.serial || inst.dst == isa::kNoReg) return;
  if (q.req.op != BankOp::kStore) {
    const unsigned bytes = inst.mem_bytes;
    const isa::OpInfo& o = isa::info(inst.op);
    const bool is_unsigned = (o.flags & isa::opflag::kUnsigned) != 0;
    for (uint32_t m = r.mask; m; m &= m - 1) {
      const auto lane = static_cast<unsigned>(__builtin_ctz(m));
      uint32_t v = r.data[lane] >> (8 * q.byte[lane]);
      if (bytes < 4) {
        const unsigned bits = 8 * bytes;
        v &= (1u << bits) - 1;
        if (!is_unsigned && (v >> (bits - 1))) v |= ~((1u << bits) - 1);
      }
      isa::ThreadState& t = w.threads[lane];
      if (isa::is_fp(o.rd)) {
        t.set_fs(inst.rd, v);
      } else {
        t.x[inst.rd] = v;
      }
    }
  }
  // A lane that went to global memory too leaves the register to the last line.
  if (w.ready[inst.dst] != kAwaiting) return;
  const uint64_t per_pass = atomic ? p_.shared_atomic_cycles : 1;
  const uint64_t base = atomic ? p_.shared_atomic_latency : p_.shared_latency;
  w.ready[inst.dst] = std::max<uint64_t>(now + base - per_pass + q.conflict_wait, q.min_ready);
}

void SmEngine::issue_global(unsigned slot, Warp& w, const Inst& inst, uint64_t now) {
  unsigned g;
  if (free_groups_.empty()) {
    g = static_cast<unsigned>(groups_.size());
    groups_.emplace_back();
  } else {
    g = free_groups_.back();
    free_groups_.pop_back();
  }
  AccessRecord& rec = lanes_.record();
  const auto& lines = rec.global.lines();
  MemGroup& grp = groups_[g];
  grp.warp = slot;
  grp.dst = inst.is_load ? inst.dst : isa::kNoReg;
  grp.group = inst.group;
  grp.remaining = static_cast<unsigned>(lines.size());
  grp.last = now;
  ++w.outstanding;
  if (grp.dst != isa::kNoReg) {
    set_ready(w, grp.dst, grp.group, Warp::kPending);
    partitions_[w.partition].scheduler().long_latency_wait(static_cast<uint16_t>(slot));
  }

  const bool atomic = inst.is_load && inst.is_store;
  const LineOp op = atomic ? LineOp::kAtomic : inst.is_load ? LineOp::kRead : LineOp::kWrite;
  if (op == LineOp::kRead && rec.const_lanes != 0 && rec.const_lanes == rec.global_lanes) {
    issue_constant(slot, w, g, now);
    return;
  }
  const bool cached = op == LineOp::kRead && (rec.read_only || l1_.params().cache_global_loads);
  const unsigned half = l1_.half_of(w.partition, p_.partitions);
  for (const LineRequest& line : lines) {
    if (op != LineOp::kRead) {
      // Stores and atomics go through to L2; L1 and the constant cache drop
      // their stale copies.
      l1_.invalidate(line.line, line.sectors);
      const_.invalidate(line.line, line.sectors);
      queue_request(line.line, line.sectors, op, op == LineOp::kAtomic ? line.lanes : 0, g, slot);
      continue;
    }
    if (!cached) {
      queue_request(line.line, line.sectors, op, 0, g, slot);
      continue;
    }
    const L1Cache::Lookup l = l1_.load(half, line.line, line.sectors, g);
    if (tracing_) {
      SmTrace::L1Half& t = trace_.l1[half];
      t.req = true;
      (l.kind == L1Cache::Lookup::kHit ? t.hit : t.miss) = true;
      trace_.events = true;
    }
    switch (l.kind) {
      case L1Cache::Lookup::kHit:
        // Served by L1: readable hit_latency cycles after issue.
        arrivals_.push_back(Arrival{now + l1_.params().hit_latency - 1, g, line.line, line.sectors, false});
        break;
      case L1Cache::Lookup::kBypass:
        queue_request(line.line, line.sectors, op, 0, g, slot);
        break;
      case L1Cache::Lookup::kMiss:
        if (l.fetch) queue_request(line.line, l.fetch, op, 0, kFillTag | half, slot);
        break;
    }
  }
}

// A warp load whose lanes all read __constant__ data: the constant cache
// serves one address per cycle and broadcasts it to every lane that asked
// for it, so n distinct addresses take n cycles of the LD/ST unit and add
// n - 1 cycles to the result; a missing line is fetched from L2.
void SmEngine::issue_constant(unsigned slot, Warp& w, unsigned g, uint64_t now) {
  AccessRecord& rec = lanes_.record();
  const unsigned extra = rec.const_addresses - 1u;
  ++const_loads_;
  const_serialized_ += extra;
  partitions_[w.partition].occupy_until(isa::Unit::kLdst, now + rec.const_addresses);
  groups_[g].last = now + extra;
  for (const LineRequest& line : rec.global.lines()) {
    const L1Cache::Lookup l = const_.load(0, line.line, line.sectors, g);
    switch (l.kind) {
      case L1Cache::Lookup::kHit:
        arrivals_.push_back(Arrival{now + p_.constant.hit_latency - 1 + extra, g, line.line, line.sectors, false});
        break;
      case L1Cache::Lookup::kBypass:
        queue_request(line.line, line.sectors, LineOp::kRead, 0, g, slot);
        break;
      case L1Cache::Lookup::kMiss:
        if (l.fetch) queue_request(line.line, l.fetch, LineOp::kRead, 0, kConstFillTag, slot);
        break;
    }
  }
}

void SmEngine::queue_request(uint32_t line, uint8_t sectors, LineOp op, unsigned atomic_ops, uint32_t tag,
                             unsigned slot) {
  // Timing only: the instruction already executed.
  ++line_requests_;
  ++l2_outstanding_;
  if (op == LineOp::kWrite) {
    sector_writes_ += static_cast<unsigned>(__builtin_popcount(sectors));
  } else {
    sector_reads_ += static_cast<unsigned>(__builtin_popcount(sectors));
  }
  requests_.push_back(
      MemRequest{line, sectors, op, static_cast<uint8_t>(atomic_ops), tag, static_cast<uint16_t>(slot)});
}

// ---------------------------------------------------------------- answers

void SmEngine::answer(uint32_t tag, uint32_t line, uint8_t sectors, uint64_t cycle) {
  // Applied by cycle() from the next cycle on, so the result does not depend
  // on whether this SM's cycle ran before or after the answer this cycle.
  arrivals_.push_back(Arrival{cycle, tag, line, sectors, true});
  next_event_ = std::min(next_event_, cycle + 1);
}

void SmEngine::line_served(unsigned group, uint64_t cycle) {
  MemGroup& grp = groups_[group];
  grp.last = std::max(grp.last, cycle);
  if (--grp.remaining > 0) return;
  // The last line: the destination is readable from the cycle after it.
  Warp& w = warps_[grp.warp];
  if (grp.dst != isa::kNoReg) set_ready(w, grp.dst, grp.group, grp.last + 1);
  --w.outstanding;
  free_groups_.push_back(group);
  maybe_retire(grp.warp);
}

void SmEngine::apply_arrivals(uint64_t now) {
  size_t kept = 0;
  for (size_t i = 0; i < arrivals_.size(); ++i) {
    const Arrival a = arrivals_[i];
    if (a.cycle >= now) {
      arrivals_[kept++] = a;
      continue;
    }
    if (a.from_l2) --l2_outstanding_;
    if (a.tag & kFillTag) {
      l1_.fill(a.tag & ~kFillTag, a.line, a.sectors, [&](unsigned group) { line_served(group, a.cycle); });
    } else if (a.tag & kConstFillTag) {
      const_.fill(0, a.line, a.sectors, [&](unsigned group) { line_served(group, a.cycle); });
    } else {
      line_served(a.tag, a.cycle);
    }
  }
  arrivals_.resize(kept);
}

uint64_t SmEngine::next_arrival() const {
  uint64_t next = kNever;
  for (const Arrival& a : arrivals_) next = std::min(next, a.cycle + 1);
  return next;
}

}  // namespace tessera::sm
