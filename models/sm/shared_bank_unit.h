// The shared-memory bank unit (docs/architecture.md, "The SM";
// docs/cosim.md, "Shared-memory bank unit"): the SM's shared memory (banks of 4-byte
// words) and the atomic ALUs beside the banks. It performs one warp request
// at a time: a load, a store, or one atomic operation, for up to 32 lanes.
// Lanes run in ascending order, as the ISA executor runs them, so stores to
// one word merge with the higher lane winning each byte and atomics to one
// word see each other's results; the passes (arbitrate_banks) only time the
// request.
//
// Two views of the same unit:
//  - perform(): the whole request at once, for the analytic timing of
//    `model` mode (the engine computes the cycles from the pass count);
//  - step(): the pin-level behaviour of models/rtl/shared_bank/
//    shared_bank_unit.sv, one clock cycle per call, for lockstep comparison.
//    A request presented while ready() is taken at the end of the step;
//    its passes take the next P (atomics P * atomic_cycles) steps; ready()
//    is high again in the last of them; the response is valid after it.
//    writes() are the bank RAMs' writes of each step, pass by pass, for
//    lockstep to compare with the block's RAM write ports.
// Pure logic, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "isa/isa.h"

namespace tessera::sm {

// The unit's operation codes (the req_op port of the RTL block).
enum class BankOp : uint8_t {
  kLoad = 0,
  kStore = 1,
  kSwap = 2,
  kAdd = 3,
  kXor = 4,
  kAnd = 5,
  kOr = 6,
  kMin = 7,
  kMax = 8,
  kMinu = 9,
  kMaxu = 10,
  kFadd = 11,
  kInc = 12,
  kDec = 13,
  kCas = 14,
};
inline constexpr unsigned kBankOpCount = 15;

inline bool is_atomic(BankOp op) { return op != BankOp::kLoad && op != BankOp::kStore; }
// The bank operation of an atomic instruction (an AMO or atom.*).
BankOp bank_op_of_atomic(isa::Op op);
// The ISA operation an atomic bank operation performs.
isa::Op isa_op_of(BankOp op);
const char* bank_op_name(BankOp op);

struct BankRequest {
  BankOp op = BankOp::kLoad;
  uint32_t mask = 0;                // active lanes
  std::array<uint32_t, 32> word{};  // word index (byte offset in shared memory / 4)
  std::array<uint8_t, 32> be{};     // stores: byte enables
  std::array<uint32_t, 32> data{};  // stores: data in its byte lanes; atomics: the operand
  std::array<uint32_t, 32> swap{};  // atom.cas: the value stored when the word matches data
};

// A write of one bank's RAM at the pin level: in the step that makes it,
// bank `bank` stores `value` at `row` (word row * banks + bank); `old` is
// what the word held before.
struct BankWrite {
  unsigned bank = 0;
  uint32_t row = 0;
  uint32_t value = 0;
  uint32_t old = 0;
};

struct BankResponse {
  uint32_t mask = 0;
  std::array<uint32_t, 32> data{};  // per lane: the word read (atomics: the old value; stores: 0)
  unsigned passes = 0;
  unsigned broadcasts = 0;  // words served to several lanes in one pass (loads and stores)
};

class SharedBankUnit {
 public:
  // bytes: rounded up to whole words.
  SharedBankUnit(unsigned banks, unsigned bytes, unsigned atomic_cycles);

  unsigned banks() const { return banks_; }
  unsigned words() const { return static_cast<unsigned>(mem_.size()); }
  unsigned atomic_cycles() const { return atomic_cycles_; }

  // Performs `req` now; fills `resp`. Words outside the unit are a caller bug.
  void perform(const BankRequest& req, BankResponse& resp);
  // Cycles the unit is busy with a request of `passes` passes (at least 1).
  unsigned busy_cycles(BankOp op, unsigned passes) const {
    return passes == 0 ? 1 : passes * (is_atomic(op) ? atomic_cycles_ : 1);
  }

  // Byte-addressed access (aligned, 1, 2 or 4 bytes): the model's lanes
  // access the words directly when they execute (`model` mode: the result of
  // perform() in lane order, sooner).
  uint32_t load(uint32_t offset, unsigned bytes) const {
    uint32_t v = 0;
    std::memcpy(&v, reinterpret_cast<const uint8_t*>(mem_.data()) + offset, bytes);
    return v;
  }
  void store(uint32_t offset, unsigned bytes, uint32_t value) {
    std::memcpy(reinterpret_cast<uint8_t*>(mem_.data()) + offset, &value, bytes);
  }
  uint32_t word(unsigned index) const { return mem_[index]; }
  void set_word(unsigned index, uint32_t value) { mem_[index] = value; }

  // Pin level. reset(): rst for the RTL's reset cycles (the data stays).
  void reset();
  // One clock cycle; `req` is the request on the pins (nullptr: req_valid low).
  void step(const BankRequest* req);
  bool ready() const { return !busy_ || left_ == 1; }
  bool resp_valid() const { return resp_valid_; }
  const BankResponse& response() const { return out_; }
  bool busy() const { return busy_; }
  // The bank RAMs' writes in the last step: one per bank whose lowest
  // pending lane a store or atomic pass served, made in the pass's last
  // cycle (a store's or an atomic's write-back of an unchanged word
  // included), in bank order.
  const std::vector<BankWrite>& writes() const { return writes_; }
  // The word at (bank, row) as the RAMs hold it after the last step: the
  // data array itself is updated when a request is taken, its RAMs pass by
  // pass.
  uint32_t ram_word(unsigned bank, uint32_t row) const;

 private:
  // The writes of `req`'s passes, from the data before it (called before
  // perform() updates them).
  void plan_writes(const BankRequest& req);

  unsigned banks_, atomic_cycles_;
  std::vector<uint32_t> mem_;
  // Pin level: the request in service and the response of the last step.
  bool busy_ = false;
  unsigned left_ = 0;  // steps until its response
  BankResponse pending_, out_;
  bool resp_valid_ = false;
  // The RAM writes of the request in service: each with the step after its
  // taking that makes it; those before next_ are made.
  struct PlannedWrite {
    unsigned step;
    BankWrite write;
  };
  std::vector<PlannedWrite> plan_;
  size_t next_ = 0;
  unsigned since_take_ = 0;
  std::vector<BankWrite> writes_;
  std::vector<int> first_lane_;  // plan_writes' scratch: a pass's lowest lane per bank
};

}  // namespace tessera::sm
