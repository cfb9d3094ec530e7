#include "dram/address_map.h"

#include <fmt/format.h>

#include <array>
#include <sstream>

#include "sim/config.h"

namespace tessera::dram {

namespace {

unsigned log2_exact(unsigned v) {
  unsigned b = 0;
  while ((1u << b) < v) ++b;
  return b;
}

}  // namespace

AddressMap::AddressMap(const DramSpec& spec, const std::string& order, bool xor_bank_hash)
    : order_(order), xor_(xor_bank_hash) {
  const Organisation& o = spec.org;
  const std::array<const char*, kFieldCount> names{"st", "ch", "pc", "bg", "ba", "ro", "co"};
  const std::array<unsigned, kFieldCount> bits{log2_exact(spec.stacks),       log2_exact(o.channels_per_stack),
                                               log2_exact(o.pseudo_channels), log2_exact(o.bank_groups),
                                               log2_exact(o.banks_per_group), log2_exact(o.rows),
                                               log2_exact(o.columns)};
  channels_per_stack_ = o.channels_per_stack;
  bank_bits_ = bits[kBank];
  bank_group_bits_ = bits[kBankGroup];
  offset_bits_ = log2_exact(o.burst_bytes());

  std::vector<Field> msb_first;
  std::array<bool, kFieldCount> seen{};
  std::stringstream in(order);
  std::string token;
  while (std::getline(in, token, '-')) {
    int found = -1;
    for (int f = 0; f < kFieldCount; ++f)
      if (token == names[f]) found = f;
    if (found < 0)
      throw sim::ConfigError(
          fmt::format("dram.address_map '{}': unknown field '{}' (fields: st, ch, pc, bg, ba, ro, co)", order, token));
    if (seen[found])
      throw sim::ConfigError(fmt::format("dram.address_map '{}': field '{}' appears twice", order, token));
    seen[found] = true;
    msb_first.push_back(static_cast<Field>(found));
  }
  if (!seen[kStack]) {
    if (spec.stacks > 1) msb_first.insert(msb_first.begin(), kStack);  // stacks above everything else
    seen[kStack] = true;
  }
  for (int f = 0; f < kFieldCount; ++f)
    if (!seen[f]) throw sim::ConfigError(fmt::format("dram.address_map '{}': field '{}' is missing", order, names[f]));
  unsigned shift = offset_bits_;
  for (auto it = msb_first.rbegin(); it != msb_first.rend(); ++it) {
    slices_.push_back(Slice{*it, shift, bits[*it]});
    shift += bits[*it];
  }
}

DramAddress AddressMap::decode(uint64_t address) const {
  std::array<unsigned, kFieldCount> v{};
  for (const Slice& s : slices_) v[s.field] = static_cast<unsigned>((address >> s.shift) & ((1ull << s.bits) - 1));
  DramAddress a;
  a.channel = v[kStack] * channels_per_stack_ + v[kChannel];
  a.pc = v[kPc];
  a.row = v[kRow];
  a.bank = v[kBank];
  a.bank_group = v[kBankGroup];
  if (xor_) {
    a.bank ^= a.row & ((1u << bank_bits_) - 1);
    a.bank_group ^= (a.row >> bank_bits_) & ((1u << bank_group_bits_) - 1);
  }
  a.column = v[kColumn];
  return a;
}

uint64_t AddressMap::encode(const DramAddress& a) const {
  std::array<unsigned, kFieldCount> v{};
  v[kStack] = a.channel / channels_per_stack_;
  v[kChannel] = a.channel % channels_per_stack_;
  v[kPc] = a.pc;
  v[kRow] = a.row;
  v[kBank] = a.bank;
  v[kBankGroup] = a.bank_group;
  if (xor_) {  // the hash is its own inverse
    v[kBank] ^= a.row & ((1u << bank_bits_) - 1);
    v[kBankGroup] ^= (a.row >> bank_bits_) & ((1u << bank_group_bits_) - 1);
  }
  v[kColumn] = a.column;
  uint64_t address = 0;
  for (const Slice& s : slices_) address |= static_cast<uint64_t>(v[s.field]) << s.shift;
  return address;
}

}  // namespace tessera::dram
