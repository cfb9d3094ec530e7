// Runs a helper program (the NoC plotter) without a shell: the arguments go
// to the program as they are, so a path with quotes, spaces or semicolons is
// only ever a path.
#pragma once

#include <string>
#include <vector>

namespace tessera::sim {

struct SubprocessResult {
  bool started = false;  // false: the program could not be run (error says why)
  int status = -1;       // exit status when it exited, else -1
  int signal = 0;        // the signal that ended it, else 0
  std::string error;
};

// argv[0] is the program's absolute path; waits for it to finish. With
// `output` set, the program's standard output and error go to that file
// (created or truncated) instead of this process's.
SubprocessResult run_subprocess(const std::vector<std::string>& argv, const std::string& output = "");

// The absolute path of `program` found in PATH, or "" when it is not there.
std::string find_in_path(const std::string& program);

}  // namespace tessera::sim
