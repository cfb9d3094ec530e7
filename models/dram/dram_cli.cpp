#include "dram/dram_cli.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "dram/dram_params.h"
#include "dram/memory_system.h"
#include "dram/traffic.h"
#include "sim/cli_checks.h"
#include "sim/config.h"

namespace tessera::dram {

namespace {

struct Options {
  std::string spec = "hbm2";
  unsigned stacks = 1;
  std::string pattern = "stream";
  std::string trace_file;
  uint64_t requests = 100000;
  bool requests_given = false;  // a trace runs every line unless --requests says otherwise
  double read_ratio = 1.0;
  uint32_t request_bytes = 64;
  uint64_t seed = 1;
  unsigned window = kDefaultSourceWindow;
  unsigned sources = 1;
  std::vector<std::string> sets;
  bool json = false;
};

int run(const Options& o) {
  sim::Config cfg;
  cfg.set("dram.spec", o.spec, "--spec");
  cfg.set("dram.stacks", std::to_string(o.stacks), "--stacks");
  for (const auto& s : o.sets) {
    // Keys may be given with or without the "dram." prefix.
    cfg.set_override(s.rfind("dram.", 0) == 0 ? s : "dram." + s);
  }
  const DramConfig config = load_dram_config(cfg);
  cfg.check_all_used();
  if (o.request_bytes == 0 || o.request_bytes > 4096)
    throw sim::ConfigError(fmt::format("--request-bytes {} out of range [1, 4096]", o.request_bytes));
  if (!(o.read_ratio >= 0.0 && o.read_ratio <= 1.0))
    throw sim::ConfigError(fmt::format("--read-ratio {} out of range [0, 1]", o.read_ratio));

  MemorySystem ms(config, nullptr);
  std::unique_ptr<TrafficSource> source;
  uint64_t requests = o.requests;
  if (o.pattern == "stream") {
    source = std::make_unique<StreamSource>(ms.capacity(), o.request_bytes, o.read_ratio, o.seed);
  } else if (o.pattern == "random") {
    source = std::make_unique<RandomSource>(ms.capacity(), o.request_bytes, o.read_ratio, o.seed);
  } else {
    if (o.trace_file.empty()) throw sim::ConfigError("--pattern trace needs --trace-file");
    std::ifstream in(o.trace_file);
    if (!in) throw sim::ConfigError(fmt::format("--trace-file: cannot read '{}'", o.trace_file));
    auto entries = parse_trace(in, o.trace_file);
    for (const auto& e : entries)
      if (e.address >= ms.capacity() || o.request_bytes > ms.capacity() - e.address)
        throw sim::ConfigError(fmt::format("{}:{}: address 0x{:x} + {} bytes is beyond the capacity 0x{:x}",
                                           o.trace_file, e.line, e.address, o.request_bytes, ms.capacity()));
    requests = o.requests_given ? std::min<uint64_t>(requests, entries.size()) : entries.size();
    source = std::make_unique<TraceSource>(std::move(entries));
  }

  const auto start = std::chrono::steady_clock::now();
  const DriveResult r = drive(ms, *source, requests, o.request_bytes, o.window, o.sources);
  ms.finish(r.end_cycle);
  const double host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const DramSpec& spec = ms.spec();
  const double tck_ns = spec.tck_ps / 1000.0;
  const SystemStats& st = ms.stats();
  const ChannelStats ch = ms.channel_totals();
  const double elapsed_ns = static_cast<double>(r.end_cycle) * tck_ns;
  const double bandwidth = elapsed_ns > 0 ? static_cast<double>(st.bytes) / elapsed_ns : 0.0;
  const uint64_t columns = ch.reads + ch.writes;
  const double row_hit_rate = columns ? 1.0 - static_cast<double>(std::min(ch.acts, columns)) / columns : 0.0;
  const double energy_pj = ms.energy().energy().total_pj();
  // Random traffic opens a row per burst, so the activate rate bounds it:
  // per pseudo channel at most 4 ACTs per tFAW, one per tRRD_S, and each
  // bank one per tRC; per channel, the row bus that both pseudo channels
  // share carries an ACT (tACT_BUS cycles) and a PRE (1) for every burst.
  const Timing& t = spec.timing;
  const double acts_per_pc_cycle =
      std::min({4.0 / t.tFAW, 1.0 / t.tRRD_S, static_cast<double>(spec.org.banks_per_pc()) / t.tRC});
  const double acts_per_cycle = static_cast<double>(spec.channels()) *
                                std::min(spec.org.pseudo_channels * acts_per_pc_cycle, 1.0 / (t.tACT_BUS + 1.0));
  const double activate_bound = acts_per_cycle * spec.org.burst_bytes() / tck_ns;

  nlohmann::json j;
  j["spec"] = spec.name;
  j["stacks"] = spec.stacks;
  j["channels"] = spec.channels();
  j["pattern"] = o.pattern;
  j["requests"] = st.requests;
  j["read_requests"] = st.read_requests;
  j["write_requests"] = st.write_requests;
  j["request_bytes"] = o.request_bytes;
  j["window"] = o.window;
  if (o.sources != 1) j["sources"] = o.sources;  // (absent for one requester, as before the option)
  j["cycles"] = r.end_cycle;
  j["tck_ps"] = spec.tck_ps;
  j["bytes"] = st.bytes;
  j["bandwidth_gbps"] = bandwidth;
  j["peak_bandwidth_gbps"] = spec.peak_bandwidth_gbps();
  j["bandwidth_efficiency"] = bandwidth / spec.peak_bandwidth_gbps();
  j["activate_bound_gbps"] = activate_bound;
  j["acts_per_burst"] = columns ? static_cast<double>(ch.acts) / columns : 0.0;
  j["avg_read_latency_ns"] =
      st.read_requests ? static_cast<double>(st.read_latency_sum) / st.read_requests * tck_ns : 0.0;
  j["p99_read_latency_ns"] = ms.p99_read_latency_cycles() * tck_ns;
  j["row_hit_rate"] = row_hit_rate;
  j["acts"] = ch.acts;
  j["refreshes"] = ch.refab + ch.refsb;
  j["energy_pj"] = energy_pj;
  j["energy_pj_per_bit"] = st.bytes ? energy_pj / (8.0 * st.bytes) : 0.0;
  j["protocol_violations"] = ms.checker().violation_count();
  j["commands_checked"] = ms.checker().commands_checked();
  j["host_seconds"] = host_seconds;
  j["requests_per_host_second"] = host_seconds > 0 ? st.requests / host_seconds : 0.0;

  if (o.json) {
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("tessera dram: {} x{} stack(s), {} channels x {} pseudo channels, {} pattern\n", spec.name, spec.stacks,
               spec.channels(), spec.org.pseudo_channels, o.pattern);
    fmt::print("  requests             {} ({} reads, {} writes) of {} B, source window {}\n", st.requests,
               st.read_requests, st.write_requests, o.request_bytes, o.window);
    fmt::print("  simulated            {} cycles ({:.1f} ns at tCK {} ps)\n", r.end_cycle, elapsed_ns, spec.tck_ps);
    fmt::print("  bandwidth            {:.1f} GB/s of {:.1f} GB/s peak ({:.1f}%)\n", bandwidth,
               spec.peak_bandwidth_gbps(), 100.0 * bandwidth / spec.peak_bandwidth_gbps());
    fmt::print("  activate bound       {:.1f} GB/s (random traffic, one ACT per burst)\n", activate_bound);
    fmt::print("  read latency         {:.1f} ns average, {:.1f} ns p99\n", j["avg_read_latency_ns"].get<double>(),
               j["p99_read_latency_ns"].get<double>());
    fmt::print("  row hit rate         {:.1f}%\n", 100.0 * row_hit_rate);
    fmt::print("  refreshes            {}\n", ch.refab + ch.refsb);
    fmt::print("  energy               {:.1f} nJ, {:.2f} pJ/bit\n", energy_pj / 1000.0,
               j["energy_pj_per_bit"].get<double>());
    fmt::print("  protocol violations  {} ({} commands checked)\n", ms.checker().violation_count(),
               ms.checker().commands_checked());
    fmt::print("  host                 {:.3f} s, {:.0f} requests per second\n", host_seconds,
               j["requests_per_host_second"].get<double>());
  }
  if (ms.checker().violation_count()) {
    for (const auto& v : ms.checker().violations())
      fmt::print(stderr, "tessera dram: protocol violation at cycle {}: {}: {}\n", v.cycle, v.rule, v.detail);
    return 1;
  }
  return 0;
}

}  // namespace

tessera::sim::ToolCommand add_dram_command(CLI::App& app) {
  auto options = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("dram", "Drive the HBM model standalone and report bandwidth, latency and energy");
  cmd->add_option(
         "--spec", options->spec,
         "Speed bin: " +
             [] {
               std::string s;
               for (const auto& n : preset_names()) s += (s.empty() ? "" : "|") + n;
               return s;
             }())
      ->capture_default_str();
  cmd->add_option("--stacks", options->stacks, "HBM stacks")
      ->capture_default_str()
      ->check(sim::unsigned_in(0, UINT32_MAX));
  cmd->add_option("--pattern", options->pattern, "stream|random|trace")
      ->check(CLI::IsMember({"stream", "random", "trace"}))
      ->capture_default_str();
  cmd->add_option("--trace-file", options->trace_file, "Trace: one '<cycle> <R|W> <hex address>' per line");
  cmd->add_option("--requests", options->requests, "Requests to issue (a trace: all its lines by default)")
      ->capture_default_str()
      ->check(sim::unsigned_in(1, 1000000000000));
  cmd->add_option("--read-ratio", options->read_ratio, "Fraction of reads (stream, random)")->capture_default_str();
  cmd->add_option("--request-bytes", options->request_bytes, "Bytes per request")
      ->capture_default_str()
      ->check(sim::unsigned_in(1, 4096));
  cmd->add_option("--seed", options->seed, "Random seed")
      ->capture_default_str()
      ->check(sim::unsigned_in(0, UINT64_MAX));
  cmd->add_option("--window", options->window,
                  "Requests the source holds that the queues have not accepted; younger ones pass one waiting for "
                  "a full queue, except to its pseudo channel (1: stall on the first full queue)")
      ->capture_default_str()
      ->check(sim::unsigned_in(1, 1000000));
  cmd->add_option("--sources", options->sources,
                  "Requesters the requests come from in turn (request k from k mod N): what dram.scheduler=bliss "
                  "ranks")
      ->capture_default_str()
      ->check(sim::unsigned_in(1, 256));
  cmd->add_option("--set", options->sets, "Override a parameter: key=value, e.g. scheduler=fcfs (repeatable)");
  cmd->add_flag("--json", options->json, "Print one JSON object");
  return tessera::sim::ToolCommand{cmd, [options, cmd] {
                                     options->requests_given = cmd->count("--requests") > 0;
                                     return run(*options);
                                   }};
}

}  // namespace tessera::dram
