// The C++ reference of examples/rtl/dma_scale_sum/dma_scale_sum.sv, for
// lockstep (`reference: dma_scale_sum` on its rtl_device instance): what
// the block must write and raise, derived from its register interface, not
// from its pipeline.
#include <cstdint>
#include <optional>
#include <vector>

#include "rtl/device/device_reference.h"

namespace {

using tessera::rtl::DeviceReference;
using tessera::rtl::DeviceReferenceHost;

class DmaScaleSum : public DeviceReference {
 public:
  void write_register(uint32_t offset, uint32_t value, DeviceReferenceHost& host) override {
    switch (offset) {
      case 0x00:  // CTRL
        irq_enable_ = (value >> 1) & 1;
        if (value & 1) start(host);
        break;
      case 0x08:
        src_ = value;
        break;
      case 0x0C:
        dst_ = value;
        break;
      case 0x10:
        count_ = value;
        break;
      case 0x14:
        scale_ = value;
        break;
      default:
        break;  // STATUS (clear done) and offsets the block answers SLVERR
    }
  }

  std::optional<uint32_t> read_register(uint32_t offset, DeviceReferenceHost&) override {
    switch (offset) {
      case 0x00:
        return irq_enable_ << 1;
      case 0x08:
        return src_;
      case 0x0C:
        return dst_;
      case 0x10:
        return count_;
      case 0x14:
        return scale_;
      case 0x18:
        return sum_;  // read once done: the sum of every word
      case 0x1C:
        return 0x0D5A0001u;
      default:
        return std::nullopt;  // STATUS: busy and done depend on timing
    }
  }

 private:
  void start(DeviceReferenceHost& host) {
    sum_ = 0;
    if ((src_ & 7) || (dst_ & 7)) {  // STATUS.error, nothing moved; done
      if (irq_enable_) host.expect_interrupt(0);
      return;
    }
    std::vector<uint32_t> x(count_);
    if (count_ && !host.read_memory(src_, x.data(), x.size() * 4)) return;  // the block faults the run
    for (uint32_t i = 0; i < count_; ++i) {
      sum_ += x[i];
      const uint32_t y = x[i] * scale_;
      host.expect_write(dst_ + 4 * i, &y, 4);
    }
    if (irq_enable_) host.expect_interrupt(0);
  }

  uint32_t src_ = 0, dst_ = 0, count_ = 0, scale_ = 0, sum_ = 0, irq_enable_ = 0;
};

const tessera::rtl::DeviceReferenceRegistration kReference("dma_scale_sum", [](const auto&) {
  return std::make_unique<DmaScaleSum>();
});

}  // namespace
