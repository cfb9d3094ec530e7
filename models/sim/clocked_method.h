// The idle-skipping cycle loop of a clocked SC_METHOD. A model advances one
// cycle per activation of its method and sleeps through cycles in which
// nothing is due: it asks to be woken at cycle N (after its own cycle, from
// its next_work(); or when a transaction arrives), and the method runs once
// per cycle it was asked for.
//
// Rules, so that idle skipping gives exactly the cycles of ticking:
// - wake_at(n) keeps the earliest planned wake-up. A later request never
//   replaces an earlier planned one, and an earlier one replaces a later
//   one (the owner recomputes its next cycle on every activation).
// - A request made in the instant of a planned activation, before the
//   method has run (another process of that instant woke it), is kept for
//   after that activation: the activation in progress cannot carry it, and
//   a request is never lost.
// - A request for a cycle already processed means "the next cycle": the
//   method never runs twice for one cycle, and a request arriving after the
//   owner's cycle in the same cycle never cancels what the owner planned.
// - Activations happen at the clock edge plus `offset` (a model that decides
//   a cycle only once every transaction of the edge's instant has arrived
//   uses 1 ps).
//
// The owner calls begin_cycle() first in every activation (it consumes the
// planned wake-up).
//
// Usage:
//   ClockedMethod clocked_{clock_};          // member
//   SC_METHOD(cycle); sensitive << clocked_.event(); dont_initialize();
//   void cycle() {
//     if (!clocked_.begin_cycle()) return;   // a cycle already processed
//     const uint64_t now = clocked_.cycle();  // clocked_.skipped(): cycles slept
//     ...
//     clocked_.wake_at(next_work(now));      // kNever: sleep until woken
//   }
#pragma once

#include <cstdint>
#include <systemc>

#include "sim/clock.h"

namespace tessera::sim {

class ClockedMethod {
 public:
  static constexpr uint64_t kNever = ~uint64_t{0};

  explicit ClockedMethod(const ClockDomain& clock, const sc_core::sc_time& offset = sc_core::SC_ZERO_TIME)
      : clock_(clock), offset_(offset) {}

  // The event the owner's SC_METHOD is sensitive to.
  const sc_core::sc_event& event() const { return event_; }
  const ClockDomain& clock() const { return clock_; }

  // The cycle whose activation time (edge + offset) is the current time or
  // the next one after it.
  uint64_t current_cycle() const {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (now < offset_) return 0;
    const sc_core::sc_time t = now - offset_;
    const uint64_t c = clock_.cycle_at(t);
    return clock_.time_of(c) == t ? c : c + 1;
  }

  // Plans an activation at cycle `cycle` (edge + offset), unless one at an
  // earlier or the same cycle is planned already. kNever plans nothing.
  void wake_at(uint64_t cycle) {
    if (cycle == kNever) return;
    if (processed_any_ && cycle <= last_) cycle = last_ + 1;
    if (planned_ != kNever) {
      const sc_core::sc_time planned_at = activation_time(planned_);
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      if (planned_at == now) {
        // The planned activation fires in this instant and has not run yet.
        if (cycle > planned_ && cycle < after_) after_ = cycle;
        return;
      }
      if (planned_at < now) {  // fired, but the owner's method returned without begin_cycle()
        planned_ = kNever;
        if (after_ < cycle) cycle = after_;
        after_ = kNever;
      }
    }
    if (cycle >= planned_) return;
    planned_ = cycle;
    const sc_core::sc_time at = activation_time(cycle);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    event_.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
  }
  // The cycle after the one in progress (a transaction arrived now).
  void wake_next_cycle() { wake_at(clock_.now_cycle() + 1); }

  // Starts an activation: false if its cycle was processed already (the owner
  // returns at once), otherwise records the cycle and the cycles skipped.
  bool begin_cycle() {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const uint64_t c = now < offset_ ? 0 : clock_.cycle_at(now - offset_);
    if (planned_ <= c) planned_ = kNever;  // consumed
    const bool fresh = !processed_any_ || c > last_;
    if (fresh) {
      skipped_ = processed_any_ ? c - last_ - 1 : c;
      last_ = c;
      processed_any_ = true;
    }
    if (after_ != kNever) {
      const uint64_t next = after_;
      after_ = kNever;
      wake_at(next);
    }
    return fresh;
  }
  // The cycle of the current activation (after begin_cycle()).
  uint64_t cycle() const { return last_; }
  // Cycles between the previous activation and this one in which the method
  // did not run (before the first activation: the cycles since cycle 0).
  uint64_t skipped() const { return skipped_; }
  // Whether the activation of `cycle` (or a later one) has run.
  bool processed(uint64_t cycle) const { return processed_any_ && last_ >= cycle; }
  // The cycle of the planned activation, or kNever.
  uint64_t planned() const { return planned_; }

 private:
  sc_core::sc_time activation_time(uint64_t cycle) const { return clock_.time_of(cycle) + offset_; }

  const ClockDomain& clock_;
  sc_core::sc_time offset_;
  sc_core::sc_event event_;
  uint64_t planned_ = kNever;
  uint64_t after_ = kNever;  // requested while the planned activation was firing
  uint64_t last_ = 0;
  uint64_t skipped_ = 0;
  bool processed_any_ = false;
};

}  // namespace tessera::sim
