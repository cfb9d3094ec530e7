#include "cpu/control_cluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "isa/encoding.h"
#include "isa/trap_report.h"

namespace tessera::cpu {

using isa::Trap;

namespace {

const char* mode_name(Hart::Mode m) {
  switch (m) {
    case Hart::Mode::kParked:
      return "parked";
    case Hart::Mode::kRunning:
      return "running";
    case Hart::Mode::kWaitMemory:
      return "waiting for memory";
    case Hart::Mode::kSleeping:
      return "asleep in wfi";
  }
  return "?";
}

}  // namespace

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
    out += fmt::format("{}.core{}: {} at pc 0x{:08x}", name(), h->id(), mode_name(h->mode), h->state.pc);
    out += h->mode == Hart::Mode::kWaitMemory ? fmt::format(" since cycle {}\n", issued_at_[h->id()]) : "\n";
  }
  return out + engine_->describe_in_flight();
}

void ControlCluster::interrupt() {
  interrupt_pending_ = true;
  interrupt_at_ = clock_.now_cycle() + 1;
  interrupt_.notify(clock_.delay_until(interrupt_at_));
}

bool ControlCluster::should_sleep(const Hart& h) const {
  if (kernel_busy_ && kernel_busy_()) return true;
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
    if (timeline_)
      timeline_->slice(core_tracks_[h->id()], sleep_names_[h->id()], timeline_ps(sleep_start_[h->id()]),
                       timeline_ps(at));
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

bool ControlCluster::needs_coherence_point(const isa::Inst& inst, const Hart& h) const {
  if (!launch_coherence_) return false;
  const uint32_t addr = access_address(inst, h.state);
  if (!is_mmio(addr)) return false;
  const uint32_t offset = addr - kMmioBase;
  if (inst.is_store && offset == launch_offset_) return true;
  return inst.is_load && offset == status_offset_ && kernel_may_have_run_;
}

// Every dirty line to memory, every cache emptied: the SMs read what the
// cores wrote, and the cores' next reads see what kernels wrote. Costs the
// core one line transfer per dirty line.
void ControlCluster::coherence_point(Hart& h, uint64_t now) {
  const uint32_t written = engine_->write_back_and_invalidate_all();
  forget_fetch_lines();  // the L1Is are empty too
  ++coherence_points_;
  coherence_write_backs_ += written;
  const auto& p = engine_->params();
  const uint64_t beats = p.l1d.line_bytes * 8u / p.width_bits;
  h.ready_at = now + static_cast<uint64_t>(written) * beats;
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

void ControlCluster::run_hart(Hart& h, uint64_t now, uint64_t sc_now, uint64_t horizon) {
  const unsigned id = h.id();
  while (h.mode == Hart::Mode::kRunning && h.ready_at <= horizon) {
    const uint64_t t = h.ready_at;
    const isa::Inst* inst = program_.find(h.state.pc);
    if (!inst) {
      isa::ExecResult r;
      r.trap = Trap::kIllegalInstruction;
      return fault(h, isa::Inst{}, r);
    }
    if (waves_) waves_->pc(id, h.state.pc, t);
    if (switch_armed_ && !completed_[id] && !first_half_[id] && !vector_accesses_[id].active) {
      const SwitchReason reason = switch_reason(*inst, h);
      if (reason != SwitchReason::kNone) {
        if (detailed_switch(h, reason, t, now, sc_now)) return;
        continue;
      }
    }
    if (h.tx_depth > 0 && engine_->tx_abort_pending(id)) {
      // The transaction aborted: whatever ran since is discarded; the engine
      // rolls back (an eager walk takes time), then the checkpoint returns.
      if (t != now) return;
      completed_[id].reset();
      first_half_[id].reset();
      issue_tx(h, bus::OpKind::kTxRollback, t, 0, [this, &h](uint32_t) {
        const uint32_t status = engine_->tx_status(h.id());
        h.state = h.tx_checkpoint;
        if (h.tx_rd != 0) h.state.x[h.tx_rd] = status;
        h.tx_depth = 0;
      });
      return;
    }
    if (isa::is_tx_op(inst->op) && !completed_[id]) {
      if (run_tx_instruction(h, *inst, t, now)) return;
      continue;
    }
    if (completed_[id]) {
      // The data access finished in the engine: retire the instruction.
      const uint32_t result = *completed_[id];
      completed_[id].reset();
      uint64_t value = result;
      if (inst->mem_bytes == 8) {
        // fld/fsd: the low word is done, the high word goes next.
        if (!first_half_[id]) {
          first_half_[id] = result;
          continue;
        }
        value = uint64_t{result} << 32 | *first_half_[id];
        first_half_[id].reset();
      }
      const isa::ExecResult r = h.replay(*inst, value);
      if (r.trap != Trap::kNone) return fault(h, *inst, r);
      retired(h, t);
      continue;
    }
    if (fetch_l1i_ && (h.state.pc & line_mask_) != fetch_line_[id]) {
      // Fill the fetch buffer from the L1I, when the engine reaches the core.
      if (t != now) return;
      if (draining_) {
        h.ready_at = t + 1;
        return;
      }
      bus::Op fetch;
      fetch.kind = bus::OpKind::kIfetch;
      fetch.addr = h.state.pc;
      fetch.size = 4;
      fetch_expected_[id] = inst->raw;
      ++h.fetches;
      issued_at_[id] = t;
      set_mode(h, Hart::Mode::kWaitMemory, t);
      engine_->issue(id, fetch, [this, &h](uint32_t word) {
        const unsigned hid = h.id();
        resume(h);
        if (word != fetch_expected_[hid]) {
          run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
                    fmt::format("{}.core{}: the instruction at pc 0x{:08x} was changed in memory (0x{:08x}, was "
                                "0x{:08x}); control cores do not run code written at run time",
                                name(), hid, h.state.pc, word, fetch_expected_[hid]));
          return;
        }
        fetch_line_[hid] = h.state.pc & line_mask_;
      });
      return;
    }
    if (inst->op == isa::Op::kIllegal) {
      // Not a scalar instruction: a vector one, or illegal (the executor traps below).
      const isa::vec::VInst& v = vector_inst(h.state.pc, inst->raw);
      if (v.op != isa::vec::VOp::kIllegal) {
        if (run_vector(h, v, t, now)) return;
        continue;
      }
    }
    const MemClass mc = classify(*inst);
    const bool mmio_access = mc == MemClass::kAccess && is_mmio(access_address(*inst, h.state));
    if (mc == MemClass::kAccess && refuse_access(h, *inst, access_address(*inst, h.state), mmio_access)) return;
    if ((mmio_access || inst->op == isa::Op::kWfi) && h.tx_depth > 0) {
      // A transaction cannot do I/O or sleep: it aborts, the access never happens.
      if (t != now) return;
      return abort_transaction(h, isa::tx::abort_status(isa::tx::AbortReason::kMmio), t);
    }
    if (mmio_access || inst->op == isa::Op::kWfi) {
      // Synchronise: MMIO and wfi happen exactly at SystemC time.
      if (t != now || t != sc_now) return;
      if (mmio_access && needs_coherence_point(*inst, h)) {
        if (!engine_->idle()) {
          draining_ = true;  // no core starts a new access until the engine is idle
          h.ready_at = t + 1;
          return;
        }
        draining_ = false;
        coherence_point(h, t);
        if (h.ready_at != t) continue;  // the write-backs take time: synchronise again
      }
      const isa::ExecResult r = h.execute_direct(*inst);
      if (run_.stopped()) return;  // EXIT, or a bad core start
      if (r.trap != Trap::kNone && r.trap != Trap::kWfi) return fault(h, *inst, r);
      retired(h, t);
      if (r.trap == Trap::kWfi && should_sleep(h)) {
        set_mode(h, Hart::Mode::kSleeping, t + 1);
        sleep_start_[id] = t + 1;
        if (timeline_)
          sleep_names_[id] = kernel_busy_ && kernel_busy_() ? "tessera_wait (kernel running)" : "wfi (core join)";
        return;
      }
      if (h.mode == Hart::Mode::kRunning) h.ready_at = t + 1;  // not parked by HART_PARK
      continue;
    }
    if (mc == MemClass::kAccess || mc == MemClass::kFence) {
      if (mc == MemClass::kAccess) {
        const uint32_t addr = access_address(*inst, h.state);
        const unsigned bytes = inst->mem_bytes ? inst->mem_bytes : 4;
        if ((addr & (bytes - 1)) != 0 || !global_.contains(addr, bytes)) {
          // Misaligned or unmapped: the executor raises the trap.
          return fault(h, *inst, h.execute_direct(*inst));
        }
      }
      if (t != now) return;  // issue when the engine reaches the core's time
      // A drain waits for the cores' accesses in flight: an fld/fsd whose
      // first word is done is one of them, so its second word still goes.
      const bool second_half = first_half_[id].has_value();
      if (draining_ && !second_half) {
        h.ready_at = t + 1;
        return;
      }
      const bus::Op op = memory_op(*inst, h.state, second_half ? 1 : 0);
      if (!second_half) count_access(h, op.kind);
      issued_at_[id] = t;
      set_mode(h, Hart::Mode::kWaitMemory, t);
      engine_->issue(id, op, [this, &h](uint32_t value) {
        completed_[h.id()] = value;
        resume(h);
      });
      return;
    }
    // Everything else is local to the core: it may run ahead of the engine.
    const isa::ExecResult r = h.execute_direct(*inst);
    if (r.trap != Trap::kNone) return fault(h, *inst, r);
    retired(h, t);
    uint64_t cost = 1;
    if (inst->lat == isa::Lat::kImul) {
      cost += mul_latency_;
    } else if (inst->lat == isa::Lat::kIdiv) {
      cost += div_latency_;
    }
    h.ready_at = t + cost;
  }
}

void ControlCluster::count_access(Hart& h, bus::OpKind kind) {
  switch (kind) {
    case bus::OpKind::kLoad:
      ++h.loads;
      break;
    case bus::OpKind::kStore:
      ++h.stores;
      break;
    case bus::OpKind::kFence:
      ++h.fences;
      break;
    default:
      ++h.atomics;
      break;
  }
}

void ControlCluster::issue_tx(Hart& h, bus::OpKind kind, uint64_t t, uint32_t value,
                              std::function<void(uint32_t)> done) {
  bus::Op op;
  op.kind = kind;
  op.value = value;
  if (kind == bus::OpKind::kTxBegin) {
    op.addr = h.tx_log_base;
    op.value = h.tx_log_size;
  }
  issued_at_[h.id()] = t;
  set_mode(h, Hart::Mode::kWaitMemory, t);
  engine_->issue(h.id(), op, [this, &h, done = std::move(done)](uint32_t v) {
    done(v);
    resume(h);
  });
}

void ControlCluster::abort_transaction(Hart& h, uint32_t status, uint64_t t) {
  issue_tx(h, bus::OpKind::kTxAbort, t, status, [](uint32_t) {});
}

bool ControlCluster::run_tx_instruction(Hart& h, const isa::Inst& inst, uint64_t t, uint64_t now) {
  const uint32_t pc = h.state.pc;
  auto retire_local = [&](uint32_t rd_value, bool write_rd) {
    if (write_rd && inst.rd != 0) h.state.x[inst.rd] = rd_value;
    h.state.pc = pc + 4;
    retired(h, t);
    h.ready_at = t + 1;
    return false;
  };
  switch (inst.op) {
    case isa::Op::kTxTest:
      return retire_local(h.tx_depth, true);
    case isa::Op::kTxBegin:
      if (h.tx_depth > 0) {
        if (h.tx_depth >= engine_->params().htm.max_depth) {
          if (t != now) return true;
          abort_transaction(h, isa::tx::abort_status(isa::tx::AbortReason::kNesting), t);
          return true;
        }
        ++h.tx_depth;
        return retire_local(0, true);
      }
      if (refuse_undo_log(h)) return true;
      if (t != now) return true;  // the engine begins it at its own time
      if (draining_) {
        h.ready_at = t + 1;
        return true;
      }
      issue_tx(h, bus::OpKind::kTxBegin, t, 0, [this, &h, pc, rd = inst.rd](uint32_t) {
        if (rd != 0) h.state.x[rd] = 0;
        h.state.pc = pc + 4;
        h.tx_checkpoint = h.state;
        h.tx_rd = rd;
        h.tx_depth = 1;
        retired(h, engine_->now());
      });
      return true;
    case isa::Op::kTxEnd:
      if (h.tx_depth == 0) {
        run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
                  fmt::format("{}.core{}: tx.end outside a transaction at pc 0x{:08x}", name(), h.id(), pc));
        return true;
      }
      if (h.tx_depth > 1) {
        --h.tx_depth;
        return retire_local(0, false);
      }
      if (t != now) return true;
      issue_tx(h, bus::OpKind::kTxCommit, t, 0, [this, &h, pc](uint32_t failed) {
        if (failed) return;  // aborted: the rollback comes next
        h.tx_depth = 0;
        h.state.pc = pc + 4;
        retired(h, engine_->now());
      });
      return true;
    case isa::Op::kTxAbort:
      if (h.tx_depth == 0) return retire_local(0, false);  // nothing to abort
      if (t != now) return true;
      abort_transaction(h, isa::tx::abort_status(isa::tx::AbortReason::kExplicit, static_cast<uint8_t>(inst.imm)), t);
      return true;
    default:
      return false;
  }
}

void ControlCluster::fault(Hart& h, const isa::Inst& inst, const isa::ExecResult& r) {
  const uint32_t pc = h.state.pc;
  std::string what = isa::describe_trap(inst, r, pc, program_.find(pc) != nullptr, "on control cores");
  namespace vcsr = isa::vec::csr;
  const bool vector_csr = inst.csr == vcsr::kVstart || inst.csr == vcsr::kVxsat || inst.csr == vcsr::kVxrm ||
                          inst.csr == vcsr::kVcsr || (inst.csr >= vcsr::kVl && inst.csr <= vcsr::kVlenb);
  if (r.trap == Trap::kIllegalInstruction && !h.vector && inst.csr != 0 && vector_csr)
    what += fmt::format(": a vector CSR, and core {} has no vector unit ({})", h.id(), vector_unit_settings());
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}.core{}: {} at pc 0x{:08x}", name(), h.id(), what, pc));
}

bool ControlCluster::refuse_undo_log(Hart& h) {
  // Only eager versioning writes the log: old values go to txlogbase +
  // 8 * n as two words, which the caches write back to global memory.
  if (engine_->params().htm.versioning != bus::Versioning::kEager || h.tx_log_size == 0) return false;
  const uint32_t base = h.tx_log_base, bytes = h.tx_log_size;
  const uint64_t end = uint64_t{base} + bytes;
  std::string why;
  if (base % 4 != 0)
    why = fmt::format("txlogbase 0x{:08x} is not 4-byte aligned", base);
  else if (!global_.contains(base, bytes))
    why = fmt::format("[0x{:08x}, 0x{:x}) is outside global memory [0x{:08x}, 0x{:x})", base, end, global_.base(),
                      uint64_t{global_.base()} + global_.size());
  else if (program_.overlaps(base, bytes))
    why = fmt::format("[0x{:08x}, 0x{:x}) overlaps the program's code, which is read-only", base, end);
  if (why.empty()) return false;
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}.core{}: tx.begin with an undo log (txlogbase, txlogsize {}) the core cannot write: {} "
                        "at pc 0x{:08x}",
                        name(), h.id(), bytes, why, h.state.pc));
  return true;
}

bool ControlCluster::refuse_access(Hart& h, const isa::Inst& inst, uint32_t addr, bool mmio_access) {
  const uint32_t pc = h.state.pc;
  std::string why;
  const isa::Mem mem = isa::info(inst.op).mem;
  const bool atomic = mem == isa::Mem::kLr || mem == isa::Mem::kSc || isa::is_amo(mem);
  if (mmio_access) {
    if (atomic || inst.mem_bytes != 4)
      why = fmt::format("{} of MMIO register 0x{:08x}: MMIO registers take 32-bit loads and stores only",
                        isa::disassemble(inst, pc), addr);
  } else {
    for (const StackGuard& g : stack_guards_)
      if (addr - g.base < g.bytes)
        why = fmt::format("stack overflow: {} at 0x{:08x} is in the {}-byte guard at the bottom of {}",
                          isa::disassemble(inst, pc), addr, g.bytes, g.stack);
    if (why.empty() && inst.is_store && program_.find(addr & ~3u))
      why = fmt::format("{} into the program's code at 0x{:08x}: the executable segment is read-only",
                        isa::disassemble(inst, pc), addr);
  }
  if (why.empty()) return false;
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}.core{}: {} at pc 0x{:08x}", name(), h.id(), why, pc));
  return true;
}

void ControlCluster::set_timeline(sim::Timeline* t) {
  timeline_ = t;
  if (!t) return;
  for (const auto& h : harts_) core_tracks_.push_back(t->track(name(), fmt::format("core{}", h->id())));
  sleep_names_.assign(harts_.size(), "wfi");
  engine_->set_timeline(t, t->track(name(), "bus"), timeline_ps(1));
  // Every core but 0 starts parked.
  for (const auto& h : harts_)
    if (h->mode == Hart::Mode::kParked) t->begin(core_tracks_[h->id()], "parked", 0);
}

}  // namespace tessera::cpu
