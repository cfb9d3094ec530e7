// The sending end of a channel (a router output port or a network
// interface's injection port): per output VC, who owns it and how many
// credits (free downstream buffer slots) it has, plus the credits on their
// way back. Also the fixed-capacity flit buffer of one input VC.
#pragma once

#include <cstdint>
#include <deque>
#include <stdexcept>
#include <vector>

#include "noc/flit.h"

namespace tessera::noc {

struct OutputVc {
  int owner = -1;  // the input VC that holds it, or -1 when free
  int credits = 0;
  bool tail_sent = false;
};

class OutputChannel {
 public:
  // atomic: a VC takes a new packet only once the previous one has left
  // the downstream buffer (BookSim's wait_for_tail_credit); otherwise as
  // soon as its tail has been sent.
  void init(int vcs, int depth, bool sink, bool atomic) {
    depth_ = depth;
    sink_ = sink;
    atomic_ = atomic;
    vcs_.assign(vcs, OutputVc{-1, depth, false});
  }
  // A credit the downstream buffer returns; it is usable from `ready`.
  void return_credit(uint64_t ready, int vc) { pending_.push_back({ready, vc}); }
  // Applies the credits that have arrived. With atomic allocation a VC
  // whose tail has gone and whose buffer downstream is empty again becomes
  // free: one packet per VC buffer at a time.
  void absorb_credits(uint64_t now) {
    while (!pending_.empty() && pending_.front().ready <= now) {
      OutputVc& v = vcs_[pending_.front().vc];
      pending_.pop_front();
      ++v.credits;
      if (v.tail_sent && v.credits == depth_) {
        v.owner = -1;
        v.tail_sent = false;
      }
    }
  }
  // Records a flit sent on `vc`.
  void sent(int vc, bool tail) {
    OutputVc& v = vcs_[vc];
    if (sink_) {
      if (tail) v.owner = -1;
      return;
    }
    if (v.credits <= 0) throw std::logic_error("flit sent without a credit");
    --v.credits;
    if (tail && !atomic_) {
      v.owner = -1;
    } else if (tail) {
      v.tail_sent = true;
    }
  }
  bool has_credit(int vc, int needed) const { return sink_ || vcs_[vc].credits >= needed; }
  bool sink() const { return sink_; }
  int depth() const { return depth_; }
  OutputVc& vc(int i) { return vcs_[i]; }
  const OutputVc& vc(int i) const { return vcs_[i]; }
  int vcs() const { return static_cast<int>(vcs_.size()); }
  bool credits_pending() const { return !pending_.empty(); }
  // A channel used as a mailbox (a co-simulated router's output port): the
  // cycle its oldest credit is usable (UINT64_MAX: none), and taking it.
  uint64_t next_credit_ready() const { return pending_.empty() ? UINT64_MAX : pending_.front().ready; }
  int take_credit() {
    const int vc = pending_.front().vc;
    pending_.pop_front();
    return vc;
  }

 private:
  struct PendingCredit {
    uint64_t ready;
    int vc;
  };
  int depth_ = 0;
  bool sink_ = false;  // ejection into a network interface: never full
  bool atomic_ = true;
  std::vector<OutputVc> vcs_;
  std::deque<PendingCredit> pending_;
};

class FlitBuffer {
 public:
  void init(int capacity) {
    slots_.assign(capacity, Flit{});
    capacity_ = capacity;
    head_ = size_ = 0;
  }
  bool empty() const { return size_ == 0; }
  int size() const { return size_; }
  const Flit& front() const { return slots_[head_]; }
  Flit& front() { return slots_[head_]; }  // the head flit, for routing state
  const Flit& back() const { return at(size_ - 1); }
  const Flit& at(int i) const { return slots_[wrap(head_ + i)]; }
  void push(const Flit& f) {
    if (size_ == capacity_) throw std::logic_error("VC buffer overflow: credit protocol broken");
    slots_[wrap(head_ + size_)] = f;
    ++size_;
  }
  void pop() {
    head_ = wrap(head_ + 1);
    --size_;
  }

 private:
  // Indices stay below 2 * capacity, so one subtraction wraps them (no
  // division on the hot path).
  int wrap(int i) const { return i >= capacity_ ? i - capacity_ : i; }

  std::vector<Flit> slots_;
  int capacity_ = 0, head_ = 0, size_ = 0;
};

}  // namespace tessera::noc
