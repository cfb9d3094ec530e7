// Physical address -> (channel, pseudo channel, bank group, bank, row,
// column). The order string names the fields from the most significant to
// the least ("ro-ba-co-bg-pc-ch"); below them sit the byte-in-burst bits.
// Fields: st (stack), ch, pc, bg, ba, ro, co; st may be omitted with one
// stack. The optional XOR bank hash folds the low row bits into the bank
// and bank-group bits (permutation-based interleaving, Zhang et al.,
// MICRO 2000), which spreads row conflicts of strided accesses over banks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dram/spec.h"

namespace tessera::dram {

struct DramAddress {
  unsigned channel = 0;  // global over stacks: stack * channels_per_stack + channel
  unsigned pc = 0;
  unsigned bank_group = 0;
  unsigned bank = 0;  // within its group
  unsigned row = 0;
  unsigned column = 0;  // burst index within the row
};

class AddressMap {
 public:
  // Throws sim::ConfigError naming the problem in `order`.
  AddressMap(const DramSpec& spec, const std::string& order, bool xor_bank_hash);

  DramAddress decode(uint64_t address) const;
  // The inverse (for tests and trace generation); ignores the hash input
  // ordering, i.e. encode(decode(a)) == a for burst-aligned a.
  uint64_t encode(const DramAddress& a) const;
  unsigned offset_bits() const { return offset_bits_; }
  const std::string& order() const { return order_; }

 private:
  enum Field { kStack, kChannel, kPc, kBankGroup, kBank, kRow, kColumn, kFieldCount };
  struct Slice {
    Field field;
    unsigned shift;  // bit position in the address
    unsigned bits;
  };
  std::string order_;
  std::vector<Slice> slices_;  // least significant first
  unsigned offset_bits_ = 0;
  unsigned channels_per_stack_ = 1;
  unsigned bank_bits_ = 0, bank_group_bits_ = 0;
  bool xor_ = false;
};

}  // namespace tessera::dram
