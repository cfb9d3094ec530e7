#include "sim/host_timeout.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "sim/run_control.h"

namespace tessera::sim {
namespace {

// Written by the handler with write(2) and _exit(2), the only calls a signal
// handler may make here; prepared before the timer is armed.
char g_message[256];
size_t g_message_len = 0;

void on_alarm(int) {
  ssize_t ignored = ::write(STDERR_FILENO, g_message, g_message_len);
  (void)ignored;
  ::_exit(kStatusHostTimeout);
}

}  // namespace

std::string host_timeout_message(double seconds) {
  return fmt::format(
      "tessera: error: the run reached its host time limit of {:g} s (--host-timeout) and was "
      "stopped; no statistics were written\n",
      seconds);
}

void arm_host_timeout(double seconds) {
  if (!(seconds > 0) || seconds > 31.0 * 24 * 3600) throw std::runtime_error("--host-timeout: out of range");
  const std::string text = host_timeout_message(seconds);
  g_message_len = std::min(text.size(), sizeof g_message);
  std::memcpy(g_message, text.data(), g_message_len);
  struct sigaction sa {};
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGALRM, &sa, nullptr) != 0)
    throw std::runtime_error(fmt::format("--host-timeout: sigaction: {}", std::strerror(errno)));
  itimerval timer{};
  const double whole = std::floor(seconds);
  timer.it_value.tv_sec = static_cast<time_t>(whole);
  timer.it_value.tv_usec = static_cast<suseconds_t>((seconds - whole) * 1e6);
  if (timer.it_value.tv_sec == 0 && timer.it_value.tv_usec == 0) timer.it_value.tv_usec = 1;
  if (setitimer(ITIMER_REAL, &timer, nullptr) != 0)
    throw std::runtime_error(fmt::format("--host-timeout: setitimer: {}", std::strerror(errno)));
}

}  // namespace tessera::sim
