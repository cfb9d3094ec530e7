// The cover points of the shared-memory bank unit (docs/cosim.md,
// "Coverage"), counted from its pins in every cycle the unit is stepped:
//
//   shared_bank.load, shared_bank.store      requests taken, by operation
//   shared_bank.atomic.<op>                  swap add xor and or min_i32
//                                            max_i32 min_u32 max_u32 fadd_f32
//                                            inc dec cas
//   shared_bank.broadcast.load|store         answered with one or more
//                                            broadcasts (a store: lanes on
//                                            one word merged)
//   shared_bank.conflict.degree<N>           answered in N passes, N = 1..32
//                                            (the busiest bank's distinct
//                                            words; atomics: its lanes)
//   shared_bank.mask.empty|single|partial|full   active lanes of a request
//   shared_bank.store.subword                a store with a lane writing
//                                            less than a word
//   shared_bank.atomic.same_word             an atomic with two lanes on
//                                            one word (their lane order shows)
//   shared_bank.atomic.cas_match|cas_mismatch    an atom.cas with a lane
//                                            whose compare value matched
//                                            (did not match) the old word
//   shared_bank.stall                        a cycle with a request on the
//                                            pins and req_ready low
//   shared_bank.back_to_back                 a request taken in the last
//                                            pass of the one before
//
// Pure logic on BankRequest/BankResponse; no Verilator, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rtl/common/coverage.h"
#include "sm/shared_bank_unit.h"

namespace tessera::sm {

class SharedBankCoverage {
 public:
  static constexpr const char* kBlock = "shared_bank_unit";
  static const std::vector<std::string>& point_names();

  explicit SharedBankCoverage(std::shared_ptr<rtl::CoverTable> table);
  // One cycle at the pins: `req` on the request pins (nullptr: req_valid
  // low) and `ready`, req_ready during the cycle (the output of the step
  // before); then the outputs after the step: `resp` when resp_valid.
  void sample(const BankRequest* req, bool ready, const BankResponse* resp);
  const rtl::CoverTable& table() const { return *table_; }

 private:
  std::shared_ptr<rtl::CoverTable> table_;
  bool in_service_ = false;             // a request taken and not yet answered
  BankOp op_ = BankOp::kLoad;           // the request in service
  std::array<uint32_t, 32> compare_{};  // its atom.cas compare values
};

}  // namespace tessera::sm
