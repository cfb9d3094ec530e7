#include "noc/measurement.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "noc/network.h"
#include "noc/traffic.h"

namespace tessera::noc {

namespace {

std::vector<int> parse_node_list(const std::string& text) {
  std::vector<int> nodes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (*end != '\0' || v < 0)
      throw sim::ConfigError(fmt::format("noc.hotspot.nodes: '{}' is not a node number (expected e.g. 0,27)", item));
    nodes.push_back(static_cast<int>(v));
  }
  return nodes;
}

}  // namespace

MeasureOptions MeasureOptions::from_config(sim::Config& cfg) {
  MeasureOptions o;
  o.traffic = cfg.get_enum("noc.traffic", "uniform", pattern_names(), "Synthetic traffic pattern, or trace");
  o.rate = cfg.get_float("noc.rate", 0.1, 0.0, 1.0, "Offered load, flits per node per cycle");
  o.packet_flits = static_cast<int>(cfg.get_int("noc.packet_flits", 4, 1, 1024, "Flits per synthetic packet"));
  o.warmup = static_cast<uint64_t>(cfg.get_int("noc.warmup", 1000, 0, 1000000000, "Warm-up cycles before measuring"));
  o.sample_cycles = static_cast<uint64_t>(
      cfg.get_int("noc.sample_cycles", 1000, 10, 1000000000, "Length of one measurement sample, cycles"));
  o.max_cycles = static_cast<uint64_t>(cfg.get_int("noc.cycles", 20000, 10, 1000000000,
                                                   "Longest measurement window (sampling stops earlier when "
                                                   "latency converges), cycles"));
  o.converge = cfg.get_float("noc.converge", 0.05, 0.0, 1.0,
                             "Latency has converged when two successive samples differ by less than this fraction");
  o.drain_cycles = static_cast<uint64_t>(cfg.get_int("noc.drain_cycles", 5000, 1, 1000000000,
                                                     "Cycles allowed for measured packets to drain before saturation"));
  o.saturation_margin =
      cfg.get_float("noc.saturation_margin", 0.05, 0.0, 1.0,
                    "Saturated when accepted throughput is below injected by more than this fraction");
  o.seed = static_cast<uint64_t>(
      cfg.get_int("noc.seed", 1, 0, std::numeric_limits<int64_t>::max(), "Random seed of the traffic generators"));
  o.hotspots = parse_node_list(cfg.get_string("noc.hotspot.nodes", "0", "Hotspot destination nodes, e.g. 0,27"));
  o.hotspot_fraction = cfg.get_float("noc.hotspot.fraction", 0.2, 0.0, 1.0,
                                     "Fraction of hotspot-pattern packets sent to the hotspot nodes");
  o.trace = cfg.get_string("noc.trace", "", "Trace file for --traffic trace: lines 'cycle src dst [flits [class]]'");
  if (o.traffic == "trace" && o.trace.empty())
    throw sim::ConfigError("noc.trace: traffic 'trace' needs a trace file (--trace FILE or --set noc.trace=FILE)");
  return o;
}

MeasureResult run_measurement(const NocParams& params, const MeasureOptions& o) {
  const auto start_time = std::chrono::steady_clock::now();
  const bool trace_mode = o.traffic == "trace";
  const Topology topo(params);
  std::unique_ptr<TrafficPattern> pattern;
  std::unique_ptr<PacketSource> source;
  int max_flits = o.packet_flits;
  if (trace_mode) {
    auto trace = std::make_unique<TraceSource>(o.trace, topo.nodes(), params.classes, o.packet_flits);
    max_flits = trace->max_flits();
    source = std::move(trace);
  } else {
    const auto kind = static_cast<Pattern>(std::find(pattern_names().begin(), pattern_names().end(), o.traffic) -
                                           pattern_names().begin());
    pattern = std::make_unique<TrafficPattern>(kind, topo, o.hotspots, o.hotspot_fraction);
    source = std::make_unique<BernoulliSource>(topo, *pattern, o.rate, o.packet_flits, params.classes, o.seed);
  }
  params.validate(max_flits);
  Network net(params);

  enum class Phase { kWarmup, kMeasure, kDrain };
  const uint64_t warmup = trace_mode ? 0 : o.warmup;
  Phase phase = warmup == 0 ? Phase::kMeasure : Phase::kWarmup;
  MeasureResult r;
  r.traffic = o.traffic;
  std::vector<uint64_t> latencies;
  uint64_t hop_sum = 0, ejected_at_start = 0, ejected_in_window = 0, created_in_window = 0;
  uint64_t window_end = 0, next_sample = warmup + o.sample_cycles;
  double sample_sum = 0, previous_sample = -1;
  uint64_t sample_count = 0;
  const uint64_t never = std::numeric_limits<uint64_t>::max();

  for (;;) {
    const uint64_t now = net.now();
    if (phase == Phase::kWarmup && now >= warmup) {
      phase = Phase::kMeasure;
      ejected_at_start = net.flits_ejected();
    }
    if (phase == Phase::kMeasure) {
      bool end_window = false;
      if (trace_mode) {
        end_window = source->next_creation() == never;
      } else if (now >= next_sample) {
        ++r.samples;
        if (sample_count > 0) {
          const double mean = sample_sum / static_cast<double>(sample_count);
          r.converged = previous_sample > 0 && std::fabs(mean - previous_sample) <= o.converge * previous_sample;
          previous_sample = mean;
        }
        sample_sum = 0;
        sample_count = 0;
        next_sample += o.sample_cycles;
        end_window = r.converged || now - warmup >= o.max_cycles;
      }
      if (end_window) {
        phase = Phase::kDrain;
        window_end = now;
        ejected_in_window = net.flits_ejected() - ejected_at_start;
      }
    }
    if (phase == Phase::kDrain) {
      if (r.delivered_measured == r.measured_packets) {
        r.drained = true;
        break;
      }
      if (now - window_end >= o.drain_cycles) break;
    }
    const uint64_t enqueued = net.packets_enqueued();
    const uint64_t created = source->generate(now, net, phase == Phase::kMeasure);
    if (phase == Phase::kMeasure) {
      created_in_window += created;
      r.measured_packets += net.packets_enqueued() - enqueued;
    }
    net.step();
    for (const Delivery& d : net.delivered()) {
      if (!d.packet.measured) continue;
      latencies.push_back(d.latency());
      hop_sum += static_cast<uint64_t>(d.hops);
      ++r.delivered_measured;
      if (phase == Phase::kMeasure) {
        sample_sum += static_cast<double>(d.latency());
        ++sample_count;
      }
    }
    const bool finished = phase == Phase::kDrain && r.delivered_measured == r.measured_packets;
    if (params.skip_idle && net.idle() && !finished) {
      // Nothing in flight: jump to the next packet creation or the next
      // phase boundary, whichever comes first.
      uint64_t target = source->next_creation();
      if (phase == Phase::kWarmup) target = std::min(target, warmup);
      if (phase == Phase::kMeasure && !trace_mode) target = std::min(target, next_sample);
      if (phase == Phase::kDrain) target = std::min(target, window_end + o.drain_cycles);
      if (target != never) net.advance_to(target);
    }
  }

  if (trace_mode) {
    // A trace is measured whole: from cycle 0 until its last packet arrived.
    window_end = net.now();
    ejected_in_window = net.flits_ejected();
  }
  r.window_cycles = window_end - warmup;
  const double node_cycles =
      static_cast<double>(topo.nodes()) * static_cast<double>(std::max<uint64_t>(1, r.window_cycles));
  r.injected = static_cast<double>(created_in_window) / node_cycles;
  r.accepted = static_cast<double>(ejected_in_window) / node_cycles;
  r.offered = trace_mode ? r.injected : o.rate;
  r.saturated = !r.drained || r.accepted < r.injected * (1.0 - o.saturation_margin);
  if (!latencies.empty()) {
    double sum = 0;
    for (uint64_t l : latencies) sum += static_cast<double>(l);
    r.avg_latency = sum / static_cast<double>(latencies.size());
    r.avg_hops = static_cast<double>(hop_sum) / static_cast<double>(latencies.size());
    const size_t rank = (latencies.size() * 99 + 99) / 100 - 1;  // nearest-rank 99th percentile
    std::nth_element(latencies.begin(), latencies.begin() + static_cast<long>(rank), latencies.end());
    r.p99_latency = static_cast<double>(latencies[rank]);
    r.max_latency = static_cast<double>(*std::max_element(latencies.begin(), latencies.end()));
  }
  // With the load off, everything still in the network must come out: the
  // checker then proves no flit was lost or duplicated.
  if (FlitChecker* checker = net.checker()) {
    if (r.drained) {
      const uint64_t limit = net.now() + o.drain_cycles + params.watchdog_cycles;
      while (!net.idle() && net.now() < limit) net.step();
      if (net.idle()) checker->check_drained();
    }
    r.checker_ok = checker->ok();
    r.checker_errors = checker->errors();
  }
  r.cycles = net.now();
  r.cycles_skipped = net.cycles_skipped();
  r.flits_delivered = net.flits_ejected();
  r.flit_hops = net.flit_hops();
  r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
  return r;
}

nlohmann::json MeasureResult::to_json() const {
  nlohmann::json j;
  j["traffic"] = traffic;
  j["offered_flits_per_node_cycle"] = offered;
  j["injected_flits_per_node_cycle"] = injected;
  j["accepted_flits_per_node_cycle"] = accepted;
  j["avg_packet_latency_cycles"] = avg_latency;
  j["p99_packet_latency_cycles"] = p99_latency;
  j["max_packet_latency_cycles"] = max_latency;
  j["avg_hops"] = avg_hops;
  j["saturated"] = saturated;
  j["converged"] = converged;
  j["drained"] = drained;
  j["samples"] = samples;
  j["window_cycles"] = window_cycles;
  j["simulated_cycles"] = cycles;
  j["cycles_skipped"] = cycles_skipped;
  j["measured_packets"] = measured_packets;
  j["delivered_measured_packets"] = delivered_measured;
  j["flits_delivered"] = flits_delivered;
  j["flit_hops"] = flit_hops;
  j["host_seconds"] = host_seconds;
  j["flits_per_host_second"] = host_seconds > 0 ? static_cast<double>(flits_delivered) / host_seconds : 0.0;
  j["checker_ok"] = checker_ok;
  j["checker_errors"] = checker_errors;
  return j;
}

}  // namespace tessera::noc
