// Latency and throughput measurement following BookSim (Dally & Towles
// ch. 24): run a warm-up, then sample periods; packets created after the
// warm-up are measured; sampling ends when the mean latency of two
// successive samples differs by less than noc.converge (or at noc.cycles),
// then the network keeps its load while the measured packets drain. The
// network is saturated when it could not accept the offered load: the
// measured packets did not drain within noc.drain_cycles, or fewer flits
// left the network than entered it during the window (beyond
// noc.saturation_margin).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "noc/noc_params.h"
#include "sim/config.h"

namespace tessera::noc {

struct MeasureOptions {
  std::string traffic = "uniform";
  double rate = 0.1;  // offered flits per node per cycle
  int packet_flits = 4;
  uint64_t warmup = 1000;
  uint64_t sample_cycles = 1000;
  uint64_t max_cycles = 20000;  // longest measurement window
  double converge = 0.05;
  uint64_t drain_cycles = 5000;
  double saturation_margin = 0.05;
  uint64_t seed = 1;
  std::vector<int> hotspots;
  double hotspot_fraction = 0.2;
  std::string trace;

  static MeasureOptions from_config(sim::Config& cfg);
};

struct MeasureResult {
  std::string traffic;
  double offered = 0;   // flits/node/cycle asked for
  double injected = 0;  // flits/node/cycle created during the window
  double accepted = 0;  // flits/node/cycle delivered during the window
  double avg_latency = 0, p99_latency = 0, max_latency = 0;
  double avg_hops = 0;
  bool saturated = false, converged = false, drained = false;
  uint64_t samples = 0, window_cycles = 0, cycles = 0, cycles_skipped = 0;
  uint64_t measured_packets = 0, delivered_measured = 0;
  uint64_t flits_delivered = 0, flit_hops = 0;
  double host_seconds = 0;
  bool checker_ok = true;
  std::vector<std::string> checker_errors;

  nlohmann::json to_json() const;
};

MeasureResult run_measurement(const NocParams& params, const MeasureOptions& options);

}  // namespace tessera::noc
