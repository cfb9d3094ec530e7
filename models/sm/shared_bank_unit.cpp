#include "sm/shared_bank_unit.h"

#include <algorithm>
#include <stdexcept>

#include "sm/shared_banks.h"

namespace tessera::sm {

namespace {
constexpr isa::Op kIsaOps[kBankOpCount] = {
    isa::Op::kLw,       isa::Op::kSw,       isa::Op::kAmoswapW, isa::Op::kAmoaddW, isa::Op::kAmoxorW,
    isa::Op::kAmoandW,  isa::Op::kAmoorW,   isa::Op::kAmominW,  isa::Op::kAmomaxW, isa::Op::kAmominuW,
    isa::Op::kAmomaxuW, isa::Op::kAtomFadd, isa::Op::kAtomInc,  isa::Op::kAtomDec, isa::Op::kAtomCas};
constexpr const char* kNames[kBankOpCount] = {"load",      "store",     "amoswap.w", "amoadd.w", "amoxor.w",
                                              "amoand.w",  "amoor.w",   "amomin.w",  "amomax.w", "amominu.w",
                                              "amomaxu.w", "atom.fadd", "atom.inc",  "atom.dec", "atom.cas"};

// A store's bytes in `word`: those `be` enables, from `data`.
uint32_t merge_bytes(uint32_t word, uint32_t data, uint8_t be) {
  for (unsigned k = 0; k < 4; ++k) {
    if (be & (1u << k)) {
      const uint32_t byte = 0xffu << (8 * k);
      word = (word & ~byte) | (data & byte);
    }
  }
  return word;
}
}  // namespace

BankOp bank_op_of_atomic(isa::Op op) {
  for (unsigned i = 2; i < kBankOpCount; ++i) {
    if (kIsaOps[i] == op) return static_cast<BankOp>(i);
  }
  throw std::logic_error("bank_op_of_atomic: not an atomic operation");
}

isa::Op isa_op_of(BankOp op) { return kIsaOps[static_cast<unsigned>(op)]; }

const char* bank_op_name(BankOp op) {
  const auto i = static_cast<unsigned>(op);
  return i < kBankOpCount ? kNames[i] : "?";
}

SharedBankUnit::SharedBankUnit(unsigned banks, unsigned bytes, unsigned atomic_cycles)
    : banks_(banks), atomic_cycles_(atomic_cycles), mem_((bytes + 3) / 4, 0) {}

void SharedBankUnit::perform(const BankRequest& req, BankResponse& resp) {
  resp.mask = req.mask;
  resp.data.fill(0);
  const bool atomic = is_atomic(req.op);
  const isa::Op iop = isa_op_of(req.op);
  for (uint32_t m = req.mask; m; m &= m - 1) {
    const auto lane = static_cast<unsigned>(__builtin_ctz(m));
    uint32_t& w = mem_[req.word[lane]];
    if (req.op == BankOp::kLoad) {
      resp.data[lane] = w;
    } else if (req.op == BankOp::kStore) {
      w = merge_bytes(w, req.data[lane], req.be[lane]);
    } else {
      resp.data[lane] = w;
      w = isa::atomic_new_value(iop, w, req.data[lane], req.swap[lane]);
    }
  }
  const BankAccess a = arbitrate_banks(req.word, req.mask, banks_, atomic);
  resp.passes = a.passes;
  resp.broadcasts = a.broadcasts;
}

void SharedBankUnit::reset() {
  busy_ = false;
  left_ = 0;
  resp_valid_ = false;
  plan_.clear();
  next_ = 0;
  writes_.clear();
}

// The passes as the RTL block makes them (shared_bank_unit.sv): in each,
// every bank serves its lowest pending lane and, for a store, every pending
// lane on that lane's word, merging their bytes in ascending lane order; an
// atomic serves the lowest lane alone. The bank writes the word back in the
// pass's last cycle.
void SharedBankUnit::plan_writes(const BankRequest& req) {
  plan_.clear();
  next_ = 0;
  since_take_ = 0;
  if (req.op == BankOp::kLoad) return;
  const bool atomic = is_atomic(req.op);
  const isa::Op iop = isa_op_of(req.op);
  const unsigned cycles = atomic ? atomic_cycles_ : 1;
  // The words the request touches and their values as the passes go.
  std::array<uint32_t, 32> words{}, values{};
  unsigned touched = 0;
  auto slot = [&](uint32_t word) {
    for (unsigned i = 0; i < touched; ++i) {
      if (words[i] == word) return i;
    }
    words[touched] = word;
    values[touched] = mem_[word];
    return touched++;
  };
  first_lane_.resize(banks_);  // each pass fills it
  uint32_t pending = req.mask;
  for (unsigned pass = 1; pending; ++pass) {
    std::fill(first_lane_.begin(), first_lane_.end(), -1);
    for (uint32_t m = pending; m; m &= m - 1) {
      const auto lane = static_cast<unsigned>(__builtin_ctz(m));
      int& first = first_lane_[req.word[lane] % banks_];
      if (first < 0) first = static_cast<int>(lane);
    }
    uint32_t served = 0;
    for (unsigned b = 0; b < banks_; ++b) {
      if (first_lane_[b] < 0) continue;
      const auto first = static_cast<unsigned>(first_lane_[b]);
      const uint32_t word = req.word[first];
      uint32_t& value = values[slot(word)];
      const uint32_t old = value;
      if (atomic) {
        value = isa::atomic_new_value(iop, old, req.data[first], req.swap[first]);
        served |= 1u << first;
      } else {
        for (uint32_t m = pending; m; m &= m - 1) {
          const auto lane = static_cast<unsigned>(__builtin_ctz(m));
          if (req.word[lane] != word) continue;
          served |= 1u << lane;
          value = merge_bytes(value, req.data[lane], req.be[lane]);
        }
      }
      plan_.push_back({pass * cycles, {b, word / banks_, value, old}});
    }
    pending &= ~served;
  }
}

uint32_t SharedBankUnit::ram_word(unsigned bank, uint32_t row) const {
  const uint32_t word = row * banks_ + bank;
  for (size_t i = next_; i-- > 0;) {  // the last write made
    if (plan_[i].write.bank == bank && plan_[i].write.row == row) return plan_[i].write.value;
  }
  for (size_t i = next_; i < plan_.size(); ++i) {  // the word before the first still to come
    if (plan_[i].write.bank == bank && plan_[i].write.row == row) return plan_[i].write.old;
  }
  return mem_[word];
}

void SharedBankUnit::step(const BankRequest* req) {
  const bool was_ready = ready();
  resp_valid_ = false;
  writes_.clear();
  if (busy_) {
    ++since_take_;
    while (next_ < plan_.size() && plan_[next_].step == since_take_) writes_.push_back(plan_[next_++].write);
  }
  if (busy_ && --left_ == 0) {
    busy_ = false;
    resp_valid_ = true;
    out_ = pending_;
  }
  if (req && was_ready) {
    // The data changes now; nobody sees it before the response. The RAMs
    // change pass by pass.
    plan_writes(*req);
    perform(*req, pending_);
    busy_ = true;
    left_ = busy_cycles(req->op, pending_.passes);
  }
}

}  // namespace tessera::sm
