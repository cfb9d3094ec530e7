// A scalar in-order RV32IMAF control core that runs main(). One instruction
// per cycle, plus a load latency for global memory (caches and coherence
// come with the control-core cluster). MMIO goes out through a TLM socket.
//
// Speed: the core runs up to `cpu.quantum` instructions per activation ahead
// of SystemC time (TLM temporal decoupling) and synchronises before every
// MMIO access, so launches, status reads and the exit happen at exact times.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>

#include <functional>
#include <systemc>
#include <tlm>

#include "isa/decoded_program.h"
#include "isa/isa.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/log.h"
#include "sim/run_control.h"
#include "sim/stats.h"

namespace tessera::cpu {

inline constexpr uint32_t kMmioBase = 0x10000000;
inline constexpr uint32_t kMmioSize = 0x1000;

class ControlCore : public sc_core::sc_module, public isa::ExecEnv {
 public:
  tlm_utils::simple_initiator_socket<ControlCore> mmio_socket;

  struct Context {
    sim::Config& config;
    const sim::ClockDomain& clock;
    sim::BackingMemory& global;
    const isa::DecodedProgram& program;
    sim::RunControl& run;
    sim::StatGroup& stats_parent;
    uint32_t entry;
    uint32_t stack_top;
  };

  ControlCore(const sc_core::sc_module_name& name, unsigned id, const Context& ctx);

  // Interrupt: a core sleeping in wfi continues. `busy` tells wfi whether
  // anything could still wake it (the dispatcher's running kernel).
  void interrupt();
  void set_wfi_condition(std::function<bool()> busy) { may_sleep_ = std::move(busy); }
  bool sleeping() const { return sleeping_; }
  uint32_t pc() const { return state_.pc; }
  uint64_t instructions() const { return instructions_; }

  isa::MemStatus load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) override;
  isa::MemStatus store(uint32_t addr, unsigned bytes, uint32_t value) override;
  isa::MemStatus load_reserved(uint32_t addr, uint32_t* value) override;
  isa::MemStatus store_conditional(uint32_t addr, uint32_t value, bool* success) override;
  bool csr_read(uint16_t csr, uint32_t* value) override;
  bool csr_write(uint16_t csr, uint32_t value) override;

 private:
  void step();
  bool mmio_access(tlm::tlm_command cmd, uint32_t addr, unsigned bytes, uint32_t* value);
  void fault(const isa::Inst& inst, const isa::ExecResult& r);
  uint64_t local_cycle() const { return clock_.now_cycle() + ahead_; }

  unsigned id_;
  const sim::ClockDomain& clock_;
  sim::BackingMemory& global_;
  const isa::DecodedProgram& program_;
  sim::RunControl& run_;
  sim::Log log_;
  isa::ThreadState state_;
  std::function<bool()> may_sleep_;
  sc_core::sc_event interrupt_;
  bool sleeping_ = false;
  uint64_t ahead_ = 0;       // cycles executed beyond SystemC time
  uint64_t extra_cycles_ = 0;  // stall cycles of the instruction being executed
  unsigned load_latency_, quantum_, mul_latency_, div_latency_;

  sim::StatGroup stats_;
  uint64_t instructions_ = 0, cycles_ = 0, loads_ = 0, stores_ = 0, mmio_ = 0, wfi_cycles_ = 0;
  uint64_t sleep_start_ = 0;
};

}  // namespace tessera::cpu
