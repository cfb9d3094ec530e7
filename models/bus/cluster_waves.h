// Value names of the cluster's waveform signals (docs/waveforms.md): the
// bus command of a granted request (`bus_cmd`) and the coherence state of
// an L1D line (`coh_state`): the stable states of every protocol, then the
// transient states of a request in flight (bus/transient.h).
#pragma once

#include <cstdint>

#include "bus/transient.h"
#include "mem/coherence_protocol.h"
#include "sim/waveform.h"

namespace tessera::bus {

// Values are mem::BusOp's (0: no request on the bus).
inline const sim::WaveEnum kBusCmdWave{
    "bus_cmd", {{0, "None"}, {1, "BusRd"}, {2, "BusRdX"}, {3, "BusUpgr"}, {4, "BusUpd"}, {5, "WriteBack"}}};

// mem::State values 0-7, then Transient t as 7 + t (IS_AD = 8 ... SmI_D = 22).
inline const sim::WaveEnum kCohStateWave{
    "coh_state",
    {{0, "I"},      {1, "S"},     {2, "E"},      {3, "M"},     {4, "O"},     {5, "F"},      {6, "Sc"},    {7, "Sm"},
     {8, "IS_AD"},  {9, "IS_D"},  {10, "IM_AD"}, {11, "IM_D"}, {12, "SM_A"}, {13, "FM_A"},  {14, "OM_A"}, {15, "ScM_A"},
     {16, "SmM_A"}, {17, "MI_A"}, {18, "MI_D"},  {19, "OI_A"}, {20, "OI_D"}, {21, "SmI_A"}, {22, "SmI_D"}}};
inline constexpr unsigned kCohStateBits = 5;

inline uint8_t coh_code(mem::State s) { return static_cast<uint8_t>(s); }
inline uint8_t coh_code(Transient t) {
  return static_cast<uint8_t>(static_cast<uint8_t>(mem::State::kCount) - 1 + static_cast<uint8_t>(t));
}

}  // namespace tessera::bus
