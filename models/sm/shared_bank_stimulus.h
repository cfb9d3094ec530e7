// Constrained-random warp requests for the shared-memory bank unit: every
// operation, and the access patterns that decide its passes (stride 1, 2, 3
// and 32, one word for every lane, a random permutation, random words,
// atomics on one word and on distinct banks, sub-word stores), with
// back-to-back and sparse arrival. Used by the co-simulation tests
// (testbenches/cosim/shared_bank_test.cpp) and `tessera rtl-test
// shared_bank_unit` (docs/cosim.md, "Block-level random testing").
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>

#include "sm/shared_bank_unit.h"

namespace tessera::sm {

// A directed request: lane l of `mask` on word base + l * stride, whole
// words (byte enables 0xf), data and swap values 0.
inline BankRequest strided_request(BankOp op, uint32_t mask, unsigned stride, uint32_t base = 0) {
  BankRequest r;
  r.op = op;
  r.mask = mask;
  for (unsigned l = 0; l < 32; ++l) {
    r.word[l] = base + l * stride;
    r.be[l] = 0xf;
  }
  return r;
}

class BankStimulus {
 public:
  BankStimulus(uint64_t seed, unsigned words) : rng_(seed), words_(words) {}

  // Whether a request is presented this cycle: runs of back-to-back
  // requests and runs of idle cycles.
  bool present() {
    if (run_left_ == 0) {
      busy_run_ = !busy_run_;
      run_left_ = 1 + pick(busy_run_ ? 64 : 12);
    }
    --run_left_;
    return busy_run_ || pick(8) == 0;
  }

  BankRequest next() {
    BankRequest r;
    r.op = static_cast<BankOp>(pick(3) == 0 ? pick(2) : pick(kBankOpCount));
    if (pick(2) == 0) r.op = pick(2) ? BankOp::kLoad : BankOp::kStore;
    const unsigned mode = pick(4);
    r.mask = mode == 0 ? 0xffffffffu : mode == 1 ? static_cast<uint32_t>(rng_()) : mode == 2 ? 1u << pick(32) : 0;
    if (r.mask == 0) r.mask = static_cast<uint32_t>(rng_()) | 1u;
    // A small region (so data and atomics meet again) or anywhere.
    const uint32_t base = pick(4) == 0 ? pick(words_) : pick(256);
    const unsigned pattern = pick(9);
    std::array<unsigned, 32> perm{};
    for (unsigned i = 0; i < 32; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng_);
    const unsigned hot = pick(4);  // a few words for collisions
    for (unsigned l = 0; l < 32; ++l) {
      uint32_t w = 0;
      switch (pattern) {
        case 0:
          w = base + l;
          break;
        case 1:
          w = base + 2 * l;
          break;
        case 2:
          w = base + 3 * l;
          break;
        case 3:
          w = base + 32 * l;
          break;
        case 4:
          w = base;
          break;  // broadcast / one word
        case 5:
          w = base + perm[l];
          break;  // permutation
        case 6:
          w = base + 32 * pick(4) + hot;
          break;  // a few words, one bank
        case 7:
          w = base + pick(8);
          break;  // a few words
        default:
          w = static_cast<uint32_t>(pick(words_));  // anywhere
      }
      r.word[l] = w % words_;
      // Sub-word stores: a byte, a half or the word; data in its byte lanes.
      const unsigned size = pick(3);
      const unsigned off = size == 0 ? pick(4) : size == 1 ? 2 * pick(2) : 0;
      r.be[l] = static_cast<uint8_t>((size == 0 ? 0x1u : size == 1 ? 0x3u : 0xfu) << off);
      r.data[l] = operand();
      r.swap[l] = operand();
    }
    return r;
  }

 private:
  unsigned pick(unsigned n) { return static_cast<unsigned>(rng_() % n); }
  // Small integers (so inc/dec/cas/min meet their edges) and floats,
  // including denormals, zeros, infinities and NaNs.
  uint32_t operand() {
    static constexpr uint32_t kSpecial[] = {0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000,
                                            0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
                                            0x7f800001, 0x3f800000, 0xbf800000, 0xffffffff, 0x7fffffff};
    switch (pick(4)) {
      case 0:
        return pick(8);
      case 1:
        return kSpecial[pick(sizeof kSpecial / sizeof kSpecial[0])];
      case 2:
        return (static_cast<uint32_t>(rng_()) & 0x80ffffffu) | (pick(3) << 23);  // near the denormals
      default:
        return static_cast<uint32_t>(rng_());
    }
  }

  std::mt19937_64 rng_;
  unsigned words_;
  bool busy_run_ = false;
  unsigned run_left_ = 0;
};

}  // namespace tessera::sm
