// The platform builder: elaborates the chip a netlist describes (its
// instances of registered component types and their bindings; a platform
// file without `instances:` gets the default chip of default_netlist()),
// loads the program, runs it and reports.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cpu/control_cluster.h"
#include "debug/debugger.h"
#include "isa/decoded_program.h"
#include "isa/elf_loader.h"
#include "isa/inst_trace.h"
#include "platforms/component.h"
#include "platforms/netlist.h"
#include "platforms/system_regs.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/output_file.h"
#include "sim/run_control.h"
#include "sim/stats.h"
#include "sim/timeline.h"
#include "sim/waveform.h"

namespace tessera::platform {

inline constexpr uint32_t kGlobalBase = 0x80000000;

// --trace-insts FILE and its filters (isa/inst_trace.h).
struct InstTraceOptions {
  std::string path;                 // "" writes none
  std::vector<std::string> units;   // --trace-insts-unit GLOB...
  std::string cycles, kernel, pcs;  // --trace-insts-cycles A:B, -kernel NAME, -pc LO:HI|FUNCTION
};

struct RunOptions {
  sim::TraceOptions trace;                // --vcd, --trace-*, --flight-recorder
  InstTraceOptions inst_trace;            // --trace-insts
  sim::TimelineOptions timeline;          // --timeline, --timeline-*: path "" writes none
  uint64_t max_cycles = 0;                // 0: no limit
  std::vector<std::string> inputs;        // files the run reads (ELF, netlist): never overwritten by an output
  std::vector<std::string> program_args;  // main's argv[1..] (`tessera run PLATFORM ELF -- ARG...`)
  bool echo_console = true;
  // docs/fast-forward.md: run the control cores functionally up to the first
  // ROI begin / launch / tx.* / wfi; write the state there; start from one.
  bool fast_forward = false;
  std::string checkpoint_out, restore;
  // Refuse a model whose estimated host memory exceeds this many MiB
  // (check_host_memory); unset: what host_memory_available() reports; 0: no check.
  std::optional<uint64_t> memory_limit_mb;
  // --gdb PORT: serve gdb on 127.0.0.1:PORT (0: a free port), stopped
  // before the first instruction (debug/debugger.h); unset: no debugger.
  std::optional<uint16_t> gdb_port;
  // --trigger store:ADDR[:LEN] | value:SIGNAL==V: the flight recorder's
  // second window (sim::Waveform::trigger).
  std::vector<std::string> triggers;
};

// The chip of a platform file without `instances:`: SMs, the crossbar or
// (icnt.model=noc) the network, the L2, fixed-latency or (memory.model=hbm)
// HBM memory, the dispatcher, the control cores and the MMIO block.
std::string default_netlist(sim::Config& cfg);

// The platform file's netlist: its own `instances:` and `bindings:`, or the
// default chip.
Netlist platform_netlist(sim::Config& cfg);

class Platform {
 public:
  // elf_path may be empty to elaborate only (`tessera config --list`).
  Platform(sim::Config& cfg, const std::string& elf_path, const RunOptions& options);
  ~Platform();

  // Runs to the end; returns the exit status. run_control() says why.
  int run();

  const sim::RunControl& run_control() const { return run_; }
  std::string report() const;  // what went wrong, for a non-program exit
  // The flight recorder's file, when the run went wrong ("" otherwise): a
  // failure, or a program exit with a non-zero status.
  const std::string& flight_path() const { return flight_path_; }
  // What the --trigger window holds and where ("" when none fired).
  std::string trigger_report() const;
  // Why the waveform could not be written ("" when it was, or none was asked for).
  const std::string& output_error() const { return output_error_; }
  std::string summary() const;  // the end-of-run summary
  nlohmann::json stats_json() const;
  // Every path stats_json() can hold -> its description ("roi.chip.*" and
  // "kernels.N.counters.*" are described by their chip.* counters;
  // kernels' own fields under "kernels.*"), for `--stats-describe`.
  nlohmann::json stats_descriptions() const;
  const std::string& console() const { return regs_->console(); }
  const Netlist& netlist() const { return netlist_; }
  // The waveform (null when nothing is traced): its signals, for `tessera waves`.
  const sim::Waveform* waveform() const { return wave_.get(); }

  uint64_t sim_cycles() const;
  uint64_t warp_insts() const;
  uint64_t thread_insts() const;
  double host_seconds() const { return host_seconds_; }

 private:
  void load_program(const std::string& path);
  // main's argc and argv in the ELF's argument block (__tessera_args).
  void write_program_arguments(const std::string& path);
  void roi(bool begin);
  // What every model holds in flight (sim::InFlightReporter, or the model's
  // own dump), for deadlock and watchdog reports.
  std::string state_dump() const;
  // Closes the waveform; after a failed run, dumps the flight recorder.
  void finish_waveform();
  void open_inst_trace(const InstTraceOptions& o, const std::vector<std::string>& inputs);
  RunSummary totals() const;
  // --fast-forward, --checkpoint-out, --restore (platforms/platform.cpp).
  void setup_fast_forward(cpu::ControlCluster* cluster);
  void write_checkpoint();
  cpu::ControlCluster* cluster_ = nullptr;
  sim::OutputFile checkpoint_file_;

  sim::Config& cfg_;
  RunOptions options_;
  std::string program_path_;
  sim::RunControl run_;
  sim::StatGroup root_{"chip"};
  std::unique_ptr<sim::ClockDomain> sm_clock_, cpu_clock_;
  std::unique_ptr<sim::BackingMemory> global_;
  std::unique_ptr<isa::ElfImage> image_;
  std::unique_ptr<isa::DecodedProgram> program_;
  std::unique_ptr<sim::Waveform> wave_;
  std::unique_ptr<sim::Timeline> timeline_;
  sim::OutputFile inst_trace_file_;  // --trace-insts
  std::unique_ptr<isa::InstTrace> inst_trace_;
  std::unique_ptr<debug::Debugger> debugger_;  // --gdb, --trigger store:
  // --trigger store:ADDR[:LEN] (len 0: none).
  uint32_t store_trigger_addr_ = 0, store_trigger_len_ = 0;
  void parse_triggers(const std::vector<std::string>& specs, sim::TraceOptions& trace);
  // gdb's `monitor` commands the platform answers (cycle, stats, waves).
  std::optional<std::string> monitor(const std::string& cmd, const std::string& args);
  std::string flight_path_;  // the flight recorder's dump, when the run went wrong
  Netlist netlist_;
  std::map<std::string, std::shared_ptr<void>> shared_;  // BuildContext::shared, outliving the components
  std::vector<std::unique_ptr<Component>> components_;   // in build order
  std::vector<const Component*> report_order_;
  SystemRegs* regs_ = nullptr;
  double host_seconds_ = 0;
  std::string output_error_;
  uint32_t program_argc_ = 0, program_argv_ = 0;  // core 0's s0 and s1 at start (crt0 passes them to main)
  bool roi_active_ = false, roi_used_ = false;
  std::chrono::steady_clock::time_point roi_host_start_;
  double roi_host_seconds_ = 0;                                   // host time inside the region
  uint64_t roi_start_[3] = {0, 0, 0}, roi_total_[3] = {0, 0, 0};  // cycles, warp insts, thread insts
  // Every counter's share of the region of interest (roi.chip) and of each
  // kernel (kernels[i]): snapshots at their start, gains at their end.
  sim::StatCounts roi_snapshot_, roi_counts_, kernel_snapshot_;
  uint64_t kernel_start_cycle_ = 0;
  // Each snapshot slot's sum over instances (kernels[i].counters): its
  // index in kernel_sum_names_ (SIZE_MAX: a histogram bucket, left out).
  std::vector<size_t> kernel_sum_of_slot_;
  std::vector<std::string> kernel_sum_names_;
  nlohmann::json kernels_ = nlohmann::json::array();
  void kernel(bool begin, const std::string& name, const sm::KernelLaunch& k);
};

}  // namespace tessera::platform
