// Leveled logging with the module's hierarchical name and the simulation
// time: "[warning 1.234 us] chip.sm3: 8-way bank conflict at pc 0x80000124".
// Built on spdlog; nothing is formatted unless the level is enabled.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace tessera::sim {

// Global logger setup: level from "trace|debug|info|warning|error|off".
void set_log_level(const std::string& level);
spdlog::logger& logger();
std::string sim_time_text();  // the current SystemC time, or "-" before elaboration

class Log {
 public:
  explicit Log(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  template <typename... Args>
  void debug(fmt::format_string<Args...> f, Args&&... args) const {
    write(spdlog::level::debug, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void info(fmt::format_string<Args...> f, Args&&... args) const {
    write(spdlog::level::info, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void warn(fmt::format_string<Args...> f, Args&&... args) const {
    write(spdlog::level::warn, f, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void error(fmt::format_string<Args...> f, Args&&... args) const {
    write(spdlog::level::err, f, std::forward<Args>(args)...);
  }

 private:
  template <typename... Args>
  void write(spdlog::level::level_enum level, fmt::format_string<Args...> f, Args&&... args) const {
    spdlog::logger& l = logger();
    if (!l.should_log(level)) return;
    l.log(level, "{} {}: {}", sim_time_text(), name_, fmt::format(f, std::forward<Args>(args)...));
  }
  std::string name_;
};

}  // namespace tessera::sim
