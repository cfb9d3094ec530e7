// The shared-memory bank arbiter (docs/architecture.md, "The SM"): a warp's accesses to
// banked shared memory. Threads that touch the same word are served by one
// broadcast; distinct words in one bank serialize, so an n-way conflict takes
// n passes. Atomic operations execute in ALUs beside the banks: every lane's
// read-modify-write needs its own pass through its bank, so atomics to one
// word (or to words of one bank) serialize. No SystemC here.
#pragma once

#include <array>
#include <cstdint>

namespace tessera::sm {

struct BankAccess {
  unsigned passes = 0;      // bank-array passes the request needs (0: no lanes)
  unsigned broadcasts = 0;  // words read by more than one lane in a pass
};

// words[lane] is the bank-word index (shared byte address / bank width) of
// each lane in `mask`.
BankAccess arbitrate_banks(const std::array<uint32_t, 32>& words, uint32_t mask, unsigned banks, bool atomic);

}  // namespace tessera::sm
