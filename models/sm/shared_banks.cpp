#include "sm/shared_banks.h"

#include <algorithm>
#include <stdexcept>

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

// Mei and Chu's GTX 980 (Maxwell) shared-memory latencies under 2, 4, 8, 16
// and 32-way conflicts (30, 34, 42, 58 and 90 cycles, docs/validation.md)
// less the conflict-free 28: two cycles per further pass.
const char* const kDefaultConflictCycles = "2,6,14,30,62";

unsigned ConflictCurve::extra(unsigned passes) const {
  if (passes <= 1) return 0;
  // The segment (lo, hi] that holds passes; past the last point, the last one.
  unsigned lo = 1, lo_cycles = 0, i = 0;
  while (i + 1 < kPoints.size() && passes > kPoints[i]) {
    lo = kPoints[i];
    lo_cycles = cycles[i];
    ++i;
  }
  const unsigned hi = kPoints[i], hi_cycles = cycles[i];
  return lo_cycles + static_cast<unsigned>(static_cast<uint64_t>(hi_cycles - lo_cycles) * (passes - lo) / (hi - lo));
}

ConflictCurve parse_conflict_curve(const std::string& text) {
  const std::string want = "five cycle counts for 2, 4, 8, 16 and 32-way conflicts, e.g. \"2,6,14,30,62\"";
  ConflictCurve c;
  size_t at = 0;
  for (unsigned i = 0; i < c.cycles.size(); ++i) {
    const size_t end = i + 1 < c.cycles.size() ? text.find(',', at) : text.size();
    if (end == std::string::npos) throw std::invalid_argument("'" + text + "' has fewer than " + want);
    const std::string item = text.substr(at, end - at);
    const size_t first = item.find_first_not_of(' ');
    const size_t last = item.find_last_not_of(' ');
    const std::string digits = first == std::string::npos ? "" : item.substr(first, last - first + 1);
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("'" + item + "' (for " + std::to_string(ConflictCurve::kPoints[i]) +
                                  " ways) is not a whole number of cycles up to 999999; want " + want);
    c.cycles[i] = static_cast<unsigned>(std::stoul(digits));
    at = end + 1;
  }
  for (unsigned i = 0; i < c.cycles.size(); ++i) {
    const unsigned n = ConflictCurve::kPoints[i];
    if (c.cycles[i] < n - 1)
      throw std::invalid_argument(std::to_string(c.cycles[i]) + " cycles for " + std::to_string(n) +
                                  " ways is less than " + std::to_string(n - 1) +
                                  ": the bank array takes one pass per cycle, so an n-way load is readable no "
                                  "earlier than n - 1 cycles after a conflict-free one");
    if (i > 0 && c.cycles[i] < c.cycles[i - 1])
      throw std::invalid_argument(std::to_string(c.cycles[i]) + " cycles for " + std::to_string(n) +
                                  " ways is less than the " + std::to_string(c.cycles[i - 1]) + " given for " +
                                  std::to_string(ConflictCurve::kPoints[i - 1]) + " ways");
  }
  return c;
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
