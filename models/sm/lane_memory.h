// The memory side of executing one warp instruction: the isa::ExecEnv the
// executor calls for each active lane. It decodes the lane's address (the
// block's shared window, the thread's local window, global memory; a store
// into code, an atomic on local memory, a stack overflow below the local
// window are refused with a reason) and performs the access functionally,
// and it builds the instruction's access record: which lanes went to shared
// memory and their bank words, the coalesced global lines, which lanes'
// global atomics are deferred to the atomic queue, and why the access
// faulted. The SM engine times the instruction from that record.
//
// Shared memory is the bank unit's (SharedBankUnit). With `defer_shared`
// (the rtl and lockstep modes) shared accesses are not performed here: the
// record keeps each lane's operands (store data and byte enables, atomic
// operands) for the warp request the engine sends to the unit, loads give 0
// and the engine writes the destination when the unit answers. LR/SC
// reservations on shared memory stay here, decided in issue order. Pure
// logic, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "isa/decoded_program.h"
#include "isa/isa.h"
#include "sim/backing_memory.h"
#include "sim/run_control.h"
#include "sm/atomic_queue.h"
#include "sm/block_slots.h"
#include "sm/coalescer.h"
#include "sm/shared_bank_unit.h"
#include "sm/sm_params.h"
#include "sm/warp_state.h"

namespace tessera::sm {

// Why an access faulted, for the report.
enum class FaultWhy : uint8_t {
  kUnmapped,
  kSharedWindow,
  kStackOverflow,
  kLocalAtomic,
  kCodeStore,
  kWideSharedRtl,  // a 64/128-bit shared access with the RTL bank unit (32-bit lanes only)
  kDeviceAccess,   // a device register access other than a 32-bit load or store
  kDeviceError,    // the device answered SLVERR or DECERR, or no device has the window
  kDeviceMixed,    // lanes of one instruction on device registers and on memory
};

// The register windows of the devices kernels reach (the netlist binding
// `sms.mmio -> DEVICE.regs`; docs/rtl-devices.md, "From kernels").
class DeviceRegisters {
 public:
  virtual ~DeviceRegisters() = default;
  // Whether `addr` is in a bound window.
  virtual bool maps(uint32_t addr) const = 0;
  // A 32-bit register read (*value out) or write (*value in) at `addr` by
  // an SM in its cycle `now`: false when the device answers an error.
  // *ready: the SM cycle by which it answered.
  virtual bool access(bool write, uint32_t addr, uint32_t* value, uint64_t now, uint64_t* ready) = 0;
};

// What one warp instruction's lanes accessed.
struct AccessRecord {
  bool local = false;                              // some lane accessed local memory
  bool read_only = false;                          // a read-only (__ldg) global load
  uint32_t shared_mask = 0;                        // lanes that accessed shared memory
  uint8_t group = 1;                               // words per lane (wide accesses, 64-bit atomics: 2 or 4)
  uint32_t global_lanes = 0;                       // lanes given to the coalescer
  uint32_t deferred_lanes = 0;                     // lanes whose global atomic the atomic queue performs
  uint32_t const_lanes = 0;                        // lanes whose load read __constant__ data
  uint8_t const_addresses = 0;                     // distinct addresses among them
  std::array<uint32_t, kWarpSize> const_seen{};    // those addresses
  std::array<uint32_t, kWarpSize> shared_words{};  // bank-word index of each shared lane
  // Deferred shared accesses only: byte offset in shared memory, store byte
  // enables and data (in its byte lanes), atomic operands.
  std::array<uint32_t, kWarpSize> shared_offset{};
  std::array<uint8_t, kWarpSize> shared_be{};
  std::array<uint32_t, kWarpSize> shared_data{}, shared_swap{};
  FaultWhy fault_why = FaultWhy::kUnmapped;
  uint32_t fault_addr = 0;
  uint32_t device_lanes = 0;  // lanes that accessed a device register
  uint64_t device_ready = 0;  // the SM cycle by which the last of them was answered
  Coalescer global;           // the global accesses, by line

  bool shared() const { return shared_mask != 0; }
};

class LaneMemory final : public isa::ExecEnv {
 public:
  struct Context {
    const SmParams& params;
    sim::BackingMemory& global;
    const isa::DecodedProgram& program;
    sim::RunControl& run;
    AtomicQueue& atomics;
    unsigned sm_id, num_sms;
    const uint64_t* warp_insts;  // instret
    SharedBankUnit& shared;      // the SM's shared memory
    bool defer_shared;           // record shared accesses for the bank unit instead of performing them
  };
  explicit LaneMemory(const Context& ctx);

  // Starts instruction `inst` of the warp in `slot` (of block `b`) in `cycle`.
  void begin(const isa::Inst& inst, unsigned slot, Warp& w, const Block& b, uint64_t cycle) {
    inst_ = &inst;
    slot_ = slot;
    warp_ = &w;
    block_ = &b;
    cycle_ = cycle;
    rec_.local = rec_.read_only = false;
    rec_.shared_mask = rec_.global_lanes = rec_.deferred_lanes = rec_.const_lanes = rec_.device_lanes = 0;
    rec_.device_ready = 0;
    rec_.const_addresses = 0;
    rec_.fault_why = FaultWhy::kUnmapped;
    rec_.group = inst.mem_bytes > 4 ? static_cast<uint8_t>(inst.mem_bytes / 4) : 1;
    rec_.global.clear();
  }
  // The lane the executor runs next.
  void set_lane(unsigned lane) { lane_ = lane; }
  AccessRecord& record() { return rec_; }
  const AccessRecord& record() const { return rec_; }

  SharedBankUnit& shared_memory() { return shared_; }
  // The device windows kernels reach (nullptr: none, MMIO faults).
  void set_devices(DeviceRegisters* d) { devices_ = d; }
  // gdb (--gdb): one byte as lane `lane` of the warp in `slot`, of block
  // `blk`, sees memory (its shared and local windows, global memory);
  // false outside them.
  bool debug_byte(unsigned slot, unsigned lane, const Block& blk, uint32_t addr, uint8_t* byte, bool write);

  isa::MemStatus load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) override;
  isa::MemStatus store(uint32_t addr, unsigned bytes, uint32_t value) override;
  isa::MemStatus load_wide(uint32_t addr, unsigned bytes, uint32_t* words) override;
  isa::MemStatus store_wide(uint32_t addr, unsigned bytes, const uint32_t* words) override;
  isa::MemStatus load_reserved(uint32_t addr, uint32_t* value) override;
  isa::MemStatus store_conditional(uint32_t addr, uint32_t value, bool* success) override;
  bool csr_read(uint16_t csr, uint32_t* value) override;
  bool csr_write(uint16_t csr, uint32_t value) override;

  // LR/SC reservation owners: control cores use small numbers, SM threads
  // start above them.
  static uint32_t thread_owner(unsigned sm, unsigned warp, unsigned lane) {
    return 0x10000u + (sm << 11) + warp * 32 + lane;
  }

 private:
  // The SM's shared-memory offset of an access, or false outside the block's segments.
  bool in_shared(uint32_t addr, unsigned bytes, uint32_t* sm_offset) const {
    if (!block_->launch.shared_offset(addr, bytes, sm_offset)) return false;
    *sm_offset += block_->shared_base;
    return true;
  }
  void note_shared(uint32_t sm_offset) {
    rec_.shared_mask |= 1u << lane_;
    rec_.shared_words[lane_] = sm_offset / p_.shared_bank_bytes;
  }
  isa::MemStatus access_fault(FaultWhy why, uint32_t addr);
  // A lane's access to a device register (the address is in a bound window).
  isa::MemStatus device_access(bool write, uint32_t addr, unsigned bytes, uint32_t* value);
  // A load of __constant__ data ([const_lo_, const_hi_), the program's
  // .tessera.constant): the lane and its address, counted once.
  void note_constant(uint32_t addr) {
    rec_.const_lanes |= 1u << lane_;
    for (unsigned k = 0; k < rec_.const_addresses; ++k)
      if (rec_.const_seen[k] == addr) return;
    rec_.const_seen[rec_.const_addresses++] = addr;
  }
  bool in_constant(uint32_t addr) const { return addr - const_lo_ < const_hi_ - const_lo_; }
  bool is_atomic() const;  // AMOs and atom.* load and store; LR reserves
  // LR/SC reservations on shared memory (byte offsets), as
  // sim::BackingMemory keeps them: one per owner, broken by any store to
  // the word.
  void reserve_shared(uint32_t owner, uint32_t offset);
  bool take_shared_reservation(uint32_t owner, uint32_t offset);
  void break_shared_reservations(uint32_t offset);

  const SmParams& p_;
  sim::BackingMemory& global_;
  const isa::DecodedProgram& program_;
  sim::RunControl& run_;
  AtomicQueue& atomics_;
  unsigned sm_id_, num_sms_;
  const uint64_t* warp_insts_;
  SharedBankUnit& shared_;  // this SM's shared memory
  const bool defer_shared_;
  uint32_t const_lo_ = 0, const_hi_ = 0;  // the __constant__ data (empty without)
  DeviceRegisters* devices_ = nullptr;
  struct Reservation {
    uint32_t owner, offset;
  };
  std::vector<Reservation> shared_reservations_;
  sim::BackingMemory local_;  // every thread slot's local memory, side by side

  // The instruction being executed.
  const isa::Inst* inst_ = nullptr;
  unsigned slot_ = 0, lane_ = 0;
  Warp* warp_ = nullptr;
  const Block* block_ = nullptr;
  uint64_t cycle_ = 0;
  AccessRecord rec_;
};

}  // namespace tessera::sm
