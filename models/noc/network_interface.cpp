#include "noc/network_interface.h"

#include "noc/flit_checker.h"

namespace tessera::noc {

NetworkInterface::NetworkInterface(int node, const NocParams& p, FlitTarget router, FlitChecker* checker)
    : node_(node), p_(p), router_(router), checker_(checker) {
  injection_.init(p.vcs, p.vc_buf, false, p.atomic_vc);
}

int NetworkInterface::inject(uint64_t now) {
  injection_.absorb_credits(now);
  if (source_.empty()) return 0;
  const Packet& packet = source_.front().packet;
  if (sent_flits_ == 0 && source_.front().ready > now) return 0;
  if (sent_flits_ == 0 && vc_ < 0) {
    const int per_class = p_.vcs_per_class();
    const int base = packet.cls * per_class;
    for (int n = 0; n < per_class; ++n) {
      const int vc = base + (vc_pointer_ + n) % per_class;
      if (injection_.vc(vc).owner < 0) {
        vc_ = vc;
        injection_.vc(vc).owner = node_;
        vc_pointer_ = (vc - base + 1) % per_class;
        break;
      }
    }
    if (vc_ < 0) return 0;
  }
  if (!injection_.has_credit(vc_, 1)) return 0;
  Flit f;
  f.packet_id = packet.id;
  f.create_cycle = packet.create_cycle;
  f.ready_cycle = now + static_cast<uint64_t>(p_.delay.injection);
  f.tag = packet.tag;
  f.src = packet.src;
  f.dst = packet.dst;
  f.index = static_cast<uint16_t>(sent_flits_);
  f.size = static_cast<uint16_t>(packet.flits);
  f.cls = static_cast<uint8_t>(packet.cls);
  f.vc = static_cast<uint8_t>(vc_);
  f.measured = packet.measured;
  injection_.sent(vc_, f.tail());
  if (checker_) checker_->injected(node_, f);
  router_.deliver(f);
  if (f.tail()) {
    source_.pop_front();
    sent_flits_ = 0;
    vc_ = -1;
  } else {
    ++sent_flits_;
  }
  return 1;
}

int NetworkInterface::eject(uint64_t now, std::vector<Delivery>& out) {
  int n = 0;
  while (!arriving_.empty() && arriving_.front().ready_cycle <= now) {
    const Flit& f = arriving_.front();
    if (checker_) checker_->ejected(node_, f);
    if (f.tail()) {
      Delivery d;
      d.packet.id = f.packet_id;
      d.packet.src = f.src;
      d.packet.dst = f.dst;
      d.packet.cls = f.cls;
      d.packet.flits = f.size;
      d.packet.create_cycle = f.create_cycle;
      d.packet.tag = f.tag;
      d.packet.measured = f.measured;
      d.arrival_cycle = f.ready_cycle;
      d.hops = f.hops;
      out.push_back(d);
    }
    arriving_.pop_front();
    ++n;
  }
  return n;
}

}  // namespace tessera::noc
