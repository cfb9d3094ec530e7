#include "platforms/run_summary.h"

#include <algorithm>
#include <utility>

namespace tessera::platform {

uint64_t RunSummary::get(const std::string& key) const {
  const auto it = counts_.find(key);
  return it == counts_.end() ? 0 : it->second;
}

double RunSummary::get_real(const std::string& key) const {
  const auto it = reals_.find(key);
  return it == reals_.end() ? 0.0 : it->second;
}

void RunSummary::line(int order, const std::string& id, Format format) {
  if (std::any_of(lines_.begin(), lines_.end(), [&](const Line& l) { return l.id == id; })) return;
  // Insert after every line of the same or a lower order: stable.
  const auto at =
      std::upper_bound(lines_.begin(), lines_.end(), order, [](int o, const Line& l) { return o < l.order; });
  lines_.insert(at, Line{order, id, std::move(format)});
}

std::string RunSummary::lines(int from, int to) const {
  std::string out;
  for (const Line& l : lines_)
    if (l.order >= from && l.order < to) out += l.format(*this);
  return out;
}

}  // namespace tessera::platform
