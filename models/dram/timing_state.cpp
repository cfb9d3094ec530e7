#include "dram/timing_state.h"

#include <algorithm>

namespace tessera::dram {

TimingState::TimingState(const DramSpec& spec)
    : t_(spec.timing),
      burst_(spec.org.burst_cycles()),
      bank_groups_(spec.org.bank_groups),
      banks_per_group_(spec.org.banks_per_group),
      bank_next_(size_t{spec.org.pseudo_channels} * spec.org.banks_per_pc() * kCommandKinds, 0),
      pc_(spec.org.pseudo_channels),
      act_window_(spec.org.pseudo_channels),
      act_window_pos_(spec.org.pseudo_channels, 0),
      act_count_(spec.org.pseudo_channels, 0) {}

void TimingState::issue(const Command& c) {
  using K = CommandKind;
  const uint64_t t = c.cycle;
  Next& pc = pc_[c.pc];
  switch (c.kind) {
    case K::kAct: {
      const unsigned bank = bank_index(c.pc, c.bank_group, c.bank);
      push_bank(bank, K::kRd, t + t_.tRCDRD);
      push_bank(bank, K::kWr, t + t_.tRCDWR);
      push_bank(bank, K::kPre, t + t_.tRAS);
      push_bank(bank, K::kAct, t + t_.tRC);
      push_group(c.pc, c.bank_group, K::kAct, t + t_.tRRD_L);
      push_group(c.pc, c.bank_group, K::kRefSb, t + t_.tRRD_L);
      pc.push(K::kAct, t + t_.tRRD_S);
      pc.push(K::kRefSb, t + t_.tRRD_S);
      act_window_[c.pc][act_window_pos_[c.pc]] = t;
      act_window_pos_[c.pc] = (act_window_pos_[c.pc] + 1) % 4;
      ++act_count_[c.pc];
      // tFAW: the oldest of the last four ACTs opens the window for a fifth.
      // It only moves later, so pushing it keeps the same maximum as taking
      // it into account in every floor().
      if (act_count_[c.pc] >= 4) pc.push(K::kAct, act_window_[c.pc][act_window_pos_[c.pc]] + t_.tFAW);
      row_bus_free_ = std::max(row_bus_free_, t + t_.tACT_BUS);
      break;
    }
    case K::kPre: {
      const unsigned bank = bank_index(c.pc, c.bank_group, c.bank);
      push_bank(bank, K::kAct, t + t_.tRP);
      push_bank(bank, K::kRefSb, t + t_.tRP);
      pc.push(K::kRefAb, t + t_.tRP);
      row_bus_free_ = std::max(row_bus_free_, t + 1);
      break;
    }
    case K::kRd: {
      const unsigned bank = bank_index(c.pc, c.bank_group, c.bank);
      push_group(c.pc, c.bank_group, K::kRd, t + t_.tCCD_L);
      pc.push(K::kRd, t + std::max(t_.tCCD_S, burst_));
      // Read-to-write turnaround: the write's data (CWL later) must follow
      // the read's data (CL + burst later) plus the bus turnaround.
      const uint64_t rtw = t + t_.CL + burst_ + t_.tRTRS;
      pc.push(K::kWr, rtw > t + t_.CWL ? rtw - t_.CWL : t + 1);
      push_bank(bank, K::kPre, t + t_.tRTP);
      column_bus_free_ = std::max(column_bus_free_, t + 1);
      break;
    }
    case K::kWr: {
      const unsigned bank = bank_index(c.pc, c.bank_group, c.bank);
      push_group(c.pc, c.bank_group, K::kWr, t + t_.tCCD_L);
      push_group(c.pc, c.bank_group, K::kRd, t + t_.CWL + burst_ + t_.tWTR_L);
      pc.push(K::kWr, t + std::max(t_.tCCD_S, burst_));
      pc.push(K::kRd, t + t_.CWL + burst_ + t_.tWTR_S);
      push_bank(bank, K::kPre, t + t_.CWL + burst_ + t_.tWR);
      column_bus_free_ = std::max(column_bus_free_, t + 1);
      break;
    }
    case K::kRefAb:
      pc.push(K::kAct, t + t_.tRFC);
      pc.push(K::kRefAb, t + t_.tRFC);
      pc.push(K::kRefSb, t + t_.tRFC);
      row_bus_free_ = std::max(row_bus_free_, t + 1);
      break;
    case K::kRefSb: {
      const unsigned bank = bank_index(c.pc, c.bank_group, c.bank);
      push_bank(bank, K::kAct, t + t_.tRFCSB);
      push_bank(bank, K::kRefSb, t + t_.tRFCSB);
      pc.push(K::kAct, t + t_.tRREFD);
      pc.push(K::kRefSb, t + t_.tRREFD);
      // An all-bank refresh needs every bank refreshed-out as well.
      pc.push(K::kRefAb, t + t_.tRFCSB);
      row_bus_free_ = std::max(row_bus_free_, t + 1);
      break;
    }
  }
}

}  // namespace tessera::dram
