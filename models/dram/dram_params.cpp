#include "dram/dram_params.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::dram {

DramConfig load_dram_config(sim::Config& cfg, const std::string& p) {
  DramConfig c;
  const std::string spec_name =
      cfg.get_enum(p + "spec", "hbm2", preset_names(), "HBM speed bin preset (models/dram/presets/*.yaml)");
  c.spec = load_preset(spec_name);
  c.spec.stacks = static_cast<unsigned>(cfg.get_int(p + "stacks", 1, 1, 64, "HBM stacks (a power of two)"));
  if (c.spec.stacks & (c.spec.stacks - 1))
    throw sim::ConfigError(
        fmt::format("{}stacks = {} must be a power of two (the address map slices it)", p, c.spec.stacks));
  for (const auto& name : timing_names()) {
    unsigned& field = timing_field(c.spec.timing, name);
    field = static_cast<unsigned>(cfg.get_int(p + "timing." + name, field, 0, 10000000,
                                              fmt::format("{} in tCK (default: the {} preset)", name, spec_name)));
  }
  ControllerParams& k = c.controller;
  k.scheduler = cfg.get_enum(p + "scheduler", k.scheduler, scheduler_names(), "Request scheduler");
  k.page_policy = cfg.get_enum(p + "page_policy", k.page_policy, page_policy_names(), "Row-buffer policy");
  k.refresh = cfg.get_enum(p + "refresh", k.refresh, refresh_names(), "Refresh: all-bank REFab or per-bank REFsb");
  const auto& stagger_names = refresh_stagger_names();
  const std::string stagger = cfg.get_enum(
      p + "refresh_stagger", stagger_names[static_cast<size_t>(k.refresh_stagger)], stagger_names,
      "Refresh phases: none (all at once), pseudo_channels (a channel's pseudo channels apart, every channel's "
      "k-th together), all (every pseudo channel apart)");
  k.refresh_stagger = static_cast<RefreshStagger>(std::find(stagger_names.begin(), stagger_names.end(), stagger) -
                                                  stagger_names.begin());
  k.refresh_postpone = static_cast<unsigned>(
      cfg.get_int(p + "refresh_postpone", k.refresh_postpone, 1, 8,
                  "Refreshes a busy pseudo channel may owe before one is forced (1: never postpone; JEDEC allows 8)"));
  k.read_queue = static_cast<unsigned>(
      cfg.get_int(p + "read_queue", k.read_queue, 1, 4096, "Read queue entries (bursts) per pseudo channel"));
  k.write_queue = static_cast<unsigned>(
      cfg.get_int(p + "write_queue", k.write_queue, 1, 4096, "Write queue entries (bursts) per pseudo channel"));
  k.write_high_watermark =
      static_cast<unsigned>(cfg.get_int(p + "write_high_watermark", k.write_high_watermark, 1, 4096,
                                        "Writes queued for a pseudo channel that start its write drain"));
  k.write_low_watermark =
      static_cast<unsigned>(cfg.get_int(p + "write_low_watermark", k.write_low_watermark, 0, 4096,
                                        "Writes queued for a pseudo channel at which its write drain stops"));
  // Every registered scheduler's parameters (each its own key), whichever
  // scheduler is chosen, as the other policies' keys are.
  for (const SchedulerInfo* info : schedulers())
    for (const SchedulerParam& sp : info->params)
      k.scheduler_params[sp.key] = cfg.get_int(p + sp.key, sp.def, sp.lo, sp.hi, sp.description);
  k.adaptive_timeout =
      static_cast<uint64_t>(cfg.get_int(p + "adaptive_timeout", static_cast<int64_t>(k.adaptive_timeout), 0, 1000000,
                                        "Adaptive page policy: idle cycles before an unwanted open row closes"));
  c.address_map = cfg.get_string(p + "address_map", c.address_map,
                                 "Address bit fields, most significant first (st ch pc bg ba ro co)");
  c.xor_bank_hash = cfg.get_bool(p + "xor_bank_hash", c.xor_bank_hash, "XOR low row bits into bank and bank group");
  c.skip_idle =
      cfg.get_bool(p + "skip_idle", c.skip_idle, "Jump to the next legal command time instead of deciding every cycle");
  c.logic_layer_cycles = static_cast<unsigned>(
      cfg.get_int(p + "logic_layer_cycles", c.logic_layer_cycles, 0, 10000,
                  "Base (logic) die PHY + TSV crossing added to every access, tCK (implementation-defined)"));
  if (k.write_high_watermark > k.write_queue)
    throw sim::ConfigError(
        fmt::format("{}write_high_watermark ({}) > {}write_queue ({})", p, k.write_high_watermark, p, k.write_queue));
  if (k.write_low_watermark >= k.write_high_watermark)
    throw sim::ConfigError(fmt::format("{}write_low_watermark ({}) must be below {}write_high_watermark ({})", p,
                                       k.write_low_watermark, p, k.write_high_watermark));
  validate(c.spec);
  AddressMap check(c.spec, c.address_map, c.xor_bank_hash);  // reports a bad order string now
  return c;
}

}  // namespace tessera::dram
