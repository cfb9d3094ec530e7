#include "dram/checker.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::dram {

namespace {
unsigned idx(CommandKind k) { return static_cast<unsigned>(k); }
}  // namespace

ProtocolChecker::ProtocolChecker(const DramSpec& spec) : spec_(spec) {
  const Timing& t = spec.timing;
  const uint64_t bl = spec.org.burst_cycles();
  using K = CommandKind;
  using S = Scope;
  const int64_t rtw = static_cast<int64_t>(t.CL + bl + t.tRTRS) - static_cast<int64_t>(t.CWL);
  rules_ = {
      {"tRCDRD", K::kAct, K::kRd, S::kBank, t.tRCDRD},
      {"tRCDWR", K::kAct, K::kWr, S::kBank, t.tRCDWR},
      {"tRAS", K::kAct, K::kPre, S::kBank, t.tRAS},
      {"tRC", K::kAct, K::kAct, S::kBank, t.tRC},
      {"tRP", K::kPre, K::kAct, S::kBank, t.tRP},
      {"tRP before REFsb", K::kPre, K::kRefSb, S::kBank, t.tRP},
      {"tRP before REFab", K::kPre, K::kRefAb, S::kPseudoChannel, t.tRP},
      {"tRRD_L", K::kAct, K::kAct, S::kBankGroup, t.tRRD_L},
      {"tRRD_S", K::kAct, K::kAct, S::kPseudoChannel, t.tRRD_S},
      {"tCCD_L (RD)", K::kRd, K::kRd, S::kBankGroup, t.tCCD_L},
      {"tCCD_L (WR)", K::kWr, K::kWr, S::kBankGroup, t.tCCD_L},
      {"tCCD_S (RD)", K::kRd, K::kRd, S::kPseudoChannel, t.tCCD_S},
      {"tCCD_S (WR)", K::kWr, K::kWr, S::kPseudoChannel, t.tCCD_S},
      {"data bus: RD burst", K::kRd, K::kRd, S::kPseudoChannel, bl},
      {"data bus: WR burst", K::kWr, K::kWr, S::kPseudoChannel, bl},
      {"tWTR_L (CWL + BL + tWTR_L)", K::kWr, K::kRd, S::kBankGroup, t.CWL + bl + t.tWTR_L},
      {"tWTR_S (CWL + BL + tWTR_S)", K::kWr, K::kRd, S::kPseudoChannel, t.CWL + bl + t.tWTR_S},
      {"read-to-write turnaround (CL + BL + tRTRS - CWL)", K::kRd, K::kWr, S::kPseudoChannel,
       static_cast<uint64_t>(rtw > 1 ? rtw : 1)},
      {"tRTP", K::kRd, K::kPre, S::kBank, t.tRTP},
      {"tWR (CWL + BL + tWR)", K::kWr, K::kPre, S::kBank, t.CWL + bl + t.tWR},
      {"tRFC", K::kRefAb, K::kAct, S::kPseudoChannel, t.tRFC},
      {"tRFC", K::kRefAb, K::kRefAb, S::kPseudoChannel, t.tRFC},
      {"tRFC", K::kRefAb, K::kRefSb, S::kPseudoChannel, t.tRFC},
      {"tRFCSB", K::kRefSb, K::kAct, S::kBank, t.tRFCSB},
      {"tRFCSB", K::kRefSb, K::kRefSb, S::kBank, t.tRFCSB},
      {"tRFCSB before REFab", K::kRefSb, K::kRefAb, S::kPseudoChannel, t.tRFCSB},
      {"tRREFD", K::kRefSb, K::kAct, S::kPseudoChannel, t.tRREFD},
      {"tRREFD", K::kRefSb, K::kRefSb, S::kPseudoChannel, t.tRREFD},
      {"tRRD_L before REFsb", K::kAct, K::kRefSb, S::kBankGroup, t.tRRD_L},
      {"tRRD_S before REFsb", K::kAct, K::kRefSb, S::kPseudoChannel, t.tRRD_S},
  };
  for (const Rule& r : rules_) {
    rules_by_next_[idx(r.next)].push_back(&r);
    // REFab is checked against its pseudo-channel rules only.
    if (r.next == K::kRefAb && r.scope != S::kPseudoChannel) continue;
    std::vector<Bound>& bounds = bounds_by_next_[idx(r.next)];
    const auto d = static_cast<int64_t>(r.distance);
    auto same = std::find_if(bounds.begin(), bounds.end(),
                             [&](const Bound& b) { return b.scope == r.scope && b.prev == r.prev; });
    if (same == bounds.end())
      bounds.push_back(Bound{r.scope, r.prev, d});
    else
      same->distance = std::max(same->distance, d);
  }
  Last never;
  never.fill(kLongAgo);
  const unsigned pcs = spec.channels() * spec.org.pseudo_channels;
  banks_.assign(static_cast<size_t>(pcs) * spec.org.banks_per_pc(), Bank{never, false, 0});
  groups_.assign(static_cast<size_t>(pcs) * spec.org.bank_groups, never);
  Pc pc;
  pc.last = never;
  pc.acts.fill(kLongAgo);
  pcs_.assign(pcs, pc);
  channels_.assign(spec.channels(), Channel{});
}

void ProtocolChecker::report(uint64_t cycle, const std::string& rule, const std::string& detail) {
  ++count_;
  if (kept_.size() < 100) kept_.push_back(Violation{cycle, rule, detail});
}

std::string ProtocolChecker::where(const Command& c) const {
  if (c.kind == CommandKind::kRefAb) return fmt::format("{} ch{} pc{}", to_string(c.kind), c.channel, c.pc);
  return fmt::format("{} ch{} pc{} bg{} ba{} row {}", to_string(c.kind), c.channel, c.pc, c.bank_group, c.bank, c.row);
}

void ProtocolChecker::check_rules(const Command& c, const Bank& bank, const Last& group, const Pc& pc) {
  const auto now = static_cast<int64_t>(c.cycle);
  for (const Rule* r : rules_by_next_[idx(c.kind)]) {
    int64_t last = kLongAgo;
    if (c.kind == CommandKind::kRefAb && r->scope != Scope::kPseudoChannel) continue;
    switch (r->scope) {
      case Scope::kBank:
        last = bank.last[idx(r->prev)];
        break;
      case Scope::kBankGroup:
        last = group[idx(r->prev)];
        break;
      case Scope::kPseudoChannel:
        last = pc.last[idx(r->prev)];
        break;
    }
    if (last != kLongAgo && now - last < static_cast<int64_t>(r->distance))
      report(c.cycle, r->name,
             fmt::format("{}: {} cycles after {} at {}, needs {}", where(c), now - last, to_string(r->prev), last,
                         r->distance));
  }
}

void ProtocolChecker::on_command(const Command& c) {
  ++commands_;
  const auto now = static_cast<int64_t>(c.cycle);
  if (c.channel >= channels_.size() || c.pc >= spec_.org.pseudo_channels || c.bank_group >= spec_.org.bank_groups ||
      c.bank >= spec_.org.banks_per_group) {
    report(c.cycle, "address", where(c) + ": no such channel, pseudo channel or bank");
    return;
  }
  const unsigned pc_index = c.channel * spec_.org.pseudo_channels + c.pc;
  const unsigned group_index = pc_index * spec_.org.bank_groups + c.bank_group;
  const unsigned bank_index = group_index * spec_.org.banks_per_group + c.bank;
  Pc& pc = pcs_[pc_index];
  Last& group = groups_[group_index];
  Bank& bank = banks_[bank_index];
  Channel& ch = channels_[c.channel];

  // Command buses: one row and one column command per cycle; ACT holds the
  // row bus for tACT_BUS cycles.
  if (is_column_command(c.kind)) {
    if (now - ch.last_column < 1) report(c.cycle, "column bus", where(c) + ": second column command in one cycle");
    ch.last_column = now;
  } else {
    const int64_t busy = ch.last_row_kind == CommandKind::kAct ? spec_.timing.tACT_BUS : 1;
    if (now - ch.last_row < busy)
      report(c.cycle, "row bus",
             fmt::format("{}: row bus busy with {} issued at {}", where(c), to_string(ch.last_row_kind), ch.last_row));
    ch.last_row = now;
    ch.last_row_kind = c.kind;
  }

  // Timing rules: the bounds first, each rule only when one fails.
  const int64_t* const last_in[3] = {bank.last.data(), group.data(), pc.last.data()};  // in Scope order
  bool suspect = false;
  for (const Bound& b : bounds_by_next_[idx(c.kind)])
    suspect |= now - last_in[static_cast<unsigned>(b.scope)][idx(b.prev)] < b.distance;
  if (suspect) check_rules(c, bank, group, pc);
  if (c.kind == CommandKind::kAct) {
    const int64_t fourth = pc.acts[pc.act_pos];  // the oldest of the last four
    if (fourth != kLongAgo && now - fourth < static_cast<int64_t>(spec_.timing.tFAW))
      report(c.cycle, "tFAW",
             fmt::format("{}: fifth ACT {} cycles after the ACT at {}, needs {}", where(c), now - fourth, fourth,
                         spec_.timing.tFAW));
    pc.acts[pc.act_pos] = now;
    pc.act_pos = (pc.act_pos + 1) % 4;
  }

  // State rules.
  const unsigned first_bank = pc_index * spec_.org.banks_per_pc();
  switch (c.kind) {
    case CommandKind::kAct:
      if (bank.open) report(c.cycle, "ACT to an open bank", fmt::format("{}: row {} is open", where(c), bank.row));
      bank.open = true;
      bank.row = c.row;
      break;
    case CommandKind::kPre:
      bank.open = false;  // PRE to a precharged bank is a legal no-op
      break;
    case CommandKind::kRd:
    case CommandKind::kWr:
      if (!bank.open)
        report(c.cycle, "column command to a closed bank", where(c));
      else if (bank.row != c.row)
        report(c.cycle, "column command to a row that is not open",
               fmt::format("{}: row {} is open", where(c), bank.row));
      break;
    case CommandKind::kRefAb:
      for (unsigned b = 0; b < spec_.org.banks_per_pc(); ++b)
        if (banks_[first_bank + b].open)
          report(c.cycle, "REFab with a bank open",
                 fmt::format("{}: bank {} has row {} open", where(c), b, banks_[first_bank + b].row));
      ++pc.refab;
      break;
    case CommandKind::kRefSb:
      if (bank.open) report(c.cycle, "REFsb to an open bank", fmt::format("{}: row {} is open", where(c), bank.row));
      ++pc.refsb;
      break;
  }

  // Record.
  if (c.kind == CommandKind::kRefAb) {
    for (unsigned b = 0; b < spec_.org.banks_per_pc(); ++b) banks_[first_bank + b].last[idx(c.kind)] = now;
    for (unsigned g = 0; g < spec_.org.bank_groups; ++g)
      groups_[pc_index * spec_.org.bank_groups + g][idx(c.kind)] = now;
  } else {
    bank.last[idx(c.kind)] = now;
    group[idx(c.kind)] = now;
  }
  pc.last[idx(c.kind)] = now;
}

void ProtocolChecker::finish(uint64_t end) {
  // Every bank needs a refresh every tREFI; up to 8 refreshes may be
  // postponed (the allowance of JESD79-4 §4.9, which Tessera applies to HBM).
  const uint64_t banks = spec_.org.banks_per_pc();
  const uint64_t owed = end / spec_.timing.tREFI;
  if (owed <= 8) return;
  for (size_t i = 0; i < pcs_.size(); ++i) {
    const uint64_t bank_refreshes = pcs_[i].refab * banks + pcs_[i].refsb;
    if (bank_refreshes < (owed - 8) * banks)
      report(end, "refresh rate",
             fmt::format("ch{} pc{}: {} REFab + {} REFsb in {} cycles; every bank needs {} (tREFI {}, 8 postponed)",
                         i / spec_.org.pseudo_channels, i % spec_.org.pseudo_channels, pcs_[i].refab, pcs_[i].refsb,
                         end, owed - 8, spec_.timing.tREFI));
  }
}

}  // namespace tessera::dram
