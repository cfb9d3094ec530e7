#include "sim/subprocess.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace tessera::sim {

SubprocessResult run_subprocess(const std::vector<std::string>& argv) {
  SubprocessResult r;
  if (argv.empty()) {
    r.error = "no program given";
    return r;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  // posix_spawn, not posix_spawnp: the program is an absolute path, never
  // looked up in PATH.
  if (const int err = posix_spawn(&pid, argv[0].c_str(), nullptr, nullptr, args.data(), environ); err != 0) {
    r.error = fmt::format("cannot run {}: {}", argv[0], std::strerror(err));
    return r;
  }
  r.started = true;
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) {
      r.error = fmt::format("waiting for {}: {}", argv[0], std::strerror(errno));
      return r;
    }
  }
  if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  return r;
}

}  // namespace tessera::sim
