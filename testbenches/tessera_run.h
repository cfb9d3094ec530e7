// Runs the real `tessera` binary in a child process (a netlist elaborates
// once per process) and captures its exit status, stdout and stderr.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tessera::test {

struct RunResult {
  int status = -1;  // exit status, or -1 when killed by a signal
  int signal = 0;   // the signal that killed it, if any
  bool timed_out = false;
  double seconds = 0;  // wall time of the child
  std::string out, err;
};

// argv[0] is the tessera binary (TESSERA_BIN, set by CMake). The timeout is
// multiplied by timeout_scale(). When the child prints a sanitizer report
// (a sanitizer build), the report is printed and the test process aborts.
RunResult run_tessera(const std::vector<std::string>& args, int timeout_seconds = 120);

// How much longer than in a Release build tests may take: 1, or
// TESSERA_SANITIZE_TIMEOUT_SCALE in a sanitizer build (CMakeLists.txt).
int timeout_scale();

// "RESULT name v1 v2 ..." lines printed by test firmware.
std::map<std::string, std::vector<long long>> parse_results(const std::string& out);

std::string read_file(const std::string& path);

// What a shell command prints on stdout (a tool such as fst2vcd).
std::string command_output(const std::string& cmd);

// A scratch file path of this test process, in scratch_dir() (test_scratch.h),
// which it creates.
std::string temp_path(const std::string& name);

}  // namespace tessera::test
