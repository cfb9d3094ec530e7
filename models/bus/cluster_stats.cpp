// The cluster's statistics: the bus, the bridge, every cache and every
// core's transactions, and their sums over the cluster.
#include <fmt/format.h>

#include <functional>

#include "bus/cluster.h"
#include "sim/stats.h"

namespace tessera::bus {

using mem::BusOp;

void Cluster::register_stats(sim::StatGroup* parent) {
  stats_ = std::make_unique<sim::StatGroup>("cluster", parent);
  stats_->add_counter("ops_completed", &counters_.ops_completed, "processor operations completed");
  stats_->add_counter("store_buffer_forwards", &counters_.sb_forwards, "loads served by the store buffer");
  bus_stats_ = std::make_unique<sim::StatGroup>("bus", stats_.get());
  sim::StatGroup& bus = *bus_stats_;
  for (size_t op = 1; op < static_cast<size_t>(BusOp::kCount); ++op)
    bus.add_counter(mem::bus_op_name(static_cast<BusOp>(op)), &counters_.bus_ops[op],
                    "transactions of this kind ordered on the bus");
  bus.add_counter("cache_to_cache", &counters_.cache_to_cache, "lines supplied by a cache to a cache");
  bus.add_counter("nacks", &counters_.nacks, "requests refused because a receiver's buffer was full");
  bus.add_counter("wb_snoop_hits", &counters_.wb_snoop_hits, "snoops answered by a write-back buffer");
  bus.add_counter("data_beats", &counters_.data_beats, "response bus cycles carrying data");
  bus.add_counter("request_busy_cycles", &counters_.request_bus_busy, "request bus cycles in use");
  bus.add_maximum("max_grant_wait", &counters_.max_grant_wait, "longest wait for a request grant, cycles");
  bridge_stats_ = std::make_unique<sim::StatGroup>("bridge", stats_.get());
  bridge_stats_->add_counter("memory_reads", &counters_.memory_reads, "lines supplied by memory through the bridge");
  bridge_stats_->add_counter("memory_writes", &counters_.memory_writes, "write-backs and flushes reaching memory");
  for (uint32_t c = 0; c < params_.cores; ++c)
    core_stats_.push_back(std::make_unique<sim::StatGroup>(fmt::format("core{}", c), stats_.get()));
  for (auto& a : agents_) {
    auto g = std::make_unique<sim::StatGroup>(a->id % 2 ? "l1i" : "l1d", core_stats_[a->id / 2].get());
    g->add_counter("hits", &a->counters.hits, "accesses performed without a bus transaction");
    g->add_counter("misses", &a->counters.misses, "accesses that needed a bus transaction");
    g->add_counter("bus_transactions", &a->counters.bus_transactions, "transactions this cache had ordered");
    g->add_counter("invalidations", &a->counters.invalidations, "copies lost to another cache's transaction");
    g->add_counter("nacked", &a->counters.nacked, "this cache's requests that were NACKed");
    g->add_maximum("grant_wait_max", &a->counters.grant_wait_max, "longest wait for a request grant, cycles");
    agent_stats_.push_back(std::move(g));
  }
  // HTM, per core and summed over the cluster.
  for (uint32_t c = 0; c < params_.cores; ++c) {
    HtmCounters& k = agents_[l1d_agent(c)]->tx.counters;
    auto g = std::make_unique<sim::StatGroup>("htm", core_stats_[c].get());
    g->add_counter("started", &k.started, "transactions begun (each retry counts)");
    g->add_counter("committed", &k.committed, "transactions committed");
    for (size_t r = 1; r < static_cast<size_t>(TxReason::kCount); ++r)
      g->add_counter(fmt::format("aborts_{}", tx_reason_name(static_cast<TxReason>(r))), &k.aborts[r],
                     "transactions aborted for this reason");
    g->add_counter("committed_cycles", &k.committed_cycles, "cycles from begin to commit of committed transactions");
    g->add_counter("aborted_cycles", &k.aborted_cycles, "cycles from begin to abort of aborted transactions (wasted)");
    g->add_counter("rollback_cycles", &k.rollback_cycles, "cycles walking the undo log back after aborts (eager)");
    g->add_counter("undo_log_bytes", &k.undo_log_bytes, "bytes written to the undo log (eager)");
    g->add_counter("commit_bus_transactions", &k.commit_bus_transactions,
                   "bus transactions ordered while committing (acquiring and publishing the write set)");
    g->add_counter("conflict_nacks", &k.conflict_nacks, "this core's requests refused by another's transaction");
    g->add_counter("fallback_locks", &k.fallback_locks,
                   "fallback-lock acquisitions reported by firmware (CSR txfallback)");
    htm_stats_.push_back(std::move(g));
  }
  auto total = std::make_unique<sim::StatGroup>("htm", stats_.get());
  auto sum = [this](std::function<uint64_t(const HtmCounters&)> get) {
    return [this, get = std::move(get)]() {
      uint64_t n = 0;
      for (uint32_t c = 0; c < params_.cores; ++c) n += get(agents_[l1d_agent(c)]->tx.counters);
      return static_cast<double>(n);
    };
  };
  total->add_formula("started", sum([](const HtmCounters& k) { return k.started; }), "transactions begun, all cores");
  total->add_formula("committed", sum([](const HtmCounters& k) { return k.committed; }),
                     "transactions committed, all cores");
  total->add_formula("aborted", sum([](const HtmCounters& k) {
                       uint64_t n = 0;
                       for (uint64_t a : k.aborts) n += a;
                       return n;
                     }),
                     "transactions aborted, all cores");
  for (size_t r = 1; r < static_cast<size_t>(TxReason::kCount); ++r)
    total->add_formula(fmt::format("aborts_{}", tx_reason_name(static_cast<TxReason>(r))),
                       sum([r](const HtmCounters& k) { return k.aborts[r]; }),
                       "transactions aborted for this reason, all cores");
  total->add_formula("aborted_cycles", sum([](const HtmCounters& k) { return k.aborted_cycles; }),
                     "wasted cycles in aborted transactions, all cores");
  total->add_formula("commit_bus_transactions", sum([](const HtmCounters& k) { return k.commit_bus_transactions; }),
                     "bus transactions ordered while committing, all cores");
  total->add_formula("fallback_locks", sum([](const HtmCounters& k) { return k.fallback_locks; }),
                     "fallback-lock acquisitions, all cores");
  htm_stats_.push_back(std::move(total));
}

}  // namespace tessera::bus
