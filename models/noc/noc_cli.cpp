#include "noc/noc_cli.h"

#include <fmt/format.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "noc/measurement.h"
#include "noc/network.h"
#include "noc/noc_params.h"
#include "noc/topology.h"
#include "rtl/common/lockstep.h"
#include "sim/config.h"
#include "sim/output_file.h"
#include "sim/run_control.h"
#include "sim/source_tree.h"
#include "sim/subprocess.h"

namespace tessera::noc {

namespace {

struct FlagKey {
  const char* flag;
  const char* key;
  const char* help;
};

const FlagKey kFlags[] = {
    {"--topology", "noc.topology", "A registered topology (see noc.topology in --list)"},
    {"--k", "noc.k", "Routers along x (a ring: all routers; see noc.k in --list for the others)"},
    {"--m", "noc.m", "Routers along y (default: same as --k)"},
    {"--vcs", "noc.vcs", "Virtual channels per port"},
    {"--vc-buf", "noc.vc_buf", "Buffer depth per VC, flits"},
    {"--routing", "noc.routing", "dor|adaptive (grids), nca (fattree), min|ugal (flatfly, dragonfly)"},
    {"--flow-control", "noc.flow_control", "wormhole|vct|saf"},
    {"--allocator", "noc.allocator", "separable_input_first|islip"},
    {"--mode", "noc.mode", "latency|throughput (accepted rate at the offered load, also beyond saturation)"},
    {"--traffic", "noc.traffic", "uniform|transpose|bitcomp|bitrev|shuffle|tornado|neighbor|hotspot|trace"},
    {"--rate", "noc.rate", "Offered load, flits per node per cycle"},
    {"--packet-flits", "noc.packet_flits", "Flits per packet"},
    {"--warmup", "noc.warmup", "Warm-up cycles"},
    {"--cycles", "noc.cycles", "Longest measurement window, cycles"},
    {"--seed", "noc.seed", "Random seed"},
    {"--trace", "noc.trace", "Trace file for --traffic trace"},
};

struct CliOptions {
  std::vector<std::string> flag_values = std::vector<std::string>(std::size(kFlags));  // parallel to kFlags
  std::vector<std::string> sets;
  bool json = false;
  bool list = false;
  std::string sweep, plot, csv;
};

// A sweep is at most this many offered loads (each is a full measurement).
constexpr int kMaxSweepPoints = 1000;

struct SweepRange {
  double from, to, step;
  int points;
};

SweepRange parse_sweep(const std::string& text) {
  SweepRange s{};
  char extra = 0;
  const auto bad = [&text](const std::string& why) {
    return sim::ConfigError(fmt::format("--sweep '{}': {}", text, why));
  };
  if (std::sscanf(text.c_str(), "%lf:%lf:%lf%c", &s.from, &s.to, &s.step, &extra) != 3)
    throw bad("expected R1:R2:STEP");
  // Written so that NaN fails every test.
  if (!(std::isfinite(s.from) && std::isfinite(s.to) && std::isfinite(s.step)))
    throw bad("R1, R2 and STEP must be finite numbers");
  if (!(s.from >= 0 && s.from <= s.to && s.to <= 1.0 && s.step > 0))
    throw bad("expected 0 <= R1 <= R2 <= 1 and STEP > 0");
  const double points = std::floor((s.to - s.from) / s.step + 1e-9) + 1;
  if (!(points <= kMaxSweepPoints))
    throw bad(fmt::format("{:.3g} loads; a sweep has at most {} (raise STEP)", points, kMaxSweepPoints));
  s.points = static_cast<int>(points);
  return s;
}

std::string describe(const NocParams& p) {
  const std::string shape = make_topology(p)->shape();
  return fmt::format(
      "{} {}, {} VCs x {} flits, {} routing, {}, {} VC allocation, {} allocator, delays rc {} va {} sa {} st {} "
      "link {} credit {} injection {} ejection {}",
      p.topology, shape, p.vcs, p.vc_buf, p.routing, flow_control_names()[static_cast<int>(p.flow_control)],
      p.atomic_vc ? "atomic" : "non-atomic", allocator_names()[static_cast<int>(p.allocator)], p.delay.rc, p.delay.va,
      p.delay.sa, p.delay.st, p.delay.link, p.delay.credit, p.delay.injection, p.delay.ejection);
}

void print_summary(const NocParams& p, const MeasureOptions& o, const MeasureResult& r) {
  fmt::print("tessera noc: {}\n", describe(p));
  fmt::print("  traffic              {}, {}-flit packets, offered {:.4f} flits/node/cycle\n", r.traffic, o.packet_flits,
             r.offered);
  fmt::print("  accepted             {:.4f} flits/node/cycle (injected {:.4f})\n", r.accepted, r.injected);
  if (r.latency_available) {
    fmt::print("  packet latency       avg {:.2f}, p99 {:.0f}, max {:.0f} cycles ({} packets measured)\n",
               r.avg_latency, r.p99_latency, r.max_latency, r.delivered_measured);
  } else {
    fmt::print("  packet latency       unavailable: {} of {} measured packets undelivered{}\n",
               r.undelivered_measured(), r.measured_packets,
               r.mode == MeasureMode::kThroughput ? " (throughput mode)" : "");
  }
  fmt::print("  average hops         {:.3f}\n", r.avg_hops);
  fmt::print("  saturated            {}{}\n", r.saturated ? "yes" : "no",
             r.saturated ? fmt::format(" ({})", r.saturation_reason) : "");
  if (r.traffic == "trace") {
    fmt::print("  measured             the whole trace, {} cycles\n", r.window_cycles);
  } else {
    fmt::print("  sampling             {} samples over {} cycles, latency {}\n", r.samples, r.window_cycles,
               r.converged ? "converged" : "not converged");
  }
  fmt::print("  simulated            {} cycles, {} flits delivered, {} flit-hops\n", r.cycles, r.flits_delivered,
             r.flit_hops);
  fmt::print("  host time            {:.3f} s ({:.3g} flits/s)\n", r.host_seconds,
             r.host_seconds > 0 ? static_cast<double>(r.flits_delivered) / r.host_seconds : 0.0);
}

int report_checker(const MeasureResult& r) {
  if (r.checker_ok) return 0;
  fmt::print(stderr, "tessera: error: flit checker found {} problem(s):\n", r.checker_errors.size());
  for (const auto& e : r.checker_errors) fmt::print(stderr, "  {}\n", e);
  return 1;
}

void write_csv(std::FILE* out, const std::vector<MeasureResult>& points) {
  fmt::print(out, "offered,injected,accepted,avg_latency,p99_latency,avg_hops,saturated\n");
  for (const auto& r : points)
    fmt::print(out, "{:.4f},{:.6f},{:.6f},{},{},{:.4f},{}\n", r.offered, r.injected, r.accepted,
               r.latency_available ? fmt::format("{:.3f}", r.avg_latency) : "",
               r.latency_available ? fmt::format("{:.0f}", r.p99_latency) : "", r.avg_hops, r.saturated ? 1 : 0);
}

int run_sweep(const NocParams& p, MeasureOptions o, const CliOptions& cli) {
  const SweepRange range = parse_sweep(cli.sweep);
  // Outputs are checked before the sweep, so a bad path costs nothing. The
  // plot is written by the plotter, after the checks of every output.
  const std::vector<std::string> inputs{o.trace};
  std::string csv_path = cli.csv;
  if (csv_path.empty() && !cli.plot.empty())
    csv_path = (std::filesystem::temp_directory_path() / fmt::format("tessera_noc_{}.csv", ::getpid())).string();
  sim::OutputFile csv_out;
  if (!csv_path.empty()) csv_out = sim::OutputFile("--csv", csv_path, inputs);
  if (!cli.plot.empty()) sim::OutputFile::check("--plot", cli.plot, inputs);
  std::vector<MeasureResult> points;
  const int steps = range.points;
  fmt::print(stderr, "sweep: {}, traffic {}, {} loads from {} to {}\n", describe(p), o.traffic, steps, range.from,
             range.to);
  for (int i = 0; i < steps; ++i) {
    o.rate = range.from + range.step * i;
    points.push_back(run_measurement(p, o));
    const MeasureResult& r = points.back();
    fmt::print(stderr, "  [{}/{}] offered {:.3f}: accepted {:.4f}, latency {}{} ({:.2f} s)\n", i + 1, steps, r.offered,
               r.accepted,
               r.latency_available ? fmt::format("avg {:.1f} p99 {:.0f}", r.avg_latency, r.p99_latency)
                                   : std::string("unavailable"),
               r.saturated ? ", SATURATED" : "", r.host_seconds);
    if (const int status = report_checker(r)) return status;
    if (r.saturated && o.mode == MeasureMode::kLatency) {
      if (i + 1 < steps) fmt::print(stderr, "  saturated: higher loads skipped\n");
      break;
    }
  }
  if (csv_out.is_open()) {
    write_csv(csv_out.get(), points);
    csv_out.close();
  }
  if (cli.json) {
    nlohmann::json j;
    j["network"] = describe(p);
    j["points"] = nlohmann::json::array();
    for (const auto& r : points) j["points"].push_back(r.to_json());
    fmt::print("{}\n", j.dump(2));
  } else if (cli.csv.empty()) {
    write_csv(stdout, points);
  }
  if (!cli.plot.empty()) {
    // No shell: the paths reach the plotter as single arguments, after "--"
    // so that one starting with '-' is not taken for an option.
    const std::string title = fmt::format("{} {}", describe(p).substr(0, describe(p).find(',')), o.traffic);
    const std::vector<std::string> argv{"/usr/bin/python3",
                                        std::string(tessera::sim::source_tree()) + "/tools/noc_plot.py",
                                        "--title",
                                        title,
                                        "--",
                                        csv_path,
                                        cli.plot};
    const sim::SubprocessResult rc = sim::run_subprocess(argv);
    if (cli.csv.empty()) std::filesystem::remove(csv_path);
    if (!rc.started || rc.status != 0) {
      std::string command;
      for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
      fmt::print(stderr, "tessera: error: plotting failed ({}{}{})\n", command, rc.error.empty() ? "" : ": ", rc.error);
      return 1;
    }
    fmt::print(stderr, "plot written to {}\n", cli.plot);
  }
  return 0;
}

int run(const CliOptions& cli) {
  // Each flag given sets its parameter, so flags and --set share one path.
  sim::Config cfg;
  for (size_t i = 0; i < std::size(kFlags); ++i)
    if (!cli.flag_values[i].empty()) cfg.set(kFlags[i].key, cli.flag_values[i], kFlags[i].flag);
  for (const auto& s : cli.sets) cfg.set_override(s);
  const NocParams params = NocParams::from_config(cfg);
  const MeasureOptions options = MeasureOptions::from_config(cfg);
  cfg.check_all_used();
  if (cli.list) {
    fmt::print("{:<26} {:<22} {:<22} {:<30} {}\n", "key", "value", "default", "range", "description");
    for (const auto& [key, spec] : cfg.specs())
      fmt::print("{:<26} {:<22} {:<22} {:<30} {}\n", key, spec.value, spec.default_value, spec.range, spec.description);
    return 0;
  }
  try {
    if (!cli.sweep.empty()) return run_sweep(params, options, cli);
    if (!cli.plot.empty() || !cli.csv.empty()) throw sim::ConfigError("--plot and --csv need --sweep R1:R2:STEP");
    const MeasureResult r = run_measurement(params, options);
    if (cli.json) {
      fmt::print("{}\n", r.to_json().dump(2));
    } else {
      print_summary(params, options, r);
    }
    return report_checker(r);
  } catch (const DeadlockError& e) {
    if (cli.json) {
      nlohmann::json j;
      j["deadlock"] = true;
      j["report"] = e.what();
      j["waiting"] = e.waiting();
      fmt::print("{}\n", j.dump(2));
    }
    fmt::print(stderr, "tessera: error: {}\n", e.what());
    return sim::kStatusDeadlock;
  } catch (const rtl::LockstepMismatch& e) {
    fmt::print(stderr, "tessera: error: {}\n", e.what());
    return sim::kStatusLockstepMismatch;
  }
}

}  // namespace

sim::ToolCommand add_noc_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("noc", "Run the network-on-chip on synthetic or trace traffic; report latency and throughput");
  auto cli = std::make_shared<CliOptions>();
  for (size_t i = 0; i < std::size(kFlags); ++i)
    cmd->add_option(kFlags[i].flag, cli->flag_values[i], fmt::format("{} ({})", kFlags[i].help, kFlags[i].key));
  cmd->add_option("--set", cli->sets, "Override a parameter: key=value (repeatable; see --list)");
  cmd->add_flag("--json", cli->json, "Print the result as one JSON object");
  cmd->add_option("--sweep", cli->sweep, "Sweep the offered load R1:R2:STEP; prints the latency-throughput CSV");
  cmd->add_option("--csv", cli->csv, "With --sweep: write the CSV to this file");
  cmd->add_option("--plot", cli->plot, "With --sweep: plot latency against load to this PNG file");
  cmd->add_flag("--list", cli->list, "List every noc.* parameter with its value, default, range and description");
  sim::ToolCommand tool;
  tool.command = cmd;
  tool.run = [cli] { return run(*cli); };
  return tool;
}

}  // namespace tessera::noc
