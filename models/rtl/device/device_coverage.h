// The cover points of an rtl_device (docs/rtl-devices.md, "Coverage"):
// - AXI points every device has, counted by the adapter at the block's
//   pins (register accesses and errors, bursts by length, narrow and
//   partially strobed beats, bursts in flight together, stalls, back
//   pressure, interrupts, busy without traffic);
// - the block's own SystemVerilog `cover property` statements, which
//   Verilator counts (--coverage-user) and writes as coverage.dat, parsed
//   here.
// Pure C++: no Verilator, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rtl/common/coverage.h"
#include "rtl/device/rtl_device_abi.h"

namespace tessera::rtl {

class DeviceAxiCoverage {
 public:
  enum Point : unsigned {
    kRegRead,
    kRegWrite,
    kRegError,
    kReadBurst1,
    kReadBurst2to4,
    kReadBurst5to16,
    kReadBurst17to256,
    kReadNarrow,
    kReadOverlap,
    kArStall,
    kRBackpressure,
    kWriteBurst1,
    kWriteBurst2to4,
    kWriteBurst5to16,
    kWriteBurst17to256,
    kWriteNarrow,
    kWritePartialStrobe,
    kWriteOverlap,
    kAwStall,
    kBBackpressure,
    kReadWriteTogether,
    kBusyAlone,
    kIrqRise,  // + line
  };
  static constexpr unsigned kFixedPoints = kIrqRise;

  // The points of a block of this shape, in declaration order: register
  // points with a register slave, burst points with a memory master, one
  // rise per interrupt line, busy with a busy output.
  static std::vector<std::string> point_names(const tessera_rtl_device_shape& shape);
  // The burst-length point of a burst of `beats` beats.
  static Point burst_point(bool write, unsigned beats);

  // Counts into `table`, whose first points are point_names(shape).
  DeviceAxiCoverage(std::shared_ptr<CoverTable> table, const tessera_rtl_device_shape& shape);
  void hit(Point p) {
    if (index_[p] >= 0) table_->hit(static_cast<size_t>(index_[p]));
  }
  void irq_rises(uint32_t lines);

 private:
  std::shared_ptr<CoverTable> table_;
  std::array<int, kFixedPoints> index_{};
  size_t irq_first_ = 0, irq_lines_ = 0;
};

// A `cover property` of the block as Verilator counts it.
struct VerilatorCoverPoint {
  std::string name;  // "cover.<hierarchy below the root>", "@<file>:<line>" added when unlabelled
  uint64_t count = 0;
};

// The user cover points of a Verilator coverage file (coverage.dat: lines
// "C '<key\2value\1...>' <count>"), in the file's order. `root` is the name
// the model was created with, the first component of every hierarchy; it
// is dropped, so that every instance of a block names its points alike.
// Points of other kinds (line, toggle) are skipped. Throws
// std::runtime_error naming the line when one is malformed.
std::vector<VerilatorCoverPoint> parse_verilator_coverage(const std::string& text, const std::string& root);

}  // namespace tessera::rtl
