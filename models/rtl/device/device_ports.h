// The pins of a user's RTL device, read from the class Verilator generates
// for its top module, checked against what Tessera binds (an AXI4-Lite
// register slave, an AXI4 memory master, interrupt lines and an optional
// busy output; docs/rtl-devices.md), and the C++ glue that copies them to
// and from the C interface of rtl_device_abi.h. Pure logic, no SystemC and
// no Verilator: tested directly.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::rtl {

struct DevicePort {
  std::string name;
  bool input = true;
  unsigned msb = 0, lsb = 0;
  unsigned width() const { return msb - lsb + 1; }
};

// The ports declared in a Verilated model's header (VL_IN8(&name,msb,lsb),
// VL_OUTW(&name,msb,lsb,words), ...), in declaration order.
std::vector<DevicePort> parse_verilated_ports(const std::string& header);

struct DeviceShape {
  unsigned s_addr_bits = 0;  // 0: no register slave
  unsigned m_data_bits = 0;  // 0: no memory master
  unsigned m_addr_bits = 0, m_id_bits = 0;
  unsigned irq_bits = 0;  // 0: no interrupt output
  bool has_busy = false;
};

// A block whose pins Tessera cannot bind: the message names the pin.
class DevicePortError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks `ports` of top module `top` against the AXI pin rules; throws
// DevicePortError naming the first pin that is missing, of the wrong
// width or direction, or an input Tessera does not drive.
DeviceShape check_device_ports(const std::vector<DevicePort>& ports, const std::string& top);

// The C++ source of the glue between class `prefix` (the Verilated model,
// header "<prefix>.h") and rtl_device_abi.h, for these ports.
std::string device_glue_source(const std::vector<DevicePort>& ports, const DeviceShape& shape,
                               const std::string& prefix, const std::string& top);

}  // namespace tessera::rtl
