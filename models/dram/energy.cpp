#include "dram/energy.h"

namespace tessera::dram {

EnergyModel::EnergyModel(const DramSpec& spec)
    : pcs_(spec.org.pseudo_channels),
      banks_per_pc_(spec.org.banks_per_pc()),
      banks_per_group_(spec.org.banks_per_group) {
  const Timing& t = spec.timing;
  const Power& p = spec.power;
  const double tck_ns = spec.tck_ps / 1000.0;
  const double share = 1.0 / spec.org.pseudo_channels;
  const double burst_ns = spec.org.burst_cycles() * tck_ns;
  act_pj_ = (p.IDD0 * t.tRC - p.IDD3N * t.tRAS - p.IDD2N * (t.tRC - t.tRAS)) * tck_ns * p.VDD * share;
  rd_pj_ = (p.IDD4R - p.IDD3N) * p.VDD * burst_ns * share;
  wr_pj_ = (p.IDD4W - p.IDD3N) * p.VDD * burst_ns * share;
  ref_pj_ = (p.IDD5AB - p.IDD3N) * p.VDD * t.tRFC * tck_ns * share;
  refsb_pj_ = ref_pj_ / spec.org.banks_per_pc();
  active_pj_per_cycle_ = p.IDD3N * p.VDD * tck_ns * share;
  precharged_pj_per_cycle_ = p.IDD2N * p.VDD * tck_ns * share;
  pcs_state_.assign(static_cast<size_t>(spec.channels()) * pcs_, PcState{});
  open_.assign(pcs_state_.size() * banks_per_pc_, 0);
}

void EnergyModel::background(PcState& pc, uint64_t now) {
  const double cycles = static_cast<double>(now - pc.since);
  e_.background_pj += cycles * (pc.open ? active_pj_per_cycle_ : precharged_pj_per_cycle_);
  pc.since = now;
}

void EnergyModel::on_command(const Command& c) {
  const size_t pc_index = static_cast<size_t>(c.channel) * pcs_ + c.pc;
  PcState& pc = pcs_state_[pc_index];
  const size_t first = pc_index * banks_per_pc_;
  const size_t b = first + static_cast<size_t>(c.bank_group) * banks_per_group_ + c.bank;
  switch (c.kind) {
    case CommandKind::kAct:
      e_.act_pj += act_pj_;
      if (!open_[b]) {
        if (pc.open == 0) background(pc, c.cycle);
        open_[b] = 1;
        ++pc.open;
      }
      break;
    case CommandKind::kPre:  // its energy is part of the ACT+PRE pair
      if (open_[b]) {
        if (pc.open == 1) background(pc, c.cycle);  // the active interval ends
        open_[b] = 0;
        --pc.open;
      }
      break;
    case CommandKind::kRd:
      e_.read_pj += rd_pj_;
      break;
    case CommandKind::kWr:
      e_.write_pj += wr_pj_;
      break;
    case CommandKind::kRefAb:
      e_.refresh_pj += ref_pj_;
      break;
    case CommandKind::kRefSb:
      e_.refresh_pj += refsb_pj_;
      break;
  }
}

void EnergyModel::finish(uint64_t end) {
  for (auto& pc : pcs_state_) background(pc, end);
}

}  // namespace tessera::dram
