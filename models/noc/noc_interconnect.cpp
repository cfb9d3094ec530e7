#include "noc/noc_interconnect.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "rtl/common/lockstep.h"
#include "sim/payload_pool.h"

namespace tessera::noc {

namespace {
constexpr int kRequestClass = 0;
constexpr int kResponseClass = 1;
}  // namespace

NocInterconnect::NocInterconnect(const sc_core::sc_module_name& name, sim::Config& cfg,
                                 std::vector<int> requester_nodes, std::vector<int> target_nodes,
                                 AddressMap address_map, sim::StatGroup& stats_parent, sim::RunControl* run_control)
    : sc_module(name),
      requester_nodes_(std::move(requester_nodes)),
      target_nodes_(std::move(target_nodes)),
      requesters_("target_socket", *this, &NocInterconnect::on_request, &NocInterconnect::on_response_done),
      targets_("initiator_socket", *this, static_cast<unsigned>(target_nodes_.size()), &NocInterconnect::on_answer,
               &NocInterconnect::on_end_req),
      clock_("icnt", cfg.get_float("clock.icnt_mhz", 1000.0, 1.0, 100000.0, "Interconnect (network) clock, MHz")),
      params_(NocParams::from_config(cfg)),
      ni_queue_(static_cast<int>(
          cfg.get_int("noc.ni_queue", 4, 1, 4096, "Packets a network interface queues before it withholds END_REQ"))),
      address_map_(std::move(address_map)),
      run_control_(run_control),
      stats_(std::make_unique<sim::StatGroup>(basename(), &stats_parent)),
      clocked_(clock_) {
  if (params_.classes < 2)
    throw sim::ConfigError(
        fmt::format("noc.classes: the interconnect needs 2 message classes (request, response) so "
                    "they cannot deadlock each other; noc.classes is {}",
                    params_.classes));
  for (const auto* nodes : {&requester_nodes_, &target_nodes_})
    for (int n : *nodes)
      if (n < 0 || n >= params_.nodes())
        throw sim::ConfigError(
            fmt::format("noc.k: {} puts a requester or target at node {}, but the network (noc.k x noc.m) has {} nodes",
                        name, n, params_.nodes()));
  // The largest transaction is one cache line.
  params_.validate(1 + (static_cast<int>(sim::PayloadPool::kMaxBytes) + params_.flit_bytes - 1) / params_.flit_bytes);
  params_.instance = stats_->path();  // lockstep reports name routers by their statistics path: chip.noc.router<n>
  net_ = std::make_unique<Network>(params_, stats_.get());
  to_target_.resize(target_nodes_.size());
  to_requester_.resize(requester_nodes_.size());
  requester_busy_.assign(requester_nodes_.size(), false);
  requester_free_since_.assign(requester_nodes_.size(), sc_core::SC_ZERO_TIME);

  stats_->add_counter("requests", &requests_, "Requests accepted from requesters");
  stats_->add_counter("responses", &responses_, "Responses returned to requesters");
  stats_->add_counter("backpressure_cycles", &backpressure_cycles_,
                      "Request-cycles with END_REQ withheld (network interface full)");
  stats_->add_formula(
      "avg_latency_cycles",
      [this] { return responses_ ? static_cast<double>(latency_sum_cycles_) / static_cast<double>(responses_) : 0.0; },
      "Mean BEGIN_REQ-to-BEGIN_RESP time, interconnect cycles");

  SC_HAS_PROCESS(NocInterconnect);
  SC_METHOD(tick);
  sensitive << clocked_.event();
  dont_initialize();
}

int NocInterconnect::request_flits(const tlm::tlm_generic_payload& gp) const {
  const int data = gp.is_write() ? static_cast<int>(gp.get_data_length()) : 0;
  return 1 + (data + params_.flit_bytes - 1) / params_.flit_bytes;
}

int NocInterconnect::response_flits(const tlm::tlm_generic_payload& gp) const {
  const int data = gp.is_read() ? static_cast<int>(gp.get_data_length()) : 0;
  return 1 + (data + params_.flit_bytes - 1) / params_.flit_bytes;
}

void NocInterconnect::start_of_simulation() {
  if (!params_.skip_idle) {
    ticking_ = true;
    clocked_.wake_at(0);  // tick from cycle 0, every cycle
  }
}

void NocInterconnect::wake() {
  if (!ticking_) clocked_.wake_next_cycle();
}

void NocInterconnect::on_request(const TargetPort::Request& r) {
  begin_cycle_[r.gp] = clock_.now_cycle();
  wake();  // END_REQ once the network interface has room
}

void NocInterconnect::on_response_done(tlm::tlm_generic_payload& gp, int requester) {
  requester_busy_[static_cast<unsigned>(requester)] = false;
  requester_free_since_[static_cast<unsigned>(requester)] = sc_core::sc_time_stamp();
  finish(&gp);
  wake();
}

void NocInterconnect::on_end_req(unsigned) { wake(); }

void NocInterconnect::on_answer(unsigned target, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at) {
  response_arrivals_.push_back(Arrival{at, static_cast<int>(target), &gp});
  wake();
}

void NocInterconnect::tick() {
  if (!clocked_.begin_cycle() || mismatched_) return;
  const uint64_t cycle = clocked_.cycle();
  if (net_->now() < cycle) net_->advance_to(cycle);  // the network was empty while this method slept
  admit_requests(cycle);
  send_responses_into_network(cycle);
  if (params_.skip_idle && net_->idle()) {
    // An empty network is skipped, as while this method sleeps, not
    // stepped: a wake-up in the instant a transaction arrives (which is
    // admitted a cycle later) would otherwise step it or not depending on
    // the order SystemC runs processes, which tracing changes.
    net_->advance_to(cycle + 1);
  } else {
    try {
      net_->step();
    } catch (const DeadlockError& e) {
      // Never throw out of a SystemC process: record why the run ends.
      if (run_control_) {
        run_control_->stop(sim::ExitKind::kDeadlock, sim::kStatusDeadlock, fmt::format("{}: {}", name(), e.what()));
        sc_core::sc_stop();
      } else {
        SC_REPORT_ERROR(name(), e.what());
      }
      return;
    } catch (const rtl::LockstepMismatch& e) {
      mismatched_ = true;  // the network is left mid-cycle: never step it again
      if (run_control_) {
        run_control_->stop(sim::ExitKind::kLockstepMismatch, sim::kStatusLockstepMismatch, e.what());  // stops
      } else {
        SC_REPORT_ERROR(name(), e.what());
      }
      return;
    }
    for (const Delivery& d : net_->delivered()) {
      const Transaction& t = transactions_.at(d.packet.tag);
      if (d.packet.cls == kRequestClass) {
        to_target_[t.target].push_back(t.gp);
      } else {
        to_requester_[t.requester].push_back(t.gp);
      }
    }
  }
  issue_to_targets();
  return_responses();
  if (wave_) trace_waves(cycle);
  ticking_ = busy() || !params_.skip_idle;
  if (ticking_) clocked_.wake_at(cycle + 1);  // otherwise sleep until a transaction arrives
}

void NocInterconnect::admit_requests(uint64_t cycle) {
  requesters_.admit([this, cycle](const TargetPort::Request& r) { return admit(r, cycle); }, sc_core::sc_time_stamp());
}

NocInterconnect::TargetPort::Admit NocInterconnect::admit(const TargetPort::Request& r, uint64_t cycle) {
  tlm::tlm_generic_payload& gp = *r.gp;
  const int node = requester_nodes_[static_cast<unsigned>(r.socket)];
  const int target = address_map_(gp.get_address());
  tlm::tlm_response_status local_answer = tlm::TLM_INCOMPLETE_RESPONSE;  // answered without the network?
  if (gp.get_data_length() > sim::PayloadPool::kMaxBytes) {
    local_answer = tlm::TLM_BURST_ERROR_RESPONSE;
  } else if (target < 0 || target >= static_cast<int>(target_nodes_.size())) {
    local_answer = tlm::TLM_ADDRESS_ERROR_RESPONSE;  // no target serves the address
  } else if (net_->source_queue_packets(node) >= static_cast<size_t>(ni_queue_)) {
    ++backpressure_cycles_;
    return TargetPort::Admit::kWait;
  }
  ++requests_;
  const uint64_t tag = next_tag_++;
  transactions_[tag] = Transaction{&gp, r.socket, target};
  tag_of_[&gp] = tag;
  if (local_answer != tlm::TLM_INCOMPLETE_RESPONSE) {
    gp.set_response_status(local_answer);
    to_requester_[static_cast<unsigned>(r.socket)].push_back(&gp);
    return TargetPort::Admit::kAccept;
  }
  Packet p;
  p.src = node;
  p.dst = target_nodes_[static_cast<unsigned>(target)];
  p.cls = kRequestClass;
  p.flits = request_flits(gp);
  p.create_cycle = cycle;
  p.tag = tag;
  net_->enqueue(p);
  return TargetPort::Admit::kAccept;  // END_REQ now
}

void NocInterconnect::send_responses_into_network(uint64_t cycle) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  std::stable_sort(response_arrivals_.begin(), response_arrivals_.end(), [](const Arrival& a, const Arrival& b) {
    return a.time != b.time ? a.time < b.time : a.socket < b.socket;
  });
  std::vector<Arrival> later;
  for (const Arrival& a : response_arrivals_) {
    if (a.time >= now) {
      later.push_back(a);
      continue;
    }
    const uint64_t tag = tag_of_.at(a.gp);
    const Transaction& t = transactions_.at(tag);
    Packet p;
    p.src = target_nodes_[t.target];
    p.dst = requester_nodes_[t.requester];
    p.cls = kResponseClass;
    p.flits = response_flits(*a.gp);
    p.create_cycle = cycle;
    p.tag = tag;
    net_->enqueue(p);
  }
  response_arrivals_.swap(later);
}

void NocInterconnect::issue_to_targets() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  for (unsigned t = 0; t < to_target_.size(); ++t) {
    if (to_target_[t].empty() || !targets_.can_send(t, now)) continue;
    tlm::tlm_generic_payload* gp = to_target_[t].front();
    to_target_[t].pop_front();
    targets_.send(t, *gp);  // an answer on the return path comes through on_answer
  }
}

void NocInterconnect::return_responses() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  for (size_t r = 0; r < to_requester_.size(); ++r) {
    if (to_requester_[r].empty() || requester_busy_[r] || requester_free_since_[r] >= now) continue;
    tlm::tlm_generic_payload* gp = to_requester_[r].front();
    to_requester_[r].pop_front();
    ++responses_;
    latency_sum_cycles_ += clock_.now_cycle() - begin_cycle_[gp];
    if (requesters_.respond(static_cast<int>(r), *gp)) {
      requester_free_since_[r] = now;
      finish(gp);
    } else {
      requester_busy_[r] = true;
    }
  }
}

void NocInterconnect::finish(tlm::tlm_generic_payload* gp) {
  auto it = tag_of_.find(gp);
  if (it != tag_of_.end()) {
    transactions_.erase(it->second);
    tag_of_.erase(it);
  }
  begin_cycle_.erase(gp);
}

void NocInterconnect::set_waveform(sim::Waveform* wave) {
  wave_ = wave;
  if (!wave_) return;
  wave_->add_clock(clock_);
  const std::string scope = sim::wave_scope(name());
  std::vector<bool> model;
  for (int n = 0; n < params_.nodes(); ++n) model.push_back(net_->model_router(n));
  waves_ = std::make_unique<NocWaves>(*wave_, scope, params_, net_->topology(), model);
  if (waves_->any()) net_->set_waves(waves_.get());
  net_->trace_rtl(*wave_, scope,
                  static_cast<uint64_t>(clock_.period().value() / sc_core::sc_time(1, sc_core::SC_PS).value()));
  ni_waves_.resize(static_cast<size_t>(params_.nodes()));
  for (unsigned t = 0; t < target_nodes_.size(); ++t)
    ni_waves_[static_cast<size_t>(target_nodes_[t])].targets.push_back(t);
  for (unsigned r = 0; r < requester_nodes_.size(); ++r)
    ni_waves_[static_cast<size_t>(requester_nodes_[r])].requesters.push_back(r);
  for (int n = 0; n < params_.nodes(); ++n) {
    const std::string ni = fmt::format("{}.ni{}", scope, n);
    ni_waves_[static_cast<size_t>(n)].inject = wave_->add_signal(ni, "inject_queue", 12);
    ni_waves_[static_cast<size_t>(n)].eject = wave_->add_signal(ni, "eject_queue", 12);
  }
}

void NocInterconnect::trace_waves(uint64_t cycle) {
  waves_->flush(cycle, clock_);
  const uint64_t now_ps =
      static_cast<uint64_t>(clock_.time_of(cycle).value() / sc_core::sc_time(1, sc_core::SC_PS).value());
  for (size_t n = 0; n < ni_waves_.size(); ++n) {
    NiWave& w = ni_waves_[n];
    if (w.inject < 0) continue;
    const uint64_t inject = std::min<uint64_t>(net_->source_queue_packets(static_cast<int>(n)), 4095);
    uint64_t eject = 0;
    for (unsigned t : w.targets) eject += to_target_[t].size();
    for (unsigned r : w.requesters) eject += to_requester_[r].size();
    eject = std::min<uint64_t>(eject, 4095);
    if (inject != w.inject_v) wave_->change(w.inject, w.inject_v = inject, now_ps);
    if (eject != w.eject_v) wave_->change(w.eject, w.eject_v = eject, now_ps);
  }
}

bool NocInterconnect::busy() const {
  if (!net_->idle() || requesters_.waiting() != 0 || !response_arrivals_.empty()) return true;
  for (const auto& q : to_target_)
    if (!q.empty()) return true;
  for (const auto& q : to_requester_)
    if (!q.empty()) return true;
  return false;
}

std::string NocInterconnect::describe_in_flight() const {
  sim::InFlightLines lines;
  for (const auto& [tag, t] : transactions_) {
    const auto since = begin_cycle_.find(t.gp);
    const uint64_t cycle = since == begin_cycle_.end() ? 0 : since->second;
    lines.add(cycle, fmt::format("{}: {} 0x{:08x} from requester {} to target {} since cycle {}\n", name(),
                                 sim::op_name(*t.gp), t.gp->get_address(), t.requester, t.target, cycle));
  }
  requesters_.describe_waiting(lines, name(), clock_, "requester");
  return lines.str();
}

}  // namespace tessera::noc
