// The `tessera` command line: run a program on a platform, list a
// platform's parameters.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <systemc>

#include "bus/coherence_cli.h"
#include "dram/dram_cli.h"
#include "isa/elf_loader.h"
#include "noc/noc_cli.h"
#include "platforms/platform.h"
#include "platforms/plugin.h"
#include "platforms/rtl_commands.h"
#include "platforms/trace_query.h"
#include "platforms/waves_command.h"
#include "sim/cli_checks.h"
#include "sim/host_timeout.h"
#include "sim/log.h"
#include "sim/output_file.h"
#include "sim/source_tree.h"
#include "sim/tool_command.h"
#include "sim/unhandled_error.h"

namespace fs = std::filesystem;
using tessera::sim::ConfigError;

namespace {

fs::path platform_dir() { return fs::path(tessera::sim::source_tree()) / "platforms"; }

// A platform is a YAML path, or the name of one in the platforms/ folder
// ("sm1" for platforms/sm1.yaml).
std::string resolve_platform(const std::string& arg) {
  if (fs::exists(arg)) return arg;
  const std::string name = fs::path(arg).extension() == ".yaml" ? fs::path(arg).stem().string() : arg;
  std::vector<fs::path> dirs{platform_dir()};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path() / ".." / "platforms");
  for (const auto& d : dirs) {
    const fs::path candidate = d / (name + ".yaml");
    if (fs::exists(candidate)) return candidate.string();
  }
  std::string known;
  if (fs::is_directory(platform_dir())) {
    for (const auto& entry : fs::directory_iterator(platform_dir()))
      if (entry.path().extension() == ".yaml") known += " " + entry.path().stem().string();
  }
  throw ConfigError(fmt::format("platform '{}' not found (not a file; known platforms:{})", arg, known));
}

void quiet_systemc() {
  // The simulator reports for itself; SystemC's info messages ("simulation
  // stopped by user") would only clutter the console.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

int list_config(const std::string& platform_arg, const std::vector<std::string>& sets) {
  tessera::sim::Config cfg;
  cfg.load_yaml_file(resolve_platform(platform_arg));
  for (const auto& s : sets) cfg.set_override(s);
  tessera::platform::Platform platform(cfg, "", tessera::platform::RunOptions{});
  fmt::print("# {}: {}\n", cfg.platform_name(), cfg.platform_description());
  fmt::print("{:<32} {:<10} {:<10} {:<18} {:<8} {}\n", "key", "value", "default", "range", "type", "description");
  for (const auto& [key, spec] : cfg.specs()) {
    fmt::print("{:<32} {:<10} {:<10} {:<18} {:<8} {}{}\n", key, spec.value, spec.default_value, spec.range, spec.type,
               spec.description, spec.source == "default" ? "" : fmt::format(" (set by {})", spec.source));
  }
  // Parameters an instance sets for itself ("instance:key").
  for (const auto& [key, spec] : cfg.scoped_specs()) {
    fmt::print("{:<32} {:<10} {:<10} {:<18} {:<8} {} (set by {})\n", key, spec.value, spec.default_value, spec.range,
               spec.type, spec.description, spec.source);
  }
  return 0;
}

// The platform's composition: its instances and bindings (validated), as
// text or as a Graphviz graph; --types lists every registered component type.
int show_netlist(const std::string& platform_arg, const std::vector<std::string>& sets, bool dot, bool types) {
  namespace tp = tessera::platform;
  if (types) {
    for (const auto& [name, type] : tp::builtin_components().types()) {
      fmt::print("{}: {}\n", name, type.description);
      for (const auto& s : type.sockets)
        fmt::print("  socket {:<12} {:<9} {}{}\n", s.name,
                   s.kind == tp::SocketSpec::Kind::kInitiator ? "initiator" : "target",
                   s.max_bindings == 1 ? "(one binding) " : "", s.description);
      for (const auto& a : type.attributes) fmt::print("  attribute {:<9} {}\n", a.name, a.description);
    }
    return 0;
  }
  if (platform_arg.empty()) throw ConfigError("tessera netlist: name a platform (or give --types)");
  tessera::sim::Config cfg;
  cfg.load_yaml_file(resolve_platform(platform_arg));
  for (const auto& s : sets) cfg.set_override(s);
  const tp::Netlist net = tp::platform_netlist(cfg);
  tp::validate_netlist(net, tp::builtin_components(), cfg);
  const std::string title = cfg.platform_name().empty() ? platform_arg : cfg.platform_name();
  if (dot) {
    fmt::print("{}", tp::netlist_dot(net, title));
    return 0;
  }
  fmt::print("# {}: {}\ninstances:\n", title, cfg.platform_description());
  for (const auto& inst : net.instances) {
    std::string extra;
    for (const auto& [key, value] : inst.attributes) extra += fmt::format(", {}: {}", key, value);
    for (const auto& [key, value] : inst.params) extra += fmt::format(", {}={}", key, value.first);
    fmt::print("  {:<12} {}{}\n", inst.name, inst.type, extra);
  }
  fmt::print("bindings:\n");
  for (const auto& b : net.bindings) fmt::print("  {} -> {}\n", b.from.text(), b.to.text());
  return 0;
}

int run(const std::string& platform_arg, const std::string& elf, const std::vector<std::string>& sets,
        const std::string& stats_path, const std::string& describe_path, tessera::platform::RunOptions options,
        bool quiet, tessera::platform::RunCoverageOption& rtl_coverage) {
  tessera::sim::Config cfg;
  const std::string platform_file = resolve_platform(platform_arg);
  options.inputs = {platform_file, elf, options.restore};
  // Outputs are opened before the run, so a bad path costs nothing.
  tessera::sim::OutputFile stats_out;
  if (!stats_path.empty()) stats_out = tessera::sim::OutputFile("--stats", stats_path, options.inputs);
  tessera::sim::OutputFile describe_out;
  if (!describe_path.empty())
    describe_out = tessera::sim::OutputFile("--stats-describe", describe_path, options.inputs);
  rtl_coverage.open(options.inputs);
  cfg.load_yaml_file(platform_file);
  for (const auto& s : sets) cfg.set_override(s);
  tessera::platform::Platform platform(cfg, elf, options);
  rtl_coverage.check_blocks();
  const int status = platform.run();
  if (platform.run_control().kind() != tessera::sim::ExitKind::kProgramExit)
    fmt::print(stderr, "tessera: error: {}\n", platform.report());
  else if (!platform.flight_path().empty())
    fmt::print(stderr, "tessera: {}\n", platform.report());
  if (const std::string t = platform.trigger_report(); !t.empty()) fmt::print(stderr, "tessera: {}\n", t);
  if (!quiet) fmt::print(stderr, "{}", platform.summary());
  if (!options.trace.path.empty() && !quiet) fmt::print(stderr, "  waveform             {}\n", options.trace.path);
  if (!options.timeline.path.empty() && !quiet)
    fmt::print(stderr, "  timeline             {}\n", options.timeline.path);
  std::string output_error = platform.output_error();
  // Writes an output asked for (its text made only then); a failure joins the others.
  const auto write_output = [&output_error](tessera::sim::OutputFile& out, const auto& text) {
    if (!out.is_open()) return;
    out.write(text() + "\n");
    try {
      out.close();
    } catch (const tessera::sim::OutputError& e) {
      output_error += (output_error.empty() ? "" : "; ") + std::string(e.what());
    }
  };
  write_output(stats_out, [&] { return platform.stats_json().dump(2); });
  write_output(describe_out, [&] { return platform.stats_descriptions().dump(1); });
  if (const std::string e = rtl_coverage.write(); !e.empty()) output_error += (output_error.empty() ? "" : "; ") + e;
  if (!output_error.empty()) {
    fmt::print(stderr, "tessera: error: {} (the run itself ended with status {})\n", output_error, status);
    return tessera::sim::kStatusOutputError;
  }
  return status;
}

// `tessera sweep ...` is the Python tool tools/tessera-sweep: exec it with
// this binary's absolute path, so the sweep runs the tessera that was asked.
int exec_sweep(const std::vector<std::string>& args) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    fmt::print(stderr, "tessera: error: sweep: cannot find this binary's path (/proc/self/exe: {})\n", ec.message());
    return tessera::sim::kStatusConfigError;
  }
  fs::path script = (fs::path(tessera::sim::source_tree()) / "tools") / "tessera-sweep";
  if (!fs::exists(script)) script = exe.parent_path() / ".." / "tools" / "tessera-sweep";
  const std::string python = "/usr/bin/python3";
  if (!fs::exists(script)) {
    fmt::print(stderr, "tessera: error: sweep: the sweep tool is missing (looked for {} and {})\n",
               ((fs::path(tessera::sim::source_tree()) / "tools") / "tessera-sweep").string(), script.string());
    return tessera::sim::kStatusConfigError;
  }
  if (access(python.c_str(), X_OK) != 0) {
    fmt::print(stderr, "tessera: error: sweep: {} is missing (the sweep tool needs Debian's python3 with yaml)\n",
               python);
    return tessera::sim::kStatusConfigError;
  }
  std::vector<std::string> argv_s{python, script.string(), "--tessera", exe.string()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv_c;
  for (auto& a : argv_s) argv_c.push_back(a.data());
  argv_c.push_back(nullptr);
  std::fflush(stdout);
  execv(python.c_str(), argv_c.data());
  fmt::print(stderr, "tessera: error: sweep: cannot run {}: {}\n", python, std::strerror(errno));
  return tessera::sim::kStatusConfigError;
}

}  // namespace

int sc_main(int argc, char** argv) {
  quiet_systemc();
  CLI::App app{"Tessera: a SystemC/TLM-2.0 full-chip model of a parallel chip (SMs, control cores, memory)."};
  app.require_subcommand(1);
  std::string log_level = "warning";
  app.add_option("--log-level", log_level, "trace|debug|info|warning|error|off")->capture_default_str();

  std::string platform_arg, elf, stats_path;
  std::vector<std::string> sets;
  tessera::platform::RunOptions options;
  bool quiet = false;
  auto* run_cmd = app.add_subcommand("run", "Run a firmware program on a platform; exits with main()'s status");
  run_cmd->add_option("platform", platform_arg, "Platform netlist (a .yaml file, or a name such as sm1 or chip)")
      ->required();
  run_cmd->add_option("program", elf, "Firmware ELF built by firmware/tessera-cc")->required();
  run_cmd->add_option("args", options.program_args, "Arguments of the program's main(), after '--' (argv[1..])");
  run_cmd->add_option("--set", sets, "Override a parameter: key=value (repeatable)");
  run_cmd->add_option("--stats", stats_path, "Write hierarchical statistics as JSON");
  std::string describe_path;
  run_cmd->add_option("--stats-describe", describe_path,
                      "Write each statistic's path and description as JSON (roi.* and kernels.*.counters.* paths "
                      "are described by their chip.* counters)");
  std::string trace_window;
  run_cmd->add_option("--vcd", options.trace.path,
                      "Write a waveform: VCD, or FST when FILE ends in .fst (open with gtkwave; views in waves/)");
  run_cmd->add_option("--trace-scope", options.trace.scopes,
                      "Restrict the waveform to instance paths (glob, repeatable; e.g. sm0.*, noc.r5)");
  run_cmd->add_option("--trace-window", trace_window,
                      "Trace only cycles START to END of a clock: START:END or START:END@CLOCK (default clock sm)");
  run_cmd->add_flag("--trace-after-roi", options.trace.after_roi,
                    "Start the waveform at the firmware's region-of-interest mark (tessera_roi_begin)");
  run_cmd
      ->add_option("--flight-recorder", options.trace.flight_cycles,
                   "Keep the last N cycles of every traced signal in memory; on a fault, deadlock, cycle limit or "
                   "lockstep mismatch write them to <dir>/<program>-<reason>.fst")
      ->check(tessera::sim::unsigned_in(1, 1000000000));
  run_cmd->add_option("--trigger", options.triggers,
                      "Keep a second flight-recorder window around the first store:ADDR[:LEN] (ADDR hex or a "
                      "symbol; a store or atomic by any core or lane) or value:SIGNAL==V (a traced signal's full "
                      "name) (repeatable; needs --flight-recorder; docs/debugging.md)");
  run_cmd->add_option("--flight-dir", options.trace.flight_dir, "Directory of the flight recorder's waveforms")
      ->capture_default_str();
  run_cmd->add_option("--trace-insts", options.inst_trace.path,
                      "Write an instruction trace: a line per retired control-core instruction and per SM warp "
                      "instruction (cycle, unit, pc, function+offset (file:line), disassembly, register written, "
                      "memory address; docs/debugging.md)");
  run_cmd->add_option("--trace-insts-unit", options.inst_trace.units,
                      "Trace only units matching a glob (repeatable; units: cluster.core1, sm2.w5, sm*.w0)");
  run_cmd->add_option("--trace-insts-cycles", options.inst_trace.cycles,
                      "Trace only cycles FIRST:LAST of each unit's clock (either side may be empty)");
  run_cmd->add_option("--trace-insts-kernel", options.inst_trace.kernel,
                      "Trace only the SM instructions of this kernel (its name, with or without parameters)");
  run_cmd->add_option("--trace-insts-pc", options.inst_trace.pcs,
                      "Trace only PCs LO:HI (hex) or one function's (its name)");
  run_cmd
      ->add_option("--gdb", options.gdb_port,
                   "Serve gdb (gdb-multiarch: target remote :PORT) on 127.0.0.1:PORT, stopped before the first "
                   "instruction; control cores and SM warps are its threads (0: a free port, printed; "
                   "docs/debugging.md)")
      ->check(CLI::Range(0, 65535));
  std::string timeline_window;
  run_cmd->add_option("--timeline", options.timeline.path,
                      "Write a timeline of the run as Chrome trace-event JSON (open in ui.perfetto.dev or "
                      "chrome://tracing)");
  run_cmd
      ->add_option("--timeline-sample", options.timeline.sample,
                   "Record every Nth memory transaction (SM requests, L2 memory requests) in the timeline (1: every "
                   "one; a recorded SM request's L2 fill is always recorded and linked)")
      ->capture_default_str()
      ->check(tessera::sim::unsigned_in(1, 1000000000));
  run_cmd->add_option("--timeline-window", timeline_window,
                      "Keep only SM cycles START to END in the timeline: START:END");
  run_cmd->add_option("--max-cycles", options.max_cycles, "Stop after this many SM cycles (exit status 6)")
      ->check(tessera::sim::unsigned_in(1, 1000000000000));
  run_cmd
      ->add_option("--memory-limit", options.memory_limit_mb,
                   "Refuse, before building it, a model whose estimated host memory exceeds this many MiB "
                   "(default: the memory available to this process, from /proc/meminfo and its cgroup; 0: no check)")
      ->check(tessera::sim::unsigned_in(0, 1ull << 40));
  double host_timeout = 0;
  run_cmd
      ->add_option("--host-timeout", host_timeout,
                   "Stop the run after this many seconds of host (wall-clock) time, with exit status 11 and no "
                   "statistics (a sweep gives each run its timeout)")
      ->check(CLI::Range(0.001, 31.0 * 24 * 3600));
  run_cmd->add_flag("-q,--quiet", quiet, "Do not print the summary");
  tessera::platform::RunCoverageOption rtl_coverage;
  rtl_coverage.add_to(run_cmd);
  run_cmd->add_flag("--fast-forward", options.fast_forward,
                    "Run the control cores functionally up to the first ROI begin, kernel launch, tx.* or wfi, then "
                    "in detail (caches cold, cycle 0)");
  run_cmd->add_option("--checkpoint-out", options.checkpoint_out,
                      "Write the cores' registers and memory at that switch point to FILE");
  run_cmd->add_option("--restore", options.restore,
                      "Start a detailed run from a checkpoint FILE of --checkpoint-out (the same program)");

  // Libraries that register component types and device reference models
  // (docs/plugins.md); a netlist's plugins: list loads more.
  std::vector<std::string> plugins;
  const auto plugin_option = [&plugins](CLI::App* cmd) {
    cmd->add_option("--plugin", plugins, "Load a plugin library (repeatable; docs/plugins.md)");
  };
  plugin_option(run_cmd);

  bool list = false;
  auto* config_cmd = app.add_subcommand("config", "Show a platform's parameters");
  config_cmd->add_flag("--list", list, "List every parameter with its value, default, range and description");
  config_cmd->add_option("platform", platform_arg, "Platform netlist (.yaml file or name)")->required();
  config_cmd->add_option("--set", sets, "Override a parameter: key=value (repeatable)");

  bool dot = false, types = false;
  auto* netlist_cmd = app.add_subcommand("netlist", "Show a platform's instances and bindings (validated)");
  netlist_cmd->add_option("platform", platform_arg, "Platform netlist (.yaml file or name)");
  netlist_cmd->add_flag("--dot", dot, "Print the instance/binding graph as Graphviz dot");
  netlist_cmd->add_flag("--types", types, "List the registered component types, their sockets and attributes");
  netlist_cmd->add_option("--set", sets, "Override a parameter: key=value (repeatable)");
  plugin_option(config_cmd);
  plugin_option(netlist_cmd);

  // Everything after `sweep` belongs to the sweep tool (its own --help too).
  auto* sweep_cmd = app.add_subcommand("sweep", "Run a design-space sweep (tools/tessera-sweep; see --help)");
  sweep_cmd->set_help_flag();
  sweep_cmd->allow_extras();
  sweep_cmd->prefix_command();

  // Standalone tools of the subsystems.
  std::vector<tessera::sim::ToolCommand> tools;
  tools.push_back(tessera::bus::add_coherence_command(app));
  tools.push_back(tessera::noc::add_noc_command(app));
  plugin_option(tools.back().command);  // routers of a plugin's implementations (noc.router_impl=rtl:NAME)
  tools.push_back(tessera::dram::add_dram_command(app));
  tools.push_back(tessera::platform::add_waves_command(app, resolve_platform));
  tools.push_back(tessera::platform::add_trace_query_command(app));
  tools.push_back(tessera::platform::add_rtl_coverage_command(app));
  tools.push_back(tessera::platform::add_rtl_test_command(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : tessera::sim::kStatusConfigError;
  }

  if (sweep_cmd->parsed()) return exec_sweep(sweep_cmd->remaining());

  int status = 0;
  try {
    tessera::sim::set_log_level(log_level == "warning" ? "warn" : log_level);
    if (run_cmd->parsed() && !trace_window.empty()) tessera::sim::parse_trace_window(trace_window, options.trace);
    if (run_cmd->parsed() && !timeline_window.empty())
      tessera::sim::parse_timeline_window(timeline_window, options.timeline);
    for (const std::string& p : plugins) tessera::platform::load_plugin(p, "--plugin");
    if (run_cmd->parsed() && host_timeout > 0) tessera::sim::arm_host_timeout(host_timeout);
    if (run_cmd->parsed())
      status = run(platform_arg, elf, sets, stats_path, describe_path, options, quiet, rtl_coverage);
    if (config_cmd->parsed()) status = list_config(platform_arg, sets);
    if (netlist_cmd->parsed()) status = show_netlist(platform_arg, sets, dot, types);
    for (const auto& tool : tools)
      if (tool.command->parsed()) status = tool.run();
  } catch (const tessera::sim::OutputError& e) {
    fmt::print(stderr, "tessera: error: {}\n", e.what());
    return tessera::sim::kStatusOutputError;
  } catch (const ConfigError& e) {
    fmt::print(stderr, "tessera: error: {}\n", e.what());
    return tessera::sim::kStatusConfigError;
  } catch (const tessera::isa::ElfError& e) {
    fmt::print(stderr, "tessera: error: {}\n", e.what());
    return tessera::sim::kStatusConfigError;
  } catch (...) {
    std::fflush(stdout);  // the guest's console so far, before the report
    return tessera::sim::report_unhandled_exception(std::current_exception(), stderr);
  }
  // Results printed on stdout (the console, --json) count as outputs too.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(stderr, "tessera: error: writing standard output failed (the run ended with status {})\n", status);
    return tessera::sim::kStatusOutputError;
  }
  return status;
}

// Our own main: SystemC prints its banner when the kernel starts unless told
// not to, and that must be said before sc_elab_and_sim.
int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
