#include "sm/shared_banks.h"

#include <algorithm>

namespace tessera::sm {

BankAccess arbitrate_banks(const std::array<uint32_t, 32>& words, uint32_t mask, unsigned banks, bool atomic) {
  // Per bank, the distinct words requested (at most 32 lanes, so a small
  // linear set is cheapest) and the number of lanes.
  std::array<uint32_t, 32> distinct{};
  std::array<uint8_t, 32> lanes_on_word{};
  unsigned n = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint32_t w = words[static_cast<unsigned>(__builtin_ctz(m))];
    unsigned i = 0;
    while (i < n && distinct[i] != w) ++i;
    if (i == n) {
      distinct[n] = w;
      lanes_on_word[n++] = 0;
    }
    ++lanes_on_word[i];
  }
  // Bank counts: for loads and stores the distinct words per bank, for
  // atomics every lane.
  std::array<unsigned, 64> per_bank{};
  unsigned max_bank = 0;
  BankAccess r;
  for (unsigned i = 0; i < n; ++i) {
    const unsigned b = distinct[i] % banks % per_bank.size();
    per_bank[b] += atomic ? lanes_on_word[i] : 1u;
    max_bank = std::max(max_bank, per_bank[b]);
    if (!atomic && lanes_on_word[i] > 1) ++r.broadcasts;
  }
  r.passes = max_bank;
  return r;
}

BankAccess arbitrate_banks_wide(const std::array<uint32_t, 32>& first_words, uint32_t mask, unsigned banks, bool atomic,
                                unsigned words_per_lane, unsigned lanes_per_pass) {
  BankAccess total;
  for (unsigned base = 0; base < 32; base += lanes_per_pass) {
    const uint32_t sub = mask & static_cast<uint32_t>(((uint64_t{1} << lanes_per_pass) - 1) << base);
    if (sub == 0) continue;
    // The group's words as the lanes of one request (at most 32 of them:
    // lanes_per_pass * words_per_lane is the bank count or less).
    std::array<uint32_t, 32> words{};
    uint32_t word_mask = 0;
    unsigned n = 0;
    for (uint32_t m = sub; m; m &= m - 1) {
      const uint32_t first = first_words[static_cast<unsigned>(__builtin_ctz(m))];
      for (unsigned k = 0; k < words_per_lane && n < 32; ++k) {
        words[n] = first + k;
        word_mask |= 1u << n++;
      }
    }
    const BankAccess a = arbitrate_banks(words, word_mask, banks, atomic);
    total.passes += a.passes;
    total.broadcasts += a.broadcasts;
  }
  return total;
}

}  // namespace tessera::sm
