#include "bus/coherence_cli.h"

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "bus/litmus.h"
#include "bus/random_tester.h"
#include "sim/cli_checks.h"
#include "sim/config.h"
#include "sim/output_file.h"
#include "sim/run_control.h"
#include "sim/stats.h"

namespace tessera::bus {

namespace {

struct Options {
  std::string protocol = "mesi";
  uint32_t cores = 4;
  uint64_t seed = 1;
  uint64_t ops = 100000;
  std::vector<std::string> sets;
  std::string litmus;
  uint64_t iterations = 10000;
  std::string json_path;
  std::string stats_path;
  bool quiet = false;
  bool list = false;
  bool tables = false;
  bool htm = false;
};

int failure_status(mem::CoherenceFailure::Kind kind) {
  return kind == mem::CoherenceFailure::Kind::kDeadlock || kind == mem::CoherenceFailure::Kind::kLivelock
             ? sim::kStatusDeadlock
             : 1;
}

sim::Config make_config(const Options& o) {
  sim::Config cfg;
  cfg.set("cluster.protocol", o.protocol, "--protocol");
  cfg.set("cluster.cores", std::to_string(o.cores), "--cores");
  if (o.htm) cfg.set("coherence_test.tx_pct", "40", "--htm");
  for (const auto& s : o.sets) cfg.set_override(s);
  return cfg;
}

void print_params(const sim::Config& cfg) {
  fmt::print("{:<36} {:<12} {:<12} {:<30} {}\n", "key", "value", "default", "range", "description");
  for (const auto& [key, spec] : cfg.specs())
    fmt::print("{:<36} {:<12} {:<12} {:<30} {}\n", key, spec.value, spec.default_value, spec.range, spec.description);
}

// The protocol tables as Markdown, straight from the rows the controller
// runs (docs/coherence.md is made from this).
void print_tables() {
  for (const auto& name : mem::protocol_names()) {
    const auto table = mem::ProtocolTable::standard(mem::parse_protocol(name));
    fmt::print("### {}\n\n| state | event | next | actions |\n|---|---|---|---|\n", name);
    for (const auto& r : table.rows())
      fmt::print("| {} | {}{} | {} | {} |\n", mem::state_name(r.state), mem::event_name(r.event),
                 mem::cond_name(r.cond), mem::state_name(r.next), mem::actions_text(r.actions));
    fmt::print("\n");
  }
}

int run_litmus_command(const Options& o, const ClusterParams& params) {
  const LitmusResult r = run_litmus(params, o.litmus, o.iterations, o.seed);
  fmt::print("litmus {} ({} iterations, {}, {}, {} cores)\n", r.test, o.iterations, params.tso ? "tso" : "sc",
             mem::protocol_name(params.protocol), params.cores);
  for (const auto& [outcome, count] : r.outcomes)
    fmt::print("  {:<12} {:>8}{}\n", outcome, count, outcome == r.sc_forbidden ? "   <- forbidden under SC" : "");
  if (!r.failure.empty()) {
    fmt::print(stderr, "tessera: error: {}\n", r.failure);
    return failure_status(r.failure_kind);
  }
  const bool allowed = params.tso && r.tso_allows_forbidden;
  if (r.forbidden_count() > 0 && !allowed) {
    fmt::print(stderr, "tessera: error: litmus {}: forbidden outcome '{}' seen {} times under {}\n", r.test,
               r.sc_forbidden, r.forbidden_count(), params.tso ? "tso" : "sc");
    return 1;
  }
  return 0;
}

int run_tester(const Options& o, const ClusterParams& params, const TesterParams& tester_params) {
  // Outputs are opened before the run, so a bad path costs nothing.
  sim::OutputFile stats_out, json_out;
  if (!o.stats_path.empty()) stats_out = sim::OutputFile("--stats", o.stats_path);
  if (!o.json_path.empty()) json_out = sim::OutputFile("--json", o.json_path);
  sim::StatGroup root("coherence_test");
  RandomTester tester(params, tester_params, std::nullopt, &root);
  auto progress = [&o](uint64_t ops, uint64_t cycle) {
    if (!o.quiet) fmt::print(stderr, "  {:>10} / {} ops, cycle {}\n", ops, o.ops, cycle);
  };
  const TesterResult r = tester.run(progress, o.ops >= 400000 ? o.ops / 10 : 0);
  const Cluster& c = tester.cluster();
  const auto& k = c.counters();
  if (!r.passed) {
    fmt::print(stderr, "tessera: error: {}\n", r.failure);
    return failure_status(r.failure_kind);
  }
  const double ops_per_second = r.host_seconds > 0 ? static_cast<double>(r.ops) / r.host_seconds : 0;
  if (!o.quiet) {
    fmt::print("coherence-test: {} cores, {}, seed {}, {} ops: clean\n", params.cores,
               mem::protocol_name(params.protocol), o.seed, r.ops);
    fmt::print("  cycles               {}\n", r.cycles);
    std::string kinds;
    for (size_t op = 1; op < static_cast<size_t>(mem::BusOp::kCount); ++op)
      kinds += fmt::format(" {}={}", mem::bus_op_name(static_cast<mem::BusOp>(op)), k.bus_ops[op]);
    fmt::print("  bus transactions    {}\n", kinds);
    fmt::print("  cache-to-cache       {}\n", k.cache_to_cache);
    fmt::print("  memory reads/writes  {} / {}\n", k.memory_reads, k.memory_writes);
    fmt::print("  NACKs                {}\n", k.nacks);
    fmt::print("  wb-buffer snoop hits {}\n", k.wb_snoop_hits);
    fmt::print("  checker checks       {}\n", c.checker_checks());
    if (tester_params.tx_pct > 0) {
      fmt::print("  HTM                  {} {} {}\n", versioning_name(params.htm.versioning),
                 detection_name(params.htm.detection), params.htm.policy);
      std::string reasons;
      for (size_t reason = 1; reason < static_cast<size_t>(TxReason::kCount); ++reason) {
        uint64_t n = 0;
        for (uint32_t core = 0; core < params.cores; ++core) n += c.htm_counters(core).aborts[reason];
        if (n) reasons += fmt::format(" {}={}", tx_reason_name(static_cast<TxReason>(reason)), n);
      }
      fmt::print("  transactions         {} committed, {} aborted{}{}\n", r.tx_committed, r.tx_aborted,
                 reasons.empty() ? "" : ":", reasons);
      fmt::print("  HTM checker events   {} (serialisable in commit order, no aborted write seen)\n",
                 c.htm_checker_events());
    }
    fmt::print("  host seconds         {:.3f}\n", r.host_seconds);
    fmt::print("  ops/s                {:.0f}\n", ops_per_second);
  }
  if (stats_out.is_open()) {
    stats_out.write(root.to_json().dump(2) + "\n");
    stats_out.close();
  }
  if (json_out.is_open()) {
    nlohmann::json j;
    j["protocol"] = mem::protocol_name(params.protocol);
    j["cores"] = params.cores;
    j["seed"] = o.seed;
    j["ops"] = r.ops;
    j["cycles"] = r.cycles;
    j["host_seconds"] = r.host_seconds;
    j["ops_per_second"] = ops_per_second;
    for (size_t op = 1; op < static_cast<size_t>(mem::BusOp::kCount); ++op)
      j["bus"][mem::bus_op_name(static_cast<mem::BusOp>(op))] = k.bus_ops[op];
    j["cache_to_cache"] = k.cache_to_cache;
    j["nacks"] = k.nacks;
    j["wb_snoop_hits"] = k.wb_snoop_hits;
    j["tx_committed"] = r.tx_committed;
    j["tx_aborted"] = r.tx_aborted;
    json_out.write(j.dump(2) + "\n");
    json_out.close();
  }
  return 0;
}

}  // namespace

sim::ToolCommand add_coherence_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("coherence-test",
                                 "Random coherence tester (or a litmus test) on the control-core cluster; "
                                 "exits 0 when clean, 1 with the first violation, 5 on a bus deadlock");
  cmd->add_option("--protocol", o->protocol, "msi|mesi|mesif|moesi|dragon")->capture_default_str();
  cmd->add_option("--cores", o->cores, "control cores")->capture_default_str()->check(sim::unsigned_in(0, UINT32_MAX));
  cmd->add_option("--seed", o->seed, "random seed")->capture_default_str()->check(sim::unsigned_in(0, UINT64_MAX));
  cmd->add_option("--ops", o->ops, "operations to complete")
      ->capture_default_str()
      ->check(sim::unsigned_in(1, 1000000000000));
  cmd->add_option("--set", o->sets, "Override a parameter: key=value (repeatable)");
  cmd->add_option("--litmus", o->litmus, "run a litmus test instead: sb|mp|lb");
  cmd->add_option("--iterations", o->iterations, "litmus iterations")
      ->capture_default_str()
      ->check(sim::unsigned_in(1, 1000000000));
  cmd->add_option("--json", o->json_path, "write the summary as JSON");
  cmd->add_option("--stats", o->stats_path, "write the cluster's hierarchical statistics as JSON");
  cmd->add_flag("--tables", o->tables, "print every protocol table as Markdown and exit");
  cmd->add_flag("--htm", o->htm,
                "mix transactions into the random operations (coherence_test.tx_pct=40; the corner from "
                "--set htm.versioning=... htm.detection=... htm.policy=...)");
  cmd->add_flag("-q,--quiet", o->quiet, "print nothing but errors");
  cmd->add_flag("--list", o->list, "list the cluster and tester parameters and exit");
  return sim::ToolCommand{cmd, [o]() -> int {
                            if (o->tables) {
                              print_tables();
                              return 0;
                            }
                            sim::Config cfg = make_config(*o);
                            ClusterParams params;
                            try {
                              params = ClusterParams::from_config(cfg);
                            } catch (const std::invalid_argument& e) {
                              throw sim::ConfigError(e.what());
                            }
                            const TesterParams tester_params = TesterParams::from_config(cfg);
                            cfg.check_all_used();
                            if (o->list) {
                              print_params(cfg);
                              return 0;
                            }
                            if (!o->litmus.empty()) {
                              try {
                                return run_litmus_command(*o, params);
                              } catch (const std::invalid_argument& e) {
                                throw sim::ConfigError(fmt::format("--litmus: {}", e.what()));
                              }
                            }
                            TesterParams tp = tester_params;
                            tp.seed = o->seed;
                            tp.ops = o->ops;
                            return run_tester(*o, params, tp);
                          }};
}

}  // namespace tessera::bus
