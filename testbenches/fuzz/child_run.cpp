#include "child_run.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "coverage_counters.h"
#include "fuzz_util.h"

extern "C" {
// Every allocation's stack goes into ASan's stack depot, and each child
// pays for those writes in copy-on-write page faults: without allocation
// stacks an input runs about a fifth faster. Reproduce a finding with
// ASAN_OPTIONS=malloc_context_size=30 to get them back in the report.
const char* __asan_default_options() { return "malloc_context_size=0"; }

// libsystemc references sc_main (its own main calls it); libFuzzer's main is
// this program's entry point instead, so this is never called.
int sc_main(int, char**) {
  std::fprintf(stderr, "the entry point of a fuzz harness is libFuzzer's main, not sc_main\n");
  return 2;
}
}

namespace tessera::fuzz {

namespace {

// Shared with the child: whether it finished, then a copy of its counters.
struct Shared {
  int done;
};

Shared* shared = nullptr;
uint8_t* counters = nullptr;        // this process's
uint8_t* child_counters = nullptr;  // the child's, in the shared block
size_t counter_bytes = 0;

}  // namespace

void init_child_runs() {
  counters = coverage_counters(&counter_bytes);
  if (counter_bytes == 0) fail("no coverage counters: the harness must be built with -fsanitize=fuzzer");
  void* p = mmap(nullptr, sizeof(Shared) + counter_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) fail("mmap of the shared block failed");
  shared = static_cast<Shared*>(p);
  child_counters = static_cast<uint8_t*>(p) + sizeof(Shared);
}

void run_in_child(const std::function<void()>& body, const char* what) {
  shared->done = 0;
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) fail("fork failed");
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a parent stopped by a timeout takes the child with it
    if (getppid() != parent) _exit(1);
    body();
    std::memcpy(child_counters, counters, counter_bytes);
    shared->done = 1;
    _exit(0);
  }
  int wstatus = 0;
  while (waitpid(child, &wstatus, 0) < 0) check(errno == EINTR, "waitpid failed");
  // A crash or sanitizer report in the child was printed (and its input
  // saved) by the child's own libFuzzer runtime; stop here too.
  check(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && shared->done == 1, [&] {
    return WIFSIGNALED(wstatus)
               ? std::string(what) + " died of signal " + std::to_string(WTERMSIG(wstatus))
               : std::string(what) + " failed (child exit status " + std::to_string(WEXITSTATUS(wstatus)) + ")";
  });
  std::memcpy(counters, child_counters, counter_bytes);
}

}  // namespace tessera::fuzz
