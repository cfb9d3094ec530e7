// The shared-memory bank arbiter (docs/architecture.md, "The SM"): a warp's accesses to
// banked shared memory. Threads that touch the same word are served by one
// broadcast; distinct words in one bank serialize, so an n-way conflict takes
// n passes. Atomic operations execute in ALUs beside the banks: every lane's
// read-modify-write needs its own pass through its bank, so atomics to one
// word (or to words of one bank) serialize. No SystemC here.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace tessera::sm {

struct BankAccess {
  unsigned passes = 0;      // bank-array passes the request needs (0: no lanes)
  unsigned broadcasts = 0;  // words read by more than one lane in a pass
};

// words[lane] is the bank-word index (shared byte address / bank width) of
// each lane in `mask`.
BankAccess arbitrate_banks(const std::array<uint32_t, 32>& words, uint32_t mask, unsigned banks, bool atomic);

// The n-way conflict latency curve of shared-memory loads: the cycles a load
// whose request needs `passes` bank passes becomes readable after a
// conflict-free one would (sm.shared_latency). Given at 2, 4, 8, 16 and 32
// passes (the key sm.shared_conflict_cycles); 1 pass adds nothing, between
// two given points the curve is linear (rounded down), and beyond 32 passes
// the 16-to-32 slope continues. The bank array still takes one pass per
// cycle: the curve is latency, not occupancy.
struct ConflictCurve {
  static constexpr std::array<unsigned, 5> kPoints{2, 4, 8, 16, 32};
  // Cycles added at 2, 4, 8, 16 and 32 passes.
  std::array<unsigned, 5> cycles{2, 6, 14, 30, 62};

  unsigned extra(unsigned passes) const;
};

// The default curve's text ("2,6,14,30,62", calibrated to Mei and Chu's GTX 980
// measurements, docs/validation.md); see ConflictCurve.
extern const char* const kDefaultConflictCycles;

// Parses "c2,c4,c8,c16,c32" (cycles, comma-separated). Throws
// std::invalid_argument saying what is wrong: not five whole numbers, a point
// below n - 1 (an n-pass load cannot be readable before its last pass), or a
// point below the one before it.
ConflictCurve parse_conflict_curve(const std::string& text);

// A warp's 64-bit or 128-bit accesses: each lane in `mask` touches
// `words_per_lane` consecutive bank words from first_words[lane]. As the CUDA
// C Programming Guide describes 64-bit and 128-bit shared-memory accesses
// (32 banks of 4 bytes: "Shared Memory", compute capability 2.x, "64-Bit
// Accesses" and "128-Bit Accesses", the bank organisation 5.x keeps), the
// request is split by lane number into groups of `lanes_per_pass` lanes
// (half-warps for 64-bit, quarter-warps for 128-bit: the lanes whose data
// fill the banks once), each served by its own passes: consecutive lanes move
// their 128 bytes without conflict in one pass, and conflicts are counted
// within each group. A group without an active lane takes no pass.
BankAccess arbitrate_banks_wide(const std::array<uint32_t, 32>& first_words, uint32_t mask, unsigned banks, bool atomic,
                                unsigned words_per_lane, unsigned lanes_per_pass);

}  // namespace tessera::sm
