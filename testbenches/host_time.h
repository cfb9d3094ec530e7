// The statistics of a run without the host's own timing (summary keys
// host_* and *_per_host_second): what must be identical between runs that
// simulate the same thing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tessera::test {

inline nlohmann::json without_host_time(nlohmann::json j) {
  std::vector<std::string> host;
  for (const auto& [key, value] : j["summary"].items()) {
    const std::string suffix = "per_host_second";
    if (key.rfind("host_", 0) == 0 ||
        (key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0))
      host.push_back(key);
  }
  for (const auto& key : host) j["summary"].erase(key);
  return j;
}

}  // namespace tessera::test
