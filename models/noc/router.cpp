#include "noc/router.h"

#include <fmt/format.h>

#include "noc/noc_waves.h"

namespace tessera::noc {

Router::Router(int id, const NocParams& p, const Topology& topo, const RoutingFunction& routing)
    : id_(id),
      p_(p),
      topo_(topo),
      routing_(routing),
      ports_(topo.ports()),
      vcs_(p.vcs),
      inputs_(ports_ * vcs_),
      occupied_((ports_ * vcs_ + 63) / 64, 0),
      outputs_(ports_),
      targets_(ports_),
      upstream_(ports_, nullptr),
      va_(make_allocator(p.allocator, ports_ * vcs_, ports_ * vcs_, p.islip_iterations)),
      sa_(make_allocator(p.allocator, ports_ * p.speedup, ports_, p.islip_iterations)),
      sa_requesters_(ports_ * p.speedup),
      sa_vc_pointer_(ports_ * p.speedup, 0) {
  for (auto& in : inputs_) in.buf.init(p.vc_buf);
  for (int i = 0; i < ports_ * vcs_; ++i) {
    port_of_.push_back(i / vcs_);
    vc_of_.push_back(i % vcs_);
    // Input speedup: VC v of a port bids on the port's switch input v mod s.
    switch_input_of_.push_back(i / vcs_ * p.speedup + i % vcs_ % p.speedup);
  }
  for (int port = 0; port < ports_; ++port) {
    local_.push_back(topo.terminal(id, port) >= 0 ? 1 : 0);
    outputs_[port].init(vcs_, p.vc_buf, local_[port] != 0, p.atomic_vc);
    // A channel's credits come back over it: a link longer than
    // noc.delay.link delays them by as much more (Topology::link_delay).
    const int link = local_[port] ? p.delay.ejection : topo.link_delay(id, port, p.delay);
    link_delay_.push_back(static_cast<uint64_t>(link));
    credit_delay_.push_back(static_cast<uint64_t>(p.delay.sa + p.delay.credit) +
                            static_cast<uint64_t>(local_[port] ? 0 : link - p.delay.link));
  }
}

void Router::register_stats(sim::StatGroup& group) const {
  group.add_counter("flits_switched", &flits_switched_, "Flits through the switch (to links and the interface)");
  group.add_counter("link_flits", &link_flits_, "Flits sent to neighbouring routers");
  group.add_counter("va_conflicts", &va_conflicts_, "VC allocation requests not granted (per input VC and cycle)");
  group.add_counter("sa_conflicts", &sa_conflicts_, "Switch requests not granted (per input VC and cycle)");
}

int Router::step(uint64_t now) {
  for (auto& out : outputs_) out.absorb_credits(now);
  if (buffered_ == 0) return 0;
  route_and_request_vcs(now);
  grant_vcs(now);
  request_switch(now);
  return traverse_switch(now);
}

void Router::route_and_request_vcs(uint64_t now) {
  va_->clear();
  for_each_occupied([&](int i) {
    InputVc& in = inputs_[i];
    Flit& front = in.buf.front();
    if (front.ready_cycle > now) return;
    if (in.state == State::kIdle) {
      if (!front.head()) throw std::logic_error(fmt::format("router {}: body flit without a head", id_));
      if (p_.flow_control == FlowControl::kStoreAndForward) {
        // Store-and-forward: the packet is processed once it is all here
        // (its flits are contiguous in the VC buffer).
        if (in.buf.size() < front.size) return;
        const Flit& last = in.buf.at(front.size - 1);
        if (!(last.tail() && last.packet_id == front.packet_id && last.ready_cycle <= now)) return;
      }
      routing_.route(id_, front, in.route, OutputLoad{&outputs_});
      in.state = State::kRouting;
      in.stage_ready = now + static_cast<uint64_t>(p_.delay.rc);
    }
    if (in.state == State::kRouting && in.stage_ready <= now) in.state = State::kVcAlloc;
    if (in.state != State::kVcAlloc) return;
    for (int r = 0; r < in.route.count; ++r) {
      const RouteOption& opt = in.route.options[r];
      for (int vc = opt.vc_lo; vc <= opt.vc_hi; ++vc)
        if (outputs_[opt.port].vc(vc).owner < 0) va_->request(i, opt.port * vcs_ + vc);
    }
  });
}

void Router::grant_vcs(uint64_t now) {
  if (va_->active_inputs().empty()) return;
  va_->allocate();
  for (int i : va_->active_inputs()) {
    const int granted = va_->grant_of_input(i);
    if (granted < 0) {
      ++va_conflicts_;
      continue;
    }
    InputVc& in = inputs_[i];
    in.out_port = granted / vcs_;
    in.out_vc = granted % vcs_;
    outputs_[in.out_port].vc(in.out_vc).owner = i;
    in.state = State::kActive;
    in.stage_ready = now + static_cast<uint64_t>(p_.delay.va);
  }
}

void Router::request_switch(uint64_t now) {
  for (int s : sa_->active_inputs()) sa_requesters_[s].clear();
  sa_->clear();
  const bool whole_packet = p_.flow_control != FlowControl::kWormhole;
  for_each_occupied([&](int i) {
    const InputVc& in = inputs_[i];
    if (in.state != State::kActive || in.stage_ready > now) return;
    const Flit& f = in.buf.front();
    if (f.ready_cycle > now) return;
    // Virtual cut-through and store-and-forward move a head only into a
    // buffer that can take the whole packet.
    const int needed = whole_packet && f.head() ? f.size : 1;
    if (!outputs_[in.out_port].has_credit(in.out_vc, needed)) return;
    const int switch_input = switch_input_of_[i];
    sa_->request(switch_input, in.out_port);
    sa_requesters_[switch_input].push_back(i);
  });
}

int Router::traverse_switch(uint64_t now) {
  if (sa_->active_inputs().empty()) return 0;
  sa_->allocate();
  int sent = 0;
  for (int s : sa_->active_inputs()) {
    const int port = sa_->grant_of_input(s);
    const auto& candidates = sa_requesters_[s];
    if (port < 0) {
      sa_conflicts_ += candidates.size();
      continue;
    }
    // Among this switch input's VCs that want the granted port, round robin.
    int chosen = -1, best = vcs_ + 1;
    for (int i : candidates) {
      if (inputs_[i].out_port != port) continue;
      const int vc = vc_of_[i];
      const int distance = vc >= sa_vc_pointer_[s] ? vc - sa_vc_pointer_[s] : vc - sa_vc_pointer_[s] + vcs_;
      if (distance < best) {
        best = distance;
        chosen = i;
      }
    }
    sa_conflicts_ += candidates.size() - 1;
    sa_vc_pointer_[s] = vc_of_[chosen] + 1 == vcs_ ? 0 : vc_of_[chosen] + 1;
    send(chosen, now);
    ++sent;
  }
  return sent;
}

void Router::send(int index, uint64_t now) {
  InputVc& in = inputs_[index];
  Flit f = in.buf.front();
  in.buf.pop();
  if (in.buf.empty()) occupied_[index / 64] &= ~(uint64_t{1} << (index % 64));
  --buffered_;
  // The slot is free once the flit has left the buffer through the switch,
  // sa cycles after the grant: the credit goes upstream then.
  upstream_[port_of_[index]]->return_credit(now + credit_delay_[port_of_[index]], vc_of_[index]);
  const int port = in.out_port;
  outputs_[port].sent(in.out_vc, f.tail());
  f.vc = static_cast<uint8_t>(in.out_vc);
  f.ready_cycle = now + static_cast<uint64_t>(p_.delay.sa + p_.delay.st) + link_delay_[port];
  if (f.tail()) {
    in.state = State::kIdle;
    in.out_port = in.out_vc = -1;
  }
  ++flits_switched_;
  if (!local_[port]) {
    ++f.hops;
    ++link_flits_;
  }
  if (waves_) waves_->sent(id_, index, port, f, now);
  targets_[port].deliver(f);
}

void Router::trace_arrival(int index, const Flit& f) { waves_->arrived(id_, index, f); }

void Router::describe_waiting(uint64_t now, std::vector<std::string>& lines) const {
  for (int i = 0; i < static_cast<int>(inputs_.size()); ++i) {
    const InputVc& in = inputs_[i];
    if (in.buf.empty()) continue;
    const Flit& f = in.buf.front();
    std::string what;
    if (f.ready_cycle > now) {
      what = "flit on its way in";
    } else if (in.state == State::kIdle || in.state == State::kRouting) {
      what = in.state == State::kIdle ? "waiting for its tail (store-and-forward)" : "in route computation";
    } else if (in.state == State::kVcAlloc) {
      what = "waiting for a free output VC:";
      for (int r = 0; r < in.route.count; ++r) {
        const RouteOption& opt = in.route.options[r];
        what += fmt::format(" {} vc {}-{}", topo_.port_name(id_, opt.port), opt.vc_lo, opt.vc_hi);
        for (int vc = opt.vc_lo; vc <= opt.vc_hi; ++vc) {
          const int owner = outputs_[opt.port].vc(vc).owner;
          if (owner >= 0)
            what += fmt::format(" [vc {} held by {} vc {}]", vc, topo_.port_name(id_, owner / vcs_), owner % vcs_);
        }
      }
    } else {
      const OutputVc& o = outputs_[in.out_port].vc(in.out_vc);
      what = fmt::format("holds {} vc {}, waiting for {} (credits {})", topo_.port_name(id_, in.out_port), in.out_vc,
                         o.credits > 0 ? "the switch" : "a credit", o.credits);
    }
    lines.push_back(fmt::format("router {} in {} vc {}: packet {} ({} -> {}, flit {}/{}, {} buffered) {}",
                                topo_.router_name(id_), topo_.port_name(id_, i / vcs_), i % vcs_, f.packet_id,
                                topo_.node_name(f.src), topo_.node_name(f.dst), f.index + 1, f.size, in.buf.size(),
                                what));
  }
}

}  // namespace tessera::noc
