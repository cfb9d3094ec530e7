// Checks for numeric command-line options. CLI11 converts "-5" into an
// unsigned option by wrapping it around to 2^64-5, so every unsigned option
// is checked on its text first: decimal digits only, within [lo, hi].
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace tessera::sim {

inline CLI::Validator unsigned_in(uint64_t lo, uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        errno = 0;
        const unsigned long long v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
        if (!digits || errno == ERANGE || v < lo || v > hi)
          return fmt::format("'{}' is not a whole number in [{}, {}]", text, lo, hi);
        return {};
      },
      fmt::format("UINT in [{}, {}]", lo, hi));
}

}  // namespace tessera::sim
