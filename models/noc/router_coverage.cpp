#include "noc/router_coverage.h"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

namespace tessera::noc {

namespace {
constexpr uint8_t kHeadBit = 1, kTailBit = 2;
constexpr int kClassMask = 0x7;
}  // namespace

std::vector<std::string> RouterCoverage::point_names(int ports, int vcs, int classes) {
  std::vector<std::string> n;
  for (const char* dir : {"in", "out"})
    for (int p = 0; p < ports; ++p)
      for (int v = 0; v < vcs; ++v) n.push_back(fmt::format("noc_router.port{}.vc{}.{}", p, v, dir));
  for (int c = 0; c < classes; ++c) n.push_back(fmt::format("noc_router.class{}.in", c));
  for (const char* k : {"head", "body", "tail", "single"}) n.push_back(fmt::format("noc_router.flit.{}", k));
  n.push_back("noc_router.va_conflict");
  n.push_back("noc_router.sa_conflict");
  for (int p = 1; p < ports; ++p) n.push_back(fmt::format("noc_router.port{}.credit_stall", p));
  return n;
}

RouterCoverage::RouterCoverage(std::shared_ptr<rtl::CoverTable> table, int ports, int vcs, int classes, int vc_buf)
    : table_(std::move(table)),
      ports_(ports),
      vcs_(vcs),
      classes_(classes),
      vc_buf_(vc_buf),
      inputs_(static_cast<size_t>(ports * vcs)),
      credits_(static_cast<size_t>(ports * vcs), vc_buf) {
  if (ports > kMaxRouterPorts || vcs > kMaxVcs || vc_buf > kMaxDepth || classes > kClassMask + 1)
    throw std::logic_error("RouterCoverage: a router larger than its tables");
  if (table_->names() != point_names(ports, vcs, classes))
    throw std::logic_error("RouterCoverage: a table of other points");
  class0_ = static_cast<size_t>(2 * ports * vcs);
  head_ = class0_ + static_cast<size_t>(classes);
  body_ = head_ + 1;
  tail_ = head_ + 2;
  single_ = head_ + 3;
  va_ = head_ + 4;
  sa_ = va_ + 1;
  stall0_ = sa_ + 1;  // port 1's
}

void RouterCoverage::sample(const RouterPins& in, const RouterOutputs& out) {
  rtl::CoverTable& t = *table_;
  // Flits entering a buffer at the edge of this step.
  for (int p = 0; p < ports_; ++p) {
    const uint32_t h = in.hdr[p];
    if (!pins::valid(h)) continue;
    const int vc = pins::vc(h);
    if (vc >= vcs_) continue;  // not a VC of this router: the RTL's business
    const bool head = (h & pins::kHead) != 0, tail = (h & pins::kTail) != 0;
    const int cls = static_cast<int>(h >> pins::kClassShift) & kClassMask;
    t.hit(in_point(p, vc));
    if (cls < classes_) t.hit(class0_ + static_cast<size_t>(cls));
    t.hit(head && tail ? single_ : head ? head_ : tail ? tail_ : body_);
    const uint8_t kind = static_cast<uint8_t>((head ? kHeadBit : 0) | (tail ? kTailBit : 0));
    InputVc& iv = input(p, vc);
    if (iv.count < kMaxDepth) iv.kind[static_cast<size_t>((iv.first + iv.count++) % kMaxDepth)] = kind;
    if (in.handle[p] >= handles_.size()) handles_.resize(in.handle[p] + 1);
    handles_[in.handle[p]] = Handle{p, vc, kind};
  }
  // Credits arriving for output VCs.
  for (int o = 1; o < ports_; ++o) {
    if (!(in.cin[o] & pins::kCreditValid)) continue;
    const int vc = in.cin[o] & 0x3f;
    if (vc < vcs_ && credits_[static_cast<size_t>(o * vcs_ + vc)] < vc_buf_)
      ++credits_[static_cast<size_t>(o * vcs_ + vc)];
  }
  // Flits leaving their buffers (the credit on cout is for that slot).
  for (int p = 0; p < ports_; ++p) {
    if (!(out.cout[p] & pins::kCreditValid)) continue;
    const int vc = out.cout[p] & 0x3f;
    if (vc >= vcs_) continue;
    InputVc& iv = input(p, vc);
    if (iv.count > 0) {
      iv.first = (iv.first + 1) % kMaxDepth;
      --iv.count;
    }
  }
  // Flits on the output registers: the output VC of their packet.
  for (int o = 0; o < ports_; ++o) {
    const uint32_t h = out.hdr[o];
    if (!pins::valid(h)) continue;
    const int vc = pins::vc(h);
    if (vc >= vcs_) continue;
    t.hit(out_point(o, vc));
    if (o != kLocal && credits_[static_cast<size_t>(o * vcs_ + vc)] > 0) --credits_[static_cast<size_t>(o * vcs_ + vc)];
    if (out.handle[o] >= handles_.size()) continue;
    const Handle& from = handles_[out.handle[o]];
    InputVc& iv = input(from.port, from.vc);
    if (from.kind & kTailBit) {
      iv.out_port = iv.out_vc = -1;
    } else if (from.kind & kHeadBit) {
      iv.out_port = o;
      iv.out_vc = vc;
    }
  }
  if (out.va_conflicts > 0) t.hit(va_);
  if (out.sa_conflicts > 0) t.hit(sa_);
  // Credit stalls: a packet under way whose next flit waits for a credit.
  for (const InputVc& iv : inputs_) {
    if (iv.count == 0 || iv.out_port <= kLocal) continue;
    if (iv.kind[static_cast<size_t>(iv.first)] & kHeadBit) continue;  // the next packet's head
    if (credits_[static_cast<size_t>(iv.out_port * vcs_ + iv.out_vc)] == 0)
      t.hit(stall0_ + static_cast<size_t>(iv.out_port - 1));
  }
}

}  // namespace tessera::noc
