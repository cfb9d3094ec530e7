// Where libFuzzer's inline 8-bit edge counters live: the __sancov_cntrs
// section, bounded by symbols the linker defines. This file is compiled
// without coverage instrumentation (testbenches/fuzz/CMakeLists.txt): in an
// instrumented file the compiler's own references to these symbols would be
// renamed apart from a declaration written here, and resolve to null.
#include "coverage_counters.h"

extern "C" {
extern __attribute__((weak)) uint8_t __start___sancov_cntrs[];
extern __attribute__((weak)) uint8_t __stop___sancov_cntrs[];
}

namespace tessera::fuzz {

uint8_t* coverage_counters(size_t* bytes) {
  *bytes = static_cast<size_t>(__stop___sancov_cntrs - __start___sancov_cntrs);
  return __start___sancov_cntrs;
}

}  // namespace tessera::fuzz
