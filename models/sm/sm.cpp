#include "sm/sm.h"

#include <fmt/format.h>

#include <algorithm>

#include "sm/sm_wave.h"

namespace tessera::sm {

namespace {
// The current SystemC time in picoseconds (the waveform's time unit).
uint64_t now_ps() {
  static const uint64_t ticks_per_ps = sc_core::sc_time(1, sc_core::SC_PS).value();
  return sc_core::sc_time_stamp().value() / ticks_per_ps;
}
}  // namespace

Sm::Sm(const sc_core::sc_module_name& name, unsigned id, const Context& ctx)
    : sc_module(name),
      mem_port_("mem_socket", *this, 1, &Sm::on_answer, &Sm::on_end_req),
      clock_(ctx.clock),
      run_(ctx.run),
      wave_(ctx.wave),
      engine_(id, SmEngine::Context{ctx.params, ctx.global, ctx.program, ctx.run, ctx.stats_parent, ctx.num_sms,
                                    ctx.atomics, std::string(this->name())}),
      clocked_(ctx.clock) {
  engine_.set_port(this);
  const SmParams& sp = ctx.params;
  limits_ = LaunchLimits{
      kWarpSize,           sp.max_threads_per_block,   sp.max_threads,  sp.max_warps,  sp.max_blocks, sp.registers,
      sp.register_granule, sp.regs_per_thread_default, sp.shared_bytes, sp.local_bytes};
  if (wave_) {
    engine_.set_tracing(true);
    signals_.resize(ctx.params.partitions);
    for (unsigned p = 0; p < signals_.size(); ++p) {
      const std::string scope = fmt::format("{}.sched{}", sim::wave_scope(this->name()), p);
      Signals& s = signals_[p];
      s.warp = wave_->add_signal(scope, "issued_warp", 8);
      s.pc = wave_->add_signal(scope, "pc", 32);
      s.unit = wave_->add_signal(scope, "unit", 2, &kSmUnitWave);
      s.stall = wave_->add_signal(scope, "stall", 3, &kSmStallWave);
      s.lanes = wave_->add_signal(scope, "active_lanes", 6);
    }
    const std::string scope = sim::wave_scope(this->name());
    SmSignals& s = sm_signals_;
    s.ldst_queue = wave_->add_signal(scope, "ldst_queue", 8);
    s.global_outstanding = wave_->add_signal(scope, "global_outstanding", 12);
    s.resident_blocks = wave_->add_signal(scope, "resident_blocks", 6);
    s.resident_warps = wave_->add_signal(scope, "resident_warps", 7);
    s.barrier_warps = wave_->add_signal(scope, "barrier_warps", 7);
    s.l1.resize(engine_.l1().halves());
    for (unsigned h = 0; h < s.l1.size(); ++h) {
      const std::string half = fmt::format("{}.l1_half{}", scope, h);
      s.l1[h].req = wave_->add_signal(half, "req", 1);
      s.l1[h].hit = wave_->add_signal(half, "hit", 1);
      s.l1[h].miss = wave_->add_signal(half, "miss", 1);
      s.l1[h].mshr = wave_->add_signal(half, "mshr", 8);
    }
    s.mem_req = wave_->add_signal(scope + ".mem", "req", 1);
    s.mem_addr = wave_->add_signal(scope + ".mem", "req_addr", 32);
    s.mem_op = wave_->add_signal(scope + ".mem", "req_op", 2, &sim::kMemOpWave);
    s.mem_warp = wave_->add_signal(scope + ".mem", "req_warp", 8);
    bool any_warp = false;
    std::vector<WarpSignals> warps(engine_.warps().size());
    for (unsigned w = 0; w < warps.size(); ++w) {
      const std::string warp = fmt::format("{}.warp{}", scope, w);
      warps[w].state = wave_->add_signal(warp, "state", 3, &kSmWarpWave);
      warps[w].active_mask = wave_->add_signal(warp, "active_mask", kWarpSize);
      any_warp = any_warp || warps[w].state >= 0;
    }
    if (any_warp) s.warps = std::move(warps);
    s.shared_busy = wave_->add_signal(scope + ".shared", "busy", 1);
    s.shared_passes = wave_->add_signal(scope + ".shared", "passes", 6);
    const uint64_t period_ps =
        static_cast<uint64_t>(clock_.period().value() / sc_core::sc_time(1, sc_core::SC_PS).value());
    engine_.trace_rtl(*wave_, scope + ".shared_banks.rtl", period_ps);
  }

  SC_HAS_PROCESS(Sm);
  SC_METHOD(cycle);
  sensitive << clocked_.event();
  dont_initialize();
  if (wave_) {
    SC_METHOD(trace_idle);
    sensitive << trace_wake_;
    dont_initialize();
  }
}

Sm::~Sm() = default;

void Sm::start_block(const KernelLaunch& k, uint64_t block_index) {
  engine_.start_block(k, block_index, now_cycle());
  if (timeline_) timeline_block_started(block_index);
  wake_at_next_cycle();
}

void Sm::block_finished() {
  if (timeline_) timeline_block_finished();
  if (listener_) listener_->block_finished(*this);
}

// ---------------------------------------------------------------- the clock

void Sm::wake_at_next_cycle() { clocked_.wake_next_cycle(); }

void Sm::cycle() {
  if (run_.stopped() || !clocked_.begin_cycle()) return;
  const uint64_t now = clocked_.cycle();
  try {
    engine_.cycle(now);
  } catch (const rtl::LockstepMismatch& e) {
    run_.stop(sim::ExitKind::kLockstepMismatch, sim::kStatusLockstepMismatch, e.what());
    return;
  }
  if (wave_) {
    const uint64_t t = now_ps();
    trace_partitions(t);
    trace_sm(now, t);
  }
  if (run_.stopped()) return;

  uint64_t next = engine_.next_event();
  if (!engine_.requests().empty() && !mem_port_.awaiting_end_req(0)) next = now + 1;  // the next request goes out
  clocked_.wake_at(next == SmEngine::kNever ? sim::ClockedMethod::kNever : next);
  if (wave_) {
    // A cycle the SM may skip in which a signal changes by itself: a strobe
    // of this cycle ends, or the bank array finishes its passes.
    uint64_t clear = strobes_on_ ? now + 1 : SmEngine::kNever;
    if (engine_.shared_busy(now)) clear = std::min(clear, engine_.shared_busy_until());
    if (clear > now && clear < next) trace_wake_.notify(clock_.time_of(clear) - sc_core::sc_time_stamp());
  }
}

void Sm::before_issue(uint64_t now) {
  send_requests(now);
  if (!engine_.blocks().resident_warps()) return;
  run_.watch(sc_core::sc_time_stamp().value());
}

void Sm::trace_partitions(uint64_t t) {
  auto& parts = engine_.partitions();
  for (size_t p = 0; p < parts.size(); ++p) {
    IssueStage& part = parts[p];
    if (!part.traced) continue;
    part.traced = false;
    const IssueTrace& tr = part.trace;
    const Signals& s = signals_[p];
    wave_->change(s.warp, tr.warp < 0 ? 0xFF : static_cast<uint64_t>(tr.warp), t);
    if (tr.warp >= 0) {
      wave_->change(s.pc, tr.pc, t);
      wave_->change(s.unit, static_cast<uint64_t>(tr.unit), t);
    }
    wave_->change(s.stall, static_cast<uint64_t>(tr.stall), t);
    wave_->change(s.lanes, tr.lanes, t);
  }
}

void Sm::trace_sm(uint64_t now, uint64_t t) {
  const SmSignals& s = sm_signals_;
  SmTrace& tr = engine_.trace();
  const L1Cache& l1 = engine_.l1();
  for (unsigned h = 0; h < s.l1.size(); ++h) {
    SmTrace::L1Half& e = tr.l1[h];
    wave_->change(s.l1[h].req, e.req ? 1 : 0, t);
    wave_->change(s.l1[h].hit, e.hit ? 1 : 0, t);
    wave_->change(s.l1[h].miss, e.miss ? 1 : 0, t);
    wave_->change(s.l1[h].mshr, std::min<uint64_t>(l1.half(h).mshr.size(), 0xFF), t);
    e = SmTrace::L1Half{};
  }
  if (mem_strobe_ && mem_cycle_ < now) {
    wave_->change(s.mem_req, 0, t);
    mem_strobe_ = false;
  }
  strobes_on_ = tr.events || mem_strobe_;
  strobe_cycle_ = now;
  tr.events = false;
  // Values wider than their signal saturate (the signals' widths fit the
  // default parameters).
  const BlockSlots& slots = engine_.blocks();
  wave_->change(s.ldst_queue, std::min<uint64_t>(engine_.requests().size(), 0xFF), t);
  wave_->change(s.global_outstanding, std::min<uint64_t>(engine_.global_outstanding(), 0xFFF), t);
  wave_->change(s.resident_blocks, std::min<uint64_t>(slots.resident_blocks(), 0x3F), t);
  wave_->change(s.resident_warps, slots.resident_warps(), t);
  wave_->change(s.barrier_warps, engine_.barrier_warps(), t);
  wave_->change(s.shared_busy, engine_.shared_busy(now) ? 1 : 0, t);
  wave_->change(s.shared_passes, std::min<uint64_t>(tr.shared_passes, 0x3F), t);
  trace_warps(t);
}

void Sm::trace_warps(uint64_t t) {
  const std::vector<WarpSignals>& signals = sm_signals_.warps;
  if (signals.empty()) return;
  const std::vector<Warp>& warps = engine_.warps();
  for (size_t i = 0; i < signals.size(); ++i) {
    const Warp& w = warps[i];
    // The next instruction matters only while a register waits on memory.
    const isa::Inst* next = w.resident && w.outstanding ? engine_.program().find(w.pc) : nullptr;
    wave_->change(signals[i].state, static_cast<uint64_t>(warp_activity(w, next)), t);
    wave_->change(signals[i].active_mask, w.resident ? w.mask : 0, t);
  }
}

void Sm::trace_idle() {
  const uint64_t now = clock_.now_cycle(), t = now_ps();
  const SmSignals& s = sm_signals_;
  if (strobes_on_ && strobe_cycle_ < now) {
    // The cycle after the strobes' own: the SM's cycle of this instant, if
    // it runs, sets them again after (or has set them, and strobe_cycle_ is now).
    for (const L1Signals& h : s.l1) {
      wave_->change(h.req, 0, t);
      wave_->change(h.hit, 0, t);
      wave_->change(h.miss, 0, t);
    }
    wave_->change(s.mem_req, 0, t);
    mem_strobe_ = false;
    strobes_on_ = false;
  }
  const bool busy = engine_.shared_busy(now);
  wave_->change(s.shared_busy, busy ? 1 : 0, t);
  // Woken for a strobe while the bank array works on: wake again when it
  // stops, unless the SM's own cycle comes first (then it decides). In rtl
  // and lockstep modes the SM steps every busy cycle itself (kNever).
  const uint64_t until = engine_.shared_busy_until();
  if (busy && until != SmEngine::kNever && until > now)
    trace_wake_.notify(clock_.time_of(until) - sc_core::sc_time_stamp());
}

// ---------------------------------------------------------------- global memory

void Sm::send_requests(uint64_t now) {
  // One sector request per cycle; the AT protocol allows a new BEGIN_REQ only
  // after the previous one's END_REQ, and this SM sends it the cycle after.
  auto& queue = engine_.requests();
  if (queue.empty() || !mem_port_.can_send(0, clock_.time_of(now))) return;
  const MemRequest r = queue.front();
  queue.pop_front();
  const sim::MemOp op = r.op == LineOp::kRead    ? sim::MemOp::kRead
                        : r.op == LineOp::kWrite ? sim::MemOp::kWrite
                                                 : sim::MemOp::kAtomic;
  tlm::tlm_generic_payload* gp = nullptr;
  sim::MemExt& ext = pool_.request(gp, r.line, kSectorBytes * static_cast<unsigned>(__builtin_popcount(r.sectors)), op);
  ext.source = static_cast<uint16_t>(engine_.id());
  ext.warp = r.warp;
  ext.tag = r.tag;
  ext.sectors = r.sectors;
  ext.atomic_ops = r.atomic_ops;
  if (timeline_ && timeline_->sample(0))
    timeline_->async_begin(mem_track_,
                           op == sim::MemOp::kRead    ? "read"
                           : op == sim::MemOp::kWrite ? "write"
                                                      : "atomic",
                           sim::Timeline::sm_request_id(engine_.id(), r.tag, r.line), sim::Timeline::now_ps(),
                           fmt::format(R"({{"line":"0x{:08x}","sectors":{},"warp":{}}})", r.line, r.sectors, r.warp));
  if (wave_) {
    const SmSignals& s = sm_signals_;
    const uint64_t t = now_ps();
    wave_->change(s.mem_req, 1, t);
    wave_->change(s.mem_addr, r.line, t);
    wave_->change(s.mem_op, static_cast<uint64_t>(op), t);
    wave_->change(s.mem_warp, r.warp, t);
    mem_strobe_ = true;
    mem_cycle_ = now;
  }
  mem_port_.send(0, *gp);
}

void Sm::on_end_req(unsigned) {
  if (!engine_.requests().empty()) wake_at_next_cycle();
}

void Sm::on_answer(unsigned, tlm::tlm_generic_payload& gp, const sc_core::sc_time&) {
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
              fmt::format("{}: global memory answered {} for address 0x{:08x}", name(), gp.get_response_string(),
                          static_cast<uint32_t>(gp.get_address())));
  }
  const auto* ext = gp.get_extension<sim::MemExt>();
  if (timeline_)
    timeline_->async_end(mem_track_, {}, sim::Timeline::sm_request_id(engine_.id(), ext->tag, gp.get_address()),
                         sim::Timeline::now_ps());
  engine_.answer(ext->tag, static_cast<uint32_t>(gp.get_address()), ext->sectors, now_cycle());
  gp.release();
  wake_at_next_cycle();
}

std::string Sm::describe_in_flight() const {
  std::string out = engine_.describe_in_flight();
  if (const tlm::tlm_generic_payload* gp = mem_port_.awaiting(0))
    out += fmt::format("{}: request for line 0x{:08x} sent, waiting for END_REQ\n", name(),
                       static_cast<uint32_t>(gp->get_address()));
  return out;
}

// ---------------------------------------------------------------- timeline

void Sm::set_timeline(sim::Timeline* t) {
  timeline_ = t;
  if (!t) return;
  t->track(name(), "kernel");  // first in the SM's process; the dispatcher's slices
  mem_track_ = t->track("memory", name());
  const auto slots = engine_.blocks().blocks().size();
  slot_blocks_.assign(slots, -1);
  for (size_t s = 0; s < slots; ++s) slot_tracks_.push_back(t->track(name(), fmt::format("block slot {}", s)));
}

void Sm::timeline_block_started(uint64_t block_index) {
  const auto& blocks = engine_.blocks().blocks();
  for (size_t s = 0; s < blocks.size(); ++s) {
    if (slot_blocks_[s] >= 0 || !blocks[s].resident || blocks[s].index != block_index) continue;
    slot_blocks_[s] = static_cast<int64_t>(block_index);
    timeline_->begin(slot_tracks_[s], fmt::format("block {}", block_index), sim::Timeline::now_ps());
    return;
  }
}

void Sm::timeline_block_finished() {
  const auto& blocks = engine_.blocks().blocks();
  for (size_t s = 0; s < blocks.size(); ++s) {
    if (slot_blocks_[s] < 0 || (blocks[s].resident && blocks[s].index == static_cast<uint64_t>(slot_blocks_[s])))
      continue;
    slot_blocks_[s] = -1;
    timeline_->end(slot_tracks_[s], sim::Timeline::now_ps());
  }
}

}  // namespace tessera::sm
