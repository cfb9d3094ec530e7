// C++ reference models of RTL devices, for lockstep (docs/rtl-devices.md,
// "Lockstep against a C++ reference"). A reference is transaction level:
// it sees the register accesses the block sees, in order, reads memory,
// and says what the block must do in consequence: the bytes it must write
// and the interrupts it must raise. Tessera then checks the block against
// it cycle by cycle: every byte the block writes (a W beat's strobed
// bytes) must be the reference's next byte for that address, every
// register read it answers must carry the reference's value (where the
// reference gives one), every interrupt it raises must be expected; the
// first difference stops the run in its cycle (exit status 8) with a
// report and the block's waveform. At the end of the run, writes and
// interrupts the reference made and the block did not are a difference.
//
// A plugin (platforms/plugin_api.h) registers references by name:
//     const tessera::rtl::DeviceReferenceRegistration kRef("dma_scale_sum", [](const auto& params) {
//       return std::make_unique<DmaScaleSum>(params);
//     });
// and an rtl_device instance names one with `reference: dma_scale_sum`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera::rtl {

// What a reference may do to the chip.
class DeviceReferenceHost {
 public:
  virtual ~DeviceReferenceHost() = default;
  // Reads global memory as it is now; false (nothing read) outside it.
  virtual bool read_memory(uint64_t addr, void* dst, size_t bytes) = 0;
  // The block must write these bytes at addr (each byte after the ones
  // expected earlier at the same address).
  virtual void expect_write(uint64_t addr, const void* data, size_t bytes) = 0;
  // The block must raise interrupt line `line` (a rising edge).
  virtual void expect_interrupt(unsigned line) = 0;
};

class DeviceReference {
 public:
  virtual ~DeviceReference() = default;
  virtual void write_register(uint32_t offset, uint32_t value, DeviceReferenceHost& host) = 0;
  // The value a read of `offset` must return, or nullopt for a value that
  // depends on timing (a busy bit) and is not compared.
  virtual std::optional<uint32_t> read_register(uint32_t offset, DeviceReferenceHost& host) = 0;
};

// The instance's `parameters:` (the same the block is verilated with).
using DeviceReferenceParameters = std::vector<std::pair<std::string, std::string>>;
using DeviceReferenceFactory = std::function<std::unique_ptr<DeviceReference>(const DeviceReferenceParameters&)>;

// At namespace scope in a plugin (or in Tessera): registers a reference.
class DeviceReferenceRegistration {
 public:
  DeviceReferenceRegistration(std::string name, DeviceReferenceFactory factory);
};

// nullptr when no reference of that name is registered.
const DeviceReferenceFactory* find_device_reference(const std::string& name);
std::vector<std::string> device_reference_names();

}  // namespace tessera::rtl
