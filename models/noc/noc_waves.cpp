#include "noc/noc_waves.h"

#include <fmt/format.h>

#include <algorithm>
#include <systemc>

#include "sim/clock.h"
#include "sim/waveform.h"

namespace tessera::noc {

NocWaves::NocWaves(sim::Waveform& wave, const std::string& scope, const NocParams& p, const Topology& topo,
                   const std::vector<bool>& model)
    : wave_(wave),
      ports_(topo.ports()),
      vcs_(p.vcs),
      link_delay_(p.delay.sa + p.delay.st),
      links_(static_cast<size_t>(topo.routers() * topo.ports())),
      vcs_of_(static_cast<size_t>(topo.routers() * topo.ports() * p.vcs)),
      buckets_(static_cast<size_t>(p.delay.sa + p.delay.st + std::max(p.delay.link, p.delay.injection) + 2)) {
  for (int r = 0; r < topo.routers(); ++r) {
    if (!model[static_cast<size_t>(r)]) continue;
    const std::string router = fmt::format("{}.r{}", scope, r);
    for (int port = 0; port < ports_; ++port) {
      if (topo.terminal(r, port) < 0 && !topo.link(r, port).valid()) continue;  // a mesh edge: no link
      // Every signal is added, also those --trace-scope filters out (add_signal
      // then returns -1 and lists the scope in its messages).
      const std::string out = fmt::format("{}.out{}", router, port);
      Link& l = links_[static_cast<size_t>(r * ports_ + port)];
      l.valid = wave_.add_signal(out, "valid", 1);
      l.vc = wave_.add_signal(out, "vc", 4);
      l.packet = wave_.add_signal(out, "packet", 32);
      l.head = wave_.add_signal(out, "head", 1);
      l.tail = wave_.add_signal(out, "tail", 1);
      any_ = any_ || l.valid >= 0;
      for (int vc = 0; vc < vcs_; ++vc) {
        const int id = wave_.add_signal(fmt::format("{}.in{}.vc{}", router, port, vc), "occupancy", 8);
        vcs_of_[static_cast<size_t>((r * ports_ + port) * vcs_ + vc)].occupancy = id;
        any_ = any_ || id >= 0;
      }
    }
  }
}

void NocWaves::push(uint64_t cycle, const Event& e) { buckets_[cycle % buckets_.size()].push_back(e); }

void NocWaves::arrived(int router, int index, const Flit& f) {
  const auto target = static_cast<uint32_t>(router * ports_ * vcs_ + index);
  if (vcs_of_[target].occupancy < 0) return;
  push(f.ready_cycle, Event{Kind::kArrive, target, 0, 0, false, false});
}

void NocWaves::sent(int router, int index, int port, const Flit& f, uint64_t now) {
  const auto vc = static_cast<uint32_t>(router * ports_ * vcs_ + index);
  if (vcs_of_[vc].occupancy >= 0) push(now, Event{Kind::kLeave, vc, 0, 0, false, false});
  const auto link = static_cast<uint32_t>(router * ports_ + port);
  if (links_[link].valid >= 0)
    push(now + static_cast<uint64_t>(link_delay_),
         Event{Kind::kLink, link, f.packet_id & 0xffffffffu, f.vc, f.head(), f.tail()});
}

void NocWaves::flush(uint64_t cycle, const sim::ClockDomain& clock) {
  static const uint64_t ps = static_cast<uint64_t>(sc_core::sc_time(1, sc_core::SC_PS).value());
  const uint64_t size = buckets_.size();
  const uint64_t now_ps = static_cast<uint64_t>(clock.time_of(cycle).value()) / ps;
  for (uint64_t c = std::max(flushed_, cycle + 1 >= size ? cycle + 1 - size : 0); c <= cycle; ++c) {
    std::vector<Event>& bucket = buckets_[c % size];
    if (bucket.empty()) continue;
    // Events of an earlier cycle than the one stepped cannot happen (the
    // network is stepped every cycle while flits move); if one did, it is
    // written now rather than before times already written.
    const uint64_t t = now_ps;
    for (size_t i = 0; i < bucket.size(); ++i) {  // a link event may append a clear to a later bucket only
      const Event e = bucket[i];
      switch (e.kind) {
        case Kind::kArrive:
        case Kind::kLeave: {
          Vc& v = vcs_of_[e.target];
          v.count += e.kind == Kind::kArrive ? 1 : -1;
          wave_.change(v.occupancy, static_cast<uint64_t>(std::clamp(v.count, 0, 255)), t);
          break;
        }
        case Kind::kLink: {
          Link& l = links_[e.target];
          if (!l.high) {
            wave_.change(l.valid, 1, t);
            l.high = true;
          }
          if (l.vc_v != e.vc) wave_.change(l.vc, l.vc_v = e.vc, t);
          if (l.packet_v != e.packet) wave_.change(l.packet, l.packet_v = e.packet, t);
          if (l.head_v != e.head) wave_.change(l.head, l.head_v = e.head, t);
          if (l.tail_v != e.tail) wave_.change(l.tail, l.tail_v = e.tail, t);
          if (l.last_cycle != c) push(c + 1, Event{Kind::kLinkClear, e.target, 0, 0, false, false});
          l.last_cycle = c;
          break;
        }
        case Kind::kLinkClear: {
          Link& l = links_[e.target];
          if (l.high && l.last_cycle + 1 == c) {
            // No flit in cycle c (yet): low unless one comes later in this bucket.
            wave_.change(l.valid, 0, t);
            l.high = false;
          }
          break;
        }
      }
    }
    bucket.clear();
  }
  flushed_ = std::max(flushed_, cycle + 1);
}

}  // namespace tessera::noc
