// Independent end-to-end check of the network: every flit injected is
// delivered exactly once, at its destination, and on each ejection VC the
// flits of a packet arrive contiguously and in order (head, body..., tail).
// It sees only what enters and leaves the network, never router state.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "noc/flit.h"

namespace tessera::noc {

class FlitChecker {
 public:
  FlitChecker(int nodes, int vcs);
  void injected(int node, const Flit& f);
  void ejected(int node, const Flit& f);

  uint64_t flits_injected() const { return injected_; }
  uint64_t flits_ejected() const { return ejected_; }
  uint64_t packets_completed() const { return completed_; }
  uint64_t in_flight() const { return injected_ - ejected_; }
  bool ok() const { return errors_.empty(); }
  const std::vector<std::string>& errors() const { return errors_; }
  // After the network has drained: reports packets not (fully) delivered.
  void check_drained();

 private:
  enum class Stage : uint8_t { kNotSeen, kInFlight, kDone };
  struct PacketState {
    int src = 0, dst = 0, size = 0;
    int injected = 0, ejected = 0;
    Stage stage = Stage::kNotSeen;
  };
  // The state of packet `id`, or nullptr when it is not in flight.
  PacketState* find(uint64_t id);
  struct VcState {
    uint64_t packet = 0;
    int next_index = 0;
    bool open = false;
  };
  void error(std::string message);

  int vcs_;
  // Packet ids are handed out in order and retire roughly in order, so the
  // packets live in a window starting at the oldest one not yet delivered.
  std::deque<PacketState> window_;
  uint64_t window_base_ = 0;
  std::vector<VcState> ejection_vcs_;  // node * vcs + vc
  uint64_t injected_ = 0, ejected_ = 0, completed_ = 0;
  std::vector<std::string> errors_;
  uint64_t suppressed_ = 0;
};

}  // namespace tessera::noc
