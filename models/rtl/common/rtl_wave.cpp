#include "rtl/common/rtl_wave.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "sim/waveform.h"

namespace tessera::rtl {

uint64_t extract_bits(const uint8_t* elem, size_t bytes, unsigned bit, unsigned width) {
  // Byte by byte from the top: at most nine bytes hold 64 bits at any offset.
  const unsigned first = bit / 8, shift = bit % 8;
  const auto end = static_cast<unsigned>(std::min<size_t>(bytes, first + 9));
  uint64_t v = 0;
  for (unsigned b = end; b-- > first;) {
    const uint64_t byte = elem[b];
    const unsigned pos = (b - first) * 8;  // of this byte's bit 0, before the shift
    if (pos >= shift) {
      if (pos - shift < 64) v |= byte << (pos - shift);
    } else {
      v |= byte >> (shift - pos);
    }
  }
  return width >= 64 ? v : v & ((uint64_t{1} << width) - 1);
}

namespace {

// "a.b[3].c" -> ("a.b[3]", "c")
std::pair<std::string, std::string> split_path(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos) return {"", path};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

}  // namespace

RtlWave::RtlWave(sim::Waveform& wave, const std::string& scope, const std::vector<RtlVar>& vars,
                 const std::vector<BusSplit>& splits, uint64_t period_ps)
    : wave_(wave), period_ps_(period_ps) {
  for (const RtlVar& v : vars) add(wave, scope, v, splits);
}

void RtlWave::add(sim::Waveform& wave, const std::string& scope, const RtlVar& v, const std::vector<BusSplit>& splits) {
  const auto [parent, leaf] = split_path(v.path);
  const std::string var_scope = parent.empty() ? scope : scope + "." + parent;
  const auto width = static_cast<unsigned>(v.msb - v.lsb + 1);
  const unsigned elems = std::max(v.count, 1u);
  Var var{static_cast<const uint8_t*>(v.data), v.elem_bytes, v.elem_bytes * elems, {}, {}};
  // A signal of `w` bits from `bit` of element `e`, named `name` in `s`;
  // wider than 64 bits: 64-bit pieces in a scope of its own.
  auto piece = [&](const std::string& s, const std::string& name, unsigned e, unsigned bit, unsigned w) {
    if (w <= 64) {
      const int id = wave.add_signal(s, name, w);
      if (id >= 0) var.pieces.push_back(Piece{id, e, bit, w});
      return;
    }
    for (unsigned lo = 0; lo < w; lo += 64) {
      const unsigned n = std::min(64u, w - lo);
      const int id = wave.add_signal(s + "." + name, fmt::format("bits{}_{}", lo + n - 1, lo), n);
      if (id >= 0) var.pieces.push_back(Piece{id, e, bit + lo, n});
    }
  };
  const BusSplit* split = nullptr;
  for (const BusSplit& s : splits)
    if (v.count == 0 && v.path == s.signal) split = &s;
  if (!split && v.count > 0 && width <= 64 && !wave.scope_enabled(var_scope)) {
    // An array (a RAM) in a scope --trace-scope leaves out: its first
    // element named for the list of scopes, the rest not even declared.
    wave.add_signal(var_scope, fmt::format("{}[0]", leaf), width);
    return;
  }
  if (split) {
    for (unsigned f = 0; f * split->field_bits < width; ++f) {
      const std::string name = split->per
                                   ? fmt::format("{}{}_{}{}", split->field, f / split->per, split->sub, f % split->per)
                                   : fmt::format("{}{}", split->field, f);
      piece(var_scope + "." + leaf, name, 0, f * split->field_bits,
            std::min(split->field_bits, width - f * split->field_bits));
    }
  } else if (v.count == 0) {
    piece(var_scope, leaf, 0, 0, width);
  } else {
    for (unsigned e = 0; e < v.count; ++e) piece(var_scope, fmt::format("{}[{}]", leaf, e), e, 0, width);
  }
  if (var.pieces.empty()) return;
  signals_ += var.pieces.size();
  var.last.assign(var.bytes, 0);
  vars_.push_back(std::move(var));
}

void RtlWave::sample(uint64_t cycle) {
  const uint64_t ps = std::max(cycle, floor_) * period_ps_;
  for (Var& v : vars_) {
    if (!first_ && std::memcmp(v.data, v.last.data(), v.bytes) == 0) continue;
    unsigned checked = UINT32_MAX;
    bool changed = true;
    for (const Piece& p : v.pieces) {
      const size_t at = p.elem * v.elem_bytes;
      if (p.elem != checked) {
        checked = p.elem;
        changed = first_ || std::memcmp(v.data + at, v.last.data() + at, v.elem_bytes) != 0;
      }
      if (changed) wave_.change(p.id, extract_bits(v.data + at, v.elem_bytes, p.bit, p.width), ps);
    }
    std::memcpy(v.last.data(), v.data, v.bytes);
  }
  first_ = false;
}

}  // namespace tessera::rtl
