#include "noc/network.h"

#include <fmt/format.h>

#include <algorithm>

#include "rtl/common/lockstep.h"

namespace tessera::noc {

Network::Network(const NocParams& params, sim::StatGroup* stats_parent)
    : p_(params), topo_(make_topology(p_)), routing_(topo_->make_routing(p_)) {
  if (p_.check) checker_ = std::make_unique<FlitChecker>(topo_->nodes(), p_.vcs);
  const int routers = topo_->routers();
  routers_.resize(static_cast<size_t>(routers));
  cosim_.resize(static_cast<size_t>(routers));
  for (int n = 0; n < routers; ++n) {
    const rtl::Impl impl = p_.impl_of(n);
    // The RTL router exists for grids only (check_rtl_router_support).
    if (impl != rtl::Impl::kModel && !topo_->grid())
      throw sim::ConfigError(
          fmt::format("noc.router_impl: the RTL router needs a ring or mesh, not a {}", p_.topology));
    switch (impl) {
      case rtl::Impl::kModel:
        routers_[n] = std::make_unique<Router>(n, p_, *topo_, *routing_);
        model_routers_.push_back(routers_[n].get());
        break;
      case rtl::Impl::kRtl:
        cosim_[n] = std::make_unique<RtlRouter>(n, p_, *topo_->grid());
        cosim_routers_.push_back(cosim_[n].get());
        break;
      case rtl::Impl::kLockstep:
        cosim_[n] = std::make_unique<LockstepRouter>(n, p_, *topo_->grid(), *routing_);
        cosim_routers_.push_back(cosim_[n].get());
        break;
    }
  }
  const auto input_of = [this](int n, int port) {
    return routers_[n] ? FlitTarget{routers_[n].get(), port, nullptr} : cosim_[n]->input(port);
  };
  const auto credits_of = [this](int n, int port) {
    return routers_[n] ? &routers_[n]->output(port) : cosim_[n]->credit_mailbox(port);
  };
  const auto connect = [this](int n, int port, FlitTarget out, OutputChannel* credits_to) {
    // Flits leaving router n on `port` go to `out`; credits for flits that
    // arrive on n's input `port` go to `credits_to`.
    if (routers_[n]) {
      if (out.router || out.queue) routers_[n]->connect_output(port, out);
      if (credits_to) routers_[n]->connect_upstream(port, credits_to);
    } else {
      if (out.router || out.queue) cosim_[n]->connect_output(port, out);
      if (credits_to) cosim_[n]->connect_upstream(port, credits_to);
    }
  };
  for (int n = 0; n < topo_->nodes(); ++n) {
    const PortRef at = topo_->attachment(n);
    interfaces_.push_back(std::make_unique<NetworkInterface>(n, p_, input_of(at.router, at.port), checker_.get()));
    connect(at.router, at.port, interfaces_[n]->ejection(), &interfaces_[n]->injection());
  }
  for (int n = 0; n < routers; ++n) {
    for (int port = 0; port < topo_->ports(); ++port) {
      const PortRef next = topo_->link(n, port);
      if (!next.valid()) continue;
      connect(n, port, input_of(next.router, next.port), nullptr);
      connect(next.router, next.port, FlitTarget{}, credits_of(n, port));
    }
  }
  if (stats_parent) {
    stats_ = std::make_unique<sim::StatGroup>("noc", stats_parent);
    stats_->add_counter("packets_enqueued", &packets_enqueued_, "Packets handed to network interfaces");
    stats_->add_counter("packets_delivered", &packets_delivered_, "Packets whose tail reached the destination");
    stats_->add_counter("flits_injected", &flits_injected_, "Flits sent into routers by network interfaces");
    stats_->add_counter("flits_ejected", &flits_ejected_, "Flits delivered to network interfaces");
    stats_->add_counter("flit_hops", &flit_hops_, "Router-to-router link traversals by flits");
    stats_->add_counter("cycles_stepped", &cycles_stepped_, "Network cycles simulated");
    stats_->add_counter("cycles_skipped", &cycles_skipped_, "Empty network cycles jumped over (noc.skip_idle)");
    for (int n = 0; n < routers; ++n) {
      router_stats_.push_back(std::make_unique<sim::StatGroup>(fmt::format("router{}", n), stats_.get()));
      if (routers_[n]) {
        routers_[n]->register_stats(*router_stats_.back());
      } else {
        cosim_[n]->register_stats(*router_stats_.back());
      }
    }
  }
}

Network::~Network() = default;

uint64_t Network::enqueue(Packet packet) {
  if (packet.src < 0 || packet.src >= topo_->nodes() || packet.dst < 0 || packet.dst >= topo_->nodes())
    throw std::out_of_range(
        fmt::format("packet from {} to {}: the network has nodes 0..{}", packet.src, packet.dst, topo_->nodes() - 1));
  if (packet.cls < 0 || packet.cls >= p_.classes)
    throw std::out_of_range(fmt::format("packet of message class {}: the network has {}", packet.cls, p_.classes));
  if (packet.flits < 1 || packet.flits > 65535) throw std::out_of_range("packet length must be 1..65535 flits");
  packet.id = next_packet_id_++;
  ++packets_enqueued_;
  if (enqueue_log_) enqueue_log_->push_back(packet);
  interfaces_[packet.src]->enqueue(packet, now_);
  return packet.id;
}

void Network::trace_rtl(sim::Waveform& wave, const std::string& scope, uint64_t period_ps) {
  for (size_t n = 0; n < cosim_.size(); ++n)
    if (cosim_[n]) cosim_[n]->trace(wave, fmt::format("{}.r{}.rtl", scope, n), period_ps);
}

void Network::step() {
  delivered_.clear();
  uint64_t moved = 0;
  for (auto& ni : interfaces_) {
    const int ejected = ni->eject(now_, delivered_);
    const int injected = ni->inject(now_);
    flits_ejected_ += ejected;
    flits_injected_ += injected;
    buffered_ += injected;
    buffered_ -= ejected;
    moved += ejected + injected;
  }
  for (Router* r : model_routers_) {
    // A router without flits makes no decision; the credits coming back to
    // it are applied, all at once, the next time it has flits.
    if (r->buffered() == 0) continue;
    const uint64_t before = r->flits_switched(), links_before = r->link_flits();
    r->step(now_);
    moved += r->flits_switched() - before;
    flit_hops_ += r->link_flits() - links_before;
  }
  for (CosimRouter* r : cosim_routers_) {
    // The RTL is stepped only in cycles with flits inside or flits or
    // credits arriving (an idle cycle changes nothing at its pins).
    if (!r->has_work(now_)) continue;
    const uint64_t before = r->flits_switched(), links_before = r->link_flits();
    r->step(now_);
    moved += r->flits_switched() - before;
    flit_hops_ += r->link_flits() - links_before;
  }
  packets_delivered_ += delivered_.size();
  ++cycles_stepped_;
  if (moved > 0 || buffered_ == 0) {
    last_progress_ = now_;
  } else if (now_ - last_progress_ >= p_.watchdog_cycles) {
    report_deadlock();
  }
  ++now_;
}

bool Network::idle() const {
  if (buffered_ != 0) return false;
  for (const auto& ni : interfaces_)
    if (!ni->idle()) return false;
  return true;
}

void Network::advance_to(uint64_t cycle) {
  if (cycle <= now_) return;
  if (!idle()) throw std::logic_error("Network::advance_to while flits are in flight");
  cycles_skipped_ += cycle - now_;
  now_ = cycle;
  last_progress_ = now_;
}

size_t Network::source_queue_packets() const {
  size_t n = 0;
  for (const auto& ni : interfaces_) n += ni->source_queue_packets();
  return n;
}

void Network::report_deadlock() const {
  std::vector<std::string> waiting;
  for (int n = 0; n < topo_->routers(); ++n) {
    if (routers_[n]) {
      routers_[n]->describe_waiting(now_, waiting);
    } else {
      cosim_[n]->describe_waiting(now_, waiting);
    }
  }
  std::string report = fmt::format(
      "network deadlock at cycle {}: no flit moved for {} cycles (noc.watchdog_cycles) with {} flits in the network; "
      "{} input VCs are waiting:",
      now_, now_ - last_progress_, buffered_, waiting.size());
  const size_t shown = std::min<size_t>(waiting.size(), 24);
  for (size_t i = 0; i < shown; ++i) report += "\n  " + waiting[i];
  if (shown < waiting.size()) report += fmt::format("\n  ... and {} more", waiting.size() - shown);
  throw DeadlockError(report, std::move(waiting));
}

}  // namespace tessera::noc
