#include "gpu/fixed_latency_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "sim/mem_ext.h"

namespace tessera::gpu {

FixedLatencyMemory::FixedLatencyMemory(const sc_core::sc_module_name& name, sim::Config& cfg,
                                       sim::BackingMemory& backing, sim::StatGroup& stats_parent)
    : sc_module(name),
      port_("socket", *this, &FixedLatencyMemory::on_arrival, &FixedLatencyMemory::on_response_done),
      backing_(backing),
      clock_("memory", cfg.get_float("clock.mem_mhz", 1000.0, 1.0, 100000.0, "Global memory clock, MHz")),
      ready_("ready"),
      stats_("memory", &stats_parent) {
  latency_ = static_cast<unsigned>(
      cfg.get_int("memory.latency", 200, 0, 100000, "Global memory access latency, memory cycles"));
  bytes_per_cycle_ =
      cfg.get_float("memory.bytes_per_cycle", 64.0, 0.125, 65536.0, "Global memory bandwidth, bytes per memory cycle");
  queue_depth_ = static_cast<unsigned>(
      cfg.get_int("memory.queue_depth", 64, 1, 65536, "Requests global memory holds before it withholds END_REQ"));
  port_.serve_b_transport(&FixedLatencyMemory::b_transport);
  stats_.add_counter("reads", &reads_, "Read (and atomic) requests");
  stats_.add_counter("writes", &writes_, "Write requests");
  stats_.add_counter("bytes", &bytes_, "Bytes transferred");
  stats_.add_counter("backpressure_events", &backpressure_, "Requests whose END_REQ was withheld (queue full)");
  stats_.add_formula(
      "avg_latency_cycles",
      [this] {
        const uint64_t n = reads_ + writes_;
        return n ? static_cast<double>(latency_sum_cycles_) / static_cast<double>(n) : 0.0;
      },
      "Mean request-to-response time, memory cycles");
  SC_HAS_PROCESS(FixedLatencyMemory);
  SC_METHOD(respond);
  sensitive << ready_.get_event();
  dont_initialize();
  SC_METHOD(arbitrate);
  sensitive << arbitrate_;
  dont_initialize();
}

void FixedLatencyMemory::set_waveform(sim::Waveform* wave) {
  if (!wave) return;
  wave->add_clock(clock_);
  outstanding_id_ = wave->add_signal(sim::wave_scope(name()), "outstanding", 12);
  if (outstanding_id_ >= 0) wave_ = wave;
}

void FixedLatencyMemory::trace_outstanding() {
  wave_->change(outstanding_id_, in_service_,
                sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_PS).value());
}

void FixedLatencyMemory::perform(tlm::tlm_generic_payload& gp) {
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

void FixedLatencyMemory::b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  perform(gp);
  delay += clock_.period() * (latency_ + std::ceil(gp.get_data_length() / bytes_per_cycle_));
}

void FixedLatencyMemory::on_arrival(const Port::Request&) {
  arbitrate_.notify(sc_core::sc_time(1, sc_core::SC_PS));  // END_REQ comes from the arbiter
}

void FixedLatencyMemory::on_response_done(tlm::tlm_generic_payload& gp, int) { finish(gp); }

void FixedLatencyMemory::arbitrate() {
  const size_t arrived = port_.admit([this](const Port::Request& r) {
    if (in_service_ >= queue_depth_) return Port::Admit::kStop;
    accept(r);
    return Port::Admit::kAccept;
  });
  backpressure_ += std::min(arrived, port_.waiting());  // this instant's arrivals that must wait
}

void FixedLatencyMemory::accept(const Port::Request& r) {
  tlm::tlm_generic_payload& gp = *r.gp;
  ++in_service_;
  if (wave_) trace_outstanding();
  origin_[&gp] = InService{r.socket, r.arrival};
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

void FixedLatencyMemory::respond() {
  while (tlm::tlm_generic_payload* gp = ready_.get_next_transaction()) {
    if (port_.respond(origin_.at(gp).socket, *gp)) finish(*gp);
  }
}

void FixedLatencyMemory::finish(tlm::tlm_generic_payload& gp) {
  origin_.erase(&gp);
  --in_service_;
  if (wave_) trace_outstanding();
  if (port_.waiting() != 0) arbitrate_.notify(sc_core::sc_time(1, sc_core::SC_PS));
}

std::string FixedLatencyMemory::describe_in_flight() const {
  sim::InFlightLines lines;
  for (const auto& [gp, s] : origin_) {
    const uint64_t cycle = clock_.cycle_at(s.arrival);
    lines.add(cycle, fmt::format("{}: {} 0x{:08x} in service since cycle {}\n", name(), sim::op_name(*gp),
                                 gp->get_address(), cycle));
  }
  port_.describe_waiting(lines, name(), clock_);
  return lines.str();
}

}  // namespace tessera::gpu
