// Side-band bindings (sim::Port, platform::bind_instances): a port binds to
// every interface of its kind that the target offers, in order; a target
// offering none, or one of another kind, is a configuration error naming the
// binding, its file:line and both instances. No simulation runs.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "platforms/component.h"
#include "sim/config.h"
#include "sim/side_band_port.h"

namespace side_band_binding_test {

using namespace tessera;
using platform::Component;
using platform::NetlistBinding;
using platform::NetlistInstance;

class Line : public sim::InterruptIf {
 public:
  void raise() override { ++raised; }
  void sleep_while(std::function<bool()> busy) override { this->busy = std::move(busy); }
  int raised = 0;
  std::function<bool()> busy;
};

// Another kind of side-band interface.
class Other : public virtual sc_core::sc_interface {};
class OtherImpl : public Other {};

struct Holder : sc_core::sc_module {
  explicit Holder(const sc_core::sc_module_name& name) : sc_module(name) {}
  sim::Port<sim::InterruptIf, 0> irq{"irq", "sim::InterruptIf (an interrupt line)"};
};

class Source : public Component {
 public:
  Source(const NetlistInstance& inst, Holder& holder) : Component(inst), holder_(holder) {}
  sim::PortBinder* port(const std::string& socket) override { return socket == "irq" ? &holder_.irq : nullptr; }
  void bind(const std::string&, Component&, const std::string&) override { ADD_FAILURE() << "not a TLM socket"; }

 private:
  Holder& holder_;
};

class Target : public Component {
 public:
  Target(const NetlistInstance& inst, std::vector<sc_core::sc_interface*> offered)
      : Component(inst), offered_(std::move(offered)) {}
  std::vector<sc_core::sc_interface*> interfaces(const std::string& socket) override {
    return socket == "in" ? offered_ : std::vector<sc_core::sc_interface*>{};
  }
  void bind(const std::string&, Component&, const std::string&) override {}

 private:
  std::vector<sc_core::sc_interface*> offered_;
};

NetlistInstance instance(const std::string& name, const std::string& type) {
  NetlistInstance inst;
  inst.name = name;
  inst.type = type;
  return inst;
}

NetlistBinding binding(const std::string& from, const std::string& to) {
  NetlistBinding b;
  b.from = {from.substr(0, from.find('.')), from.substr(from.find('.') + 1)};
  b.to = {to.substr(0, to.find('.')), to.substr(to.find('.') + 1)};
  b.where = "net.yaml:7";
  return b;
}

std::string bind_error(const NetlistBinding& b, Component& from, Component& to) {
  try {
    platform::bind_instances(b, from, to);
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(SideBandBinding, BindsEveryOfferedInterfaceInOrder) {
  Holder holder("bind_in_order");
  const NetlistInstance src = instance("dispatcher", "dispatcher"), dst = instance("cores", "control_cluster");
  Line a, b;
  Source from(src, holder);
  Target to(dst, {&a, &b});
  std::vector<sim::InterruptIf*> seen;
  holder.irq.on_bind([&](sim::InterruptIf& i) { seen.push_back(&i); });
  EXPECT_EQ(bind_error(binding("dispatcher.irq", "cores.in"), from, to), "");
  ASSERT_EQ(holder.irq.bound().size(), 2u);
  EXPECT_EQ(holder.irq.bound()[0], &a);
  EXPECT_EQ(holder.irq.bound()[1], &b);
  EXPECT_EQ(seen, holder.irq.bound());
  holder.irq.bound()[1]->raise();
  EXPECT_EQ(a.raised, 0);
  EXPECT_EQ(b.raised, 1);
}

TEST(SideBandBinding, ATargetOfferingAnotherKindNamesTheBindingAndBothInstances) {
  Holder holder("wrong_kind");
  const NetlistInstance src = instance("dispatcher", "dispatcher"), dst = instance("sms", "sm_cluster");
  OtherImpl other;
  Source from(src, holder);
  Target to(dst, {&other});
  EXPECT_EQ(bind_error(binding("dispatcher.irq", "sms.in"), from, to),
            "net.yaml:7: binding 'dispatcher.irq -> sms.in': socket 'irq' of instance 'dispatcher' (dispatcher) takes "
            "sim::InterruptIf (an interrupt line); instance 'sms' (sm_cluster) offers none at 'in'");
  EXPECT_TRUE(holder.irq.bound().empty());
}

TEST(SideBandBinding, ATargetOfferingNothingIsRefused) {
  Holder holder("offers_nothing");
  const NetlistInstance src = instance("dispatcher", "dispatcher"), dst = instance("memory", "fixed_memory");
  Source from(src, holder);
  Target to(dst, {});
  EXPECT_EQ(bind_error(binding("dispatcher.irq", "memory.port"), from, to),
            "net.yaml:7: binding 'dispatcher.irq -> memory.port': socket 'irq' of instance 'dispatcher' (dispatcher) "
            "takes sim::InterruptIf (an interrupt line); instance 'memory' (fixed_memory) offers none at 'port'");
}

TEST(SideBandBinding, ATlmSocketBoundToWhatHasNoTlmTargetIsRefused) {
  Holder holder("tlm_to_side_band");
  const NetlistInstance src = instance("sms", "sm_cluster"), dst = instance("cores", "control_cluster");
  Source from(src, holder);  // its `mem` is no port: a TLM socket
  Line line;
  Target to(dst, {&line});
  EXPECT_EQ(bind_error(binding("sms.mem", "cores.in"), from, to),
            "net.yaml:7: binding 'sms.mem -> cores.in': socket 'mem' of instance 'sms' (sm_cluster) sends TLM "
            "transactions; instance 'cores' (control_cluster) has no TLM target socket 'in'");
}

}  // namespace side_band_binding_test
