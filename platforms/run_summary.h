// The end-of-run summary that `tessera run` prints. Each component adds its
// totals by name (summed over every instance that adds the same name) and
// the lines that show them; the platform adds its own (cycles, host time).
// A line is formatted when the summary is printed, from all the totals, so
// one line shows the sum over instances (every SM cluster's warp
// instructions) or uses another component's total (IPC: the dispatcher's
// kernel cycles and the SMs' warp instructions). Plain C++.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessera::platform {

// Where each line goes, top to bottom.
namespace summary_order {
inline constexpr int kCycles = 10;        // the platform: simulated cycles
inline constexpr int kInstructions = 20;  // SMs: warp and thread instructions
inline constexpr int kKernels = 30;       // the dispatcher: kernel cycles and IPC
inline constexpr int kL1 = 40;            // SMs
inline constexpr int kL2 = 50;            // L2
inline constexpr int kMemory = 60;        // memories, one line each
inline constexpr int kControl = 70;       // control cores
inline constexpr int kPlatform = 80;      // the platform: region of interest, fast-forward, host time, speed
}  // namespace summary_order

class RunSummary {
 public:
  using Format = std::function<std::string(const RunSummary&)>;

  void add(const std::string& key, uint64_t value) { counts_[key] += value; }
  void add_real(const std::string& key, double value) { reals_[key] += value; }
  // The sum of what was added under `key`; 0 when nothing was.
  uint64_t get(const std::string& key) const;
  double get_real(const std::string& key) const;

  // A line (ending in a newline) at `order`; lines of one order keep the
  // order they were first added in. A line whose id was added before is
  // not added again: each instance of a type may add it, it shows once.
  void line(int order, const std::string& id, Format format);
  // The lines whose order is in [from, to), formatted now.
  std::string lines(int from, int to) const;

 private:
  struct Line {
    int order;
    std::string id;
    Format format;
  };
  std::map<std::string, uint64_t> counts_;
  std::map<std::string, double> reals_;
  std::vector<Line> lines_;
};

}  // namespace tessera::platform
