// The platform builder: instantiates a chip from a netlist's parameters
// (gpu.num_sms SMs, a control core, global memory, the dispatcher and the
// MMIO block), loads the program, runs it and reports.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cpu/control_cluster.h"
#include "gpu/crossbar_interconnect.h"
#include "gpu/dispatcher.h"
#include "dram/hbm_memory.h"
#include "gpu/fixed_latency_memory.h"
#include "gpu/l2_system.h"
#include "isa/decoded_program.h"
#include "isa/elf_loader.h"
#include "noc/noc_interconnect.h"
#include "platforms/system_regs.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/run_control.h"
#include "sim/stats.h"
#include "sim/vcd.h"
#include "sm/sm.h"

namespace tessera::platform {

inline constexpr uint32_t kGlobalBase = 0x80000000;

struct RunOptions {
  std::string vcd_path;
  std::vector<std::string> trace_scopes;
  uint64_t max_cycles = 0;  // 0: no limit
  std::vector<std::string> inputs;  // files the run reads (ELF, netlist): never overwritten by an output
  bool echo_console = true;
};

class Platform {
 public:
  // elf_path may be empty to elaborate only (`tessera config --list`).
  Platform(sim::Config& cfg, const std::string& elf_path, const RunOptions& options);
  ~Platform();

  // Runs to the end; returns the exit status. run_control() says why.
  int run();

  const sim::RunControl& run_control() const { return run_; }
  std::string report() const;            // what went wrong, for a non-program exit
  // Why the waveform could not be written ("" when it was, or none was asked for).
  const std::string& output_error() const { return output_error_; }
  std::string summary() const;           // the end-of-run summary
  nlohmann::json stats_json() const;
  const std::string& console() const { return regs_->console(); }

  uint64_t sim_cycles() const;
  uint64_t warp_insts() const;
  uint64_t thread_insts() const;
  double host_seconds() const { return host_seconds_; }

 private:
  void load_program(const std::string& path);
  void roi(bool begin);
  std::string state_dump() const;  // every core, the dispatcher and every warp, for deadlock reports
  std::vector<cpu::StackGuard> stack_guards() const;

  sim::Config& cfg_;
  RunOptions options_;
  std::string program_path_;
  sim::RunControl run_;
  sim::StatGroup root_{"chip"};
  std::unique_ptr<sim::ClockDomain> sm_clock_, cpu_clock_;
  std::unique_ptr<sim::BackingMemory> global_;
  std::unique_ptr<isa::ElfImage> image_;
  std::unique_ptr<isa::DecodedProgram> program_;
  std::unique_ptr<sim::VcdWriter> vcd_;
  sm::SmParams sm_params_{};
  std::unique_ptr<gpu::FixedLatencyMemory> memory_;  // memory.model=fixed
  std::unique_ptr<dram::HbmMemory> hbm_;       // memory.model=hbm
  std::unique_ptr<gpu::L2System> l2_;
  std::unique_ptr<noc::NocInterconnect> noc_;  // icnt.model=noc
  std::unique_ptr<gpu::CrossbarInterconnect> xbar_;  // icnt.model=crossbar
  std::unique_ptr<sm::GlobalAtomics> atomics_;
  std::vector<std::unique_ptr<sm::Sm>> sms_;
  std::unique_ptr<gpu::Dispatcher> dispatcher_;
  std::unique_ptr<cpu::ControlCluster> core_;
  std::unique_ptr<SystemRegs> regs_;
  double host_seconds_ = 0;
  std::string output_error_;
  bool roi_active_ = false, roi_used_ = false;
  uint64_t roi_start_[3] = {0, 0, 0}, roi_total_[3] = {0, 0, 0};  // cycles, warp insts, thread insts
};

}  // namespace tessera::platform
