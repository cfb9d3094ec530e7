#include "tessera_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "test_scratch.h"

namespace tessera::test {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string command_output(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

int timeout_scale() { return TESSERA_TEST_TIMEOUT_SCALE; }

namespace {

// A sanitizer's report in the child's stderr: its first line, or "".
std::string sanitizer_report(const std::string& err) {
  for (const char* marker : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error: "}) {
    const auto at = err.find(marker);
    if (at == std::string::npos) continue;
    const auto begin = err.rfind('\n', at) + 1;  // npos + 1 == 0: the first line
    return err.substr(begin, err.find('\n', at) - begin);
  }
  return "";
}

}  // namespace

RunResult run_tessera(const std::vector<std::string>& args, int timeout_seconds) {
  timeout_seconds *= timeout_scale();
  char out_name[] = "/tmp/tessera_test_out_XXXXXX";
  char err_name[] = "/tmp/tessera_test_err_XXXXXX";
  const int out_fd = mkstemp(out_name);
  const int err_fd = mkstemp(err_name);
  RunResult r;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    std::vector<char*> argv;
    std::string bin = TESSERA_BIN;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  int wstatus = 0;
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (waitpid(pid, &wstatus, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  close(out_fd);
  close(err_fd);
  r.out = read_file(out_name);
  r.err = read_file(err_name);
  unlink(out_name);
  unlink(err_name);
  // A sanitizer build's child that reports an error must fail the test even
  // where the test expects a failing exit status (bad input, guest faults):
  // print the child's output and abort this test process.
  if (const std::string report = sanitizer_report(r.err); !report.empty()) {
    std::cerr << "tessera_run: sanitizer report from the tessera child process:\n  " << report << "\ncommand:";
    for (const auto& a : args) std::cerr << ' ' << a;
    std::cerr << "\n--- child stdout ---\n" << r.out << "\n--- child stderr ---\n" << r.err << std::endl;
    std::abort();
  }
  return r;
}

std::map<std::string, std::vector<long long>> parse_results(const std::string& out) {
  std::map<std::string, std::vector<long long>> results;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string tag, name;
    if (!(words >> tag >> name) || tag != "RESULT") continue;
    long long v;
    while (words >> v) results[name].push_back(v);
  }
  return results;
}

std::string temp_path(const std::string& name) {
  const std::string dir = scratch_dir();
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

}  // namespace tessera::test
