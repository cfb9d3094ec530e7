#include "gpu/global_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/mem_ext.h"

namespace tessera::gpu {

GlobalMemory::GlobalMemory(const sc_core::sc_module_name& name, sim::Config& cfg, sim::BackingMemory& backing,
                           sim::StatGroup& stats_parent)
    : sc_module(name),
      socket("socket"),
      backing_(backing),
      clock_("memory", cfg.get_float("clock.mem_mhz", 1000.0, 1.0, 100000.0, "Global memory clock, MHz")),
      ready_("ready"),
      stats_("memory", &stats_parent) {
  latency_ = static_cast<unsigned>(
      cfg.get_int("memory.latency", 200, 0, 100000, "Global memory access latency, memory cycles"));
  bytes_per_cycle_ = cfg.get_float("memory.bytes_per_cycle", 64.0, 0.125, 65536.0,
                                   "Global memory bandwidth, bytes per memory cycle");
  queue_depth_ = static_cast<unsigned>(
      cfg.get_int("memory.queue_depth", 64, 1, 65536, "Requests global memory holds before it withholds END_REQ"));
  socket.register_nb_transport_fw(this, &GlobalMemory::nb_transport_fw);
  socket.register_b_transport(this, &GlobalMemory::b_transport);
  stats_.add_counter("reads", &reads_, "Read (and atomic) requests");
  stats_.add_counter("writes", &writes_, "Write requests");
  stats_.add_counter("bytes", &bytes_, "Bytes transferred");
  stats_.add_counter("backpressure_events", &backpressure_, "Requests whose END_REQ was withheld (queue full)");
  stats_.add_formula("avg_latency_cycles", [this] {
    const uint64_t n = reads_ + writes_;
    return n ? static_cast<double>(latency_sum_cycles_) / static_cast<double>(n) : 0.0;
  }, "Mean request-to-response time, memory cycles");
  SC_HAS_PROCESS(GlobalMemory);
  SC_METHOD(respond);
  sensitive << ready_.get_event();
  dont_initialize();
  SC_METHOD(arbitrate);
  sensitive << arbitrate_;
  dont_initialize();
}

void GlobalMemory::perform(tlm::tlm_generic_payload& gp) {
  const auto addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  if (addr > 0xFFFFFFFFull || !backing_.contains(static_cast<uint32_t>(addr), len)) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const auto* ext = gp.get_extension<sim::MemExt>();
  if (!(ext && ext->timing_only)) {
    const bool ok = gp.is_read() ? backing_.read(static_cast<uint32_t>(addr), gp.get_data_ptr(), len)
                                 : backing_.write(static_cast<uint32_t>(addr), gp.get_data_ptr(), len);
    if (!ok) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void GlobalMemory::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  perform(gp);
  delay += clock_.period() * (latency_ + std::ceil(gp.get_data_length() / bytes_per_cycle_));
}

tlm::tlm_sync_enum GlobalMemory::nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                                 sc_core::sc_time&) {
  if (phase == tlm::BEGIN_REQ) {
    gp.acquire();
    arrivals_.push_back(Request{id, &gp, sc_core::sc_time_stamp()});
    arbitrate_.notify(sc_core::sc_time(1, sc_core::SC_PS));
    return tlm::TLM_ACCEPTED;  // END_REQ comes from the arbiter
  }
  if (phase == tlm::END_RESP) {
    finish(gp);
    return tlm::TLM_COMPLETED;
  }
  return tlm::TLM_ACCEPTED;
}

void GlobalMemory::arbitrate() {
  std::stable_sort(arrivals_.begin(), arrivals_.end(),
                   [](const Request& a, const Request& b) { return a.id < b.id; });
  const size_t arrived = arrivals_.size();
  for (const Request& r : arrivals_) waiting_.push_back(r);
  arrivals_.clear();
  while (!waiting_.empty() && in_service_ < queue_depth_) {
    const Request r = waiting_.front();
    waiting_.pop_front();
    accept(r);
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket[r.id]->nb_transport_bw(*r.gp, phase, delay);
  }
  backpressure_ += std::min(arrived, waiting_.size());  // this instant's arrivals that must wait
}

void GlobalMemory::accept(const Request& r) {
  tlm::tlm_generic_payload& gp = *r.gp;
  ++in_service_;
  origin_[&gp] = r.id;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  // A request starts on the first memory-clock edge at or after its arrival
  // (or, if it had to wait, after its admission), one transfer at a time.
  const sc_core::sc_time from = now > r.arrival + sc_core::sc_time(1, sc_core::SC_PS) ? now : r.arrival;
  const uint64_t from_cycle = clock_.cycle_at(from);
  const sc_core::sc_time edge = clock_.time_of(from_cycle + (from == clock_.time_of(from_cycle) ? 0 : 1));
  const sc_core::sc_time start = std::max(edge, channel_free_);
  const double transfer = std::ceil(gp.get_data_length() / bytes_per_cycle_);
  channel_free_ = start + clock_.period() * transfer;
  const sc_core::sc_time done = channel_free_ + clock_.period() * static_cast<double>(latency_);
  latency_sum_cycles_ += clock_.cycle_at(done - r.arrival);
  if (gp.is_read()) {
    ++reads_;
  } else {
    ++writes_;
  }
  bytes_ += gp.get_data_length();
  perform(gp);
  ready_.notify(gp, done - now);
}

void GlobalMemory::respond() {
  while (tlm::tlm_generic_payload* gp = ready_.get_next_transaction()) {
    const int id = origin_[gp];
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum status = socket[id]->nb_transport_bw(*gp, phase, delay);
    if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::END_RESP)) finish(*gp);
  }
}

void GlobalMemory::finish(tlm::tlm_generic_payload& gp) {
  origin_.erase(&gp);
  --in_service_;
  gp.release();
  if (!waiting_.empty()) arbitrate_.notify(sc_core::sc_time(1, sc_core::SC_PS));
}

}  // namespace tessera::gpu
