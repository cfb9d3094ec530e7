// A built netlist instance: the models a component type's factory
// elaborated, their sockets by name, and what the platform asks of them for
// reports. Only platforms/components/ knows the concrete model classes
// behind it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "platforms/component_registry.h"
#include "platforms/netlist.h"
#include "platforms/run_summary.h"
#include "sm/kernel_launch.h"

namespace tessera::sim {
class BackingMemory;
class PortBinder;
class ClockDomain;
class Config;
class RunControl;
class StatGroup;
class Waveform;
class Timeline;
}  // namespace tessera::sim
namespace tessera::cpu {
class ControlCluster;
}
namespace tessera::isa {
struct ElfImage;
class DecodedProgram;
class InstTrace;
}  // namespace tessera::isa
namespace tessera::debug {
class Debugger;
}  // namespace tessera::debug

namespace tessera::gpu {
struct DeviceInfo;
}  // namespace tessera::gpu

namespace tessera::platform {

class SystemRegs;

using TargetSocket = tlm::tlm_base_target_socket_b<32, tlm::tlm_fw_transport_if<>, tlm::tlm_bw_transport_if<>>;

class Component {
 public:
  explicit Component(const NetlistInstance& instance) : instance_(instance) {}
  virtual ~Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  const std::string& name() const { return instance_.name; }
  const NetlistInstance& instance() const { return instance_; }

  // The TLM target socket `socket` (nullptr for a side-band connection).
  virtual TargetSocket* target_socket(const std::string& /*socket*/) { return nullptr; }
  // How many initiator ports bind to target socket `socket` per binding (the
  // network's `out` binds once per L2 slice).
  virtual unsigned target_ports(const std::string& /*socket*/) const { return 1; }
  // Binds TLM initiator socket `socket` of this component to `target`'s socket.
  virtual void bind(const std::string& socket, Component& target, const std::string& target_socket_name) = 0;
  // Side-band connections (sim/side_band_port.h): the port behind initiator
  // socket `socket` (nullptr for a TLM socket), and the interfaces a target
  // socket offers (a port bound to it binds to each: the SMs of a cluster).
  virtual sim::PortBinder* port(const std::string& /*socket*/) { return nullptr; }
  virtual std::vector<sc_core::sc_interface*> interfaces(const std::string& /*socket*/) { return {}; }
  // The models built, for the deadlock and watchdog reports.
  virtual std::vector<const sc_core::sc_object*> models() const { return {}; }
  // The state of a model that does not describe itself (sim::InFlightReporter).
  virtual std::string fallback_state(const sc_core::sc_object& /*model*/) const { return ""; }
  // Adds the instance's totals and summary lines (platforms/run_summary.h).
  virtual void summarize(RunSummary& /*summary*/) const {}
  // The device properties firmware reads (cudaGetDeviceProperties): each
  // component adds what it models; then every component is given the whole.
  // What the instance finds wrong once the simulation has ended (a lockstep
  // reference's writes its block never made): "" when nothing; else the run
  // ends as a lockstep mismatch with this report.
  virtual std::string check_at_end() { return ""; }
  virtual void describe_device(gpu::DeviceInfo& /*info*/) const {}
  virtual void set_device_info(const gpu::DeviceInfo& /*info*/) {}

 private:
  const NetlistInstance& instance_;
};

// Binds netlist binding `b` from instance `from` to `to`: a TLM initiator
// socket to the target's TLM socket (Component::bind), a side-band port to
// each interface the target offers. A target of the wrong kind is a
// sim::ConfigError naming the binding, its file:line and both instances.
void bind_instances(const NetlistBinding& b, Component& from, Component& to);
void bind_port(const NetlistBinding& b, const NetlistInstance& from, sim::PortBinder& port, Component& to);

// What the models of `components` (in that order) hold in flight, for the
// deadlock and watchdog reports: a model that implements
// sim::InFlightReporter describes itself, any other is described by its
// component's fallback_state().
std::string in_flight_report(const std::vector<const Component*>& components);

// What a factory builds with: the platform's shared objects and the already
// built instances (those earlier in build_order()). Every member is named
// and set by name (ctx.config = &cfg), so adding one shifts no other; the
// platform sets the required ones and check() names any it forgot.
struct BuildContext {
  // Required (check()).
  sim::Config* config = nullptr;
  const Netlist* netlist = nullptr;
  const ComponentRegistry* registry = nullptr;
  const sim::ClockDomain* sm_clock = nullptr;
  const sim::ClockDomain* cpu_clock = nullptr;
  sim::BackingMemory* global = nullptr;
  const isa::ElfImage* image = nullptr;
  const isa::DecodedProgram* program = nullptr;
  sim::RunControl* run = nullptr;
  sim::StatGroup* stats = nullptr;
  // Objects several instances share (the global atomic unit), by key; they
  // outlive every component.
  std::map<std::string, std::shared_ptr<void>>* shared = nullptr;

  // Optional.
  sim::Waveform* wave = nullptr;  // null when nothing is traced
  bool echo_console = true;
  std::function<void(bool begin)> on_roi;
  // The dispatcher's kernels, as they start and end (per-kernel statistics).
  std::function<void(bool begin, const std::string& name, const sm::KernelLaunch& k)> on_kernel;
  sim::Timeline* timeline = nullptr;            // --timeline; null when off
  isa::InstTrace* inst_trace = nullptr;         // --trace-insts; null when off
  debug::Debugger* debugger = nullptr;          // --gdb; null when off
  uint32_t program_argc = 0, program_argv = 0;  // main's arguments (Platform::write_program_arguments)

  // Filled in while the instances are built.
  std::map<std::string, Component*> built;   // by instance name
  SystemRegs* regs = nullptr;                // set by the MMIO component: the console
  std::map<std::string, unsigned> counters;  // next index of a numbered model ("sm")
  cpu::ControlCluster* cluster = nullptr;    // set by the control cluster: fast-forward, checkpoints

  Component* find(const std::string& instance) const {
    const auto it = built.find(instance);
    return it == built.end() ? nullptr : it->second;
  }
  // Throws std::logic_error naming the first required member left unset.
  void check() const;
};

// Binds `port`, side-band socket `socket` of instance `inst` (whose type
// marks it bound_while_built), to every instance the netlist binds it to:
// they are built before `inst` (build_order), which needs them while it
// is built.
void bind_while_built(const BuildContext& ctx, const NetlistInstance& inst, const std::string& socket,
                      sim::PortBinder& port);

}  // namespace tessera::platform
