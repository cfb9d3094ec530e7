// An independent reading of the trace grammars of docs/dram.md and
// docs/noc.md, used by the trace harnesses to check every line the parsers
// accept: tokens split on whitespace, numbers in decimal (leading zeros are
// still decimal) or hexadecimal with 0x, nothing else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::fuzz {

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

inline std::vector<std::string> tokens(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : line) {
    if (is_space(c)) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

inline int digit_value(char c, unsigned base) {
  int d = -1;
  if (c >= '0' && c <= '9') d = c - '0';
  if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
  if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
  return d >= 0 && static_cast<unsigned>(d) < base ? d : -1;
}

// Digits in base 10 or 16 (no prefix, no sign), without overflow of `max`.
inline std::optional<uint64_t> digits(const std::string& s, unsigned base, uint64_t max) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (const char c : s) {
    const int d = digit_value(c, base);
    if (d < 0) return std::nullopt;
    if (v > (max - static_cast<uint64_t>(d)) / base) return std::nullopt;
    v = v * base + static_cast<uint64_t>(d);
  }
  return v;
}

inline bool has_hex_prefix(const std::string& s) { return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'); }

// Decimal, or hexadecimal with 0x.
inline std::optional<uint64_t> number(const std::string& s, uint64_t max) {
  return has_hex_prefix(s) ? digits(s.substr(2), 16, max) : digits(s, 10, max);
}

}  // namespace tessera::fuzz
