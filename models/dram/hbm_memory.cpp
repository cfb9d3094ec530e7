#include "dram/hbm_memory.h"

#include <fmt/format.h>

#include <algorithm>

#include "dram/dram_params.h"
#include "sim/mem_ext.h"

namespace tessera::dram {

namespace {
// The engine decides a cycle 1 ps after its clock edge, once every request
// of the edge's instant has arrived.
sc_core::sc_time after_edge() { return sc_core::sc_time(1, sc_core::SC_PS); }
}  // namespace

HbmMemory::HbmMemory(const sc_core::sc_module_name& name, sim::Config& cfg, sim::BackingMemory* backing,
                     uint64_t base_address, sim::StatGroup& stats_parent)
    : sc_module(name),
      socket("socket"),
      backing_(backing),
      base_(base_address),
      config_(load_dram_config(cfg)),
      clock_("dram", 1e6 / config_.spec.tck_ps),
      responses_("responses"),
      stats_("dram", &stats_parent) {
  engine_ = std::make_unique<MemorySystem>(config_, [this](uint64_t id, uint64_t done) {
    InFlight& f = in_flight_[id];
    const sc_core::sc_time at = clock_.time_of(done), now = sc_core::sc_time_stamp();
    responses_.notify(*f.gp, at > now ? at - now : sc_core::SC_ZERO_TIME);
    free_ids_.push_back(static_cast<uint32_t>(id));
  });
  socket.register_nb_transport_fw(this, &HbmMemory::nb_transport_fw);
  socket.register_b_transport(this, &HbmMemory::b_transport);

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
  stats_.add_formula("avg_read_latency_ns", [this] {
    const SystemStats& st = engine_->stats();
    return st.read_requests ? static_cast<double>(st.read_latency_sum) / static_cast<double>(st.read_requests) *
                                  config_.spec.tck_ps / 1000.0
                            : 0.0;
  }, "Mean read latency (arrival to last data), ns");
  stats_.add_formula("energy_pj", [this] { return engine_->energy().energy().total_pj(); },
                     "DRAM energy (IDD method), pJ");

  SC_HAS_PROCESS(HbmMemory);
  SC_METHOD(step);
  sensitive << wake_;
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

sc_core::sc_time HbmMemory::process_time(uint64_t cycle) const { return clock_.time_of(cycle) + after_edge(); }

void HbmMemory::wake_at(uint64_t cycle) {
  const sc_core::sc_time at = process_time(cycle);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  wake_.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
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
    const bool ok = addr <= 0xFFFFFFFFull &&
                    (gp.is_read() ? backing_->read(static_cast<uint32_t>(addr), gp.get_data_ptr(), len)
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
  delay += clock_.period() * static_cast<double>(t.tRCDRD + t.CL + bursts * config_.spec.org.burst_cycles() +
                                                 config_.logic_layer_cycles);
}

tlm::tlm_sync_enum HbmMemory::nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                              sc_core::sc_time&) {
  if (phase == tlm::BEGIN_REQ) {
    gp.acquire();
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    arrivals_.push_back(Arrival{id, &gp, now});
    wake_at(arrival_cycle(now));
    return tlm::TLM_ACCEPTED;  // END_REQ comes when a queue takes it
  }
  if (phase == tlm::END_RESP) {
    finish(gp);
    return tlm::TLM_COMPLETED;
  }
  return tlm::TLM_ACCEPTED;
}

void HbmMemory::step() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const uint64_t cycle = now < after_edge() ? 0 : clock_.cycle_at(now - after_edge());
  if (cycle < last_cycle_) return;  // already decided (a second notification of the same instant)
  engine_->advance_to(cycle);
  std::stable_sort(arrivals_.begin(), arrivals_.end(), [](const Arrival& a, const Arrival& b) {
    return a.time != b.time ? a.time < b.time : a.socket_id < b.socket_id;
  });
  const size_t arrived = arrivals_.size();
  for (const Arrival& a : arrivals_) waiting_.push_back(a);
  arrivals_.clear();
  while (!waiting_.empty()) {
    const Arrival a = waiting_.front();
    tlm::tlm_generic_payload& gp = *a.gp;
    if (!in_range(gp)) {
      ++address_errors_;
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      origin_[&gp] = a.socket_id;
      responses_.notify(gp, clock_.time_of(cycle + 1) - now);
    } else {
      uint32_t slot;
      if (free_ids_.empty()) {
        slot = static_cast<uint32_t>(in_flight_.size());
        in_flight_.emplace_back();
      } else {
        slot = free_ids_.back();
        free_ids_.pop_back();
      }
      MemRequest r;
      r.id = slot;
      r.address = gp.get_address() - base_;
      r.bytes = gp.get_data_length();
      r.is_write = gp.is_write();
      in_flight_[slot] = InFlight{&gp, a.socket_id};
      if (!engine_->enqueue(r, cycle)) {  // back-pressure: it and all younger wait
        free_ids_.push_back(slot);
        break;
      }
      origin_[&gp] = a.socket_id;
      perform(gp);
    }
    waiting_.pop_front();
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket[a.socket_id]->nb_transport_bw(gp, phase, delay);
  }
  backpressure_ += std::min(arrived, waiting_.size());
  engine_->advance_to(cycle + 1);
  last_cycle_ = cycle + 1;
  acts_ = engine_->channel_totals().acts;
  refreshes_ = engine_->channel_totals().refab + engine_->channel_totals().refsb;
  violations_ = engine_->checker().violation_count();

  if (engine_->idle() && waiting_.empty()) return;  // sleep until a request arrives
  wake_at(config_.skip_idle ? engine_->next_event_cycle() : cycle + 1);
}

void HbmMemory::respond() {
  while (tlm::tlm_generic_payload* gp = responses_.get_next_transaction()) {
    const int id = origin_[gp];
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum status = socket[id]->nb_transport_bw(*gp, phase, delay);
    if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::END_RESP)) finish(*gp);
  }
}

void HbmMemory::finish(tlm::tlm_generic_payload& gp) {
  origin_.erase(&gp);
  gp.release();
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
