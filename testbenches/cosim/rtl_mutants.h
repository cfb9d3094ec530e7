// The RTL blocks built with a known bug (models/rtl/verilated/:
// shared_no_broadcast, router_early_credit) live in the plugin
// build/libtessera_rtl_mutants.so, not in the binaries. A test executable
// that runs them in-process loads it as `tessera run --plugin` would; the
// executable exports the symbols the plugin resolves (ENABLE_EXPORTS).
#pragma once

#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include "testbenches/test_paths.h"

namespace tessera::test {

inline void load_rtl_mutants() {
  static void* const handle = [] {
    const std::string path = build_path("libtessera_rtl_mutants.so");
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw std::runtime_error("cannot load " + path + ": " + dlerror());
    return h;
  }();
  (void)handle;
}

}  // namespace tessera::test
