// The statistics of a run without the host's own timing (keys host_* and
// *_per_host_second of summary and roi): what must be identical between
// runs that simulate the same thing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tessera::test {

inline nlohmann::json without_host_time(nlohmann::json j) {
  for (const char* node : {"summary", "roi"}) {
    if (!j.contains(node)) continue;
    std::vector<std::string> host;
    for (const auto& [key, value] : j[node].items()) {
      const std::string suffix = "per_host_second";
      if (key.rfind("host_", 0) == 0 ||
          (key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0))
        host.push_back(key);
    }
    for (const auto& key : host) j[node].erase(key);
  }
  return j;
}

}  // namespace tessera::test
