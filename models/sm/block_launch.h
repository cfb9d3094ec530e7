// The SMs' launch port: all the block dispatcher sees of an SM. The
// dispatcher holds a sim::Port of BlockLaunchIf that the netlist binds to
// each SM of a cluster (dispatcher.sms -> cluster.launch), so it depends
// on this header and sm/kernel_launch.h only, never on sm::Sm.
#pragma once

#include <cstdint>
#include <systemc>

#include "sm/kernel_launch.h"

namespace tessera::sm {

class BlockLaunchIf;

// What a block may use on an SM (the sm.* keys of sm::SmParams that a
// launch is checked against).
struct LaunchLimits {
  unsigned warp_size = 32;
  unsigned max_threads_per_block = 0, max_threads = 0, max_warps = 0, max_blocks = 0;
  unsigned registers = 0, register_granule = 1, regs_per_thread_default = 0;
  unsigned shared_bytes = 0, local_bytes = 0;
};

// Told when a block leaves an SM, so the dispatcher can place the next one.
class BlockListener {
 public:
  virtual ~BlockListener() = default;
  virtual void block_finished(BlockLaunchIf& sm) = 0;
};

class BlockLaunchIf : public virtual sc_core::sc_interface {
 public:
  // The SM's number (%nsmid) and its SystemC name, for waveforms and timelines.
  virtual unsigned id() const = 0;
  virtual const char* sm_name() const = 0;
  // Occupancy: can a block of this launch be placed now?
  virtual bool can_accept(const KernelLaunch& k) const = 0;
  virtual void start_block(const KernelLaunch& k, uint64_t block_index) = 0;
  virtual void set_listener(BlockListener* l) = 0;
  // What a block may use on this SM (its sm.* parameters).
  virtual LaunchLimits launch_limits() const = 0;
};

}  // namespace tessera::sm
