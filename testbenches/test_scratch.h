// The scratch directory of a test process: $TEST_TMPDIR (or /tmp), then
// tessera-test-<pid>, so test processes running side by side never share a
// file. temp_path (tessera_run.h) names files in it; the shared test main
// removes it when every test passed and keeps it, saying where, when one
// failed.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace tessera::test {

inline std::string scratch_dir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/tessera-test-" + std::to_string(getpid());
}

}  // namespace tessera::test
