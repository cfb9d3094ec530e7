// The vector register file and vector CSRs of the RVV 1.0 subset
// (vector.h): vtype decoding (3.4), element access by EEW (4.1) and the
// CSR view (3.2 - 3.7). Section numbers refer to the RISC-V "V" vector
// extension specification, version 1.0.
#include <stdexcept>

#include "isa/vector.h"

namespace tessera::isa::vec {

Vtype parse_vtype(uint32_t value) {
  static constexpr unsigned kLmul8[8] = {8, 16, 32, 64, 0, 1, 2, 4};  // vlmul 4 is reserved (3.4.2)
  const unsigned vlmul = value & 7, vsew = (value >> 3) & 7;
  // Any bit above vma (reserved, or vill itself) makes the value unsupported.
  if ((value >> 8) != 0 || vsew > 2 || kLmul8[vlmul] == 0) return Vtype{};
  Vtype t;
  t.sew = 8u << vsew;
  t.lmul8 = kLmul8[vlmul];
  t.vta = (value >> 6) & 1;
  t.vma = (value >> 7) & 1;
  // A fractional LMUL must hold one element of SEW within ELEN (3.4.2).
  if (t.sew * 8 > t.lmul8 * kElen) return Vtype{};
  t.vill = false;
  return t;
}

VectorState::VectorState(unsigned vlen_bits) : vlen_(vlen_bits) {
  if (vlen_bits < 64 || vlen_bits > 4096 || (vlen_bits & (vlen_bits - 1)) != 0) {
    throw std::invalid_argument("VLEN must be a power of two between 64 and 4096 bits");
  }
  file_.assign(32u * vlenb(), 0);
}

unsigned VectorState::vlmax() const {
  const Vtype t = type();
  return t.vill ? 0 : vlen_ * t.lmul8 / (t.sew * 8);
}

uint32_t VectorState::element(unsigned v, unsigned i, unsigned eew) const {
  const uint8_t* p = &file_[v * vlenb() + i * (eew / 8)];
  uint32_t value = 0;
  for (unsigned b = 0; b < eew / 8; ++b) value |= uint32_t{p[b]} << (8 * b);
  return value;
}

void VectorState::set_element(unsigned v, unsigned i, unsigned eew, uint32_t value) {
  uint8_t* p = &file_[v * vlenb() + i * (eew / 8)];
  for (unsigned b = 0; b < eew / 8; ++b) p[b] = static_cast<uint8_t>(value >> (8 * b));
}

void VectorState::set_mask_bit(unsigned v, unsigned i, bool bit) {
  uint8_t& byte = reg(v)[i / 8];
  byte = static_cast<uint8_t>(bit ? byte | (1u << (i % 8)) : byte & ~(1u << (i % 8)));
}

bool VectorState::csr_read(uint16_t c, uint32_t* value) const {
  switch (c) {
    case csr::kVstart:
      *value = vstart;
      return true;
    case csr::kVl:
      *value = vl;
      return true;
    case csr::kVtype:
      *value = vtype;
      return true;
    case csr::kVlenb:
      *value = vlenb();
      return true;
    default:
      return false;
  }
}

bool VectorState::csr_write(uint16_t c, uint32_t value) {
  if (c != csr::kVstart) return false;
  // Only the bits of the largest element index are writable (3.7): the
  // largest VLMAX is VLEN (SEW 8, LMUL 8).
  vstart = value & (vlen_ - 1);
  return true;
}

}  // namespace tessera::isa::vec
