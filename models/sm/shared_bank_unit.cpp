#include "sm/shared_bank_unit.h"

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
      for (unsigned k = 0; k < 4; ++k) {
        if (req.be[lane] & (1u << k)) {
          const uint32_t byte = 0xffu << (8 * k);
          w = (w & ~byte) | (req.data[lane] & byte);
        }
      }
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
}

void SharedBankUnit::step(const BankRequest* req) {
  const bool was_ready = ready();
  resp_valid_ = false;
  if (busy_ && --left_ == 0) {
    busy_ = false;
    resp_valid_ = true;
    out_ = pending_;
  }
  if (req && was_ready) {
    // The data changes now; nobody sees it before the response.
    perform(*req, pending_);
    busy_ = true;
    left_ = busy_cycles(req->op, pending_.passes);
  }
}

}  // namespace tessera::sm
