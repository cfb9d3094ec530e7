// Timing of the vector unit: convoys and chimes, start-up latencies,
// chaining, lanes, register-file ports and banked vector memory, after the
// vector-processor chapter of the source documents (shared seeds 003) and
// the VMIPS machine it describes. Pure C++: operations in, cycles out; the
// functional result of each instruction comes from the ISA executor, so
// this class only decides when things happen (docs/vector.md, "Timing").
//
// The rules, each one stated where it is applied below:
// - Instructions issue in order into convoys. An instruction joins the
//   current convoy, from the cycle it arrives, if the convoy is still
//   running and the instruction has no
//   structural hazard (functional unit, memory unit, register-file ports)
//   and no data hazard with the convoy's instructions, except a read of a
//   result that chaining allows. Otherwise it starts the next convoy when
//   the current one has completed (one chime per convoy).
// - Element groups (one element per lane) enter a pipeline one per cycle;
//   element k's result is ready `latency` cycles after it entered, and an
//   instruction completes the cycle after its last result. So n elements
//   on one lane take latency + n cycles (the chapter's 7 + 64).
// - A chained element enters no earlier than the producer's result for the
//   same element; a memory element no earlier than its bank is free (a bank
//   stays busy `bank_busy` cycles per access).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace tessera::vector {

inline constexpr unsigned kRegisters = 32;
inline constexpr uint8_t kNoReg = 0xFF;
// An element that takes its slot without a memory access (masked off).
inline constexpr uint64_t kNoAddress = ~uint64_t{0};

// Functional-unit classes: one pipeline each, except memory (`memory_units`).
enum class Unit : uint8_t { kAdd, kMul, kDiv, kMemory };
inline constexpr unsigned kUnits = 4;

// none: a result is read only once its instruction has completed. fixed: one
// operand of an instruction may be chained, and each result feeds one chained
// reader (the single result path of a Cray-1 style unit). flexible: any
// operand may be chained to any running instruction, as long as the register
// file has the ports.
enum class Chaining : uint8_t { kNone, kFixed, kFlexible };

struct TimingParams {
  unsigned lanes = 1;
  Chaining chaining = Chaining::kFlexible;
  // Start-up latencies of VMIPS, the chapter's machine: load/store 12,
  // multiply 7, add 6, divide 20 cycles.
  unsigned add_latency = 6;
  unsigned mul_latency = 7;
  unsigned div_latency = 20;
  unsigned load_latency = 12;
  unsigned store_latency = 12;
  unsigned memory_units = 1;  // load/store pipelines
  // Vector register-file ports per lane: the vector operands read (a mask
  // counts as one) and the results written by the instructions of a convoy.
  unsigned read_ports = 6;
  unsigned write_ports = 3;
  // Banked vector memory: bank = (address / bank_word_bytes) mod banks. The
  // chapter's rule: with at least as many banks as cycles a bank is busy, a
  // unit-stride stream never waits for a bank.
  unsigned banks = 16;
  unsigned bank_busy = 12;
  unsigned bank_word_bytes = 4;
  unsigned queue_depth = 8;  // instructions accepted and not yet started
  // Register contexts: a unit shared by several cores holds each core's 32
  // registers; their instructions share the issue queue, the functional
  // units, the ports and the banks, and never depend on each other.
  unsigned contexts = 1;
};

// One vector instruction as the timing model sees it.
struct VectorOp {
  Unit unit = Unit::kAdd;
  bool is_store = false;  // memory unit only: a store (else a load)
  uint32_t vl = 0;        // elements (masked-off elements still take their slot)
  uint8_t vd = kNoReg;    // destination register group (kNoReg: none, as for stores)
  uint8_t vd_regs = 1;
  std::array<uint8_t, 3> vs{kNoReg, kNoReg, kNoReg};  // vector source groups
  std::array<uint8_t, 3> vs_regs{1, 1, 1};
  bool masked = false;     // reads v0
  bool reduction = false;  // its result exists only after the last element
  uint8_t context = 0;     // whose registers vd and vs name (< contexts)
  // Memory: element k's address is addresses[k] when given (indexed, or as
  // accessed; kNoAddress: no access), else base + k * stride.
  uint64_t base = 0;
  int64_t stride = 0;
  const uint64_t* addresses = nullptr;
  // Memory through the cluster (vector.memory: cluster) instead of the
  // banks: element k's access completed in the core's L1D at arrivals[k]
  // (kNoAddress: no access), and its result is not ready before then.
  const uint64_t* arrivals = nullptr;
};

struct IssueResult {
  uint64_t accepted = 0;  // the issue queue took it (the scalar core may go on)
  uint64_t start = 0;     // its first element entered the pipeline
  uint64_t complete = 0;  // the cycle after its last result
  uint64_t convoy = 0;    // 1-based convoy (chime) number
  unsigned chained = 0;   // operands read through chaining
};

struct TimingStats {
  uint64_t instructions = 0;
  uint64_t element_ops = 0;           // elements processed, masked-off ones included
  uint64_t convoys = 0;               // chimes
  uint64_t chained_operands = 0;      // operand reads served by chaining
  uint64_t memory_elements = 0;       // elements loaded or stored
  uint64_t bank_conflict_stalls = 0;  // cycles elements waited for a busy bank
  uint64_t busy_cycles = 0;           // cycles some convoy was executing
  uint64_t element_slots = 0;         // lanes x cycles elements were entering pipelines
};

class VectorTiming {
 public:
  explicit VectorTiming(const TimingParams& params);

  // Issues `op`, available to the unit from cycle `ready` (program order).
  IssueResult issue(const VectorOp& op, uint64_t ready);
  // The cycle every issued instruction has completed.
  uint64_t drain() const { return convoy_.end; }

  const TimingParams& params() const { return params_; }
  // Statistics so far, the convoy still executing included.
  TimingStats stats() const;

 private:
  struct Running {  // an instruction of the current convoy
    uint8_t vd, vd_regs;
    bool reduction;
    unsigned chained_readers = 0;
    std::vector<uint64_t> ready;  // per element: when a chained reader may take it
  };
  struct Convoy {
    uint64_t start = 0, end = 0;
    uint64_t number = 0;
    std::array<unsigned, kUnits> units{};
    unsigned reads = 0, writes = 0;
    bool loads = false, stores = false;
    // Per register of every context (context * kRegisters + register): the
    // instruction of running_ that writes it (-1: none), whether one reads it.
    std::vector<int8_t> writer;
    std::vector<uint8_t> read;
  };
  unsigned latency(const VectorOp& op) const;
  // Whether `op` may join the current convoy; `chained` gets the running
  // instructions it would chain to.
  bool fits(const VectorOp& op, std::vector<int>& chained) const;
  void open_convoy(uint64_t start);
  // (address / bank_word_bytes) mod banks: shifts and a mask when both are
  // powers of two (the usual case; two divisions per element otherwise).
  size_t bank_of(uint64_t address) const {
    if (pow2_banks_) return static_cast<size_t>((address >> word_shift_) & (params_.banks - 1));
    return static_cast<size_t>((address / params_.bank_word_bytes) % params_.banks);
  }

  TimingParams params_;
  bool pow2_banks_ = false;
  unsigned word_shift_ = 0;
  Convoy convoy_;
  std::vector<Running> running_;  // the first running_count_ are the convoy's
  size_t running_count_ = 0;
  std::deque<uint64_t> recent_starts_;  // the last queue_depth start cycles
  std::vector<uint64_t> bank_free_;
  std::vector<uint64_t> entered_;  // scratch: element entry cycles
  TimingStats stats_;              // busy_cycles: closed convoys only
};

}  // namespace tessera::vector
