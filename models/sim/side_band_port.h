// Side-band connections between models that are not memory transactions
// (kernel launch, interrupts): an sc_port of an interface, bound by the
// platform's netlist like a TLM socket, to the interfaces a component
// offers at a target socket.
//
// SystemC resolves a port's interfaces only when elaboration ends; the
// models here need theirs while elaborating (the dispatcher names its
// waveform signals after its SMs), so sim::Port also keeps what it was bound
// to, in binding order, as it is bound.
#pragma once

#include <functional>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

namespace tessera::sim {

// What the platform binds without knowing the port's interface type.
class PortBinder {
 public:
  virtual ~PortBinder() = default;
  // Binds the port to `target` when it implements the port's interface;
  // false (and nothing bound) when it does not.
  virtual bool bind_interface(sc_core::sc_interface& target) = 0;
  // The interface the port takes, for error messages.
  virtual std::string interface_name() const = 0;
};

// N: the most interfaces it may be bound to (0: any number).
template <class IF, int N = 1>
class Port : public sc_core::sc_port<IF, N, sc_core::SC_ZERO_OR_MORE_BOUND>, public PortBinder {
 public:
  Port(const char* name, std::string interface_name)
      : sc_core::sc_port<IF, N, sc_core::SC_ZERO_OR_MORE_BOUND>(name), interface_name_(std::move(interface_name)) {}

  bool bind_interface(sc_core::sc_interface& target) override {
    // The same check SystemC makes when a port is bound to a plain sc_interface.
    IF* typed = dynamic_cast<IF*>(&target);
    if (!typed) return false;
    this->bind(*typed);
    bound_.push_back(typed);
    if (on_bind_) on_bind_(*typed);
    return true;
  }
  std::string interface_name() const override { return interface_name_; }
  // Called for each interface as it is bound (during elaboration).
  void on_bind(std::function<void(IF&)> fn) { on_bind_ = std::move(fn); }
  // What the port is bound to, in binding order; valid during elaboration.
  const std::vector<IF*>& bound() const { return bound_; }

 private:
  std::string interface_name_;
  std::vector<IF*> bound_;
  std::function<void(IF&)> on_bind_;
};

// An interrupt line into a sleeping core: raise() wakes it; a core in WFI
// sleeps on while the source's `busy` says there is work the interrupt will
// end (a kernel running).
class InterruptIf : public virtual sc_core::sc_interface {
 public:
  virtual void raise() = 0;
  virtual void sleep_while(std::function<bool()> busy) = 0;
};

}  // namespace tessera::sim
