// IDD-based DRAM energy (the method of DRAMPower: Chandrasekar et al.,
// "Improved Power Modeling of DDR SDRAMs", DSD 2011). From the command
// stream alone:
//   ACT+PRE pair  (IDD0 x tRC - IDD3N x tRAS - IDD2N x (tRC - tRAS)) x VDD
//   RD burst      (IDD4R - IDD3N) x VDD x burst time
//   WR burst      (IDD4W - IDD3N) x VDD x burst time
//   REFab         (IDD5AB - IDD3N) x VDD x tRFC
//   REFsb         REFab / banks (it refreshes one bank's share of the rows)
//   background    IDD3N x VDD while any bank of the PC is open, else IDD2N
// The currents are per channel (all its pseudo channels), so each PC is
// charged 1 / pseudo_channels of them. mA x V x ns = pJ.
#pragma once

#include <cstdint>
#include <vector>

#include "dram/command.h"
#include "dram/spec.h"

namespace tessera::dram {

struct EnergyBreakdown {
  double act_pj = 0, read_pj = 0, write_pj = 0, refresh_pj = 0, background_pj = 0;
  double total_pj() const { return act_pj + read_pj + write_pj + refresh_pj + background_pj; }
};

class EnergyModel final : public CommandObserver {
 public:
  explicit EnergyModel(const DramSpec& spec);
  void on_command(const Command& cmd) override;
  // Closes the background intervals at `end` (call once, at the end).
  void finish(uint64_t end);
  const EnergyBreakdown& energy() const { return e_; }
  // Per-command energies, for tests and docs.
  double act_pre_pj() const { return act_pj_; }
  double read_burst_pj() const { return rd_pj_; }
  double write_burst_pj() const { return wr_pj_; }
  double refab_pj() const { return ref_pj_; }

 private:
  struct PcState {
    unsigned open = 0;   // banks open
    uint64_t since = 0;  // start of the current background interval
  };
  void background(PcState& pc, uint64_t now);

  double act_pj_, rd_pj_, wr_pj_, ref_pj_, refsb_pj_;
  double active_pj_per_cycle_, precharged_pj_per_cycle_;
  unsigned pcs_, banks_per_pc_, banks_per_group_;
  std::vector<PcState> pcs_state_;
  std::vector<uint8_t> open_;  // per bank
  EnergyBreakdown e_;
};

}  // namespace tessera::dram
