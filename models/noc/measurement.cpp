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

const std::vector<std::string>& measure_mode_names() {
  static const std::vector<std::string> names{"latency", "throughput"};
  return names;
}

MeasureOptions MeasureOptions::from_config(sim::Config& cfg) {
  MeasureOptions o;
  o.mode = static_cast<MeasureMode>(
      std::find(measure_mode_names().begin(), measure_mode_names().end(),
                cfg.get_enum("noc.mode", "latency", measure_mode_names(),
                             "latency: latency and saturation at the offered load; throughput: the accepted rate "
                             "at the offered load, also beyond saturation (BookSim's sim_type)")) -
      measure_mode_names().begin());
  o.traffic = cfg.get_enum("noc.traffic", "uniform", pattern_names(), "Synthetic traffic pattern, or trace");
  o.rate = cfg.get_float("noc.rate", 0.1, 0.0, 1.0, "Offered load, flits per node per cycle");
  o.packet_flits = static_cast<int>(cfg.get_int("noc.packet_flits", 4, 1, 1024, "Flits per synthetic packet"));
  o.warmup = static_cast<uint64_t>(
      cfg.get_int("noc.warmup", 3000, 0, 1000000000, "Warm-up cycles before measuring (BookSim: 3 sample periods)"));
  o.sample_cycles = static_cast<uint64_t>(
      cfg.get_int("noc.sample_cycles", 1000, 10, 1000000000, "Length of one measurement sample, cycles"));
  o.max_samples = static_cast<int>(cfg.get_int(
      "noc.max_samples", 7, 1, 1000000,
      "Measurement samples at most; not converged by then means saturated (BookSim: 10 including 3 of warm-up)"));
  o.max_cycles = static_cast<uint64_t>(cfg.get_int("noc.cycles", 20000, 10, 1000000000,
                                                   "Longest measurement window, cycles (sampling stops earlier "
                                                   "when it converges or after noc.max_samples)"));
  o.converge = cfg.get_float(
      "noc.converge", 0.05, 0.0, 1.0,
      "Converged when mean latency and accepted throughput change by at most this fraction from one sample to the "
      "next (BookSim's stopping_thres, acc_stopping_thres)");
  o.converge_samples = static_cast<int>(
      cfg.get_int("noc.converge_samples", 3, 1, 1000, "Successive converging samples that end the measurement"));
  o.latency_threshold = cfg.get_float(
      "noc.latency_threshold", 500.0, 0.0, 1e12,
      "Saturated when the mean latency of the measured packets, those in flight at their age, exceeds this many "
      "cycles (0: no threshold; BookSim's latency_thres)");
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
  if (o.mode == MeasureMode::kThroughput && o.traffic == "trace")
    throw sim::ConfigError("noc.mode: throughput mode needs synthetic traffic at an offered rate, not a trace");
  return o;
}

double SampleRule::change(double now, double before) {
  if (now == before) return 0.0;  // also no packets in either sample
  if (now == 0.0) return 1.0;
  return std::fabs(now - before) / now;
}

bool SampleRule::sample(double latency, double accepted) {
  ++samples_;
  const bool latency_ok = o_.mode == MeasureMode::kThroughput || change(latency, prev_latency_) <= o_.converge;
  const bool accepted_ok = change(accepted, prev_accepted_) <= o_.converge;
  streak_ = latency_ok && accepted_ok ? streak_ + 1 : 0;
  prev_latency_ = latency;
  prev_accepted_ = accepted;
  return converged() || samples_ >= o_.max_samples;
}

bool SampleRule::over_threshold(double latency_sum, uint64_t delivered, double age_sum, uint64_t in_flight) const {
  if (o_.mode == MeasureMode::kThroughput || o_.latency_threshold <= 0 || delivered + in_flight == 0) return false;
  return (latency_sum + age_sum) / static_cast<double>(delivered + in_flight) > o_.latency_threshold;
}

MeasureResult run_measurement(const NocParams& params, const MeasureOptions& o) {
  const auto start_time = std::chrono::steady_clock::now();
  const bool trace_mode = o.traffic == "trace";
  const bool throughput_mode = o.mode == MeasureMode::kThroughput;
  const std::unique_ptr<Topology> topology = make_topology(params);
  const Topology& topo = *topology;
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
  std::vector<Packet> created;
  net.set_enqueue_log(&created);

  enum class Phase { kWarmup, kMeasure, kDrain };
  const uint64_t warmup = trace_mode ? 0 : o.warmup;
  Phase phase = warmup == 0 ? Phase::kMeasure : Phase::kWarmup;
  MeasureResult r;
  r.traffic = o.traffic;
  r.mode = o.mode;
  SampleRule rule(o);
  std::vector<uint64_t> latencies;
  // Measured packets: latencies and creation cycles of those delivered, and
  // the creation cycles and minimal-route hops of all of them, so that
  // those still in the network count at their age and route.
  double latency_sum = 0, ctime_all = 0, ctime_delivered = 0;
  uint64_t hop_sum = 0, route_hops_all = 0, route_hops_delivered = 0;
  // Every packet (warm-up too), for the latency threshold in the warm-up.
  double all_ctime = 0, all_ctime_delivered = 0, sample_latency_sum = 0;
  uint64_t all_created = 0, all_delivered = 0, sample_delivered = 0, sample_ejected_at = 0;
  uint64_t ejected_at_start = 0, ejected_in_window = 0, created_in_window = 0;
  uint64_t window_end = 0, sample_start = 0;
  uint64_t next_sample = warmup == 0 ? o.sample_cycles : std::min(warmup, o.sample_cycles);
  uint64_t next_drain_check = 0;
  const uint64_t never = std::numeric_limits<uint64_t>::max();
  const double nodes = static_cast<double>(topo.nodes());

  const auto in_flight_age = [&](uint64_t now) {
    return static_cast<double>(r.undelivered_measured()) * static_cast<double>(now) - (ctime_all - ctime_delivered);
  };
  const auto saturate = [&r](const char* why) {
    if (!r.saturated) r.saturation_reason = why;
    r.saturated = true;
  };

  for (;;) {
    const uint64_t now = net.now();
    if (phase == Phase::kWarmup && now >= next_sample) {
      // A warm-up sample: BookSim stops a run whose latency already exceeds
      // its threshold here.
      const double age = static_cast<double>(all_created - all_delivered) * static_cast<double>(now) -
                         (all_ctime - all_ctime_delivered);
      if (rule.over_threshold(sample_latency_sum, sample_delivered, age, all_created - all_delivered)) {
        saturate("latency_threshold");
        window_end = now;
        break;
      }
      const uint64_t span = std::max<uint64_t>(1, now - sample_start);
      const double sample_latency = sample_delivered ? sample_latency_sum / static_cast<double>(sample_delivered) : 0;
      const double sample_accepted =
          static_cast<double>(net.flits_ejected() - sample_ejected_at) / (nodes * static_cast<double>(span));
      if (now >= warmup) {
        rule.warmed_up(sample_latency, sample_accepted);
        phase = Phase::kMeasure;
        ejected_at_start = net.flits_ejected();
        next_sample = now + o.sample_cycles;
      } else {
        next_sample = std::min(warmup, now + o.sample_cycles);
      }
      sample_latency_sum = 0;
      sample_delivered = 0;
      sample_ejected_at = net.flits_ejected();
      sample_start = now;
    }
    if (phase == Phase::kMeasure) {
      bool end_window = false;
      if (trace_mode) {
        end_window = source->next_creation() == never;
      } else if (now >= next_sample) {
        const double accepted =
            static_cast<double>(net.flits_ejected() - ejected_at_start) / (nodes * static_cast<double>(now - warmup));
        const double latency = r.delivered_measured ? latency_sum / static_cast<double>(r.delivered_measured) : 0;
        end_window = rule.sample(latency, accepted) || now - warmup >= o.max_cycles;
        r.samples = static_cast<uint64_t>(rule.samples());
        r.converged = rule.converged();
        if (rule.over_threshold(latency_sum, r.delivered_measured, in_flight_age(now), r.undelivered_measured())) {
          saturate("latency_threshold");
          end_window = true;
        }
        next_sample += o.sample_cycles;
      }
      if (end_window) {
        phase = Phase::kDrain;
        window_end = now;
        next_drain_check = now + o.sample_cycles;
        ejected_in_window = net.flits_ejected() - ejected_at_start;
        // Throughput mode has no drain; past the latency threshold the
        // measured packets cannot give a latency worth the wait.
        if (r.saturated || throughput_mode) break;
      }
    }
    if (phase == Phase::kDrain) {
      if (r.delivered_measured == r.measured_packets) {
        r.drained = true;
        break;
      }
      if (now >= next_drain_check) {
        // BookSim's check while draining, every sample period.
        if (rule.over_threshold(latency_sum, r.delivered_measured, in_flight_age(now), r.undelivered_measured())) {
          saturate("latency_threshold");
          break;
        }
        next_drain_check += o.sample_cycles;
      }
      if (now - window_end >= o.drain_cycles) break;
    }
    created.clear();
    const uint64_t created_now = source->generate(now, net, phase == Phase::kMeasure);
    for (const Packet& p : created) {
      all_ctime += static_cast<double>(p.create_cycle);
      ++all_created;
      if (!p.measured) continue;
      ++r.measured_packets;
      ctime_all += static_cast<double>(p.create_cycle);
      route_hops_all += static_cast<uint64_t>(topo.distance(p.src, p.dst));
    }
    if (phase == Phase::kMeasure) created_in_window += created_now;
    net.step();
    for (const Delivery& d : net.delivered()) {
      all_ctime_delivered += static_cast<double>(d.packet.create_cycle);
      ++all_delivered;
      if (phase == Phase::kWarmup) {
        sample_latency_sum += static_cast<double>(d.latency());
        ++sample_delivered;
      }
      if (!d.packet.measured) continue;
      latencies.push_back(d.latency());
      latency_sum += static_cast<double>(d.latency());
      ctime_delivered += static_cast<double>(d.packet.create_cycle);
      hop_sum += static_cast<uint64_t>(d.hops);
      route_hops_delivered += static_cast<uint64_t>(topo.distance(d.packet.src, d.packet.dst));
      ++r.delivered_measured;
    }
    const bool finished = phase == Phase::kDrain && r.delivered_measured == r.measured_packets;
    if (params.skip_idle && net.idle() && !finished) {
      // Nothing in flight: jump to the next packet creation or the next
      // phase boundary, whichever comes first.
      uint64_t target = source->next_creation();
      if (phase == Phase::kWarmup) target = std::min(target, next_sample);
      if (phase == Phase::kMeasure && !trace_mode) target = std::min(target, next_sample);
      if (phase == Phase::kDrain) target = std::min({target, window_end + o.drain_cycles, next_drain_check});
      if (target != never) net.advance_to(target);
    }
  }
  net.set_enqueue_log(nullptr);

  if (trace_mode) {
    // A trace is measured whole: from cycle 0 until its last packet arrived.
    window_end = net.now();
    ejected_in_window = net.flits_ejected();
  }
  if (window_end < warmup) window_end = warmup;  // stopped in the warm-up
  r.window_cycles = window_end - warmup;
  const double node_cycles = nodes * static_cast<double>(std::max<uint64_t>(1, r.window_cycles));
  r.injected = static_cast<double>(created_in_window) / node_cycles;
  r.accepted = static_cast<double>(ejected_in_window) / node_cycles;
  r.offered = trace_mode ? r.injected : o.rate;
  if (!trace_mode && !r.converged) saturate("not_converged");
  if (!throughput_mode && !r.drained) saturate("not_drained");
  if (r.accepted < r.injected * (1.0 - o.saturation_margin)) saturate("accepted_below_injected");
  if (r.measured_packets > 0) {
    // Hops of every measured packet: those still on their way count with
    // their minimal route's (all routing functions here are minimal).
    r.avg_hops =
        static_cast<double>(hop_sum + route_hops_all - route_hops_delivered) / static_cast<double>(r.measured_packets);
  }
  // Latency only over every measured packet: a mean of the delivered ones
  // alone would leave out the slowest.
  r.latency_available = !throughput_mode && !latencies.empty() && r.undelivered_measured() == 0;
  if (r.latency_available) {
    r.avg_latency = latency_sum / static_cast<double>(latencies.size());
    const size_t rank = (latencies.size() * 99 + 99) / 100 - 1;  // nearest-rank 99th percentile
    std::nth_element(latencies.begin(), latencies.begin() + static_cast<long>(rank), latencies.end());
    r.p99_latency = static_cast<double>(latencies[rank]);
    r.max_latency = static_cast<double>(*std::max_element(latencies.begin(), latencies.end()));
  }
  // With the load off, everything still in the network must come out: the
  // checker then proves no flit was lost or duplicated.
  if (FlitChecker* checker = net.checker()) {
    if (r.drained || throughput_mode) {
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
  j["mode"] = measure_mode_names()[static_cast<int>(mode)];
  j["traffic"] = traffic;
  j["offered_flits_per_node_cycle"] = offered;
  j["injected_flits_per_node_cycle"] = injected;
  j["accepted_flits_per_node_cycle"] = accepted;
  // null: some measured packets never arrived (or throughput mode), so no
  // unbiased latency exists.
  const auto latency = [this](double v) { return latency_available ? nlohmann::json(v) : nlohmann::json(nullptr); };
  j["avg_packet_latency_cycles"] = latency(avg_latency);
  j["p99_packet_latency_cycles"] = latency(p99_latency);
  j["max_packet_latency_cycles"] = latency(max_latency);
  j["avg_hops"] = measured_packets > 0 ? nlohmann::json(avg_hops) : nlohmann::json(nullptr);  // null: none measured
  j["saturated"] = saturated;
  j["saturation_reason"] = saturation_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(saturation_reason);
  j["converged"] = converged;
  j["drained"] = drained;
  j["samples"] = samples;
  j["window_cycles"] = window_cycles;
  j["simulated_cycles"] = cycles;
  j["cycles_skipped"] = cycles_skipped;
  j["measured_packets"] = measured_packets;
  j["delivered_measured_packets"] = delivered_measured;
  j["undelivered_measured_packets"] = undelivered_measured();
  j["flits_delivered"] = flits_delivered;
  j["flit_hops"] = flit_hops;
  j["host_seconds"] = host_seconds;
  j["flits_per_host_second"] = host_seconds > 0 ? static_cast<double>(flits_delivered) / host_seconds : 0.0;
  j["checker_ok"] = checker_ok;
  j["checker_errors"] = checker_errors;
  return j;
}

}  // namespace tessera::noc
