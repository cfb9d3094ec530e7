// The signals of a Verilated block as the chip's waveform reads them
// (docs/cosim.md, "Waveforms of the RTL"): every port and every internal
// signal Verilator keeps, by its Verilog path, with where its value lives in
// the model. tools/rtl-signal-table writes rtl_signals<V>() for each block
// tessera_add_rtl_block() verilates, from the class Verilator generated for
// the block's top, so nothing in the block is made public (which slows
// every run, traced or not).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::rtl {

struct RtlVar {
  const char* path;   // "shared_bank_unit.g_bank[3].mem"; ports bare ("req_valid")
  int msb, lsb;       // packed range of one element
  const void* data;   // the first element: CData, SData, IData, QData or 32-bit words (VlWide)
  size_t elem_bytes;  // bytes per element
  unsigned count;     // unpacked elements (0: not an array)
};

template <class V>
std::vector<RtlVar> rtl_signals(V& model);

// How a block's packed bus is an array of per-port (per-VC, ...) fields:
// `signal` (a path of rtl_signals) is split into fields of `field_bits`
// from bit 0 up, named <signal>.<field>0, <field>1, ..., or, with `per`
// fields to a group, <signal>.<field><i / per>_<sub><i % per> (a
// PORTS x VCS bus: owned_q.port1_vc0). A field wider than 64 bits, and a
// value wider than 64 bits that no split names, is cut into 64-bit pieces
// (<signal>.bits63_0, .bits127_64, ...).
struct BusSplit {
  std::string signal;
  unsigned field_bits;
  const char* field;
  unsigned per = 0;
  const char* sub = nullptr;
};

}  // namespace tessera::rtl
