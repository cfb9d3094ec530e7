// A Verilated block's signals in the chip's waveform (docs/cosim.md,
// "Waveforms of the RTL"). Built from the block's signal table
// (rtl_signals.h) when a run traces: each signal becomes one or more
// sim::Waveform signals under the instance's scope ("chip.sm0.shared_banks.rtl"
// + "." + its Verilog path), an unpacked array one signal per element
// (mem[0], mem[1], ...), a packed bus the block's BusSplit table names one
// signal per field, and anything wider than 64 bits 64-bit pieces. After
// each step of the block, sample() compares every signal's bytes with a copy
// of the last sample and records only what changed, so a RAM costs a memcmp
// per step until a word of it changes. No SystemC here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rtl/common/rtl_signals.h"

namespace tessera::sim {
class Waveform;
}

namespace tessera::rtl {

class RtlWave {
 public:
  // `period_ps`: the block's clock period; cycle c is recorded at c * period_ps.
  RtlWave(sim::Waveform& wave, const std::string& scope, const std::vector<RtlVar>& vars,
          const std::vector<BusSplit>& splits, uint64_t period_ps);
  // Whether any signal is traced (--trace-scope may leave all of them out).
  bool any() const { return !vars_.empty(); }
  size_t signal_count() const { return signals_; }

  // The values after the step of `cycle`, recorded at the time of
  // max(cycle, floor): a block stepped for cycles already past (the
  // router's overdue credits) is recorded at the current cycle.
  void sample(uint64_t cycle);
  void set_floor(uint64_t cycle) { floor_ = cycle; }

 private:
  struct Piece {
    int id;         // waveform signal
    unsigned elem;  // element of the array (0 for a plain signal)
    unsigned bit;   // first bit within the element
    unsigned width;
  };
  struct Var {
    const uint8_t* data;
    size_t elem_bytes, bytes;
    std::vector<uint8_t> last;
    std::vector<Piece> pieces;  // in element order
  };
  void add(sim::Waveform& wave, const std::string& scope, const RtlVar& v, const std::vector<BusSplit>& splits);

  sim::Waveform& wave_;
  uint64_t period_ps_;
  uint64_t floor_ = 0;
  bool first_ = true;
  size_t signals_ = 0;
  std::vector<Var> vars_;
};

// The value of bits [bit, bit + width) (width <= 64) of a little-endian
// element of `bytes` bytes (Verilator's CData..QData, or 32-bit words).
uint64_t extract_bits(const uint8_t* elem, size_t bytes, unsigned bit, unsigned width);

}  // namespace tessera::rtl
