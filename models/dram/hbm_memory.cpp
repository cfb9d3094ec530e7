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
  engine_->advance_to(cycle);
  const size_t arrived = port_.admit([this, cycle](const Port::Request& r) { return admit(r, cycle); });
  backpressure_ += std::min(arrived, port_.waiting());
  engine_->advance_to(cycle + 1);
  last_cycle_ = cycle + 1;
  acts_ = engine_->channel_totals().acts;
  refreshes_ = engine_->channel_totals().refab + engine_->channel_totals().refsb;
  violations_ = engine_->checker().violation_count();

  if (engine_->idle() && port_.waiting() == 0) return;  // sleep until a request arrives
  clocked_.wake_at(config_.skip_idle ? engine_->next_event_cycle() : cycle + 1);
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
  in_flight_[slot] = InFlight{&gp, r.socket};
  if (!engine_->enqueue(m, cycle)) {  // back-pressure: it and all younger wait
    free_ids_.push_back(slot);
    return Port::Admit::kStop;
  }
  origin_[&gp] = Origin{r.socket, r.arrival};
  if (timeline_) {
    const auto* ext = gp.get_extension<sim::MemExt>();
    const uint64_t id = ext ? sim::Timeline::memory_request_id(ext->source, gp.get_address()) : 0;
    if (id && timeline_->async_open(id)) {
      in_flight_[slot].timeline_id = id;
      timeline_->async_stage_begin(timeline_track_, gp.is_write() ? "dram write" : "dram read", id,
                                   sim::Timeline::cycle_ps(clock_, cycle));
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
  std::vector<std::pair<sc_core::sc_time, std::string>> lines;
  const auto line = [&](const tlm::tlm_generic_payload& gp, const sc_core::sc_time& since, const char* where) {
    lines.emplace_back(since,
                       fmt::format("{}: {} 0x{:08x} {} since DRAM cycle {}\n", name(), gp.is_read() ? "read" : "write",
                                   gp.get_address(), where, clock_.cycle_at(since)));
  };
  for (const auto& [gp, o] : origin_) line(*gp, o.arrival, "in a controller queue or bank");
  for (const Port::Request& r : port_.waiting_requests()) line(*r.gp, r.arrival, "waiting for END_REQ (queue full)");
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l.second;
  return out;
}

void HbmMemory::end_of_simulation() {
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
