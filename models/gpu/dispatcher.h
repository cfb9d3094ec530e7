// The block dispatcher: takes kernel launches from its MMIO registers
// (docs/firmware-abi.md), places thread blocks on SMs while their threads,
// warps, registers, shared memory and block slots allow, and places the next
// block whenever one finishes (1 ps later, in SM-number order, so blocks
// that finish at the same instant on several SMs are replaced the same way
// whatever order the SMs ran in). Kernels run one at a time; a launch written
// while one runs waits in a queue.
#pragma once

#include <tlm_utils/simple_target_socket.h>

#include <chrono>
#include <deque>
#include <functional>
#include <systemc>
#include <vector>

#include "isa/elf_loader.h"
#include "isa/inst_trace.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/in_flight.h"
#include "sim/log.h"
#include "sim/run_control.h"
#include "sim/side_band_port.h"
#include "sim/stats.h"
#include "sim/timeline.h"
#include "sim/waveform.h"
#include "sm/block_launch.h"
#include "sm/kernel_launch.h"

namespace tessera::gpu {

namespace reg {
inline constexpr uint32_t kStart = 0x100, kKernel = 0x104, kArgs = 0x108;
inline constexpr uint32_t kGridX = 0x10C, kGridY = 0x110, kGridZ = 0x114;
inline constexpr uint32_t kBlockX = 0x118, kBlockY = 0x11C, kBlockZ = 0x120;
inline constexpr uint32_t kSharedBytes = 0x124, kRegs = 0x128, kLaunch = 0x12C, kStatus = 0x130, kDoneCount = 0x134;
// When kernels ended and the time now, in picoseconds of simulated time
// (CUDA events): write DONE_QUERY = n to read the end of the kernel that
// made DONE_COUNT reach n; reading a LO register latches its HI half.
inline constexpr uint32_t kDoneQuery = 0x138, kDoneTimeLo = 0x13C, kDoneTimeHi = 0x140;
inline constexpr uint32_t kNowLo = 0x144, kNowHi = 0x148;
// Kernels launched so far (ended, running and queued).
inline constexpr uint32_t kLaunched = 0x14C;
// The device's properties (cudaGetDeviceProperties), read-only.
inline constexpr uint32_t kDevSms = 0x180, kDevWarpSize = 0x184, kDevMaxThreadsPerBlock = 0x188;
inline constexpr uint32_t kDevMaxThreadsPerSm = 0x18C, kDevMaxBlocksPerSm = 0x190, kDevSharedPerSm = 0x194;
inline constexpr uint32_t kDevRegsPerSm = 0x198, kDevSmClockKhz = 0x19C, kDevL2Bytes = 0x1A0;
inline constexpr uint32_t kDevMemClockKhz = 0x1A4, kDevMemBusBits = 0x1A8, kDevGlobalMib = 0x1AC;
inline constexpr uint32_t kDevLocalBytes = 0x1B0;
}  // namespace reg

// What the dispatcher cannot see of the chip: the memory side, filled in by
// the platform from its components' parameters (0: not modelled).
struct DeviceInfo {
  uint32_t l2_bytes = 0;
  uint32_t mem_clock_khz = 0;  // the DRAM's command clock
  uint32_t mem_bus_bits = 0;   // data bus width, all stacks and channels
  uint32_t global_mib = 0;     // global memory the memories serve
};

// Kernel ends kept for DONE_QUERY: events recorded further back than this
// many kernels read as unknown (all ones).
inline constexpr size_t kKernelEndsKept = 1024;

class Dispatcher : public sc_core::sc_module, public sm::BlockListener, public sim::InFlightReporter {
 public:
  tlm_utils::simple_target_socket<Dispatcher> regs_socket;  // offsets from the MMIO base
  // The SMs it places blocks on, in the order they are bound (netlist
  // dispatcher.sms); bind them before set_waveform and set_timeline.
  sim::Port<sm::BlockLaunchIf, 0> sms_port;
  // Kernel completion: raised when a kernel ends; a core in WFI sleeps on
  // while busy() (netlist dispatcher.irq).
  sim::Port<sim::InterruptIf, 1> irq_port;

  Dispatcher(const sc_core::sc_module_name& name, const sim::ClockDomain& clock, sim::RunControl& run,
             sim::StatGroup& stats_parent);

  // Waveform (docs/waveforms.md): kernel_running, blocks_pending and per SM
  // smN.blocks under chip.<name>. Call during elaboration, after the SMs
  // are bound.
  void set_waveform(sim::Waveform* wave);
  // The program: its kernel record (registers per thread, static shared
  // window) and shared-memory layout. The image must outlive the dispatcher.
  // Without it every kernel is charged sm.regs_per_thread_default registers
  // and all of the shared window's static variables.
  void set_program(const isa::ElfImage* image);
  // --trace-insts: told each kernel's name (its kernel filter).
  void set_inst_trace(isa::InstTrace* t) { inst_trace_ = t; }
  void set_device_info(const DeviceInfo& info) { device_ = info; }
  // Told when each kernel starts (begin) and when its last block ends, with
  // its name: the per-kernel statistics (Platform).
  using KernelObserver = std::function<void(bool begin, const std::string& name, const sm::KernelLaunch& k)>;
  void set_kernel_observer(KernelObserver o) { observer_ = std::move(o); }
  // The launch as the dispatcher places it: DISP_SHARED_BYTES is the dynamic
  // area; the record (or the whole .shared section) gives the static window
  // and, when DISP_REGS is 0, the registers per thread. Pure.
  static sm::KernelLaunch resolve(const sm::KernelLaunch& written, const isa::ElfImage* image,
                                  unsigned regs_per_thread_default);

  // What a block may use: the smallest of each limit over the SMs bound, as
  // a block may be placed on any of them. How a block's registers are
  // counted must be the same on all (sim::ConfigError otherwise).
  static sm::LaunchLimits combine(const sm::LaunchLimits& a, const sm::LaunchLimits& b, const std::string& a_name,
                                  const std::string& b_name, const std::string& dispatcher);
  const sm::LaunchLimits& limits() const { return p_; }

  bool busy() const { return running_ || !queue_.empty(); }
  uint64_t kernel_cycles() const { return kernel_cycles_; }
  // Host (wall-clock) seconds spent while a kernel ran, the current one included.
  double kernel_host_seconds() const;
  void block_finished(sm::BlockLaunchIf& sm) override;
  // --timeline: kernel slices on the dispatcher's track and each SM's
  // (after the SMs are bound).
  void set_timeline(sim::Timeline* t);
  // For the deadlock report.
  std::string describe() const;
  // The kernel's name: its record's, else its function symbol's, else its address.
  std::string kernel_name(const sm::KernelLaunch& k) const;
  // The kernels in flight: blocks placed and finished (describe()).
  std::string describe_in_flight() const override { return describe(); }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void launch(const sm::KernelLaunch& k);
  bool validate(const sm::KernelLaunch& k);
  uint32_t read_time(uint32_t offset);
  uint32_t device_register(uint32_t offset) const;
  void place_blocks();
  void request_placement();
  void count_finished();  // a block finished: the next placement, or the kernel done
  void trace_waves();

  sm::LaunchLimits p_;  // combine() over the SMs bound
  const sim::ClockDomain& clock_;
  sim::RunControl& run_;
  std::vector<sm::BlockLaunchIf*> sms_;  // sms_port's, in binding order
  sim::Log log_;
  const isa::ElfImage* image_ = nullptr;
  isa::InstTrace* inst_trace_ = nullptr;
  DeviceInfo device_;
  // The end (ps) of the last kKernelEndsKept kernels, by kernel number mod
  // the size; the queried number and the latched high halves.
  std::vector<uint64_t> kernel_end_ps_ = std::vector<uint64_t>(kKernelEndsKept);
  uint32_t done_query_ = 0, done_time_hi_ = 0, now_hi_ = 0;

  sm::KernelLaunch next_;  // what the registers hold
  std::deque<sm::KernelLaunch> queue_;
  sm::KernelLaunch current_;
  bool running_ = false;
  uint64_t next_block_ = 0, total_blocks_ = 0, finished_blocks_ = 0;
  unsigned rr_ = 0;  // SM to try first
  uint64_t kernel_start_cycle_ = 0;
  // Placement runs just after the instant that freed resources, once every
  // SM of that instant has reported, so it does not depend on the order in
  // which SystemC ran them.
  sc_core::sc_event place_;

  // Waveform: blocks placed on each SM (by position in sms_) and not yet finished.
  sim::Waveform* wave_ = nullptr;
  int kernel_running_id_ = -1, blocks_pending_id_ = -1;
  std::vector<int> sm_blocks_id_;
  std::vector<uint64_t> sm_blocks_;

  sim::StatGroup stats_;
  uint64_t kernels_ = 0, blocks_ = 0, kernel_cycles_ = 0;
  // Kernel simulation speed: host time from each launch to its last block's end.
  std::chrono::steady_clock::time_point kernel_host_start_;
  double kernel_host_seconds_ = 0;

  sim::Timeline* timeline_ = nullptr;
  std::vector<int> kernel_tracks_;  // the dispatcher's, then each SM's
  KernelObserver observer_;
};

}  // namespace tessera::gpu
