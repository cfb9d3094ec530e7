#include "noc/cosim_router.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <utility>

#include "rtl/common/coverage.h"
#include "rtl/common/lockstep.h"

namespace tessera::noc {

CosimRouter::CosimRouter(int id, const NocParams& p, const GridTopology& topo)
    : id_(id),
      p_(p),
      topo_(topo),
      ports_(topo.ports()),
      instance_(fmt::format("{}.router{}", p.instance, id)),
      inbox_(ports_),
      mailbox_(ports_),
      targets_(ports_),
      upstream_(ports_, nullptr),
      taken_(ports_) {
  base_pins_.pos_x = static_cast<uint8_t>(topo.x(id));
  base_pins_.pos_y = static_cast<uint8_t>(topo.y(id));
  base_pins_.ring_k = static_cast<uint8_t>(topo.k());
  base_pins_.atomic = p.atomic_vc ? 1 : 0;
  if (auto table = rtl::CoverageCollection::track(RouterCoverage::kBlock, instance_,
                                                  RouterCoverage::point_names(ports_, p.vcs, p.classes)))
    cover_ = std::make_unique<RouterCoverage>(std::move(table), ports_, p.vcs, p.classes, p.vc_buf);
}

bool CosimRouter::has_work(uint64_t now) const {
  if (holds_flits()) return true;
  for (int p = 0; p < ports_; ++p) {
    if (!inbox_[p].empty() && inbox_[p].front().ready_cycle <= now) return true;
    if (mailbox_[p].next_credit_ready() <= now) return true;
  }
  return false;
}

void CosimRouter::take_due(uint64_t cycle, Due& due) {
  for (int p = 0; p < ports_; ++p) {
    due.flit[p] = nullptr;
    due.credit[p] = -1;
    if (!inbox_[p].empty() && inbox_[p].front().ready_cycle <= cycle) {
      if (inbox_[p].front().ready_cycle < cycle)
        throw std::logic_error(fmt::format("{}: a flit due at cycle {} was not taken until cycle {}", instance_,
                                           inbox_[p].front().ready_cycle, cycle));
      taken_[p] = inbox_[p].front();
      inbox_[p].pop_front();
      due.flit[p] = &taken_[p];
    }
    if (mailbox_[p].next_credit_ready() == cycle) {
      due.credit[p] = mailbox_[p].take_credit();
      if (mailbox_[p].next_credit_ready() == cycle)
        throw std::logic_error(
            fmt::format("{}: two credits on output port {} for cycle {}; a channel carries one", instance_, p, cycle));
    }
  }
}

uint64_t CosimRouter::overdue_credit(uint64_t now) const {
  uint64_t first = UINT64_MAX;
  for (int p = 0; p < ports_; ++p) first = std::min(first, mailbox_[p].next_credit_ready());
  if (first >= now) return UINT64_MAX;
  if (holds_flits())
    throw std::logic_error(
        fmt::format("{}: a credit due at cycle {} was not taken until cycle {}", instance_, first, now));
  return first;
}

void CosimRouter::to_pins(const Due& due, RouterPins& pins) {
  pins = base_pins_;
  for (int p = 0; p < ports_; ++p) {
    if (const Flit* f = due.flit[p]) {
      uint32_t h;
      if (free_handles_.empty()) {
        h = static_cast<uint32_t>(records_.size());
        records_.push_back(*f);
        in_use_.push_back(true);
      } else {
        h = free_handles_.back();
        free_handles_.pop_back();
        records_[h] = *f;
        in_use_[h] = true;
      }
      pins.hdr[p] = pins::header(*f, topo_);
      pins.handle[p] = h;
      ++inside_;
    }
    if (due.credit[p] >= 0) pins.cin[p] = static_cast<uint8_t>(pins::kCreditValid | due.credit[p]);
  }
}

const Flit* CosimRouter::record(uint32_t handle) const {
  return handle < records_.size() && in_use_[handle] ? &records_[handle] : nullptr;
}

void CosimRouter::release(uint32_t handle) {
  in_use_[handle] = false;
  free_handles_.push_back(handle);
  --inside_;
}

void CosimRouter::register_stats(sim::StatGroup& group) const {
  group.add_counter("flits_switched", &flits_switched_, "Flits through the switch (to links and the interface)");
  group.add_counter("link_flits", &link_flits_, "Flits sent to neighbouring routers");
  group.add_counter("va_conflicts", &va_conflicts_, "VC allocation requests not granted (per input VC and cycle)");
  group.add_counter("sa_conflicts", &sa_conflicts_, "Switch requests not granted (per input VC and cycle)");
}

void CosimRouter::describe_waiting(uint64_t, std::vector<std::string>& lines) const {
  if (inside_ > 0)
    lines.push_back(
        fmt::format("router {} (RTL): {} flits in its buffers and pipeline", topo_.node_name(id_), inside_));
}

// ---------------------------------------------------------------- RtlRouter

RtlRouter::RtlRouter(int id, const NocParams& p, const GridTopology& topo)
    : CosimRouter(id, p, topo), core_(make_rtl_router_core(p, instance_, /*record=*/false)) {}

void RtlRouter::step(uint64_t now) {
  trace_floor(now);
  RouterPins pins;
  for (uint64_t t; (t = overdue_credit(now)) != UINT64_MAX;) {
    // Credits still coming back when the network skipped idle cycles: the
    // router holds no flits, so applying them now changes nothing else.
    Due late;
    take_due(t, late);
    to_pins(late, pins);
    core_->step(pins, t, out_);
    if (cover_) cover_->sample(pins, out_);
  }
  Due due;
  take_due(now, due);
  to_pins(due, pins);
  core_->step(pins, now, out_);
  if (cover_) cover_->sample(pins, out_);
  // `cout` carries the credits of the flits switched in the cycle before
  // (they leave their buffers now); the model stamps them sa + credit after
  // the grant, the same cycle with the RTL's sa of 1.
  for (int p = 0; p < ports_; ++p)
    if (out_.cout[p] & pins::kCreditValid)
      upstream_[p]->return_credit(now + static_cast<uint64_t>(p_.delay.credit), out_.cout[p] & 0x3f);
  flits_switched_ += static_cast<uint64_t>(__builtin_popcount(out_.ev_switch));
  link_flits_ += static_cast<uint64_t>(__builtin_popcount(out_.ev_switch & ~1u));
  va_conflicts_ += out_.va_conflicts;
  sa_conflicts_ += out_.sa_conflicts;
  for (int o = 0; o < ports_; ++o) {
    if (!pins::valid(out_.hdr[o])) continue;
    const Flit* r = record(out_.handle[o]);
    if (!r)
      throw std::logic_error(
          fmt::format("{}: the RTL sent a flit with unknown handle {} on port {}", instance_, out_.handle[o], o));
    Flit f = *r;
    release(out_.handle[o]);
    f.vc = static_cast<uint8_t>(pins::vc(out_.hdr[o]));
    f.ready_cycle = now + static_cast<uint64_t>(o == kLocal ? p_.delay.ejection : p_.delay.link);
    if (o != kLocal) ++f.hops;
    targets_[o].deliver(f);
  }
}

// ----------------------------------------------------------- LockstepRouter

LockstepRouter::LockstepRouter(int id, const NocParams& p, const GridTopology& topo, const RoutingFunction& routing)
    : CosimRouter(id, p, topo),
      model_(id, p, topo, routing),
      core_(make_rtl_router_core(p, instance_, /*record=*/true)),
      captured_flits_(ports_),
      captured_credits_(ports_) {
  for (int port = 0; port < ports_; ++port) {
    model_.connect_output(port, FlitTarget{nullptr, 0, &captured_flits_[port]});
    model_.connect_upstream(port, &captured_credits_[port]);
  }
}

void LockstepRouter::step(uint64_t now) {
  trace_floor(now);
  RouterPins pins;
  for (uint64_t t; (t = overdue_credit(now)) != UINT64_MAX;) {
    Due late;
    take_due(t, late);
    for (int o = 0; o < ports_; ++o)
      if (late.credit[o] >= 0) model_.output(o).return_credit(t, late.credit[o]);
    to_pins(late, pins);
    core_->step(pins, t, out_);
    if (cover_) cover_->sample(pins, out_);
  }
  Due due;
  take_due(now, due);
  for (int p = 0; p < ports_; ++p) {
    if (due.flit[p]) model_.receive(p, *due.flit[p]);
    if (due.credit[p] >= 0) model_.output(p).return_credit(now, due.credit[p]);
  }
  const uint64_t va_before = model_.va_conflicts(), sa_before = model_.sa_conflicts();
  model_.step(now);
  // The model's outputs go on into the network and are kept for comparison.
  // A model credit is stamped at switch grant for sa + credit cycles later;
  // the RTL shows it on `cout` one cycle after the grant (sa is 1 there),
  // so the credits compared in cycle now are those usable at now + credit.
  const uint64_t shown = now + static_cast<uint64_t>(p_.delay.credit);
  for (int p = 0; p < ports_; ++p) {
    model_credit_[p] = -1;
    OutputChannel& c = captured_credits_[p];
    if (c.next_credit_ready() <= shown) {
      const uint64_t ready = c.next_credit_ready();
      model_credit_[p] = c.take_credit();
      upstream_[p]->return_credit(ready, model_credit_[p]);
    }
  }
  for (int o = 0; o < ports_; ++o) {
    for (const Flit& f : captured_flits_[o]) {
      history_.push_back(Sent{now, o, f.vc, f.packet_id, f.index, f.size});
      targets_[o].deliver(f);
    }
    captured_flits_[o].clear();
  }
  to_pins(due, pins);
  core_->step(pins, now, out_);
  if (cover_) cover_->sample(pins, out_);

  // Compare: credits and events of this cycle; the flits the model switched
  // two cycles ago against the RTL's output registers.
  const Sent* switched[kMaxRouterPorts] = {};
  while (!history_.empty() && history_.front().cycle + 2 < now) history_.pop_front();
  bool same = true;
  for (const Sent& s : history_) {
    if (s.cycle + 2 != now) break;
    switched[s.port] = &s;
  }
  for (int p = 0; p < ports_ && same; ++p) {
    const int rtl = out_.cout[p] & pins::kCreditValid ? out_.cout[p] & 0x3f : -1;
    same = rtl == model_credit_[p];
  }
  for (int o = 0; o < ports_ && same; ++o) {
    const Sent* s = switched[o];
    const bool valid = pins::valid(out_.hdr[o]);
    if (!s || !valid) {
      same = !s && !valid;
      continue;
    }
    const Flit* r = record(out_.handle[o]);
    same = r && r->packet_id == s->packet_id && r->index == s->index && pins::vc(out_.hdr[o]) == s->vc;
  }
  model_va_ = model_.va_conflicts() - va_before;
  model_sa_ = model_.sa_conflicts() - sa_before;
  same = same && out_.va_conflicts == model_va_ && out_.sa_conflicts == model_sa_;
  if (!same) mismatch(now, due, switched);
  while (!history_.empty() && history_.front().cycle + 2 <= now) history_.pop_front();
  for (int o = 0; o < ports_; ++o)
    if (pins::valid(out_.hdr[o])) release(out_.handle[o]);
  flits_switched_ = model_.flits_switched();
  link_flits_ = model_.link_flits();
  va_conflicts_ = model_.va_conflicts();
  sa_conflicts_ = model_.sa_conflicts();
}

std::string LockstepRouter::describe_rtl_flit(int port) const {
  if (!pins::valid(out_.hdr[port])) return "-";
  const Flit* r = record(out_.handle[port]);
  if (!r) return fmt::format("unknown handle {} vc {}", out_.handle[port], pins::vc(out_.hdr[port]));
  return fmt::format("packet {} flit {}/{} vc {}", r->packet_id, r->index + 1, r->size, pins::vc(out_.hdr[port]));
}

void LockstepRouter::mismatch(uint64_t now, const Due& due, const Sent* const* switched) {
  rtl::MismatchReport r(fmt::format("NoC router, {}", core_->variant()), instance_, now);
  const auto credit = [](int vc) { return vc < 0 ? std::string("-") : fmt::format("vc {}", vc); };
  for (int p = 0; p < ports_; ++p) {
    const Flit* f = due.flit[p];
    r.input(fmt::format("flit in {}", topo_.port_name(id_, p)),
            f ? fmt::format("packet {} flit {}/{} vc {} {} -> {}", f->packet_id, f->index + 1, f->size, f->vc,
                            topo_.node_name(f->src), topo_.node_name(f->dst))
              : "-");
  }
  for (int o = 0; o < ports_; ++o) r.input(fmt::format("credit in {}", topo_.port_name(id_, o)), credit(due.credit[o]));
  for (int p = 0; p < ports_; ++p) {
    const int rtl = out_.cout[p] & pins::kCreditValid ? out_.cout[p] & 0x3f : -1;
    r.output(fmt::format("credit out {}", topo_.port_name(id_, p)), credit(model_credit_[p]), credit(rtl));
  }
  for (int o = 0; o < ports_; ++o) {
    const Sent* s = switched[o];
    r.output(fmt::format("flit out {} (switched at cycle {})", topo_.port_name(id_, o), now >= 2 ? now - 2 : 0),
             s ? fmt::format("packet {} flit {}/{} vc {}", s->packet_id, s->index + 1, s->size, s->vc) : "-",
             describe_rtl_flit(o));
  }
  r.output("va_conflicts", fmt::format("{}", model_va_), fmt::format("{}", out_.va_conflicts));
  r.output("sa_conflicts", fmt::format("{}", model_sa_), fmt::format("{}", out_.sa_conflicts));
  try {
    r.set_wave(core_->dump_window(fmt::format("{}_{}", instance_, now)));
  } catch (const std::exception& e) {
    r.input("waveform", fmt::format("not written: {}", e.what()));
  }
  throw rtl::LockstepMismatch(r);
}

void LockstepRouter::describe_waiting(uint64_t now, std::vector<std::string>& lines) const {
  model_.describe_waiting(now, lines);
}

}  // namespace tessera::noc
