#include "noc/routing.h"

#include <cstdlib>

namespace tessera::noc {

GridRouting::GridRouting(const NocParams& p, const GridTopology& topo)
    : topo_(topo),
      per_class_(p.vcs_per_class()),
      dateline_(p.dateline && topo.wraps()),
      random_tie_(topo.wraps() && p.wrap_rule == WrapRule::kRandomTie) {}

bool GridRouting::tie_goes_plus(uint64_t packet_id, int dim) {
  // Consecutive ids give independent bits, one per dimension.
  return ((mix64(packet_id) >> dim) & 1) != 0;
}

int GridRouting::dor_port(int node, const Flit& head) const {
  for (int d = 0; d < topo_.dims(); ++d) {
    bool tie = false;
    const int off = topo_.offset(node, head.dst, d, &tie);
    if (off == 0) continue;
    if (tie && random_tie_) return GridTopology::port_of(d, tie_goes_plus(head.packet_id, d));
    return GridTopology::port_of(d, off > 0);
  }
  return kLocal;
}

void GridRouting::add_dor(int node, const Flit& head, int first, int count, bool escape, Route& out) const {
  const int base = class_base(head.cls) + first;
  const int port = dor_port(node, head);
  if (port == kLocal || !dateline_) {
    out.add(port, base, base + count - 1, escape);
    return;
  }
  const int half = count / 2;
  if (random_tie_) {
    // The packet's whole path in this dimension runs from the source's
    // coordinate (dimension order, and adaptive routing, never move back).
    if (topo_.crosses_dateline(head.src, head.dst, port)) {
      out.add(port, base + half, base + count - 1, escape);
    } else {
      out.add(port, base, base + half - 1, escape);
    }
    return;
  }
  if (topo_.crosses_dateline(node, head.dst, port)) {
    out.add(port, base, base + half - 1, escape);
  } else {
    out.add(port, base + half, base + count - 1, escape);
  }
}

void DimensionOrderRouting::compute(int node, Flit& head, Route& out, const OutputLoad& /*load*/) const {
  out.count = 0;
  add_dor(node, head, 0, per_class_, false, out);
}

MinimalAdaptiveRouting::MinimalAdaptiveRouting(const NocParams& p, const GridTopology& topo)
    : GridRouting(p, topo), escape_vcs_(p.escape_vc ? (dateline_ ? 2 : 1) : 0), policy_(p.adaptive) {}

void MinimalAdaptiveRouting::compute(int node, Flit& head, Route& out, const OutputLoad& /*load*/) const {
  out.count = 0;
  const int base = class_base(head.cls);
  if (node == head.dst) {
    out.add(kLocal, base, base + per_class_ - 1);
    return;
  }
  const int lo = base + escape_vcs_, hi = base + per_class_ - 1;
  if (policy_ == AdaptivePolicy::kOddEven && topo_.dims() == 2) {
    add_odd_even_ports(node, head, lo, hi, out);
  } else {
    add_adaptive_ports(node, head, lo, hi, out);
  }
  if (escape_vcs_ > 0) add_dor(node, head, 0, escape_vcs_, true, out);
}

void MinimalAdaptiveRouting::add_adaptive_ports(int node, const Flit& head, int lo, int hi, Route& out) const {
  const bool west_first = policy_ == AdaptivePolicy::kWestFirst;
  if (west_first && topo_.offset(node, head.dst, 0) < 0) {
    out.add(kMinusX, lo, hi);  // west first, and only west
    return;
  }
  for (int d = 0; d < topo_.dims(); ++d) {
    bool tie = false;
    const int off = topo_.offset(node, head.dst, d, &tie);
    if (off == 0) continue;
    out.add(GridTopology::port_of(d, off > 0), lo, hi);
    // Half-way round both ways are minimal (west-first keeps to +x).
    if (tie && !(west_first && d == 0)) out.add(GridTopology::port_of(d, off < 0), lo, hi);
  }
}

// Chiu, "The Odd-Even Turn Model for Adaptive Routing", IEEE TPDS 11(7),
// 2000 (its minimal routing function): a packet never turns from east to
// north/south in an even column, nor from north/south to west in an odd one.
void MinimalAdaptiveRouting::add_odd_even_ports(int node, const Flit& head, int lo, int hi, Route& out) const {
  const int dx = topo_.offset(node, head.dst, 0), dy = topo_.offset(node, head.dst, 1);
  const int x = topo_.x(node);
  const int vertical = dy > 0 ? kPlusY : kMinusY;
  if (dx == 0) {
    out.add(vertical, lo, hi);
  } else if (dx > 0) {
    if (dy == 0) {
      out.add(kPlusX, lo, hi);
    } else {
      if (x % 2 == 1 || x == topo_.x(head.src)) out.add(vertical, lo, hi);
      if (topo_.x(head.dst) % 2 == 1 || dx != 1) out.add(kPlusX, lo, hi);
    }
  } else {
    out.add(kMinusX, lo, hi);
    if (dy != 0 && x % 2 == 0) out.add(vertical, lo, hi);
  }
}

}  // namespace tessera::noc
