// The edge counters libFuzzer reads after each input (inline 8-bit counters
// of every instrumented file of this program).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::fuzz {

uint8_t* coverage_counters(size_t* bytes);

}  // namespace tessera::fuzz
