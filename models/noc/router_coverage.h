// The cover points of the NoC router (docs/cosim.md, "Coverage"), counted
// from its pins in every cycle the router is stepped (noc.router_impl=rtl
// or lockstep, `tessera rtl-test noc_router`). Ports are numbered as the
// router's pins: 0 local, then 1 +x (east), 2 -x (west), 3 +y, 4 -y on a
// mesh; 1 +, 2 - on a ring.
//
//   noc_router.port<p>.vc<v>.in     a flit entered input port p on VC v
//   noc_router.port<p>.vc<v>.out    a flit left output port p on VC v
//   noc_router.class<c>.in          a flit of message class c entered
//   noc_router.flit.head|body|tail|single   entering flits by kind (single:
//                                   a one-flit packet, head and tail)
//   noc_router.va_conflict          a cycle in which an input VC lost VC
//                                   allocation (ev_va_conflicts > 0)
//   noc_router.sa_conflict          the same for switch allocation
//   noc_router.port<p>.credit_stall a cycle in which an input VC's front
//                                   flit belongs to a packet whose head left
//                                   through output p (not local), and the
//                                   router holds no credit for that output
//                                   VC (credits as the pins show them:
//                                   noc.vc_buf, less the flits sent on it,
//                                   plus the credits received)
//
// Pure logic on RouterPins/RouterOutputs; no Verilator, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "noc/rtl_router_core.h"
#include "rtl/common/coverage.h"

namespace tessera::noc {

class RouterCoverage {
 public:
  static constexpr const char* kBlock = "noc_router";
  static constexpr int kMaxVcs = 8;
  static constexpr int kMaxDepth = 32;
  static std::vector<std::string> point_names(int ports, int vcs, int classes);

  // `table` must hold point_names(ports, vcs, classes).
  RouterCoverage(std::shared_ptr<rtl::CoverTable> table, int ports, int vcs, int classes, int vc_buf);
  // One step: the inputs applied and the outputs after it.
  void sample(const RouterPins& in, const RouterOutputs& out);
  const rtl::CoverTable& table() const { return *table_; }

 private:
  // An input VC's buffered flits, oldest first (bit 0: head, bit 1: tail),
  // and the output VC its packet in flight went to (-1: none known).
  struct InputVc {
    std::array<uint8_t, kMaxDepth> kind{};
    int first = 0, count = 0;
    int out_port = -1, out_vc = -1;
  };
  struct Handle {
    int port = 0, vc = 0;
    uint8_t kind = 0;
  };
  size_t in_point(int port, int vc) const { return static_cast<size_t>(port * vcs_ + vc); }
  size_t out_point(int port, int vc) const { return static_cast<size_t>((ports_ + port) * vcs_ + vc); }
  InputVc& input(int port, int vc) { return inputs_[static_cast<size_t>(port * vcs_ + vc)]; }

  std::shared_ptr<rtl::CoverTable> table_;
  int ports_, vcs_, classes_, vc_buf_;
  size_t class0_, head_, body_, tail_, single_, va_, sa_, stall0_;
  std::vector<InputVc> inputs_;
  std::vector<int> credits_;     // per output port and VC
  std::vector<Handle> handles_;  // by the payload's handle: where the flit entered
};

}  // namespace tessera::noc
