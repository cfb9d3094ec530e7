#include "gpu/crossbar_interconnect.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "sim/mem_ext.h"

namespace tessera::gpu {

namespace {
constexpr unsigned kHeaderBytes = 8;  // command, address, sector mask, ids
}  // namespace

CrossbarInterconnect::CrossbarInterconnect(const sc_core::sc_module_name& name, sim::Config& cfg,
                                           const sim::ClockDomain& clock, unsigned requesters, unsigned targets,
                                           const CrossbarTargets& map, sim::StatGroup& stats_parent)
    : sc_module(name),
      requesters_("target_socket", *this, &CrossbarInterconnect::on_request),
      targets_("initiator_socket", *this, targets, &CrossbarInterconnect::on_answer),
      clock_(clock),
      params_(CrossbarParams::from_config(cfg)),
      map_(map),
      requests_(requesters, targets, params_.bytes_per_cycle, params_.latency),
      answers_(targets, requesters, params_.bytes_per_cycle, params_.latency),
      input_(requesters),
      clocked_(clock),
      stats_(basename(), &stats_parent) {
  stats_.add_counter("request_bytes", &request_bytes_, "Bytes the crossbar carried towards the slices");
  stats_.add_counter("answer_bytes", &answer_bytes_, "Bytes the crossbar carried back to the SMs");
  stats_.add_counter("port_stall_cycles", &port_stall_cycles_,
                     "SM-port cycles whose head request waited for a busy port or a full slice");
  SC_HAS_PROCESS(CrossbarInterconnect);
  SC_METHOD(cycle);
  sensitive << clocked_.event();
  dont_initialize();
}

unsigned CrossbarInterconnect::request_bytes(const tlm::tlm_generic_payload& gp) {
  return gp.is_write() ? kHeaderBytes + gp.get_data_length() : kHeaderBytes;
}

unsigned CrossbarInterconnect::answer_bytes(const tlm::tlm_generic_payload& gp) {
  const bool write_ack = gp.is_write() && gp.get_extension<sim::MemExt>()->op == sim::MemOp::kWrite;
  return write_ack ? kHeaderBytes : kHeaderBytes + gp.get_data_length();
}

bool CrossbarInterconnect::idle() const {
  if (requesters_.waiting() != 0 || !answers_in_.empty() || !deliveries_.empty()) return false;
  for (const auto& q : input_)
    if (!q.empty()) return false;
  return true;
}

void CrossbarInterconnect::on_request(const TargetPort::Request&) {
  clocked_.wake_next_cycle();  // END_REQ when the SM's port has room
}

void CrossbarInterconnect::on_answer(unsigned target, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at) {
  answers_in_.push_back(Answer{target, &gp, at});
  clocked_.wake_next_cycle();
}

void CrossbarInterconnect::cycle() {
  if (!clocked_.begin_cycle()) return;
  const uint64_t now = clocked_.cycle();
  if (wave_) trace_cycle(now);
  admit();
  forward(now);
  collect(now);
  deliver(now);
  if (wave_) {
    for (size_t i = 0; i < input_.size(); ++i) {
      PortWave& w = in_waves_[i];
      if (w.queue >= 0 && w.queue_v != input_[i].size())
        wave_->change(w.queue, w.queue_v = std::min<uint64_t>(input_[i].size(), 4095), wave_ps_);
    }
    if (!high_.empty()) clocked_.wake_at(now + 1);  // the strobes return to 0 then
  }
  clocked_.wake_at(next_cycle(now));
}

void CrossbarInterconnect::set_waveform(sim::Waveform* wave) {
  wave_ = wave;
  if (!wave_) return;
  const std::string scope = sim::wave_scope(name());
  in_waves_.resize(input_.size());
  out_waves_.resize(targets_.bindings());
  for (size_t i = 0; i < in_waves_.size(); ++i) {
    const std::string port = fmt::format("{}.in{}", scope, i);
    in_waves_[i].valid = wave_->add_signal(port, "valid", 1);
    in_waves_[i].value = wave_->add_signal(port, "dest", 8);
    in_waves_[i].queue = wave_->add_signal(port, "queue", 12);
  }
  for (size_t o = 0; o < out_waves_.size(); ++o) {
    const std::string port = fmt::format("{}.out{}", scope, o);
    out_waves_[o].valid = wave_->add_signal(port, "valid", 1);
    out_waves_[o].value = wave_->add_signal(port, "src", 8);
  }
}

void CrossbarInterconnect::trace_cycle(uint64_t now) {
  static const uint64_t ps = static_cast<uint64_t>(sc_core::sc_time(1, sc_core::SC_PS).value());
  wave_ps_ = static_cast<uint64_t>(clock_.time_of(now).value()) / ps;
  for (PortWave* w : high_) {
    wave_->change(w->valid, 0, wave_ps_);
    w->high = false;
  }
  high_.clear();
}

void CrossbarInterconnect::trace_crossing(unsigned in, unsigned out, uint64_t) {
  for (auto [w, value] : {std::pair{&in_waves_[in], out}, std::pair{&out_waves_[out], in}}) {
    if (w->valid < 0) continue;
    if (!w->high) {
      wave_->change(w->valid, 1, wave_ps_);
      w->high = true;
      high_.push_back(w);
    }
    if (w->value_v != value) wave_->change(w->value, w->value_v = value, wave_ps_);
  }
}

void CrossbarInterconnect::admit() {
  // Requests of earlier instants; an SM port whose input queue is full keeps
  // its request waiting (END_REQ withheld).
  requesters_.admit(
      [this](const TargetPort::Request& r) {
        auto& q = input_[static_cast<unsigned>(r.socket)];
        if (q.size() >= params_.input_queue) return TargetPort::Admit::kWait;
        q.push_back(r.gp);
        origin_[r.gp] = Origin{r.socket, r.arrival};
        return TargetPort::Admit::kAccept;
      },
      sc_core::sc_time_stamp());
}

void CrossbarInterconnect::forward(uint64_t now) {
  // Round-robin over the SM ports by cycle number (not by activation, so
  // sleeping through idle cycles changes nothing), one request per port per
  // cycle at most (a port stays busy for its transfer time).
  const auto n = static_cast<unsigned>(input_.size());
  const auto first = static_cast<unsigned>(now % n);
  const sc_core::sc_time now_time = sc_core::sc_time_stamp();
  for (unsigned k = 0; k < n; ++k) {
    const unsigned i = (first + k) % n;
    if (input_[i].empty()) continue;
    tlm::tlm_generic_payload* gp = input_[i].front();
    const unsigned o = map_.target_of(gp->get_address());
    if (!requests_.input_free(i, now) || !requests_.output_free(o, now) || !map_.has_room(o, now)) {
      ++port_stall_cycles_;
      continue;
    }
    const unsigned bytes = request_bytes(*gp);
    request_bytes_ += bytes;
    const uint64_t arrival = requests_.send(i, o, bytes, now);
    input_[i].pop_front();
    if (wave_) trace_crossing(i, o, now);
    // The slice takes it at once (it had room); the delay says when it arrives.
    if (targets_.send(o, *gp, clock_.time_of(arrival) - now_time) != tlm::TLM_UPDATED)
      SC_REPORT_ERROR("tessera/xbar",
                      fmt::format("{}: slice {} did not take a request it had room for", name(), o).c_str());
  }
}

void CrossbarInterconnect::collect(uint64_t now) {
  // Answers the slices sent before this cycle, in the order they came (a
  // slice's method sends its cycle's answers in slice order).
  const sc_core::sc_time now_time = sc_core::sc_time_stamp();
  answers_later_.clear();
  for (const Answer& a : answers_in_) {
    if (a.at >= now_time) {
      answers_later_.push_back(a);
      continue;
    }
    const auto sm = static_cast<unsigned>(origin_.at(a.gp).requester);
    const unsigned bytes = answer_bytes(*a.gp);
    answer_bytes_ += bytes;
    deliveries_.push(Delivery{answers_.send(a.target, sm, bytes, clock_.cycle_at(a.at)), seq_++, a.gp});
  }
  answers_in_.swap(answers_later_);
  (void)now;
}

void CrossbarInterconnect::deliver(uint64_t now) {
  while (!deliveries_.empty() && deliveries_.top().cycle <= now) {
    tlm::tlm_generic_payload* gp = deliveries_.top().gp;
    deliveries_.pop();
    const int sm = origin_.at(gp).requester;
    origin_.erase(gp);
    gp->set_response_status(tlm::TLM_OK_RESPONSE);
    requesters_.respond(sm, *gp);  // the port ends the response (END_RESP or TLM_COMPLETED)
  }
}

uint64_t CrossbarInterconnect::next_cycle(uint64_t now) const {
  uint64_t next = sim::ClockedMethod::kNever;
  const uint64_t soon = now + 1;
  if (requesters_.waiting() != 0 || !answers_in_.empty()) next = soon;
  for (const auto& q : input_)
    if (!q.empty()) next = soon;
  if (!deliveries_.empty()) next = std::min(next, std::max(soon, deliveries_.top().cycle));
  return next;
}

std::string CrossbarInterconnect::describe_in_flight() const {
  sim::InFlightLines lines;
  for (const auto& [gp, o] : origin_) {
    const uint64_t cycle = clock_.cycle_at(o.since);
    lines.add(cycle, fmt::format("{}: {} 0x{:08x} from SM port {} since cycle {}\n", name(), sim::op_name(*gp),
                                 static_cast<uint32_t>(gp->get_address()), o.requester, cycle));
  }
  requesters_.describe_waiting(lines, name(), clock_, "SM port");
  return lines.str();
}

}  // namespace tessera::gpu
