// Paths into the build and source trees, found when a test runs rather than
// written into it when it compiles. Test code names its firmware, platform
// and scratch directories with macros (FW_DIR, PLATFORM_DIR, TESSERA_BIN...)
// that tessera_test_definitions() (testbenches/CMakeLists.txt) defines as
// calls of build_path() or source_path() with a path relative to the tree's
// root: the compile command is then the same in every clone and every build
// directory, so the compiler cache serves a test file compiled in another
// clone. Every test TU includes this header (-include).
#pragma once

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace tessera::test {

// The build tree holding this executable: the nearest directory above it
// with a CMakeCache.txt.
inline const std::string& build_root() {
  static const std::string root = [] {
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
      std::fprintf(stderr, "test_paths.h: cannot read /proc/self/exe to find the build tree\n");
      std::exit(2);
    }
    std::string dir(exe, static_cast<size_t>(n));
    while (!dir.empty()) {
      dir.erase(dir.find_last_of('/'));
      if (std::ifstream(dir + "/CMakeCache.txt")) return dir;
    }
    std::fprintf(stderr, "test_paths.h: no CMakeCache.txt above %.*s: is this executable in its build tree?\n",
                 static_cast<int>(n), exe);
    std::exit(2);
  }();
  return root;
}

// The source tree the build tree was configured from (CMakeCache.txt's
// CMAKE_HOME_DIRECTORY).
inline const std::string& source_root() {
  static const std::string root = [] {
    const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
    std::ifstream cache(build_root() + "/CMakeCache.txt");
    for (std::string line; std::getline(cache, line);)
      if (line.compare(0, key.size(), key) == 0) return line.substr(key.size());
    std::fprintf(stderr, "test_paths.h: %s/CMakeCache.txt names no CMAKE_HOME_DIRECTORY\n", build_root().c_str());
    std::exit(2);
  }();
  return root;
}

inline std::string build_path(const char* relative) { return *relative ? build_root() + "/" + relative : build_root(); }
inline std::string source_path(const char* relative) {
  return *relative ? source_root() + "/" + relative : source_root();
}

}  // namespace tessera::test
