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

}  // namespace tessera::sm
