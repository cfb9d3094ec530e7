#include "platforms/platform.h"
#include "platforms/gtkwave_views.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "gpu/dispatcher.h"
#include "platforms/plugin.h"
#include "rtl/common/fst_sink.h"
#include "sim/output_file.h"

namespace tessera::platform {

std::string default_netlist(sim::Config& cfg) {
  // Memory is the fixed-latency model or an HBM stack (docs/dram.md).
  const bool hbm = cfg.get_enum("memory.model", "fixed", {"fixed", "hbm"},
                                "Global memory timing: fixed (memory.latency, memory.bytes_per_cycle) or hbm (the "
                                "dram.* HBM model); platforms without instances: only") == "hbm";
  // The SMs reach the slices through the crossbar or the network-on-chip.
  const bool noc = cfg.get_enum("icnt.model", "crossbar", {"crossbar", "noc"},
                                "SM <-> L2 interconnect: the crossbar (xbar.*) or the network-on-chip (noc.*); "
                                "platforms without instances: only") == "noc";
  std::string text = "instances:\n  l2: {type: l2}\n";
  text += noc ? "  noc: {type: noc}\n" : "  xbar: {type: crossbar}\n";
  text += hbm ? "  hbm: {type: hbm_stack}\n" : "  memory: {type: fixed_memory}\n";
  text +=
      "  sms: {type: sm_cluster}\n  dispatcher: {type: dispatcher}\n  cluster: {type: control_cluster}\n"
      "  mmio: {type: mmio}\nbindings:\n";
  text += noc ? "  - sms.mem -> noc.in\n  - noc.out -> l2.sm\n" : "  - sms.mem -> xbar.sm\n  - xbar.out -> l2.sm\n";
  text += hbm ? "  - l2.mem -> hbm.port\n" : "  - l2.mem -> memory.port\n";
  text +=
      "  - dispatcher.sms -> sms.launch\n  - dispatcher.irq -> cluster.irq\n  - cluster.mmio -> mmio.regs\n"
      "  - mmio.dispatcher -> dispatcher.regs\n";
  return text;
}

Netlist platform_netlist(sim::Config& cfg) {
  Netlist net = parse_netlist(cfg.netlist_text(), cfg.netlist_origin());
  for (const auto& [path, where] : net.plugins) load_plugin(path, where);
  if (net.empty()) {
    net = parse_netlist(default_netlist(cfg), "the default chip");
    net.origin = cfg.netlist_origin();
  }
  return net;
}

Platform::Platform(sim::Config& cfg, const std::string& elf_path, const RunOptions& options)
    : cfg_(cfg), options_(options), program_path_(elf_path) {
  netlist_ = platform_netlist(cfg);
  const ComponentRegistry& registry = builtin_components();
  validate_netlist(netlist_, registry, cfg);
  if (!options.memory_limit_mb)
    check_host_memory(netlist_, registry, cfg, host_memory_available(),
                      "available to this process (/proc/meminfo, its cgroup)");
  else if (*options.memory_limit_mb != 0)  // 0: no check
    check_host_memory(netlist_, registry, cfg, *options.memory_limit_mb << 20, "given by --memory-limit");

  sm_clock_ =
      std::make_unique<sim::ClockDomain>("sm", cfg.get_float("clock.sm_mhz", 1000.0, 1.0, 100000.0, "SM clock, MHz"));
  cpu_clock_ = std::make_unique<sim::ClockDomain>(
      "cpu", cfg.get_float("clock.cpu_mhz", 1000.0, 1.0, 100000.0, "Control-core clock, MHz"));
  const auto size_mb = static_cast<uint64_t>(
      cfg.get_int("memory.size_mb", 256, 64, 2048, "Global memory at 0x8000_0000, MiB (programs need at least 64)"));
  global_ = std::make_unique<sim::BackingMemory>(kGlobalBase, size_mb << 20);

  if (!elf_path.empty()) {
    load_program(elf_path);
    write_program_arguments(elf_path);
  } else if (!options.program_args.empty()) {
    throw sim::ConfigError("program arguments given without a program");
  }
  if (!image_) image_ = std::make_unique<isa::ElfImage>();
  program_ = std::make_unique<isa::DecodedProgram>(*image_);

  sim::TraceOptions trace = options.trace;
  parse_triggers(options.triggers, trace);
  if (!options.trace.path.empty() || options.trace.flight_cycles) {
    trace.inputs = options.inputs;
    if (!elf_path.empty()) trace.program = std::filesystem::path(elf_path).stem().string();
    wave_ = std::make_unique<sim::Waveform>(
        trace, [inputs = options.inputs](const std::string& option, const std::string& path) {
          return rtl::make_wave_sink(option, path, inputs);
        });
    wave_->add_clock(*sm_clock_);
    wave_->add_clock(*cpu_clock_);
  }

  // Every instance, then every binding, TLM-2.0 AT at each memory boundary.
  BuildContext ctx;
  ctx.config = &cfg;
  ctx.netlist = &netlist_;
  ctx.registry = &registry;
  ctx.sm_clock = sm_clock_.get();
  ctx.cpu_clock = cpu_clock_.get();
  ctx.global = global_.get();
  ctx.image = image_.get();
  ctx.program = program_.get();
  ctx.run = &run_;
  ctx.stats = &root_;
  ctx.shared = &shared_;
  ctx.wave = wave_.get();
  ctx.echo_console = options.echo_console;
  ctx.on_roi = [this](bool begin) { roi(begin); };
  ctx.on_kernel = [this](bool begin, const std::string& name, const sm::KernelLaunch& k) { kernel(begin, name, k); };
  ctx.program_argc = program_argc_;
  ctx.program_argv = program_argv_;
  if (!options.timeline.path.empty()) {
    sim::TimelineOptions timeline = options.timeline;
    timeline.inputs = options.inputs;
    timeline_ = std::make_unique<sim::Timeline>(
        timeline, static_cast<uint64_t>(sm_clock_->period().value() / sc_core::sc_time(1, sc_core::SC_PS).value()));
    ctx.timeline = timeline_.get();
  }
  if (!options.inst_trace.path.empty()) open_inst_trace(options.inst_trace, options.inputs);
  ctx.inst_trace = inst_trace_.get();
  if (options.gdb_port || store_trigger_len_) debugger_ = std::make_unique<debug::Debugger>();
  if (store_trigger_len_)
    debugger_->set_store_trigger(
        store_trigger_addr_, store_trigger_len_, [this](const std::string& thread, uint32_t pc, uint32_t addr) {
          wave_->trigger(sim::Timeline::now_ps(),
                         fmt::format("store to 0x{:08x} by {} at pc {}", addr, thread, image_->format_pc(pc)));
        });
  if (options.gdb_port) {
    debugger_->set_monitor([this](const std::string& cmd, const std::string& args) { return monitor(cmd, args); },
                           "monitor cycle        the simulated time and cycles\n"
                           "monitor stats [TEXT] the statistics (those whose name contains TEXT)\n"
                           "monitor waves start|stop  record the waveform (--vcd FILE) from / up to now\n");
    debugger_->set_kill([this] { run_.stop(sim::ExitKind::kKilled, sim::kStatusKilled, "killed from gdb"); });
  }
  ctx.debugger = debugger_.get();
  ctx.check();
  for (const NetlistInstance* inst : build_order(netlist_, registry)) {
    components_.push_back(registry.find(inst->type)->factory(*inst, ctx));
    ctx.built[inst->name] = components_.back().get();
  }
  for (const NetlistBinding& b : netlist_.bindings) {
    Component& from = *ctx.find(b.from.instance);
    if (registry.find(from.instance().type)->socket(b.from.socket)->bound_while_built) continue;
    bind_instances(b, from, *ctx.find(b.to.instance));
  }
  gpu::DeviceInfo device;
  for (const auto& c : components_) c->describe_device(device);
  for (const auto& c : components_) c->set_device_info(device);
  if (!ctx.regs)
    throw sim::ConfigError(fmt::format("{}: the netlist has no mmio instance (the console and exit)", netlist_.origin));
  regs_ = ctx.regs;
  if (wave_) wave_->start();
  for (const auto& c : components_) report_order_.push_back(c.get());
  std::stable_sort(report_order_.begin(), report_order_.end(), [&](const Component* a, const Component* b) {
    return registry.find(a->instance().type)->report_order < registry.find(b->instance().type)->report_order;
  });

  const uint64_t watchdog_cycles = static_cast<uint64_t>(cfg.get_int(
      "watchdog.cycles", 10000000, 0, 1000000000000,
      "SM cycles without an instruction that changes memory, writes MMIO or computes a new value on a control "
      "core before the run stops as a livelock (status 5); 0: off"));
  if (watchdog_cycles)
    run_.arm_watchdog(static_cast<uint64_t>(sm_clock_->period().value()) * watchdog_cycles,
                      fmt::format("{} SM cycles (watchdog.cycles)", watchdog_cycles), [this] { return state_dump(); });

  setup_fast_forward(ctx.cluster);
  cfg.check_all_used();
}

void Platform::parse_triggers(const std::vector<std::string>& specs, sim::TraceOptions& trace) {
  for (const std::string& spec : specs) {
    const auto bad = [&](const std::string& why) {
      return sim::ConfigError(
          fmt::format("--trigger {}: {} (store:ADDR[:LEN] with ADDR hex or a symbol, or "
                      "value:SIGNAL==V)",
                      spec, why));
    };
    if (!options_.trace.flight_cycles)
      throw bad("a trigger keeps a window of the flight recorder; give --flight-recorder N too");
    if (spec.rfind("store:", 0) == 0) {
      if (store_trigger_len_) throw bad("one store trigger per run");
      std::string addr = spec.substr(6), len = "4";
      if (const size_t colon = addr.find(':'); colon != std::string::npos) {
        len = addr.substr(colon + 1);
        addr.resize(colon);
      }
      char* end = nullptr;
      if (addr.rfind("0x", 0) == 0) {
        const unsigned long long a = std::strtoull(addr.c_str(), &end, 16);
        if (*end != '\0' || a > 0xffffffffull) throw bad(fmt::format("'{}' is not a 32-bit hex address", addr));
        store_trigger_addr_ = static_cast<uint32_t>(a);
      } else if (const auto sym = image_->symbol(addr)) {
        store_trigger_addr_ = *sym;
      } else {
        throw bad(fmt::format("the program has no symbol '{}'", addr));
      }
      const unsigned long long n = std::strtoull(len.c_str(), &end, 0);
      if (len.empty() || *end != '\0' || n == 0 || n > 0x10000)
        throw bad(fmt::format("length '{}' is not a number of bytes from 1 to 65536", len));
      store_trigger_len_ = static_cast<uint32_t>(n);
    } else if (spec.rfind("value:", 0) == 0) {
      if (!trace.trigger_signal.empty()) throw bad("one value trigger per run");
      const size_t eq = spec.find("==");
      if (eq == std::string::npos || eq == 6) throw bad("expected SIGNAL==V");
      char* end = nullptr;
      const std::string v = spec.substr(eq + 2);
      const unsigned long long value = std::strtoull(v.c_str(), &end, 0);
      if (v.empty() || *end != '\0') throw bad(fmt::format("'{}' is not a number", v));
      trace.trigger_signal = spec.substr(6, eq - 6);
      trace.trigger_value = value;
    } else {
      throw bad("unknown kind");
    }
  }
}

std::string Platform::trigger_report() const {
  if (!wave_ || wave_->trigger_what().empty()) return "";
  const uint64_t period =
      static_cast<uint64_t>(sm_clock_->period().value() / sc_core::sc_time(1, sc_core::SC_PS).value());
  if (!wave_->trigger_error().empty())
    return fmt::format("trigger {} at SM cycle {}; its window could not be written: {}", wave_->trigger_what(),
                       wave_->trigger_ps() / period, wave_->trigger_error());
  return fmt::format("trigger: {} at SM cycle {}; the {} {} cycles before and after it are in {}",
                     wave_->trigger_what(), wave_->trigger_ps() / period, options_.trace.flight_cycles,
                     options_.trace.window_clock, wave_->trigger_path());
}

void Platform::setup_fast_forward(cpu::ControlCluster* cluster) {
  const RunOptions& o = options_;
  if (!o.fast_forward && o.checkpoint_out.empty() && o.restore.empty()) return;
  const char* option = o.fast_forward ? "--fast-forward" : !o.restore.empty() ? "--restore" : "--checkpoint-out";
  if (!cluster) throw sim::ConfigError(fmt::format("{}: the netlist has no control_cluster instance", option));
  if (program_path_.empty()) throw sim::ConfigError(fmt::format("{} needs a program", option));
  // The functional part runs no instruction through the debugger's hook: a
  // breakpoint or a store trigger there would be passed silently.
  if (o.fast_forward && (o.gdb_port || store_trigger_len_))
    throw sim::ConfigError(
        fmt::format("--fast-forward runs the cores functionally, where {} sees nothing; start "
                    "from a checkpoint instead (--checkpoint-out, then --restore)",
                    o.gdb_port ? "--gdb" : "--trigger store:"));
  cluster_ = cluster;
  if (!o.restore.empty()) {
    if (o.fast_forward || !o.checkpoint_out.empty())
      throw sim::ConfigError(
          "--restore starts a detailed run from a checkpoint: it takes neither --fast-forward nor --checkpoint-out");
    const cpu::Checkpoint c = cpu::read_checkpoint(o.restore, global_->size());
    const uint64_t hash = cpu::file_hash(program_path_);
    if (c.elf_hash != hash)
      throw sim::ConfigError(fmt::format(
          "{}: the checkpoint was written for another program: {} (ELF hash {:016x}), not {} (ELF hash {:016x})",
          o.restore, c.program, c.elf_hash, program_path_, hash));
    if (c.memory_base != global_->base() || c.memory_size > global_->size())
      throw sim::ConfigError(fmt::format(
          "{}: the checkpoint's memory ({} MiB at 0x{:08x}) does not fit the platform's ({} MiB at 0x{:08x}; "
          "memory.size_mb)",
          o.restore, c.memory_size >> 20, c.memory_base, global_->size() >> 20, global_->base()));
    if (c.cluster.harts.size() != cluster->cores())
      throw sim::ConfigError(fmt::format("{}: the checkpoint has {} control cores, the platform {} (cluster.cores)",
                                         o.restore, c.cluster.harts.size(), cluster->cores()));
    global_->clear();
    for (const cpu::Checkpoint::Page& p : c.pages) global_->write(p.addr, p.bytes.data(), p.bytes.size());
    cluster->restore(c.cluster);
    return;
  }
  if (!o.checkpoint_out.empty()) {
    checkpoint_file_ = sim::OutputFile("--checkpoint-out", o.checkpoint_out, o.inputs);
    cluster->on_switch([this] { write_checkpoint(); }, !o.fast_forward);
  }
  if (o.fast_forward) cluster->set_fast_forward(true, o.max_cycles);
}

void Platform::write_checkpoint() {
  cpu::Checkpoint c;
  c.program = program_path_;
  c.elf_hash = cpu::file_hash(program_path_);
  c.platform = cfg_.platform_name();
  c.memory_base = global_->base();
  c.memory_size = global_->size();
  const cpu::FastForwardInfo& ff = cluster_->fast_forward_info();
  c.reason = cpu::switch_reason_name(ff.reason);
  c.switch_pc = ff.switch_pc;
  c.cluster = cluster_->snapshot();
  for (uint64_t k = 0; k < global_->page_count(); ++k) {
    const uint8_t* p = global_->page_data(k);
    if (!p || std::all_of(p, p + sim::BackingMemory::kPageSize, [](uint8_t b) { return b == 0; })) continue;
    c.pages.push_back({static_cast<uint32_t>(global_->base() + (k << sim::BackingMemory::kPageBits)),
                       std::vector<uint8_t>(p, p + sim::BackingMemory::kPageSize)});
  }
  try {
    checkpoint_file_.write(cpu::encode_checkpoint(c));
    checkpoint_file_.close();
  } catch (const sim::OutputError& e) {
    output_error_ += (output_error_.empty() ? "" : "; ") + std::string(e.what());
  }
}

Platform::~Platform() = default;

std::string Platform::state_dump() const { return in_flight_report(report_order_); }

RunSummary Platform::totals() const {
  RunSummary sum;
  sum.add_real("host_seconds", host_seconds_);
  for (const auto& c : components_) c->summarize(sum);
  return sum;
}

void Platform::load_program(const std::string& path) {
  image_ = std::make_unique<isa::ElfImage>(isa::load_elf(path));
  for (const isa::ElfSegment& seg : image_->segments) {
    if (!global_->contains(seg.addr, seg.mem_size))
      throw sim::ConfigError(
          fmt::format("{}: segment at 0x{:08x} ({} bytes) lies outside global memory [0x{:08x}, 0x{:08x}); link with "
                      "firmware/tessera-cc or raise memory.size_mb",
                      path, seg.addr, seg.mem_size, kGlobalBase, kGlobalBase + global_->size()));
    global_->write(seg.addr, seg.bytes.data(), seg.bytes.size());
  }
  if (!global_->contains(image_->entry, 4))
    throw sim::ConfigError(fmt::format("{}: entry point 0x{:08x} is outside global memory", path, image_->entry));
  if (const auto top = image_->symbol("__stack_top"); top && !global_->contains(*top - 4, 4))
    throw sim::ConfigError(
        fmt::format("{}: the stack top 0x{:08x} is outside global memory (memory.size_mb)", path, *top));
}

void Platform::write_program_arguments(const std::string& path) {
  const auto block = image_->symbol("__tessera_args"), block_size = image_->symbol("__tessera_args_size");
  if (!block || !block_size) {
    if (options_.program_args.empty()) return;  // an ELF linked otherwise: main(0, 0) as ever
    throw sim::ConfigError(
        fmt::format("{}: the program has no argument block (__tessera_args), so it cannot take the {} argument{} "
                    "given after '--'; link it with firmware/tessera-cc",
                    path, options_.program_args.size(), options_.program_args.size() == 1 ? "" : "s"));
  }
  // argv[0] is the program's file name, as a shell would give it.
  std::vector<std::string> argv{std::filesystem::path(path).filename().string()};
  argv.insert(argv.end(), options_.program_args.begin(), options_.program_args.end());
  const uint32_t pointers = 4 * static_cast<uint32_t>(argv.size() + 1);
  uint64_t bytes = pointers;
  for (const auto& a : argv) bytes += a.size() + 1;
  if (bytes > *block_size)
    throw sim::ConfigError(
        fmt::format("{}: the program's arguments take {} bytes (pointers and strings); its argument "
                    "block (__tessera_args_size) holds {}",
                    path, bytes, *block_size));
  if (!global_->contains(*block, *block_size))
    throw sim::ConfigError(fmt::format("{}: the argument block at 0x{:08x} lies outside global memory", path, *block));
  uint32_t str = *block + pointers;
  for (size_t i = 0; i < argv.size(); ++i) {
    const uint32_t ptr = str;
    global_->write(*block + 4 * static_cast<uint32_t>(i), &ptr, 4);
    global_->write(str, argv[i].c_str(), argv[i].size() + 1);
    str += static_cast<uint32_t>(argv[i].size() + 1);
  }
  const uint32_t null = 0;
  global_->write(*block + 4 * static_cast<uint32_t>(argv.size()), &null, 4);
  program_argc_ = static_cast<uint32_t>(argv.size());
  program_argv_ = *block;
}

void Platform::roi(bool begin) {
  const uint64_t now[3] = {sm_clock_->now_cycle(), warp_insts(), thread_insts()};
  if (wave_)
    wave_->roi(begin,
               static_cast<uint64_t>(sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_PS).value()));
  if (begin && !roi_active_) {
    roi_active_ = roi_used_ = true;
    for (int i = 0; i < 3; ++i) roi_start_[i] = now[i];
    roi_host_start_ = std::chrono::steady_clock::now();
    root_.sync();
    root_.snapshot(roi_snapshot_);
  } else if (!begin && roi_active_) {
    roi_active_ = false;
    for (int i = 0; i < 3; ++i) roi_total_[i] += now[i] - roi_start_[i];
    roi_host_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - roi_host_start_).count();
    root_.sync();
    root_.accumulate(roi_snapshot_, roi_counts_);
  }
}

namespace {

// A counter's path summed over instances: a path component of at least two
// letters and a number is an instance of many, and loses the number ("sm3",
// "slice0", "l1_half1" become "sm", "slice", "l1_half"; "l2" stays), so
// that "sm.l1_half.hit_sectors" is the chip's (a name sweep metrics can
// use). "" for a histogram bucket (left out).
std::string instance_path(const std::string& path) {
  if (path.find('[') != std::string::npos) return "";
  std::string out;
  size_t from = 0;
  while (from <= path.size()) {
    const size_t dot = std::min(path.find('.', from), path.size());
    std::string part = path.substr(from, dot - from);
    const size_t letters = part.find_last_not_of("0123456789");
    if (letters != std::string::npos && letters >= 1 && letters + 1 < part.size()) part = part.substr(0, letters + 1);
    out += (out.empty() ? "" : ".") + part;
    from = dot + 1;
  }
  return out;
}

}  // namespace

void Platform::kernel(bool begin, const std::string& name, const sm::KernelLaunch& k) {
  root_.sync();
  if (begin) {
    root_.snapshot(kernel_snapshot_);
    kernel_start_cycle_ = sm_clock_->now_cycle();
    return;
  }
  sim::StatCounts share;
  root_.accumulate(kernel_snapshot_, share);
  if (kernel_sum_of_slot_.size() != share.size()) {  // the first kernel, or the tree changed shape
    std::vector<std::string> paths;
    root_.slot_paths(paths);
    std::map<std::string, size_t> index;
    kernel_sum_names_.clear();
    kernel_sum_of_slot_.assign(paths.size(), SIZE_MAX);
    for (size_t i = 0; i < paths.size(); ++i) {
      const std::string p = instance_path(paths[i]);
      if (p.empty()) continue;
      const auto [it, fresh] = index.try_emplace(p, kernel_sum_names_.size());
      if (fresh) kernel_sum_names_.push_back(p);
      kernel_sum_of_slot_[i] = it->second;
    }
  }
  std::vector<uint64_t> sums(kernel_sum_names_.size(), 0);
  for (size_t i = 0; i < share.size() && i < kernel_sum_of_slot_.size(); ++i) {
    const size_t s = kernel_sum_of_slot_[i];
    if (s == SIZE_MAX) continue;
    sums[s] = share.value(i) == sim::kNoShare || sums[s] == sim::kNoShare ? sim::kNoShare : sums[s] + share.value(i);
  }
  nlohmann::json counters = nlohmann::json::object();
  uint64_t insts = 0;
  for (size_t s = 0; s < sums.size(); ++s) {
    counters[kernel_sum_names_[s]] = sums[s] == sim::kNoShare ? nlohmann::json(nullptr) : nlohmann::json(sums[s]);
    if (kernel_sum_names_[s] == "sm.warp_insts" && sums[s] != sim::kNoShare) insts = sums[s];
  }
  const uint64_t cycles = sm_clock_->now_cycle() - kernel_start_cycle_;
  kernels_.push_back({{"name", name},
                      {"grid", {k.grid.x, k.grid.y, k.grid.z}},
                      {"block", {k.block.x, k.block.y, k.block.z}},
                      {"start_cycle", kernel_start_cycle_},
                      {"cycles", cycles},
                      {"warp_insts", insts},
                      {"ipc", cycles ? static_cast<double>(insts) / static_cast<double>(cycles) : 0.0},
                      {"counters", counters}});
}

int Platform::run() {
  if (options_.gdb_port) {
    try {
      debugger_->listen(*options_.gdb_port, stderr);
    } catch (const std::runtime_error& e) {
      throw sim::ConfigError(e.what());
    }
    debugger_->start();
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (run_.stopped()) {
    // gdb killed the run before its first instruction.
  } else if (options_.max_cycles) {
    sc_core::sc_start(sm_clock_->time_of(options_.max_cycles));
  } else {
    sc_core::sc_start();
  }
  host_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (roi_active_) roi(false);
  regs_->flush_console();

  if (!run_.stopped()) {
    if (options_.max_cycles && sm_clock_->now_cycle() >= options_.max_cycles) {
      run_.stop(sim::ExitKind::kCycleLimit, sim::kStatusCycleLimit,
                fmt::format("--max-cycles {} reached before the program exited", options_.max_cycles));
    } else {
      run_.stop(sim::ExitKind::kDeadlock, sim::kStatusDeadlock,
                fmt::format("deadlock: no component can make progress at cycle {}\n{}", sm_clock_->now_cycle(),
                            state_dump()));
    }
  }
  for (const auto& c : components_)
    if (std::string report = c->check_at_end(); !report.empty())
      run_.fail_after_exit(sim::ExitKind::kLockstepMismatch, sim::kStatusLockstepMismatch, std::move(report));
  if (checkpoint_file_.is_open()) {
    output_error_ += fmt::format(
        "{}--checkpoint-out {}: no checkpoint written: the run ended before its first ROI "
        "begin, kernel launch, tx.* or wfi",
        output_error_.empty() ? "" : "; ", options_.checkpoint_out);
    checkpoint_file_ = sim::OutputFile();  // an existing file stays as it was
  }
  if (options_.gdb_port)
    debugger_->finish(run_.kind() != sim::ExitKind::kProgramExit, run_.status(),
                      run_.kind() == sim::ExitKind::kProgramExit ? "" : run_.message());
  if (wave_) finish_waveform();
  if (timeline_) {
    try {
      // Any stop but the program's exit: a marker where the run stopped.
      if (run_.kind() != sim::ExitKind::kProgramExit) timeline_->failure(sim::Timeline::now_ps(), run_.message());
      timeline_->close(sim::Timeline::now_ps());
    } catch (const sim::OutputError& e) {
      output_error_ += (output_error_.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  // The instruction trace is kept whatever the run's end: a fault or a
  // deadlock is when it is read.
  if (inst_trace_file_.is_open()) {
    try {
      inst_trace_file_.close();
    } catch (const sim::OutputError& e) {
      output_error_ += (output_error_.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  return run_.status();
}

void Platform::open_inst_trace(const InstTraceOptions& o, const std::vector<std::string>& inputs) {
  isa::InstTraceFilter filter;
  filter.units = o.units;
  filter.kernel = o.kernel;
  try {
    if (!o.cycles.empty()) filter.set_cycles(o.cycles);
    if (!o.pcs.empty()) filter.set_pcs(o.pcs, image_->code_names());
  } catch (const std::invalid_argument& e) {
    throw sim::ConfigError(e.what());
  }
  if (!o.kernel.empty() && image_->has_kernel_record) {
    bool known = false;
    for (const auto& k : image_->kernels.kernels) known = known || filter.kernel_matches(k.name);
    if (!known) throw sim::ConfigError(fmt::format("--trace-insts-kernel: the program has no kernel '{}'", o.kernel));
  }
  inst_trace_file_ = sim::OutputFile("--trace-insts", o.path, inputs);
  inst_trace_ = std::make_unique<isa::InstTrace>(inst_trace_file_.get(), std::move(filter), *image_);
}

void Platform::finish_waveform() {
  const uint64_t now_ps =
      static_cast<uint64_t>(sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_PS).value());
  // Errors are reported after the summary and statistics, which are not lost.
  try {
    wave_->close(now_ps);
  } catch (const sim::OutputError& e) {
    output_error_ = e.what();
  }
  std::string exit_reason;
  const char* reason = nullptr;
  switch (run_.kind()) {
    case sim::ExitKind::kProgramExit:
      // A program that reports failure: main's non-zero return, exit(N),
      // abort() or a failed assert() on a control core (128 + SIGABRT).
      if (run_.status() == 128 + 6) {
        reason = "abort";
      } else if (run_.status() != 0) {
        exit_reason = fmt::format("exit{}", run_.status());
        reason = exit_reason.c_str();
      }
      break;
    case sim::ExitKind::kGuestFault:
      reason = "fault";
      break;
    case sim::ExitKind::kBadLaunch:
      reason = "bad-launch";
      break;
    case sim::ExitKind::kDeadlock:
      reason = "deadlock";
      break;
    case sim::ExitKind::kCycleLimit:
      reason = "cycle-limit";
      break;
    case sim::ExitKind::kLockstepMismatch:
      reason = "lockstep-mismatch";
      break;
    default:
      break;
  }
  // The failing unit's scope: a message starts with it ("sm0: ...",
  // "cluster.core1: ...").
  const std::string& message = run_.message();
  const size_t colon = message.find(':');
  const std::string unit = colon == std::string::npos || message.find(' ') < colon ? "" : message.substr(0, colon);
  const auto view = [&](const std::string& fst, uint64_t marker_ps, const std::string& what) {
    write_flight_view(*wave_, fst, marker_ps, unit.empty() ? "chip" : "chip." + unit, program_path_,
                      fmt::format("Tessera flight recorder: {} ({})", what, program_path_));
  };
  try {
    if (!wave_->trigger_path().empty())
      view(wave_->trigger_path(), wave_->trigger_ps(), "the window around the trigger " + wave_->trigger_what());
    if (!reason || !wave_->flight_recorder_on()) return;
    flight_path_ = wave_->dump_flight_recorder(reason, now_ps);
    view(flight_path_, now_ps, fmt::format("the last cycles before the run stopped ({})", reason));
  } catch (const std::exception& e) {
    output_error_ += (output_error_.empty() ? "" : "; ") + std::string(e.what());
  }
}

uint64_t Platform::sim_cycles() const { return sm_clock_->now_cycle(); }

std::optional<std::string> Platform::monitor(const std::string& cmd, const std::string& args) {
  const uint64_t ps = sim::Timeline::now_ps();
  if (cmd == "cycle")
    return fmt::format("{} ps: SM cycle {} ({} MHz), control-core cycle {} ({} MHz)", ps, sm_clock_->now_cycle(),
                       sm_clock_->mhz(), cpu_clock_->now_cycle(), cpu_clock_->mhz());
  if (cmd == "stats") {
    std::string text, out;
    root_.dump_text(text);
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t end = std::min(text.find('\n', pos), text.size());
      const std::string_view line(text.data() + pos, end - pos);
      if (args.empty() || line.find(args) != std::string_view::npos) (out += line) += '\n';
      pos = end + 1;
    }
    return out.empty() ? fmt::format("no statistic's line contains '{}'", args) : out;
  }
  if (cmd == "waves") {
    if (args != "start" && args != "stop") return std::string("monitor waves: say start or stop");
    if (!wave_) return std::string("no waveform is written: run with --vcd FILE");
    return wave_->set_live(args == "start", ps);
  }
  return std::nullopt;
}

uint64_t Platform::warp_insts() const { return totals().get("warp_insts"); }

uint64_t Platform::thread_insts() const { return totals().get("thread_insts"); }

nlohmann::json Platform::stats_json() const {
  nlohmann::json j;
  const double host = host_seconds_;
  const RunSummary sum = totals();
  j["summary"] = {
      {"sim_cycles", sim_cycles()},
      {"warp_insts", sum.get("warp_insts")},
      {"thread_insts", sum.get("thread_insts")},
      {"host_seconds", host},
      {"warp_insts_per_host_second", host > 0 ? static_cast<double>(sum.get("warp_insts")) / host : 0.0},
      {"host_seconds_in_kernels", sum.get_real("kernel_host_seconds")},
      {"kernel_warp_insts_per_host_second",
       sum.get_real("kernel_host_seconds") > 0
           ? static_cast<double>(sum.get("warp_insts")) / sum.get_real("kernel_host_seconds")
           : 0.0},
  };
  if (roi_used_)
    j["roi"] = {{"sim_cycles", roi_total_[0]},
                {"warp_insts", roi_total_[1]},
                {"thread_insts", roi_total_[2]},
                {"host_seconds", roi_host_seconds_},
                {"chip", root_.to_json(roi_counts_)}};
  if (!kernels_.empty()) j["kernels"] = kernels_;
  if (cluster_ && options_.fast_forward) {
    const cpu::FastForwardInfo& ff = cluster_->fast_forward_info();
    j["fast_forward"] = {
        {"instructions", ff.instructions},
        {"host_seconds", ff.host_seconds},
        {"switch", cpu::switch_reason_name(ff.reason)},
        {"switch_pc", ff.switch_pc},
        {"mips", ff.host_seconds > 0 ? static_cast<double>(ff.instructions) / ff.host_seconds / 1e6 : 0.0},
    };
  }
  j["chip"] = root_.to_json();
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [key, spec] : cfg_.specs()) params[key] = spec.value;
  for (const auto& [key, spec] : cfg_.scoped_specs()) params[key] = spec.value;  // "instance:key"
  j["config"] = {{"platform", cfg_.platform_name()}, {"program", program_path_}, {"parameters", params}};
  return j;
}

nlohmann::json Platform::stats_descriptions() const {
  nlohmann::json d = {
      {"summary.sim_cycles", "cycles simulated (SM clock)"},
      {"summary.warp_insts", "warp instructions issued"},
      {"summary.thread_insts", "thread instructions executed (active lanes of the warp instructions)"},
      {"summary.host_seconds", "host seconds the simulation took (s)"},
      {"summary.warp_insts_per_host_second", "simulation speed (warp instructions per host second)"},
      {"summary.host_seconds_in_kernels", "host seconds the simulation took while kernels ran (s)"},
      {"summary.kernel_warp_insts_per_host_second",
       "simulation speed while kernels ran (warp instructions per host second)"},
      {"roi.sim_cycles", "cycles in the region of interest (SM clock)"},
      {"roi.warp_insts", "warp instructions issued in the region of interest"},
      {"roi.thread_insts", "thread instructions executed in the region of interest"},
      {"roi.host_seconds", "host seconds the region of interest took (s)"},
      {"kernels.*.cycles", "cycles of the kernel launch, from launch to completion (SM clock)"},
      {"kernels.*.start_cycle", "SM cycle of the kernel launch"},
      {"kernels.*.warp_insts", "warp instructions of the kernel launch"},
      {"kernels.*.ipc", "warp instructions per SM cycle of the kernel launch"},
      {"fast_forward.instructions", "control-core instructions run functionally before the switch to detail"},
      {"fast_forward.host_seconds", "host seconds of the functional part (s)"},
      {"fast_forward.mips", "speed of the functional part (million instructions per host second)"},
  };
  root_.describe(d);
  return d;
}

std::string Platform::report() const {
  if (flight_path_.empty()) return run_.message();
  return fmt::format("{}\n  flight recorder: the last {} {} cycles of every traced signal are in {}",
                     run_.kind() == sim::ExitKind::kProgramExit
                         ? fmt::format("the program exited with status {}", run_.status())
                         : run_.message(),
                     options_.trace.flight_cycles, options_.trace.window_clock, flight_path_);
}

std::string Platform::summary() const {
  const double host = host_seconds_;
  const RunSummary sum = totals();
  const uint64_t cycles = sim_cycles(), warps = sum.get("warp_insts"), sms = sum.get("sms");
  std::string status;
  switch (run_.kind()) {
    case sim::ExitKind::kProgramExit:
      status = fmt::format("program exited with status {}{}", run_.status(),
                           run_.message().empty() ? "" : " (" + run_.message() + ")");
      break;
    case sim::ExitKind::kGuestFault:
      status = "stopped: guest fault";
      break;
    case sim::ExitKind::kBadLaunch:
      status = "stopped: bad kernel launch";
      break;
    case sim::ExitKind::kDeadlock:
      status = "stopped: deadlock";
      break;
    case sim::ExitKind::kCycleLimit:
      status = "stopped: cycle limit";
      break;
    case sim::ExitKind::kLockstepMismatch:
      status = "stopped: RTL and model disagree (lockstep)";
      break;
    case sim::ExitKind::kKilled:
      status = "stopped: killed from gdb";
      break;
    case sim::ExitKind::kRunning:
      status = "running";
      break;
  }
  std::string out =
      fmt::format("---- tessera: {} on {} ({} SM{}): {}\n", program_path_,
                  cfg_.platform_name().empty() ? "platform" : cfg_.platform_name(), sms, sms == 1 ? "" : "s", status);
  out += fmt::format("  simulated cycles     {:>14}  ({:.3f} us at {} MHz)\n", cycles,
                     static_cast<double>(cycles) / sm_clock_->mhz(), sm_clock_->mhz());
  // The components' lines: instructions, kernels, caches, memories, control cores.
  out += sum.lines(summary_order::kCycles + 1, summary_order::kPlatform);
  if (roi_used_)
    out += fmt::format("  region of interest   {:>14}  cycles, {} warp insts\n", roi_total_[0], roi_total_[1]);
  if (cluster_ && options_.fast_forward) {
    const cpu::FastForwardInfo& ff = cluster_->fast_forward_info();
    const double mips = ff.host_seconds > 0 ? static_cast<double>(ff.instructions) / ff.host_seconds / 1e6 : 0.0;
    if (ff.reason == cpu::SwitchReason::kProgramEnd || ff.reason == cpu::SwitchReason::kNone)
      out += fmt::format("  fast-forward         {:>14}  insts in {:.3f} s ({:.1f} MIPS); {}: nothing was timed\n",
                         ff.instructions, ff.host_seconds, mips,
                         ff.reason == cpu::SwitchReason::kProgramEnd ? "the program ended during fast-forward"
                                                                     : "the run stopped during fast-forward");
    else
      out += fmt::format("  fast-forward         {:>14}  insts in {:.3f} s ({:.1f} MIPS); switch: {} at pc 0x{:08x}\n",
                         ff.instructions, ff.host_seconds, mips, cpu::switch_reason_name(ff.reason), ff.switch_pc);
  }
  out += fmt::format("  host time            {:>14.3f} s\n", host);
  out += fmt::format("  simulation speed     {:>14.0f} warp insts/s, {:.0f} cycles/s (whole run)\n",
                     host > 0 ? static_cast<double>(warps) / host : 0.0,
                     host > 0 ? static_cast<double>(cycles) / host : 0.0);
  // Control-core setup dominates many programs; the kernels' own speed is
  // what an SM model change moves.
  const double kernel_host = sum.get_real("kernel_host_seconds");
  out += fmt::format("  kernel speed         {:>14.0f} warp insts/s while kernels ran ({:.3f} s of host time)\n",
                     kernel_host > 0 ? static_cast<double>(warps) / kernel_host : 0.0, kernel_host);
  return out;
}

}  // namespace tessera::platform
