// The cluster.* parameters: declared, range-checked and cross-checked here so
// `--list` documents them and mistakes name the key.
#include <fmt/format.h>

#include "bus/cluster.h"
#include "sim/config.h"

namespace tessera::bus {

ClusterParams ClusterParams::from_config(sim::Config& cfg) {
  ClusterParams p;
  p.cores = static_cast<uint32_t>(cfg.get_int("cluster.cores", 4, 1, 16, "control cores in the coherent cluster"));
  p.protocol = mem::parse_protocol(
      cfg.get_enum("cluster.protocol", "mesi", mem::protocol_names(), "snooping coherence protocol of the L1 caches"));
  auto geometry = [&cfg](const std::string& prefix, const std::string& what, int64_t line_default) {
    const auto kb = cfg.get_int(prefix + ".size_kb", 32, 1, 4096, what + " capacity in KiB");
    const auto ways = cfg.get_int(prefix + ".ways", 4, 1, 64, what + " associativity");
    const auto line = cfg.get_int(prefix + ".line_bytes", line_default, 4, 1024, what + " line size in bytes");
    return mem::CacheGeometry::make(prefix, static_cast<uint32_t>(kb * 1024), static_cast<uint32_t>(ways),
                                    static_cast<uint32_t>(line));
  };
  p.l1d = geometry("cluster.l1d", "L1 data cache", 64);
  p.l1i = geometry("cluster.l1i", "L1 instruction cache", 64);
  if (p.l1i.line_bytes != p.l1d.line_bytes)
    throw sim::ConfigError(
        fmt::format("cluster.l1i.line_bytes: {} differs from cluster.l1d.line_bytes {}; "
                    "both caches snoop the same bus and need one coherence granule",
                    p.l1i.line_bytes, p.l1d.line_bytes));
  p.hit_latency =
      static_cast<uint32_t>(cfg.get_int("cluster.l1.hit_latency", 1, 1, 64, "cycles from an L1 hit to completion"));
  p.arbiter = cfg.get_enum("cluster.bus.arbiter", "round_robin", arbiter_names(),
                           "request and response bus arbitration policy");
  p.request_table = static_cast<uint32_t>(
      cfg.get_int("cluster.bus.request_table", 8, 1, 64, "outstanding tagged bus transactions, system-wide"));
  p.width_bits =
      static_cast<uint32_t>(cfg.get_int("cluster.bus.width_bits", 256, 8, 4096, "data (response) bus width in bits"));
  const uint32_t line_bits = p.l1d.line_bytes * 8;
  if ((p.width_bits & (p.width_bits - 1)) != 0 || line_bits % p.width_bits != 0)
    throw sim::ConfigError(fmt::format("cluster.bus.width_bits: {} is not a power of two dividing the {}-bit line",
                                       p.width_bits, line_bits));
  p.snoop_latency = static_cast<uint32_t>(
      cfg.get_int("cluster.bus.snoop_latency", 2, 1, 64, "cycles from a request grant to the snoop result"));
  p.nack_backoff = static_cast<uint32_t>(
      cfg.get_int("cluster.bus.nack_backoff", 4, 1, 1024, "cycles a NACKed requester waits before retrying"));
  p.response_queue_entries = static_cast<uint32_t>(cfg.get_int(
      "cluster.bus.response_queue_entries", 2, 1, 64, "outgoing data responses a cache controller can buffer"));
  p.bridge_queue_entries = static_cast<uint32_t>(cfg.get_int(
      "cluster.bridge.queue_entries", 4, 1, 256, "memory reads and write-backs the bridge can hold at once"));
  p.tso = cfg.get_enum("cluster.store_buffer", "sc", {"sc", "tso"},
                       "memory consistency: sc (no store buffer) or tso (FIFO store buffer)") == "tso";
  p.store_buffer_entries = static_cast<uint32_t>(
      cfg.get_int("cluster.store_buffer_entries", 8, 1, 64, "store buffer entries per core (tso)"));
  p.wb_buffer_entries =
      static_cast<uint32_t>(cfg.get_int("cluster.wb_buffer_entries", 2, 1, 64, "write-back buffer entries per cache"));
  p.skip_idle = cfg.get_bool("cluster.skip_idle", true, "skip cycles in which nothing can happen");
  p.deadlock_cycles = static_cast<uint64_t>(
      cfg.get_int("cluster.deadlock_cycles", 100000, 100, 1000000000,
                  "cycles without any access performed that count as deadlock (at least 8 memory read latencies)"));
  p.check = cfg.get_bool("cluster.check", true, "check coherence and values on every access");
  p.htm = HtmParams::from_config(cfg, p.l1d.line_bytes);
  return p;
}

ClusterParams ClusterParams::for_chip(sim::Config& cfg) {
  const auto memory_latency = static_cast<uint32_t>(
      cfg.get_int("cluster.memory_latency", 120, 1, 100000,
                  "Cycles from a cluster line read reaching the bridge to its data (stands for the L2 path)"));
  const bool launch_coherence = cfg.get_bool(
      "cluster.launch_coherence", true,
      "Write back and invalidate the cluster's caches at kernel launch and completion (off only to show the need)");
  ClusterParams p = from_config(cfg);
  p.memory_latency = memory_latency;
  p.launch_coherence = launch_coherence;
  return p;
}

}  // namespace tessera::bus
