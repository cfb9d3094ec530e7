// Random coherence tester, in the spirit of gem5 Ruby's random tester:
// seeded random loads, stores, AMOs, LR/SC pairs, fences and instruction
// fetches from every core to a few lines that all map to one cache set (so
// lines are evicted and written back all the time) and that every core
// shares at random byte offsets (false sharing). The cluster's independent
// checker validates every access; the tester only drives and reports.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bus/cluster.h"

namespace tessera::bus {

struct TesterParams {
  uint64_t seed = 1;
  uint64_t ops = 100000;      // operations to complete (LR and SC count one each)
  uint32_t lines = 8;         // distinct lines touched
  uint32_t think_cycles = 4;  // a core waits 0..think_cycles between operations
  uint32_t memory_latency = 20;
  // Mix in percent; the rest are fences. Fetches are issued on the fetch
  // port beside the data operations.
  uint32_t load_pct = 40, store_pct = 30, amo_pct = 10, lrsc_pct = 10;
  uint32_t fetch_pct = 10;
  // Transactions (--htm): the chance in percent that a core's next data
  // operation begins a transaction of 1..tx_max_ops loads, stores and AMOs
  // (then a commit); an aborted transaction rolls back and runs again
  // (with a random back-off) until it commits.
  uint32_t tx_pct = 0;
  uint32_t tx_max_ops = 4;
  uint32_t tx_backoff = 4;  // base of the random back-off before a retry (0: retry at once)
  static TesterParams from_config(sim::Config& cfg);
};

struct TesterResult {
  bool passed = false;
  std::string failure;  // the first violation, deadlock or protocol error
  mem::CoherenceFailure::Kind failure_kind = mem::CoherenceFailure::Kind::kNone;
  uint64_t ops = 0;
  uint64_t cycles = 0;
  uint64_t tx_committed = 0, tx_aborted = 0;
  double host_seconds = 0;
};

class RandomTester {
 public:
  RandomTester(const ClusterParams& cluster, const TesterParams& tester,
               std::optional<mem::ProtocolTable> table = std::nullopt, sim::StatGroup* stats_parent = nullptr);
  ~RandomTester();
  // Runs to completion; `progress(ops_done, cycle)` is called every
  // `progress_every` operations when given.
  TesterResult run(const std::function<void(uint64_t, uint64_t)>& progress = {}, uint64_t progress_every = 0);
  Cluster& cluster() { return *cluster_; }
  uint64_t memory_bytes() const { return memory_bytes_; }

 private:
  struct CoreState;
  uint64_t random(uint64_t n);  // uniform in [0, n)
  void issue_data(uint32_t core);
  void issue_tx(uint32_t core);
  static constexpr uint32_t kLogBytes = 4096;  // each core's undo log
  void issue_fetch(uint32_t core);
  uint64_t pick_addr(uint32_t size);

  ClusterParams cluster_params_;
  TesterParams params_;
  uint64_t stride_;
  uint64_t memory_bytes_;
  uint64_t log_base_ = 0;
  std::unique_ptr<mem::SimpleMemory> memory_;
  std::unique_ptr<Cluster> cluster_;
  std::vector<CoreState> cores_;
  uint64_t rng_state_;
  uint64_t issued_ = 0, completed_ = 0;
  uint64_t tx_committed_ = 0, tx_aborted_ = 0;
};

}  // namespace tessera::bus
