// A clock domain: a named frequency. Components advance one cycle per
// activation of their clocked SC_METHOD and convert between cycles and time
// here, so domains with different frequencies (core, memory) coexist.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <systemc>

namespace tessera::sim {

class ClockDomain {
 public:
  ClockDomain(std::string name, double mhz) : name_(std::move(name)), mhz_(mhz), period_(1e6 / mhz, sc_core::SC_PS) {}
  const std::string& name() const { return name_; }
  double mhz() const { return mhz_; }
  const sc_core::sc_time& period() const { return period_; }
  // The frequency cycles advance at, in kHz, rounded to the nearest: 1 /
  // period(), where the period is 1 / mhz rounded to the time resolution
  // (1 ps). It equals mhz * 1000 when that period is a whole number of ps
  // (1000, 500, 800 MHz); 3000 MHz runs at 1 / 333 ps = 3,003,003 kHz.
  uint64_t khz() const { return static_cast<uint64_t>(std::llround(1.0 / period_.to_seconds() / 1e3)); }
  // Cycle number of a time (rounded down): the cycle in progress at t.
  uint64_t cycle_at(const sc_core::sc_time& t) const { return t.value() / period_.value(); }
  uint64_t now_cycle() const { return cycle_at(sc_core::sc_time_stamp()); }
  sc_core::sc_time time_of(uint64_t cycle) const { return period_ * static_cast<double>(cycle); }
  // Time from now to the start of `cycle` (zero if it is now or past).
  sc_core::sc_time delay_until(uint64_t cycle) const {
    const sc_core::sc_time at = time_of(cycle);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    return at > now ? at - now : sc_core::SC_ZERO_TIME;
  }

 private:
  std::string name_;
  double mhz_;
  sc_core::sc_time period_;
};

}  // namespace tessera::sim
