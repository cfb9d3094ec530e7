#include "noc/flit_checker.h"

#include <fmt/format.h>

namespace tessera::noc {

namespace {
constexpr size_t kMaxErrors = 20;
}

FlitChecker::FlitChecker(int nodes, int vcs) : vcs_(vcs), ejection_vcs_(static_cast<size_t>(nodes) * vcs) {}

void FlitChecker::error(std::string message) {
  if (errors_.size() < kMaxErrors) {
    errors_.push_back(std::move(message));
  } else {
    ++suppressed_;
  }
}

FlitChecker::PacketState* FlitChecker::find(uint64_t id) {
  if (id < window_base_ || id - window_base_ >= window_.size()) return nullptr;
  PacketState& p = window_[id - window_base_];
  return p.stage == Stage::kInFlight ? &p : nullptr;
}

void FlitChecker::injected(int node, const Flit& f) {
  ++injected_;
  PacketState* state = find(f.packet_id);
  if (f.head()) {
    if (f.packet_id < window_base_) return error(fmt::format("packet {} injected twice", f.packet_id));
    while (f.packet_id - window_base_ >= window_.size()) window_.emplace_back();
    state = &window_[f.packet_id - window_base_];
    if (state->stage != Stage::kNotSeen) return error(fmt::format("packet {} injected twice", f.packet_id));
    if (node != f.src) error(fmt::format("packet {} from node {} injected at node {}", f.packet_id, f.src, node));
    *state = PacketState{f.src, f.dst, f.size, 0, 0, Stage::kInFlight};
  } else if (!state) {
    return error(fmt::format("flit {} of packet {} injected before its head", f.index, f.packet_id));
  }
  PacketState& p = *state;
  if (f.index != p.injected)
    error(fmt::format("packet {}: flit {} injected where flit {} was due", f.packet_id, f.index, p.injected));
  ++p.injected;
}

void FlitChecker::ejected(int node, const Flit& f) {
  ++ejected_;
  PacketState* state = find(f.packet_id);
  if (!state)
    return error(fmt::format("node {}: flit {} of packet {} delivered but not in flight (duplicate or unknown)", node,
                             f.index, f.packet_id));
  PacketState& p = *state;
  if (node != p.dst) error(fmt::format("packet {} for node {} delivered at node {}", f.packet_id, p.dst, node));
  if (f.index != p.ejected)
    error(fmt::format("packet {}: flit {} delivered where flit {} was due", f.packet_id, f.index, p.ejected));
  if (f.vc >= vcs_) return error(fmt::format("packet {} delivered on VC {}", f.packet_id, f.vc));
  VcState& vc = ejection_vcs_[static_cast<size_t>(node) * vcs_ + f.vc];
  if (vc.open && vc.packet != f.packet_id)
    error(fmt::format("node {} vc {}: packet {} interleaved into packet {}", node, f.vc, f.packet_id, vc.packet));
  if (!vc.open && !f.head())
    error(
        fmt::format("node {} vc {}: flit {} of packet {} arrived without its head", node, f.vc, f.index, f.packet_id));
  vc.open = !f.tail();
  vc.packet = f.packet_id;
  ++p.ejected;
  if (p.ejected == p.size) {
    ++completed_;
    p.stage = Stage::kDone;
    while (!window_.empty() && window_.front().stage == Stage::kDone) {
      window_.pop_front();
      ++window_base_;
    }
  }
}

void FlitChecker::check_drained() {
  for (size_t i = 0; i < window_.size(); ++i) {
    const PacketState& p = window_[i];
    if (p.stage != Stage::kInFlight) continue;
    const uint64_t id = window_base_ + i;
    error(fmt::format("packet {} ({} -> {}) lost: {} of {} flits injected, {} delivered", id, p.src, p.dst, p.injected,
                      p.size, p.ejected));
  }
  if (suppressed_) errors_.push_back(fmt::format("... and {} more errors", suppressed_));
  suppressed_ = 0;
}

}  // namespace tessera::noc
