#include "dram/hbm_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "dram/dram_params.h"
#include "sim/mem_ext.h"

namespace tessera::dram {

namespace {
// The engine decides a cycle 1 ps after its clock edge, once every request
// of the edge's instant has arrived.
sc_core::sc_time after_edge() { return sc_core::sc_time(1, sc_core::SC_PS); }
// Each command as a one-cycle slice on its pseudo-channel's row or column
// command bus (one command per bus per cycle, so the slices never overlap).
class TimelineCommands : public CommandObserver {
 public:
  TimelineCommands(sim::Timeline& t, const std::string& name, const DramSpec& spec, const sim::ClockDomain& clock)
      : t_(t), clock_(clock), pcs_(spec.org.pseudo_channels) {
    for (unsigned c = 0; c < spec.channels(); ++c)
      for (unsigned p = 0; p < pcs_; ++p)
        for (const char* bus : {"row", "col"}) tracks_.push_back(t.track(name, fmt::format("ch{}.pc{} {}", c, p, bus)));
  }
  void on_command(const Command& cmd) override {
    const size_t track = (static_cast<size_t>(cmd.channel) * pcs_ + cmd.pc) * 2 + (is_column_command(cmd.kind) ? 1 : 0);
    if (track >= tracks_.size()) return;
    const std::string args = cmd.kind == CommandKind::kRefAb ? std::string()
                                                             : fmt::format(R"({{"bank_group":{},"bank":{},"row":{}}})",
                                                                           cmd.bank_group, cmd.bank, cmd.row);
    t_.slice(tracks_[track], to_string(cmd.kind), sim::Timeline::cycle_ps(clock_, cmd.cycle),
             sim::Timeline::cycle_ps(clock_, cmd.cycle + 1), args);
  }

 private:
  sim::Timeline& t_;
  const sim::ClockDomain& clock_;
  unsigned pcs_;
  std::vector<int> tracks_;
};

}  // namespace

// The waveform of every pseudo channel, fed by the engine's command buses
// (a CommandObserver) and by the wrapper's activations.
class HbmMemory::Tracer : public CommandObserver {
 public:
  Tracer(const HbmMemory& hbm, sim::Waveform& wave) : hbm_(hbm), wave_(wave) {
    const DramSpec& spec = hbm.engine_->spec();
    pcs_ = spec.org.pseudo_channels;
    banks_per_group_ = spec.org.banks_per_group;
    trfc_ = spec.timing.tRFC;
    trfcsb_ = spec.timing.tRFCSB;
    ps_ = sc_core::sc_time(1, sc_core::SC_PS).value();
    const unsigned banks = spec.org.banks_per_pc();
    for (unsigned p = 0; p < spec.channels() * pcs_; ++p) {
      Pc pc;
      const std::string scope = fmt::format("{}.pc{}", sim::wave_scope(hbm.name()), p);
      if (wave.scope_enabled(scope)) {
        pc.cmd = wave.add_signal(scope, "cmd", 4, &kDramCmd);
        pc.bank = wave.add_signal(scope, "cmd_bank", 6);
        pc.row = wave.add_signal(scope, "cmd_row", 18);
        pc.addr = wave.add_signal(scope, "cmd_addr", 32);
        pc.cmd2 = wave.add_signal(scope, "cmd2", 4, &kDramCmd);
        pc.bank2 = wave.add_signal(scope, "cmd2_bank", 6);
        pc.row2 = wave.add_signal(scope, "cmd2_row", 18);
        pc.read_queue = wave.add_signal(scope, "read_queue", 8);
        pc.write_queue = wave.add_signal(scope, "write_queue", 8);
        pc.refresh = wave.add_signal(scope, "refresh", 1);
      }
      for (unsigned b = 0; b < banks; ++b) {
        const std::string bank_scope = fmt::format("{}.bank{}", scope, b);
        const bool on = wave.scope_enabled(bank_scope);
        pc.open.push_back(on ? wave.add_signal(bank_scope, "open", 1) : -1);
        pc.open_row.push_back(on ? wave.add_signal(bank_scope, "row", 18) : -1);
      }
      pcs_state_.push_back(std::move(pc));
    }
  }

  void stop() { stopped_ = true; }

  void on_command(const Command& c) override {
    if (stopped_) return;
    // A command of cycle c shows when the engine decides c (edge + 1 ps);
    // never before the present instant.
    const uint64_t t = std::max(decision_ps(c.cycle), now_ps());
    Pc& pc = pcs_state_[c.channel * pcs_ + c.pc];
    const unsigned bank = c.bank_group * banks_per_group_ + c.bank;
    const uint64_t code = code_of(c.kind);
    const uint64_t row = c.kind == CommandKind::kRefAb ? 0 : c.row;
    const uint64_t shown_bank = c.kind == CommandKind::kRefAb ? 0 : bank;
    if (is_column_command(c.kind) && pc.addr >= 0) {
      const DramAddress a{c.channel, c.pc, c.bank_group, c.bank, c.row, c.column};
      wave_.change(pc.addr, hbm_.base_ + hbm_.engine_->address_map().encode(a), t);
    }
    if (pc.cmd_cycle == c.cycle) {
      // Both buses issue in this cycle: the column command in cmd, the row
      // command in cmd2.
      if (is_column_command(c.kind)) {
        wave_.change(pc.cmd2, pc.shown_cmd, t);
        wave_.change(pc.bank2, pc.shown_bank, t);
        wave_.change(pc.row2, pc.shown_row, t);
        show(pc, code, shown_bank, row, t);
      } else {
        wave_.change(pc.cmd2, code, t);
        wave_.change(pc.bank2, shown_bank, t);
        wave_.change(pc.row2, row, t);
      }
      pc.cmd2_cycle = c.cycle;
    } else {
      show(pc, code, shown_bank, row, t);
      pc.cmd_cycle = c.cycle;
    }
    switch (c.kind) {
      case CommandKind::kAct:
        wave_.change(pc.open[bank], 1, t);
        wave_.change(pc.open_row[bank], c.row, t);
        break;
      case CommandKind::kPre:
        wave_.change(pc.open[bank], 0, t);
        break;
      case CommandKind::kRefAb:
      case CommandKind::kRefSb:
        wave_.change(pc.refresh, 1, t);
        pc.refresh_end = c.cycle + (c.kind == CommandKind::kRefAb ? trfc_ : trfcsb_);
        break;
      default:
        break;
    }
  }

  // At the activation of `cycle`, before the engine decides it: commands
  // of earlier cycles return to NOP, finished refreshes end.
  void begin(uint64_t cycle) {
    const uint64_t t = now_ps();
    for (Pc& pc : pcs_state_) {
      if (pc.cmd_cycle != kNever && pc.cmd_cycle < cycle) {
        wave_.change(pc.cmd, 0, t);
        pc.shown_cmd = 0;
        pc.cmd_cycle = kNever;
      }
      if (pc.cmd2_cycle != kNever && pc.cmd2_cycle < cycle) {
        wave_.change(pc.cmd2, 0, t);
        pc.cmd2_cycle = kNever;
      }
      if (pc.refresh_end != kNever && pc.refresh_end <= cycle) {
        wave_.change(pc.refresh, 0, t);
        pc.refresh_end = kNever;
      }
    }
  }

  // After the engine decided the activation's cycle: queue depths.
  void end() {
    const uint64_t t = now_ps();
    const MemorySystem& engine = *hbm_.engine_;
    for (unsigned ch = 0; ch < engine.channels(); ++ch) {
      const ChannelController& cc = engine.channel(ch);
      for (unsigned p = 0; p < pcs_; ++p) {
        const Pc& pc = pcs_state_[ch * pcs_ + p];
        if (pc.read_queue < 0 && pc.write_queue < 0) continue;
        wave_.change(pc.read_queue, cc.queued(p, false), t);
        wave_.change(pc.write_queue, cc.queued(p, true), t);
      }
    }
  }

  // The earliest cycle at which a signal changes without a command.
  uint64_t next_change() const {
    uint64_t next = kNever;
    for (const Pc& pc : pcs_state_) {
      if (pc.cmd_cycle != kNever) next = std::min(next, pc.cmd_cycle + 1);
      if (pc.cmd2_cycle != kNever) next = std::min(next, pc.cmd2_cycle + 1);
      next = std::min(next, pc.refresh_end);
    }
    return next;
  }

 private:
  struct Pc {
    int cmd = -1, bank = -1, row = -1, addr = -1, cmd2 = -1, bank2 = -1, row2 = -1;
    int read_queue = -1, write_queue = -1, refresh = -1;
    std::vector<int> open, open_row;
    uint64_t cmd_cycle = kNever, cmd2_cycle = kNever, refresh_end = kNever;
    uint64_t shown_cmd = 0, shown_bank = 0, shown_row = 0;
  };

  static uint64_t code_of(CommandKind k) {
    switch (k) {
      case CommandKind::kAct:
        return 1;
      case CommandKind::kRd:
        return 2;
      case CommandKind::kWr:
        return 3;
      case CommandKind::kPre:
        return 6;
      case CommandKind::kRefAb:
        return 8;
      case CommandKind::kRefSb:
        return 9;
    }
    return 0;
  }

  void show(Pc& pc, uint64_t code, uint64_t bank, uint64_t row, uint64_t t) {
    wave_.change(pc.cmd, code, t);
    wave_.change(pc.bank, bank, t);
    wave_.change(pc.row, row, t);
    pc.shown_cmd = code;
    pc.shown_bank = bank;
    pc.shown_row = row;
  }

  uint64_t now_ps() const { return sc_core::sc_time_stamp().value() / ps_; }
  uint64_t decision_ps(uint64_t cycle) const { return (hbm_.clock_.time_of(cycle) + after_edge()).value() / ps_; }

  const HbmMemory& hbm_;
  sim::Waveform& wave_;
  unsigned pcs_ = 0, banks_per_group_ = 0, trfc_ = 0, trfcsb_ = 0;
  uint64_t ps_ = 1;
  std::vector<Pc> pcs_state_;
  bool stopped_ = false;
};

void HbmMemory::set_timeline(sim::Timeline* t) {
  timeline_ = t;
  if (!t) return;
  timeline_track_ = t->track("memory", name());
  timeline_commands_ = std::make_unique<TimelineCommands>(*t, name(), config_.spec, clock_);
  engine_->add_observer(timeline_commands_.get());
}

HbmMemory::HbmMemory(const sc_core::sc_module_name& name, sim::Config& cfg, sim::BackingMemory* backing,
                     uint64_t base_address, sim::StatGroup& stats_parent)
    : sc_module(name),
      port_("socket", *this, &HbmMemory::on_arrival, &HbmMemory::on_response_done),
      backing_(backing),
      base_(base_address),
      config_(load_dram_config(cfg)),
      clock_("dram", 1e6 / config_.spec.tck_ps),
      responses_("responses"),
      clocked_(clock_, after_edge()),
      stats_("dram", &stats_parent) {
  engine_ = std::make_unique<MemorySystem>(config_, [this](uint64_t id, uint64_t done) {
    InFlight& f = in_flight_[id];
    if (f.timeline_id) timeline_->async_end(timeline_track_, {}, f.timeline_id, sim::Timeline::cycle_ps(clock_, done));
    const sc_core::sc_time at = clock_.time_of(done), now = sc_core::sc_time_stamp();
    responses_.notify(*f.gp, at > now ? at - now : sc_core::SC_ZERO_TIME);
    free_ids_.push_back(static_cast<uint32_t>(id));
  });
  port_.serve_b_transport(&HbmMemory::b_transport);

  const SystemStats& s = engine_->stats();
  stats_.add_counter("requests", &s.requests, "Requests accepted");
  stats_.add_counter("read_requests", &s.read_requests, "Read requests accepted");
  stats_.add_counter("write_requests", &s.write_requests, "Write requests accepted");
  stats_.add_counter("bursts", &s.bursts, "Bursts transferred");
  stats_.add_counter("bytes", &s.bytes, "Bytes transferred");
  stats_.add_counter("read_latency_sum_cycles", &s.read_latency_sum, "Sum of read latencies, DRAM cycles");
  stats_.add_counter("backpressure_events", &backpressure_, "Requests whose END_REQ was withheld (queue full)");
  stats_.add_counter("address_errors", &address_errors_, "Requests beyond capacity");
  stats_.add_counter("acts", &acts_, "ACT commands");
  stats_.add_counter("refreshes", &refreshes_, "REFab + REFsb commands");
  // Asleep while idle, the memory decides the refreshes due meanwhile when
  // it wakes: a span's snapshot has them decided up to now first (the
  // cycles before now, which the next wake would decide the same way).
  stats_.add_sync([this] {
    if (!engine_->idle() || port_.waiting() != 0) return;
    engine_->advance_to(clock_.now_cycle());
    refreshes_ = engine_->channel_totals().refab + engine_->channel_totals().refsb;
    acts_ = engine_->channel_totals().acts;
  });
  stats_.add_counter("protocol_violations", &violations_, "Protocol checker violations (must be 0)");
  stats_.add_formula(
      "avg_read_latency_ns",
      [this] {
        const SystemStats& st = engine_->stats();
        return st.read_requests ? static_cast<double>(st.read_latency_sum) / static_cast<double>(st.read_requests) *
                                      config_.spec.tck_ps / 1000.0
                                : 0.0;
      },
      "Mean read latency (arrival to last data), ns");
  stats_.add_formula(
      "energy_pj", [this] { return engine_->energy().energy().total_pj(); }, "DRAM energy (IDD method), pJ");

  SC_HAS_PROCESS(HbmMemory);
  SC_METHOD(step);
  sensitive << clocked_.event();
  dont_initialize();
  SC_METHOD(respond);
  sensitive << responses_.get_event();
  dont_initialize();
}

HbmMemory::~HbmMemory() = default;

void HbmMemory::set_waveform(sim::Waveform* wave) {
  if (!wave) return;
  wave->add_clock(clock_);
  tracer_ = std::make_unique<Tracer>(*this, *wave);
  engine_->add_observer(tracer_.get());
}

void HbmMemory::start_of_simulation() {
  if (tracer_) clocked_.wake_at(0);  // refreshes show from the start
}

uint64_t HbmMemory::traced_wake(uint64_t cycle, uint64_t next) const {
  // Traced, the method also wakes for the engine's events while idle
  // (refreshes) and for signals returning to their rest value, so that
  // every command shows at its own cycle. While idle, it wakes only as far
  // as the rest of the chip is still active: it never keeps a finished or
  // deadlocked simulation running.
  const uint64_t own = std::min(tracer_->next_change(), engine_->next_event_cycle());
  if (next != kNever) return std::min(next, own);
  if (own == kNever || !sc_core::sc_pending_activity()) return kNever;
  const sc_core::sc_time other = sc_core::sc_time_stamp() + sc_core::sc_time_to_pending_activity();
  if (clock_.time_of(own) + after_edge() <= other) return own;
  // Look again when the rest of the chip next acts.
  return std::max(cycle + 1, arrival_cycle(other - after_edge()));
}

uint64_t HbmMemory::arrival_cycle(const sc_core::sc_time& t) const {
  // The first cycle whose decision time (edge + 1 ps) lies after t: the
  // first edge at or after t.
  const uint64_t c = clock_.cycle_at(t);
  return clock_.time_of(c) == t ? c : c + 1;
}

bool HbmMemory::in_range(const tlm::tlm_generic_payload& gp) const {
  const uint64_t a = gp.get_address();
  const uint64_t len = gp.get_data_length();
  return a >= base_ && len > 0 && a - base_ < capacity() && len <= capacity() - (a - base_);
}

void HbmMemory::perform(tlm::tlm_generic_payload& gp) {
  const auto* ext = gp.get_extension<sim::MemExt>();
  if (backing_ && !(ext && ext->timing_only)) {
    const uint64_t addr = gp.get_address();
    const unsigned len = gp.get_data_length();
    const bool ok =
        addr <= 0xFFFFFFFFull && (gp.is_read() ? backing_->read(static_cast<uint32_t>(addr), gp.get_data_ptr(), len)
                                               : backing_->write(static_cast<uint32_t>(addr), gp.get_data_ptr(), len));
    if (!ok) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void HbmMemory::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (!in_range(gp)) {
    ++address_errors_;
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  perform(gp);
  // Loosely timed: an idle row miss (tRCD + CL + the bursts).
  const Timing& t = config_.spec.timing;
  const unsigned bursts = (gp.get_data_length() + config_.spec.org.burst_bytes() - 1) / config_.spec.org.burst_bytes();
  delay += clock_.period() *
           static_cast<double>(t.tRCDRD + t.CL + bursts * config_.spec.org.burst_cycles() + config_.logic_layer_cycles);
}

void HbmMemory::on_arrival(const Port::Request& r) {
  clocked_.wake_at(arrival_cycle(r.arrival));  // END_REQ comes when a queue takes it
}

void HbmMemory::on_response_done(tlm::tlm_generic_payload& gp, int) { finish(gp); }

void HbmMemory::step() {
  if (!clocked_.begin_cycle()) return;  // already decided (a second notification of the same instant)
  const uint64_t cycle = clocked_.cycle();
  if (tracer_) tracer_->begin(cycle);
  engine_->advance_to(cycle);
  const size_t arrived = port_.admit([this, cycle](const Port::Request& r) { return admit(r, cycle); });
  backpressure_ += std::min(arrived, port_.waiting());
  engine_->advance_to(cycle + 1);
  last_cycle_ = cycle + 1;
  acts_ = engine_->channel_totals().acts;
  refreshes_ = engine_->channel_totals().refab + engine_->channel_totals().refsb;
  violations_ = engine_->checker().violation_count();

  uint64_t next = kNever;  // idle: sleep until a request arrives
  if (!engine_->idle() || port_.waiting() != 0) next = config_.skip_idle ? engine_->next_event_cycle() : cycle + 1;
  if (tracer_) {
    tracer_->end();
    next = traced_wake(cycle, next);
  }
  clocked_.wake_at(next);
}

HbmMemory::Port::Admit HbmMemory::admit(const Port::Request& r, uint64_t cycle) {
  tlm::tlm_generic_payload& gp = *r.gp;
  if (!in_range(gp)) {
    ++address_errors_;
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    origin_[&gp] = Origin{r.socket, r.arrival};
    responses_.notify(gp, clock_.time_of(cycle + 1) - sc_core::sc_time_stamp());
    return Port::Admit::kAccept;
  }
  uint32_t slot;
  if (free_ids_.empty()) {
    slot = static_cast<uint32_t>(in_flight_.size());
    in_flight_.emplace_back();
  } else {
    slot = free_ids_.back();
    free_ids_.pop_back();
  }
  MemRequest m;
  m.id = slot;
  m.address = gp.get_address() - base_;
  m.bytes = gp.get_data_length();
  m.is_write = gp.is_write();
  // The requester as the DRAM sees it: the initiator socket (an L2 slice).
  m.source = static_cast<uint8_t>(r.socket);
  in_flight_[slot] = InFlight{&gp, r.socket};
  // Back-pressure: a request whose pseudo channel's queue is full waits;
  // younger ones to other pseudo channels pass it (the engine keeps every
  // later request to its pseudo channels waiting too).
  if (!engine_->enqueue(m, cycle)) {
    free_ids_.push_back(slot);
    return Port::Admit::kWait;
  }
  origin_[&gp] = Origin{r.socket, r.arrival};
  if (timeline_) {
    const auto* ext = gp.get_extension<sim::MemExt>();
    const uint64_t id = ext ? sim::Timeline::memory_request_id(ext->source, gp.get_address()) : 0;
    if (id && timeline_->async_open(id)) {
      in_flight_[slot].timeline_id = id;
      // Where its commands are: the tracks "chC.pcP row" and "chC.pcP col".
      const DramAddress a = engine_->address_map().decode(m.address);
      timeline_->async_stage_begin(timeline_track_, gp.is_write() ? "dram write" : "dram read", id,
                                   sim::Timeline::cycle_ps(clock_, cycle),
                                   fmt::format(R"({{"commands":"ch{}.pc{}","bank_group":{},"bank":{},"row":{}}})",
                                               a.channel, a.pc, a.bank_group, a.bank, a.row));
    }
  }
  perform(gp);
  return Port::Admit::kAccept;
}

void HbmMemory::respond() {
  while (tlm::tlm_generic_payload* gp = responses_.get_next_transaction()) {
    if (port_.respond(origin_.at(gp).socket, *gp)) finish(*gp);
  }
}

void HbmMemory::finish(tlm::tlm_generic_payload& gp) { origin_.erase(&gp); }

std::string HbmMemory::describe_in_flight() const {
  // Cycles of the DRAM clock; a request waiting for END_REQ found its
  // controller queue full.
  sim::InFlightLines lines;
  for (const auto& [gp, o] : origin_) {
    const uint64_t cycle = clock_.cycle_at(o.arrival);
    lines.add(cycle, fmt::format("{}: {} 0x{:08x} in a controller queue or bank since DRAM cycle {}\n", name(),
                                 sim::op_name(*gp), gp->get_address(), cycle));
  }
  port_.describe_waiting(lines, name(), clock_);
  return lines.str();
}

void HbmMemory::end_of_simulation() {
  if (tracer_) tracer_->stop();  // the rest of the run is decided after the waveform closed
  const uint64_t end = std::max(last_cycle_, clock_.now_cycle());
  engine_->finish(end);
  refreshes_ = engine_->channel_totals().refab + engine_->channel_totals().refsb;
  violations_ = engine_->checker().violation_count();
  if (violations_) {
    const Violation& v = engine_->checker().violations().front();
    SC_REPORT_WARNING("tessera/dram", fmt::format("{}: {} DRAM protocol violation(s); first at cycle {}: {}: {}",
                                                  name(), violations_, v.cycle, v.rule, v.detail)
                                          .c_str());
  }
}

}  // namespace tessera::dram
