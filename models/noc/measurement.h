// Latency and throughput measurement following BookSim (Dally & Towles
// ch. 24; BookSim2's TrafficManager::_SingleSim): a warm-up, then sample
// periods of noc.sample_cycles; packets created after the warm-up are
// measured. After each sample the cumulative mean latency of the measured
// packets and the accepted throughput since the window began are compared
// with the previous sample's; the window ends once both changed by at most
// noc.converge in noc.converge_samples successive samples. The run is
// saturated when it did not converge within noc.max_samples samples, when
// the mean latency of the measured packets, those still in the network
// counted at their age, exceeds noc.latency_threshold after any sample or
// during the drain, when the measured packets did not drain within
// noc.drain_cycles, or when fewer flits left the network than entered it
// during the window (beyond noc.saturation_margin).
//
// Throughput mode (BookSim's sim_type = throughput) measures the accepted
// rate at the offered load, however far beyond saturation: convergence
// looks at throughput only, there is no latency threshold and no drain.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "noc/noc_params.h"
#include "sim/config.h"

namespace tessera::noc {

enum class MeasureMode { kLatency, kThroughput };
const std::vector<std::string>& measure_mode_names();

struct MeasureOptions {
  MeasureMode mode = MeasureMode::kLatency;
  std::string traffic = "uniform";
  double rate = 0.1;  // offered flits per node per cycle
  int packet_flits = 4;
  // Defaults are BookSim2's (booksim_config.cpp): sample_period 1000,
  // warmup_periods 3, max_samples 10 of which 3 warm up, stopping_thres and
  // acc_stopping_thres 0.05 over 3 converging samples, latency_thres 500.
  uint64_t warmup = 3000;
  uint64_t sample_cycles = 1000;
  int max_samples = 7;
  uint64_t max_cycles = 20000;  // longest measurement window, whatever max_samples says
  double converge = 0.05;
  int converge_samples = 3;
  double latency_threshold = 500;  // 0: none
  uint64_t drain_cycles = 5000;
  double saturation_margin = 0.05;
  uint64_t seed = 1;
  std::vector<int> hotspots;
  double hotspot_fraction = 0.2;
  std::string trace;

  static MeasureOptions from_config(sim::Config& cfg);
};

// The stopping and saturation rules of the sampling loop, without a
// network: fed the cumulative figures after each sample.
class SampleRule {
 public:
  explicit SampleRule(const MeasureOptions& o) : o_(o) {}
  // The figures at the end of the warm-up (the first sample is compared
  // with them).
  void warmed_up(double latency, double accepted) {
    prev_latency_ = latency;
    prev_accepted_ = accepted;
  }
  // After a sample: `latency` the mean latency of the measured packets
  // delivered so far, `accepted` the accepted rate since the window began.
  // Returns true when the window ends (converged(), or the sample limit).
  bool sample(double latency, double accepted);
  bool converged() const { return streak_ >= o_.converge_samples; }
  int samples() const { return samples_; }
  // Mean latency over every measured packet: `delivered` of them with
  // latencies summing to `latency_sum`, `in_flight` more whose ages sum to
  // `age_sum`. Exceeding noc.latency_threshold means saturated.
  bool over_threshold(double latency_sum, uint64_t delivered, double age_sum, uint64_t in_flight) const;

 private:
  static double change(double now, double before);
  const MeasureOptions& o_;
  double prev_latency_ = 0, prev_accepted_ = 0;
  int samples_ = 0, streak_ = 0;
};

struct MeasureResult {
  std::string traffic;
  MeasureMode mode = MeasureMode::kLatency;
  double offered = 0;   // flits/node/cycle asked for
  double injected = 0;  // flits/node/cycle created during the window
  double accepted = 0;  // flits/node/cycle delivered during the window
  // Over every measured packet; only when all of them arrived (otherwise
  // latency_available is false and JSON shows null).
  bool latency_available = false;
  double avg_latency = 0, p99_latency = 0, max_latency = 0;
  // Over every measured packet: those undelivered counted with the hops of
  // their minimal route.
  double avg_hops = 0;
  bool saturated = false, converged = false, drained = false;
  std::string saturation_reason;  // empty when not saturated
  uint64_t samples = 0, window_cycles = 0, cycles = 0, cycles_skipped = 0;
  uint64_t measured_packets = 0, delivered_measured = 0;
  uint64_t flits_delivered = 0, flit_hops = 0;
  double host_seconds = 0;
  bool checker_ok = true;
  std::vector<std::string> checker_errors;

  uint64_t undelivered_measured() const { return measured_packets - delivered_measured; }
  nlohmann::json to_json() const;
};

MeasureResult run_measurement(const NocParams& params, const MeasureOptions& options);

}  // namespace tessera::noc
