#include "noc/noc_interconnect.h"

#include <fmt/format.h>

#include <algorithm>

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
      target_socket("target_socket"),
      initiator_socket("initiator_socket"),
      clock_("icnt", cfg.get_float("clock.icnt_mhz", 1000.0, 1.0, 100000.0, "Interconnect (network) clock, MHz")),
      params_(NocParams::from_config(cfg)),
      ni_queue_(static_cast<int>(cfg.get_int("noc.ni_queue", 4, 1, 4096,
                                             "Packets a network interface queues before it withholds END_REQ"))),
      requester_nodes_(std::move(requester_nodes)),
      target_nodes_(std::move(target_nodes)),
      address_map_(std::move(address_map)),
      run_control_(run_control),
      stats_(std::make_unique<sim::StatGroup>(basename(), &stats_parent)) {
  if (params_.classes < 2)
    throw sim::ConfigError(fmt::format("noc.classes: the interconnect needs 2 message classes (request, response) so "
                                       "they cannot deadlock each other; noc.classes is {}", params_.classes));
  for (const auto* nodes : {&requester_nodes_, &target_nodes_})
    for (int n : *nodes)
      if (n < 0 || n >= params_.nodes())
        throw sim::ConfigError(fmt::format(
            "noc.k: {} puts a requester or target at node {}, but the network (noc.k x noc.m) has {} nodes", name, n,
            params_.nodes()));
  // The largest transaction is one cache line.
  params_.validate(1 + (static_cast<int>(sim::PayloadPool::kMaxBytes) + params_.flit_bytes - 1) / params_.flit_bytes);
  net_ = std::make_unique<Network>(params_, stats_.get());
  to_target_.resize(target_nodes_.size());
  target_busy_.assign(target_nodes_.size(), false);
  target_free_since_.assign(target_nodes_.size(), sc_core::SC_ZERO_TIME);
  target_waiting_.assign(target_nodes_.size(), nullptr);
  to_requester_.resize(requester_nodes_.size());
  requester_busy_.assign(requester_nodes_.size(), false);
  requester_free_since_.assign(requester_nodes_.size(), sc_core::SC_ZERO_TIME);

  target_socket.register_nb_transport_fw(this, &NocInterconnect::nb_transport_fw);
  initiator_socket.register_nb_transport_bw(this, &NocInterconnect::nb_transport_bw);
  stats_->add_counter("requests", &requests_, "Requests accepted from requesters");
  stats_->add_counter("responses", &responses_, "Responses returned to requesters");
  stats_->add_counter("backpressure_cycles", &backpressure_cycles_,
                      "Request-cycles with END_REQ withheld (network interface full)");
  stats_->add_formula("avg_latency_cycles", [this] {
    return responses_ ? static_cast<double>(latency_sum_cycles_) / static_cast<double>(responses_) : 0.0;
  }, "Mean BEGIN_REQ-to-BEGIN_RESP time, interconnect cycles");

  SC_HAS_PROCESS(NocInterconnect);
  SC_METHOD(tick);
  sensitive << wake_event_;
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
    wake_event_.notify(sc_core::SC_ZERO_TIME);  // tick from cycle 0, every cycle
  }
}

void NocInterconnect::wake() {
  if (!ticking_) wake_event_.notify(clock_.delay_until(clock_.now_cycle() + 1));
}

tlm::tlm_sync_enum NocInterconnect::nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                                    sc_core::sc_time&) {
  if (phase == tlm::BEGIN_REQ) {
    gp.acquire();
    request_arrivals_.push_back(Arrival{sc_core::sc_time_stamp(), id, &gp});
    begin_cycle_[&gp] = clock_.now_cycle();
    wake();
    return tlm::TLM_ACCEPTED;  // END_REQ once the network interface has room
  }
  if (phase == tlm::END_RESP) {
    requester_busy_[id] = false;
    requester_free_since_[id] = sc_core::sc_time_stamp();
    finish(&gp);
    wake();
    return tlm::TLM_COMPLETED;
  }
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum NocInterconnect::nb_transport_bw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                                    sc_core::sc_time&) {
  if (phase == tlm::END_REQ || phase == tlm::BEGIN_RESP) {
    // BEGIN_RESP without END_REQ implies it, for that transaction only: a
    // target may answer an earlier request while the latest still waits.
    if (target_busy_[id] && (phase == tlm::END_REQ || target_waiting_[id] == &gp)) {
      target_busy_[id] = false;
      target_free_since_[id] = sc_core::sc_time_stamp();
    }
  }
  if (phase == tlm::BEGIN_RESP) {
    response_arrivals_.push_back(Arrival{sc_core::sc_time_stamp(), id, &gp});
    wake();
    phase = tlm::END_RESP;
    return tlm::TLM_COMPLETED;
  }
  wake();
  return tlm::TLM_ACCEPTED;
}

void NocInterconnect::tick() {
  const uint64_t cycle = clock_.now_cycle();
  if (net_->now() < cycle) net_->advance_to(cycle);  // the network was empty while this method slept
  admit_requests(cycle);
  send_responses_into_network(cycle);
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
  }
  for (const Delivery& d : net_->delivered()) {
    const Transaction& t = transactions_.at(d.packet.tag);
    if (d.packet.cls == kRequestClass) {
      to_target_[t.target].push_back(t.gp);
    } else {
      to_requester_[t.requester].push_back(t.gp);
    }
  }
  issue_to_targets();
  return_responses();
  ticking_ = busy() || !params_.skip_idle;
  if (ticking_) {
    next_trigger(clock_.period());
  } else {
    next_trigger();  // sleep until wake_event_
  }
}


void NocInterconnect::admit_requests(uint64_t cycle) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  std::stable_sort(request_arrivals_.begin(), request_arrivals_.end(), [](const Arrival& a, const Arrival& b) {
    return a.time != b.time ? a.time < b.time : a.socket < b.socket;
  });
  std::vector<Arrival> still_waiting;
  for (const Arrival& a : request_arrivals_) {
    if (a.time >= now) {
      still_waiting.push_back(a);
      continue;
    }
    tlm::tlm_generic_payload& gp = *a.gp;
    const int node = requester_nodes_[a.socket];
    const int target = address_map_(gp.get_address());
    tlm::tlm_response_status local_answer = tlm::TLM_INCOMPLETE_RESPONSE;  // answered without the network?
    if (gp.get_data_length() > sim::PayloadPool::kMaxBytes) {
      local_answer = tlm::TLM_BURST_ERROR_RESPONSE;
    } else if (target < 0 || target >= static_cast<int>(target_nodes_.size())) {
      local_answer = tlm::TLM_ADDRESS_ERROR_RESPONSE;  // no target serves the address
    } else if (net_->source_queue_packets(node) >= static_cast<size_t>(ni_queue_)) {
      ++backpressure_cycles_;
      still_waiting.push_back(a);
      continue;
    }
    ++requests_;
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    target_socket[a.socket]->nb_transport_bw(gp, phase, delay);
    const uint64_t tag = next_tag_++;
    transactions_[tag] = Transaction{&gp, a.socket, target};
    tag_of_[&gp] = tag;
    if (local_answer != tlm::TLM_INCOMPLETE_RESPONSE) {
      gp.set_response_status(local_answer);
      to_requester_[a.socket].push_back(&gp);
      continue;
    }
    Packet p;
    p.src = node;
    p.dst = target_nodes_[target];
    p.cls = kRequestClass;
    p.flits = request_flits(gp);
    p.create_cycle = cycle;
    p.tag = tag;
    net_->enqueue(p);
  }
  request_arrivals_.swap(still_waiting);
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
  for (size_t t = 0; t < to_target_.size(); ++t) {
    if (to_target_[t].empty() || target_busy_[t] || target_free_since_[t] >= now) continue;
    tlm::tlm_generic_payload* gp = to_target_[t].front();
    to_target_[t].pop_front();
    target_busy_[t] = true;
    target_waiting_[t] = gp;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum status = initiator_socket[static_cast<int>(t)]->nb_transport_fw(*gp, phase, delay);
    if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase != tlm::BEGIN_REQ)) {
      target_busy_[t] = false;
      target_free_since_[t] = now;
    }
    if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP))
      response_arrivals_.push_back(Arrival{now, static_cast<int>(t), gp});
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
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum status = target_socket[static_cast<int>(r)]->nb_transport_bw(*gp, phase, delay);
    if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
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
  gp->release();
}

bool NocInterconnect::busy() const {
  if (!net_->idle() || !request_arrivals_.empty() || !response_arrivals_.empty()) return true;
  for (const auto& q : to_target_)
    if (!q.empty()) return true;
  for (const auto& q : to_requester_)
    if (!q.empty()) return true;
  return false;
}

}  // namespace tessera::noc
