#include "noc/router_stimulus.h"

namespace tessera::noc::stimulus {

std::string describe(const SentFlit& s) {
  return "port " + std::to_string(s.port) + " vc " + std::to_string(s.vc) + " packet " + std::to_string(s.packet_id) +
         " flit " + std::to_string(s.index) + " ready " + std::to_string(s.ready_cycle);
}
Environment::Environment(const NocParams& p, const GridTopology& topo, int id, Dut& dut, uint64_t seed, Traffic traffic)
    : p_(p), topo_(topo), id_(id), dut_(dut), rng_(seed), traffic_(traffic) {
  const int ports = topo.ports();
  senders_.resize(static_cast<size_t>(ports));
  sinks_.resize(static_cast<size_t>(ports));
  captured_flits_.resize(static_cast<size_t>(ports));
  captured_credits_.resize(static_cast<size_t>(ports));
  for (int port = 0; port < ports; ++port) {
    senders_[port].channel.init(p.vcs, p.vc_buf, false, true);
    sinks_[port].held.assign(static_cast<size_t>(p.vcs), 0);
    dut.connect(port, FlitTarget{nullptr, 0, &captured_flits_[port]}, &captured_credits_[port]);
  }
}

void Environment::step(uint64_t now) {
  if (now % 2000 == 0) drain_ = traffic_.drain_min + rng_.below(traffic_.drain_max - traffic_.drain_min + 1);
  for (int port = 0; port < topo_.ports(); ++port) send(port, now);
  dut_.step(now);
  for (int port = 0; port < topo_.ports(); ++port) {
    OutputChannel& c = captured_credits_[port];
    while (c.next_credit_ready() != UINT64_MAX) {
      const uint64_t ready = c.next_credit_ready();
      const int vc = c.take_credit();
      credits.push_back(ReturnedCredit{port, vc, ready});
      senders_[port].channel.return_credit(ready, vc);
    }
    for (const Flit& f : captured_flits_[port]) {
      flits.push_back(SentFlit{port, f.vc, f.packet_id, f.ready_cycle, f.index, f.hops});
      sinks_[port].arriving.push_back(f);
    }
    captured_flits_[port].clear();
    drain(port, now);
  }
}

void Environment::send(int port, uint64_t now) {
  Sender& s = senders_[port];
  s.channel.absorb_credits(now);
  if (!s.busy) {
    if (!rng_.chance(traffic_.new_packet)) return;
    s.busy = true;
    s.dst = rng_.below(topo_.nodes());
    s.cls = rng_.below(p_.classes);
    s.size = rng_.chance(50) ? 1 : rng_.chance(traffic_.long_packets) ? 9 + rng_.below(12) : 2 + rng_.below(7);
    s.index = 0;
    s.vc = -1;
    s.packet_id = (packets++ << 3) | static_cast<uint64_t>(port);
  }
  if (s.vc < 0) {
    const int per = p_.vcs_per_class(), base = s.cls * per;
    for (int n = 0; n < per && s.vc < 0; ++n) {
      const int vc = base + (s.pointer + n) % per;
      if (s.channel.vc(vc).owner < 0) {
        s.vc = vc;
        s.channel.vc(vc).owner = port;
        s.pointer = (vc - base + 1) % per;
      }
    }
    if (s.vc < 0) return;
  }
  if (!s.channel.has_credit(s.vc, 1) || !rng_.chance(traffic_.send)) return;
  Flit f;
  f.packet_id = s.packet_id;
  f.src = id_;
  f.dst = s.dst;
  f.cls = static_cast<uint8_t>(s.cls);
  f.index = static_cast<uint16_t>(s.index);
  f.size = static_cast<uint16_t>(s.size);
  f.vc = static_cast<uint8_t>(s.vc);
  f.ready_cycle = now + 1;
  s.channel.sent(s.vc, f.tail());
  dut_.deliver(port, f);
  ++flits_sent;
  if (++s.index == s.size) {
    s.busy = false;
    s.vc = -1;
  }
}

void Environment::drain(int port, uint64_t now) {
  Sink& k = sinks_[port];
  while (!k.arriving.empty() && k.arriving.front().ready_cycle <= now) {
    ++k.held[k.arriving.front().vc];
    k.arriving.pop_front();
  }
  if (port == kLocal) return;  // the ejection port takes flits without credits
  // A buffer sends at most one flit on, so one credit back, per cycle.
  if (!rng_.chance(drain_)) return;
  const int first = rng_.below(p_.vcs);
  for (int n = 0; n < p_.vcs; ++n) {
    const int vc = (first + n) % p_.vcs;
    if (k.held[vc] > 0) {
      --k.held[vc];
      dut_.credit(port, now + 1, vc);
      return;
    }
  }
}

}  // namespace tessera::noc::stimulus
