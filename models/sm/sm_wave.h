// Value names of the SM's enum-valued waveform signals (docs/waveforms.md):
// chip.smN.schedP.unit is the isa::Unit of the instruction issued,
// chip.smN.schedP.stall the partition's Stall (stall_name() spells them as
// the statistics do). The table names are the stems of the gtkwave
// translate files (waves/translate/sm_unit.txt, sm_stall.txt); chip.smN.warpW.state
// is the slot's WarpActivity.
#pragma once

#include "isa/isa.h"
#include "sim/waveform.h"
#include "sm/issue_stage.h"
#include "sm/warp_state.h"

namespace tessera::sm {

inline const sim::WaveEnum kSmUnitWave{"sm_unit",
                                       {{static_cast<uint64_t>(isa::Unit::kSp), "sp"},
                                        {static_cast<uint64_t>(isa::Unit::kSfu), "sfu"},
                                        {static_cast<uint64_t>(isa::Unit::kLdst), "ldst"},
                                        {static_cast<uint64_t>(isa::Unit::kCtrl), "ctrl"},
                                        {static_cast<uint64_t>(isa::Unit::kDp), "fp64"}}};

inline const sim::WaveEnum kSmStallWave{"sm_stall",
                                        {{static_cast<uint64_t>(Stall::kNone), "none"},
                                         {static_cast<uint64_t>(Stall::kScoreboard), "scoreboard"},
                                         {static_cast<uint64_t>(Stall::kMemory), "memory"},
                                         {static_cast<uint64_t>(Stall::kUnitBusy), "unit_busy"},
                                         {static_cast<uint64_t>(Stall::kBarrier), "barrier"},
                                         {static_cast<uint64_t>(Stall::kNoWarp), "no_warp"}}};

inline const sim::WaveEnum kSmWarpWave{"sm_warp",
                                       {{static_cast<uint64_t>(WarpActivity::kEmpty), "empty"},
                                        {static_cast<uint64_t>(WarpActivity::kActive), "active"},
                                        {static_cast<uint64_t>(WarpActivity::kMemory), "memory"},
                                        {static_cast<uint64_t>(WarpActivity::kBarrier), "barrier"},
                                        {static_cast<uint64_t>(WarpActivity::kExited), "exited"}}};

}  // namespace tessera::sm
