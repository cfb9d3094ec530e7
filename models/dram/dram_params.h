// Reads a DramConfig from sim::Config parameters under a key prefix
// ("dram." by default): dram.spec, dram.stacks, dram.scheduler,
// dram.page_policy, dram.refresh, dram.address_map, dram.xor_bank_hash, the
// queue sizes and watermarks, dram.skip_idle and one dram.timing.<name>
// override per timing parameter (default: the preset's value).
#pragma once

#include <string>

#include "dram/memory_system.h"
#include "sim/config.h"

namespace tessera::dram {

DramConfig load_dram_config(sim::Config& cfg, const std::string& prefix = "dram.");

}  // namespace tessera::dram
