#include "cpu/control_cluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "isa/encoding.h"
#include "isa/trap_report.h"

namespace tessera::cpu {

using isa::Trap;

ControlCluster::ControlCluster(const sc_core::sc_module_name& name, const Context& ctx)
    : sc_module(name),
      mmio_socket("mmio_socket"),
      clock_(ctx.clock),
      global_(ctx.global),
      program_(ctx.program),
      run_(ctx.run),
      launch_offset_(ctx.launch_offset),
      status_offset_(ctx.status_offset),
      stack_guards_(ctx.stack_guards),
      roi_offset_(ctx.roi_offset) {
  sim::Config& cfg = ctx.config;
  mul_latency_ =
      static_cast<unsigned>(cfg.get_int("cpu.mul_latency", 2, 0, 100, "Extra cycles of a control-core multiply"));
  div_latency_ = static_cast<unsigned>(
      cfg.get_int("cpu.div_latency", 32, 0, 1000, "Extra cycles of a control-core divide or remainder"));
  quantum_ = static_cast<unsigned>(
      cfg.get_int("cpu.quantum", 1000, 1, 1000000,
                  "Cycles the control cores run ahead of SystemC time between synchronisations (MMIO, wfi)"));
  const bus::ClusterParams params = bus::ClusterParams::for_chip(cfg);
  launch_coherence_ = params.launch_coherence;
  fetch_l1i_ =
      cfg.get_bool("cpu.fetch_l1i", true,
                   "Fetch control-core instructions through the L1I, a line at a time (false: functional fetch)");
  line_mask_ = ~static_cast<uint64_t>(params.l1i.line_bytes - 1);

  memory_side_ = std::make_unique<mem::BackingMemorySide>(global_, params.memory_latency);
  // One statistics node for the whole cluster: the engine's (bus, bridge,
  // core0..N with their L1s); the cores' counters join their core nodes.
  engine_ = std::make_unique<bus::Cluster>(params, *memory_side_, &ctx.stats_parent);

  cores_per_vector_unit_ = static_cast<unsigned>(
      cfg.get_int("cluster.cores_per_vector_unit", 1, 1, params.cores,
                  "Control cores sharing one vector unit, each with its own vector registers (docs/vector.md)"));
  const unsigned max_units = params.cores / cores_per_vector_unit_;
  const auto unit_count = static_cast<unsigned>(
      cfg.get_int("cluster.vector_units", max_units, 0, max_units,
                  fmt::format("Vector units, serving cluster.cores_per_vector_unit cores each from core 0 (at most "
                              "cluster.cores / cluster.cores_per_vector_unit = {})",
                              max_units)));
  vector_params_ = vector::load_vector_params(cfg);
  vector_params_.timing.contexts = cores_per_vector_unit_;
  for (unsigned u = 0; u < unit_count; ++u)
    vector_units_.push_back(std::make_unique<vector::VectorUnit>(vector_params_));
  core_vector_unit_.assign(params.cores, nullptr);
  for (unsigned h = 0; h < unit_count * cores_per_vector_unit_; ++h)
    core_vector_unit_[h] = vector_units_[h / cores_per_vector_unit_].get();
  vector_accesses_.resize(params.cores);
  vector_counters_.resize(params.cores);

  for (unsigned h = 0; h < params.cores; ++h) {
    auto hart = std::make_unique<Hart>(h, [this, h](bool write, uint32_t addr, unsigned bytes, uint32_t* value) {
      return mmio(*harts_[h], write, addr, bytes, value);
    });
    sim::StatGroup* g = &engine_->core_stats(h);
    g->add_counter("instructions", &hart->instructions, "Instructions retired");
    g->add_counter("loads", &hart->loads, "Loads through the L1D");
    g->add_counter("stores", &hart->stores, "Stores through the L1D");
    g->add_counter("atomics", &hart->atomics, "AMOs, LR and SC through the L1D");
    g->add_counter("fences", &hart->fences, "Fences (wait for the store buffer)");
    g->add_counter("fetches", &hart->fetches, "Fetch-buffer fills from the L1I (one line each)");
    g->add_counter("mmio_accesses", &hart->mmio_accesses, "MMIO register accesses");
    g->add_counter("memory_wait_cycles", &hart->memory_wait_cycles,
                   "Cycles from issuing a data access to its completion, summed");
    g->add_counter("wfi_cycles", &hart->wfi_cycles, "Cycles asleep in wfi");
    hart->fallback_locks = &engine_->fallback_locks(h);
    hart->register_changes = &register_changes_;
    if (core_vector_unit_[h]) {
      hart->vector = &core_vector_unit_[h]->state(vector_context(h));
      add_vector_stats(h);
    }
    harts_.push_back(std::move(hart));
  }
  completed_.assign(harts_.size(), std::nullopt);
  first_half_.assign(harts_.size(), std::nullopt);
  issued_at_.assign(harts_.size(), 0);
  last_load_.assign(harts_.size(), LastLoad{});
  line_writes_.assign(kLineWrites, LineWrite{});
  sleep_start_.assign(harts_.size(), 0);
  fetch_expected_.assign(harts_.size(), 0);
  forget_fetch_lines();
  Hart& boot = *harts_[0];
  boot.mode = Hart::Mode::kRunning;
  boot.state.pc = ctx.entry;
  boot.state.x[2] = ctx.stack_top;
  boot.state.x[8] = ctx.argc;
  boot.state.x[9] = ctx.argv;

  if (ctx.wave) {
    waves_ = std::make_unique<bus::ClusterWaves>(*ctx.wave, sim::wave_scope(sc_module::name()), params.cores,
                                                 unit_count * cores_per_vector_unit_);
    if (!waves_->any()) waves_.reset();
  }
  if (waves_) {
    ps_per_tick_ = static_cast<uint64_t>(sc_core::sc_time(1, sc_core::SC_PS).value());
    engine_->set_bus_trace([this](const bus::BusEvent& e) { waves_->bus(e); });
    engine_->set_line_trace(
        [this](uint32_t agent, uint64_t line, uint8_t state) { waves_->line(agent / 2, line, state, engine_->now()); });
    for (const auto& h : harts_) waves_->stall(h->id(), stall_code(h->mode), 0);
  }

  engine_->stats().add_counter("coherence_points", &coherence_points_,
                               "Kernel-launch coherence points (write back and invalidate every cache)");
  engine_->stats().add_counter("coherence_write_backs", &coherence_write_backs_,
                               "Dirty lines written back at coherence points");

  ff_stats_ = std::make_unique<sim::StatGroup>("fast_forward", &engine_->stats());
  ff_stats_->add_counter("instructions", &ff_.instructions,
                         "Control-core instructions executed functionally before the switch (--fast-forward)");
  for (const auto& h : harts_)
    ff_stats_->add_counter(fmt::format("core{}_instructions", h->id()), &h->ff_instructions,
                           "Instructions of this core executed functionally (--fast-forward)");
  ff_reservation_.assign(harts_.size(), kNoReservation);

  SC_HAS_PROCESS(ControlCluster);
  SC_METHOD(step);
  if (waves_) {
    SC_METHOD(release_waves);
    sensitive << wave_event_;
    dont_initialize();
  }
}

unsigned ControlCluster::stall_code(Hart::Mode mode) {
  switch (mode) {
    case Hart::Mode::kRunning:
      return 0;
    case Hart::Mode::kWaitMemory:
      return 1;
    case Hart::Mode::kSleeping:
      return 2;
    case Hart::Mode::kParked:
      return 3;
  }
  return 3;
}

// Changes the cores and the engine made ahead of SystemC time wait here
// until SystemC time reaches their cycle: every model reports times in
// order.
void ControlCluster::release_waves() {
  waves_->release(clock_.now_cycle(), sc_core::sc_time_stamp().value() / ps_per_tick_);
  const uint64_t next = waves_->next_cycle();
  if (next != bus::ClusterWaves::kNever) wave_event_.notify(clock_.delay_until(next));
}

ControlCluster::~ControlCluster() = default;

uint64_t ControlCluster::instructions() const {
  uint64_t n = 0;
  for (const auto& h : harts_) n += h->instructions;
  return n;
}

std::string ControlCluster::describe_in_flight() const {
  std::string out;
  for (const auto& h : harts_) {
    out += fmt::format("{}.core{}: {} at pc {}", name(), h->id(), mode_name(h->mode), pc_text(h->state.pc));
    out += h->mode == Hart::Mode::kWaitMemory ? fmt::format(" since cycle {}\n", issued_at_[h->id()]) : "\n";
  }
  return out + describe_spins() + engine_->describe_in_flight();
}

void ControlCluster::interrupt() {
  interrupt_pending_ = true;
  interrupt_at_ = clock_.now_cycle() + 1;
  interrupt_.notify(clock_.delay_until(interrupt_at_));
}

bool ControlCluster::interrupt_source_busy() const {
  return std::any_of(wfi_conditions_.begin(), wfi_conditions_.end(), [](const auto& busy) { return busy(); });
}

bool ControlCluster::should_sleep(const Hart& h) const {
  if (interrupt_source_busy()) return true;
  // Another core is still working: it may park (tessera_core_join) and wake us.
  return std::any_of(harts_.begin(), harts_.end(), [&h](const auto& o) {
    return o.get() != &h && (o->mode == Hart::Mode::kRunning || o->mode == Hart::Mode::kWaitMemory);
  });
}

void ControlCluster::wake_sleepers(uint64_t at) {
  for (auto& h : harts_) {
    if (h->mode != Hart::Mode::kSleeping) continue;
    set_mode(*h, Hart::Mode::kRunning, at);
    h->ready_at = at;
    h->wfi_cycles += at - sleep_start_[h->id()];
    if (timeline_) timeline_->end(core_tracks_[h->id()], timeline_ps(at));
  }
}

void ControlCluster::stop_on_engine_failure() {
  const std::string& f = engine_->failure();
  const auto kind = engine_->failure_info().kind;
  const bool deadlock =
      kind == mem::CoherenceFailure::Kind::kDeadlock || kind == mem::CoherenceFailure::Kind::kLivelock;
  run_.stop(deadlock ? sim::ExitKind::kDeadlock : sim::ExitKind::kGuestFault,
            deadlock ? sim::kStatusDeadlock : sim::kStatusGuestFault, fmt::format("{}: {}", name(), f));
}

// The whole cluster's clocked process. Every pass of the loop is one engine
// cycle E: cores whose next instruction is due at E run in hart order, then
// the engine advances to the next cycle at which a core or the engine has
// something to do.
void ControlCluster::step() {
  step_cores();
  if (waves_) release_waves();
}

void ControlCluster::step_cores() {
  if (run_.stopped()) return;
  if (!replay_writes_.empty()) {
    // A restored run: the device registers the program wrote before its checkpoint.
    for (auto& [offset, value] : replay_writes_) {
      tlm::tlm_generic_payload gp;
      gp.set_command(tlm::TLM_WRITE_COMMAND);
      gp.set_address(offset);
      gp.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
      gp.set_data_length(4);
      gp.set_streaming_width(4);
      gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      mmio_socket->b_transport(gp, delay);
    }
    replay_writes_.clear();
  }
  if (ff_pending_) {
    fast_forward();
    if (run_.stopped()) return;
  }
  const uint64_t sc_now = clock_.now_cycle();
  if (interrupt_pending_ && sc_now >= interrupt_at_) {
    interrupt_pending_ = false;
    wake_sleepers(std::max(sc_now, engine_->now()));
  }
  const uint64_t horizon = sc_now + quantum_;
  for (;;) {
    const uint64_t now = engine_->now();
    for (auto& h : harts_) {
      if (h->mode == Hart::Mode::kRunning && h->ready_at <= now) run_hart(*h, now, sc_now, horizon);
      if (run_.stopped()) return;
    }
    if (engine_->failed()) return stop_on_engine_failure();
    if (engine_->counters().value_changes != seen_value_changes_) {
      seen_value_changes_ = engine_->counters().value_changes;
      run_.note_change();
    }
    // A core that computes is progress too, even when it stores nothing for
    // millions of cycles: an instruction that writes its register a value
    // other than the one it wrote the last time it ran (Hart::note_write).
    // A spin loop (on a flag, a held lock, DISP_STATUS) runs the same
    // instructions on the same registers and memory each time round, so
    // each of them writes what it wrote before; a computation changes a loop
    // counter or an accumulator. Comparing by instruction rather than by
    // register keeps catching spins that reuse a register within one round
    // (`lui a5; lw a5` at -O0). If no instruction writes anything new and
    // nothing changes memory, every core repeats itself for ever: a
    // livelock. A spin that counts its attempts, reads the cycle counter or
    // alternates between states counts as computing and runs to
    // --max-cycles.
    if (register_changes_ != seen_register_changes_) {
      seen_register_changes_ = register_changes_;
      run_.note_change();
    }
    run_.watch(sc_core::sc_time_stamp().value());
    if (run_.stopped()) return;
    uint64_t next = engine_->next_event_cycle();
    for (const auto& h : harts_)
      if (h->mode == Hart::Mode::kRunning) next = std::min(next, h->ready_at);
    if (next == bus::Cluster::kNever) {
      next_trigger(interrupt_);  // every core parked or asleep, nothing in flight
      return;
    }
    if (next <= now) {
      // A core waits at `now` to synchronise with SystemC time (MMIO, wfi).
      next_trigger(clock_.delay_until(now), interrupt_);
      return;
    }
    if (next > horizon) {
      next_trigger(clock_.delay_until(next), interrupt_);
      return;
    }
    engine_->advance_to(next);
    if (engine_->failed()) return stop_on_engine_failure();
  }
}

// An access completed in the engine (its callback, at the end of the
// completing cycle): the core continues in that cycle.
void ControlCluster::resume(Hart& h) {
  set_mode(h, Hart::Mode::kRunning, engine_->now());
  h.ready_at = engine_->now();
  h.memory_wait_cycles += h.ready_at - issued_at_[h.id()];
  if (timeline_ && h.ready_at - issued_at_[h.id()] >= kTimelineMemoryWait)
    timeline_->slice(core_tracks_[h.id()], "memory", timeline_ps(issued_at_[h.id()]), timeline_ps(h.ready_at));
}

// Returns the first handler's answer other than kNext, in the order of the
// template arguments: direct calls, so the order costs no indirection.
template <ControlCluster::Step (ControlCluster::*... Handlers)(ControlCluster::Pass&)>
ControlCluster::Step ControlCluster::run_handlers(Pass& p) {
  Step s = Step::kNext;
  (void)((((s = (this->*Handlers)(p)) == Step::kNext)) && ...);
  return s;
}

void ControlCluster::run_hart(Hart& h, uint64_t now, uint64_t sc_now, uint64_t horizon) {
  while (h.mode == Hart::Mode::kRunning && h.ready_at <= horizon) {
    const uint64_t t = h.ready_at;
    const isa::Inst* inst = program_.find(h.state.pc);
    if (!inst) {
      isa::ExecResult r;
      r.trap = Trap::kIllegalInstruction;
      return fault(h, isa::Inst{}, r);
    }
    if (waves_) waves_->pc(h.id(), h.state.pc, t);
    if (debugger_ && debugger_->armed()) {
      if (!debugger_->before(debug_source_, h.id(), h.state.pc, h.instructions, *inst, &h.state, 1)) {
        h.ready_at = t + 1;  // held: gdb resumed other threads only
        return;
      }
      if (run_.stopped()) return;  // gdb killed the run
    }
    if (inst_trace_) {
      h.issue_pc = h.state.pc;
      h.issue_addr = h.state.x[inst->rs1] + static_cast<uint32_t>(inst->imm);
    }
    Pass p{h, *inst, t, now, sc_now};
    // The instruction at pc meets the handlers in this order, and the first
    // that takes it decides:
    //  1. switch point: fast-forward's (or a detailed run's) switch happens
    //     before the instruction has any effect;
    //  2. transaction: an aborted transaction discards what its core does
    //     next, so the rollback comes before anything can retire; then the
    //     tx.* instructions;
    //  3. access done: an access the engine completed retires its
    //     instruction, which was fetched before it was issued;
    //  4. fetch: an instruction not begun yet needs its line in the fetch
    //     buffer (the L1I);
    //  5. vector: a word the scalar decoder rejects may be a vector
    //     instruction, which has its own path to the L1D;
    //  6. access check: a forbidden access stops the run before any effect,
    //     MMIO included; it classifies the access for 7 and 8;
    //  7. MMIO and wfi: synchronise with SystemC time (inside a transaction
    //     they abort it);
    //  8. memory: loads, stores, atomics and fences go to the engine;
    //  9. execute: everything else is local to the core, which may run
    //     ahead of the engine.
    const Step s =
        run_handlers<&ControlCluster::on_switch_point, &ControlCluster::on_transaction, &ControlCluster::on_access_done,
                     &ControlCluster::on_fetch, &ControlCluster::on_vector, &ControlCluster::on_access_check,
                     &ControlCluster::on_io, &ControlCluster::on_memory, &ControlCluster::on_execute>(p);
    if (s == Step::kWait) return;
  }
}

ControlCluster::Step ControlCluster::on_execute(Pass& p) {
  Hart& h = p.h;
  const isa::ExecResult r = h.execute_direct(p.inst);
  if (r.trap != Trap::kNone) {
    fault(h, p.inst, r);
    return Step::kWait;
  }
  retired(h, p.t);
  uint64_t cost = 1;
  if (p.inst.lat == isa::Lat::kImul) {
    cost += mul_latency_;
  } else if (p.inst.lat == isa::Lat::kIdiv) {
    cost += div_latency_;
  }
  h.ready_at = p.t + cost;
  return Step::kAgain;
}

void ControlCluster::fault(Hart& h, const isa::Inst& inst, const isa::ExecResult& r) {
  if (debugger_) debugger_->fault(debug_source_, h.id(), 0, debug::Debugger::signal_of(r.trap));
  const uint32_t pc = h.state.pc;
  std::string what = isa::describe_trap(inst, r, pc, program_.find(pc) != nullptr, "on control cores");
  namespace vcsr = isa::vec::csr;
  const bool vector_csr = inst.csr == vcsr::kVstart || inst.csr == vcsr::kVxsat || inst.csr == vcsr::kVxrm ||
                          inst.csr == vcsr::kVcsr || (inst.csr >= vcsr::kVl && inst.csr <= vcsr::kVlenb);
  if (r.trap == Trap::kIllegalInstruction && !h.vector && inst.csr != 0 && vector_csr)
    what += fmt::format(": a vector CSR, and core {} has no vector unit ({})", h.id(), vector_unit_settings());
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}.core{}: {} at pc {}", name(), h.id(), what, pc_text(pc)));
}

void ControlCluster::set_inst_trace(isa::InstTrace* trace) {
  inst_trace_ = trace;
  trace_units_.clear();
  for (const auto& h : harts_)
    trace_units_.push_back(trace ? trace->add_unit(fmt::format("{}.core{}", name(), h->id()), false)
                                 : isa::InstTrace::kOff);
}

void ControlCluster::trace_retired(const Hart& h, uint64_t cycle) {
  const isa::Inst* inst = program_.find(h.issue_pc);
  if (inst == nullptr) return;
  const uint64_t reg = inst->dst == isa::kNoReg      ? 0
                       : inst->dst < isa::kFpRegBase ? h.state.x[inst->dst]
                                                     : h.state.fd(inst->dst - isa::kFpRegBase);
  // A vector instruction is illegal to the scalar decoder: its own text.
  const std::string vector_text =
      inst->op == isa::Op::kIllegal ? isa::vec::disassemble(vector_inst(h.issue_pc, inst->raw)) : std::string();
  inst_trace_->record(trace_units_[h.id()], cycle, h.issue_pc, *inst, reg, h.issue_addr, 0,
                      vector_text.empty() ? nullptr : &vector_text);
}

void ControlCluster::set_timeline(sim::Timeline* t) {
  timeline_ = t;
  if (!t) return;
  for (const auto& h : harts_) core_tracks_.push_back(t->track(name(), fmt::format("core{}", h->id())));
  engine_->set_timeline(t, t->track(name(), "bus"), timeline_ps(1));
  // Every core but 0 starts parked.
  for (const auto& h : harts_)
    if (h->mode == Hart::Mode::kParked) t->begin(core_tracks_[h->id()], "parked", 0);
  // A memory wait is written when it ends (resume(), if long), so one still
  // in flight when the run stops is written here; a wfi is an open slice.
  t->at_close([this](uint64_t end_ps) {
    for (const auto& h : harts_)
      if (h->mode == Hart::Mode::kWaitMemory)
        timeline_->slice(core_tracks_[h->id()], "memory", timeline_ps(issued_at_[h->id()]), end_ps);
  });
}

}  // namespace tessera::cpu
