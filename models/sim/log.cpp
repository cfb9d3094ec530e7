#include "sim/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <systemc>

#include "sim/config.h"

namespace tessera::sim {

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> instance = [] {
    auto l = spdlog::stderr_color_st("tessera");
    l->set_pattern("[%^%l%$ %v");  // "[warning 1.2 us] chip.sm0: ..."
    l->set_level(spdlog::level::warn);
    return l;
  }();
  return *instance;
}

void set_log_level(const std::string& level) {
  const auto parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off")
    throw ConfigError("--log-level '" + level + "' is not one of trace|debug|info|warning|error|off");
  logger().set_level(parsed);
}

std::string sim_time_text() {
  const double ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
  if (ns < 1000.0) return fmt::format("{:.3f} ns]", ns);
  if (ns < 1e6) return fmt::format("{:.3f} us]", ns / 1e3);
  return fmt::format("{:.3f} ms]", ns / 1e6);
}

}  // namespace tessera::sim
