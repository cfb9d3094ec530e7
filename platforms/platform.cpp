#include "platforms/platform.h"

#include <fmt/format.h>

#include <chrono>

#include "sim/hit_rate.h"

namespace tessera::platform {

Platform::Platform(sim::Config& cfg, const std::string& elf_path, const RunOptions& options)
    : cfg_(cfg), options_(options), program_path_(elf_path) {
  const auto num_sms = static_cast<unsigned>(cfg.get_int("gpu.num_sms", 1, 1, 256, "Streaming multiprocessors"));
  sm_clock_ = std::make_unique<sim::ClockDomain>(
      "sm", cfg.get_float("clock.sm_mhz", 1000.0, 1.0, 100000.0, "SM clock, MHz"));
  cpu_clock_ = std::make_unique<sim::ClockDomain>(
      "cpu", cfg.get_float("clock.cpu_mhz", 1000.0, 1.0, 100000.0, "Control-core clock, MHz"));
  const auto size_mb = static_cast<uint64_t>(cfg.get_int(
      "memory.size_mb", 256, 64, 2048, "Global memory at 0x8000_0000, MiB (programs need at least 64)"));
  global_ = std::make_unique<sim::BackingMemory>(kGlobalBase, size_mb << 20);
  sm_params_ = sm::SmParams::from_config(cfg);

  if (!elf_path.empty()) load_program(elf_path);
  if (!image_) image_ = std::make_unique<isa::ElfImage>();
  program_ = std::make_unique<isa::DecodedProgram>(*image_);

  if (!options.vcd_path.empty()) vcd_ = std::make_unique<sim::VcdWriter>(options.vcd_path, options.trace_scopes, options.inputs);

  // SMs -> crossbar -> L2 slices -> memory, TLM-2.0 AT at each boundary.
  // Memory is the fixed-latency model or HBM stacks (docs/dram.md).
  const std::string memory_model = cfg.get_enum(
      "memory.model", "fixed", {"fixed", "hbm"},
      "Global memory timing: fixed (memory.latency, memory.bytes_per_cycle) or hbm (the dram.* HBM model)");
  // The SMs reach the slices through the crossbar or the network-on-chip.
  const bool use_noc = cfg.get_enum("icnt.model", "crossbar", {"crossbar", "noc"},
                                    "SM <-> L2 interconnect: the crossbar (xbar.*) or the network-on-chip (noc.*)") ==
                       "noc";
  l2_ = std::make_unique<gpu::L2System>("l2", cfg, use_noc, run_, root_);
  if (use_noc) {
    // Nodes 0..SMs-1 are the SMs, the next ones the L2 slices (a network
    // with too few nodes is a configuration error naming noc.k).
    std::vector<int> sm_nodes, slice_nodes;
    for (unsigned i = 0; i < num_sms; ++i) sm_nodes.push_back(static_cast<int>(i));
    for (unsigned s = 0; s < l2_->slices(); ++s) slice_nodes.push_back(static_cast<int>(num_sms + s));
    noc_ = std::make_unique<noc::NocInterconnect>(
        "noc", cfg, sm_nodes, slice_nodes,
        [l2 = l2_.get()](uint64_t addr) { return static_cast<int>(l2->slice_of(static_cast<uint32_t>(addr))); }, root_,
        &run_);
    for (unsigned s = 0; s < l2_->slices(); ++s) noc_->initiator_socket.bind(l2_->slice_socket);
  } else {
    xbar_ = std::make_unique<gpu::CrossbarInterconnect>("xbar", cfg, l2_->clock(), num_sms, l2_->slices(), *l2_,
                                                        l2_->stats_group());
    for (unsigned s = 0; s < l2_->slices(); ++s) xbar_->initiator_socket.bind(l2_->slice_socket);
  }
  if (memory_model == "hbm") {
    hbm_ = std::make_unique<dram::HbmMemory>("hbm", cfg, global_.get(), kGlobalBase, root_);
    for (unsigned s = 0; s < l2_->slices(); ++s) l2_->memory_socket(s).bind(hbm_->socket);
  } else {
    memory_ = std::make_unique<gpu::FixedLatencyMemory>("memory", cfg, *global_, root_);
    for (unsigned s = 0; s < l2_->slices(); ++s) l2_->memory_socket(s).bind(memory_->socket);
  }
  atomics_ = std::make_unique<sm::GlobalAtomics>("global_atomics", *global_, run_);
  std::vector<sm::Sm*> sm_ptrs;
  for (unsigned i = 0; i < num_sms; ++i) {
    sm::Sm::Context ctx{cfg, sm_params_, *sm_clock_, *global_, *program_, run_, root_, vcd_.get(), num_sms, *atomics_};
    sms_.push_back(std::make_unique<sm::Sm>(fmt::format("sm{}", i).c_str(), i, ctx));
    if (noc_) {
      sms_.back()->mem_socket.bind(noc_->target_socket);
    } else {
      sms_.back()->mem_socket.bind(xbar_->target_socket);
    }
    sm_ptrs.push_back(sms_.back().get());
  }
  dispatcher_ = std::make_unique<gpu::Dispatcher>("dispatcher", sm_params_, *sm_clock_, run_, root_, sm_ptrs);

  const uint32_t stack_top = image_->symbol("__stack_top").value_or(0x84000000u);
  // The dispatcher's LAUNCH and STATUS registers are the cluster's coherence points.
  cpu::ControlCluster::Context cctx{cfg,          *cpu_clock_, *global_,          *program_,         run_,
                                    root_,        image_->entry, stack_top,       gpu::reg::kLaunch, gpu::reg::kStatus,
                                    stack_guards()};
  core_ = std::make_unique<cpu::ControlCluster>("cpus", cctx);
  regs_ = std::make_unique<SystemRegs>("mmio", *cpu_clock_, run_);
  regs_->set_echo(options.echo_console);
  core_->mmio_socket.bind(regs_->socket);
  regs_->dispatcher_socket.bind(dispatcher_->regs_socket);
  core_->set_wfi_condition([this] { return dispatcher_->busy(); });
  dispatcher_->on_kernel_done([this] { core_->interrupt(); });
  regs_->on_roi([this](bool begin) { roi(begin); });

  const uint64_t watchdog_cycles = static_cast<uint64_t>(cfg.get_int(
      "watchdog.cycles", 10000000, 0, 1000000000000,
      "SM cycles without an instruction that changes memory or writes MMIO before the run stops as a livelock "
      "(status 5); 0: off"));
  if (watchdog_cycles)
    run_.arm_watchdog(static_cast<uint64_t>(sm_clock_->period().value()) * watchdog_cycles,
                      fmt::format("{} SM cycles (watchdog.cycles)", watchdog_cycles), [this] { return state_dump(); });

  cfg.check_all_used();
}

Platform::~Platform() = default;

std::string Platform::state_dump() const {
  std::string state;
  for (const auto& s : sms_) state += s->dump_state();
  return core_->describe() + dispatcher_->describe() + state;
}

// The firmware's linker script (tessera.ld) gives each control core's stack
// a guard region at its bottom; an ELF linked otherwise has none.
std::vector<cpu::StackGuard> Platform::stack_guards() const {
  const auto top = image_->symbol("__stack_top"), size = image_->symbol("__stack_size"),
             hart_size = image_->symbol("__hart_stack_size"), harts_bottom = image_->symbol("__hart_stacks_bottom"),
             guard = image_->symbol("__stack_guard_size");
  if (!top || !size || !hart_size || !harts_bottom || !guard || *guard == 0 || *hart_size == 0) return {};
  const uint32_t bottom0 = *top - *size;
  if (*guard >= *size || *guard >= *hart_size || *harts_bottom > bottom0) return {};
  // Every core slot the linker script lays out (cluster.cores may use fewer).
  const uint32_t cores = 1 + (bottom0 - *harts_bottom) / *hart_size;
  std::vector<cpu::StackGuard> guards;
  guards.push_back({bottom0, *guard,
                    fmt::format("control core 0's stack [0x{:08x}, 0x{:08x}), {} bytes (__stack_size in the linker "
                                "script; the guard is __stack_guard_size)",
                                bottom0, *top, *size)});
  for (uint32_t h = 1; h < cores; ++h) {
    const uint32_t hart_top = bottom0 - (h - 1) * *hart_size, hart_bottom = hart_top - *hart_size;
    guards.push_back({hart_bottom, *guard,
                      fmt::format("control core {}'s stack [0x{:08x}, 0x{:08x}), {} bytes (__hart_stack_size in the "
                                  "linker script; the guard is __stack_guard_size)",
                                  h, hart_bottom, hart_top, *hart_size)});
  }
  return guards;
}

void Platform::load_program(const std::string& path) {
  image_ = std::make_unique<isa::ElfImage>(isa::load_elf(path));
  for (const isa::ElfSegment& seg : image_->segments) {
    if (!global_->contains(seg.addr, seg.mem_size))
      throw sim::ConfigError(fmt::format(
          "{}: segment at 0x{:08x} ({} bytes) lies outside global memory [0x{:08x}, 0x{:08x}); link with "
          "firmware/tessera-cc or raise memory.size_mb",
          path, seg.addr, seg.mem_size, kGlobalBase, kGlobalBase + global_->size()));
    global_->write(seg.addr, seg.bytes.data(), seg.bytes.size());
  }
  if (!global_->contains(image_->entry, 4))
    throw sim::ConfigError(fmt::format("{}: entry point 0x{:08x} is outside global memory", path, image_->entry));
  if (const auto top = image_->symbol("__stack_top"); top && !global_->contains(*top - 4, 4))
    throw sim::ConfigError(fmt::format("{}: the stack top 0x{:08x} is outside global memory (memory.size_mb)", path,
                                       *top));
}

void Platform::roi(bool begin) {
  const uint64_t now[3] = {sm_clock_->now_cycle(), warp_insts(), thread_insts()};
  if (begin && !roi_active_) {
    roi_active_ = roi_used_ = true;
    for (int i = 0; i < 3; ++i) roi_start_[i] = now[i];
  } else if (!begin && roi_active_) {
    roi_active_ = false;
    for (int i = 0; i < 3; ++i) roi_total_[i] += now[i] - roi_start_[i];
  }
}

int Platform::run() {
  const auto t0 = std::chrono::steady_clock::now();
  if (options_.max_cycles) {
    sc_core::sc_start(sm_clock_->time_of(options_.max_cycles));
  } else {
    sc_core::sc_start();
  }
  host_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (roi_active_) roi(false);
  regs_->flush_console();
  if (vcd_) {
    try {
      vcd_->close(static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e12 + 0.5));
    } catch (const sim::OutputError& e) {
      output_error_ = e.what();  // reported after the summary and statistics, which are not lost
    }
  }

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
  return run_.status();
}

uint64_t Platform::sim_cycles() const { return sm_clock_->now_cycle(); }

uint64_t Platform::warp_insts() const {
  uint64_t n = 0;
  for (const auto& s : sms_) n += s->warp_insts();
  return n;
}

uint64_t Platform::thread_insts() const {
  uint64_t n = 0;
  for (const auto& s : sms_) n += s->thread_insts();
  return n;
}

nlohmann::json Platform::stats_json() const {
  nlohmann::json j;
  const double host = host_seconds_;
  j["summary"] = {
      {"sim_cycles", sim_cycles()},
      {"warp_insts", warp_insts()},
      {"thread_insts", thread_insts()},
      {"host_seconds", host},
      {"warp_insts_per_host_second", host > 0 ? static_cast<double>(warp_insts()) / host : 0.0},
  };
  if (roi_used_)
    j["roi"] = {{"sim_cycles", roi_total_[0]}, {"warp_insts", roi_total_[1]}, {"thread_insts", roi_total_[2]}};
  j["chip"] = root_.to_json();
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [key, spec] : cfg_.specs()) params[key] = spec.value;
  j["config"] = {{"platform", cfg_.platform_name()}, {"program", program_path_}, {"parameters", params}};
  return j;
}

std::string Platform::report() const { return run_.message(); }

std::string Platform::summary() const {
  const double host = host_seconds_;
  const uint64_t cycles = sim_cycles(), warps = warp_insts();
  std::string status;
  switch (run_.kind()) {
    case sim::ExitKind::kProgramExit:
      status = fmt::format("program exited with status {}{}", run_.status(),
                           run_.message().empty() ? "" : " (" + run_.message() + ")");
      break;
    case sim::ExitKind::kGuestFault: status = "stopped: guest fault"; break;
    case sim::ExitKind::kBadLaunch: status = "stopped: bad kernel launch"; break;
    case sim::ExitKind::kDeadlock: status = "stopped: deadlock"; break;
    case sim::ExitKind::kCycleLimit: status = "stopped: cycle limit"; break;
    case sim::ExitKind::kRunning: status = "running"; break;
  }
  std::string out = fmt::format("---- tessera: {} on {} ({} SM{}): {}\n", program_path_,
                                cfg_.platform_name().empty() ? "platform" : cfg_.platform_name(), sms_.size(),
                                sms_.size() == 1 ? "" : "s", status);
  out += fmt::format("  simulated cycles     {:>14}  ({:.3f} us at {} MHz)\n", cycles,
                     static_cast<double>(cycles) / sm_clock_->mhz(), sm_clock_->mhz());
  out += fmt::format("  warp instructions    {:>14}\n", warps);
  out += fmt::format("  thread instructions  {:>14}\n", thread_insts());
  const uint64_t kernel_cycles = dispatcher_->kernel_cycles();
  out += fmt::format("  kernel cycles        {:>14}  (IPC {:.3f} warp insts/cycle while kernels ran)\n", kernel_cycles,
                     kernel_cycles ? static_cast<double>(warps) / static_cast<double>(kernel_cycles) : 0.0);
  std::pair<uint64_t, uint64_t> l1{0, 0};
  for (const auto& sm : sms_) {
    const auto t = sm->l1_sector_totals();
    l1.first += t.first;
    l1.second += t.second;
  }
  const auto hit_rate = [](std::pair<uint64_t, uint64_t> t) { return sim::hit_rate(t.first, t.second, 100.0); };
  out += fmt::format("  L1/texture sectors   {:>14}  ({:.1f}% hit; cached loads only)\n", l1.first + l1.second,
                     hit_rate(l1));
  const auto l2 = l2_->sector_totals();
  out += fmt::format("  L2 sectors           {:>14}  ({:.1f}% hit; reads and atomics)\n", l2.first + l2.second,
                     hit_rate(l2));
  if (hbm_) {
    const auto& st = hbm_->engine().stats();
    const double ns = hbm_->clock().period().to_seconds() * 1e9;
    out += fmt::format("  memory requests      {:>14}  ({}, {} reads; avg read {:.1f} ns)\n", st.requests,
                       hbm_->engine().spec().name, st.read_requests,
                       st.read_requests ? ns * static_cast<double>(st.read_latency_sum) /
                                              static_cast<double>(st.read_requests)
                                        : 0.0);
  } else {
    out += fmt::format("  memory requests      {:>14}  (fixed latency; avg {:.1f} memory cycles)\n",
                       memory_->requests(), memory_->avg_latency_cycles());
  }
  out += fmt::format("  control-core insts   {:>14}  ({} cores; {:.0f} insts/s)\n", core_->instructions(),
                     core_->cores(), host > 0 ? static_cast<double>(core_->instructions()) / host : 0.0);
  if (roi_used_) out += fmt::format("  region of interest   {:>14}  cycles, {} warp insts\n", roi_total_[0], roi_total_[1]);
  out += fmt::format("  host time            {:>14.3f} s\n", host);
  out += fmt::format("  simulation speed     {:>14.0f} warp insts/s, {:.0f} cycles/s\n",
                     host > 0 ? static_cast<double>(warps) / host : 0.0,
                     host > 0 ? static_cast<double>(cycles) / host : 0.0);
  return out;
}

}  // namespace tessera::platform
