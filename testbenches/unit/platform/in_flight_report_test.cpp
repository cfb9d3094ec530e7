// The deadlock/watchdog report walks every built model: one implementing
// sim::InFlightReporter speaks for itself, any other is described by its
// component's fallback, in the order of the components given. No
// simulation runs; the models are bare sc_objects.
#include <gtest/gtest.h>

#include <string>
#include <systemc>
#include <vector>

#include "platforms/component.h"
#include "sim/in_flight.h"

namespace {

using namespace tessera::platform;

class Reporting : public sc_core::sc_object, public tessera::sim::InFlightReporter {
 public:
  Reporting(const char* name, std::string text) : sc_object(name), text_(std::move(text)) {}
  std::string describe_in_flight() const override { return text_; }

 private:
  std::string text_;
};

class Silent : public sc_core::sc_object {
 public:
  explicit Silent(const char* name) : sc_object(name) {}
};

class Fake : public Component {
 public:
  Fake(const NetlistInstance& inst, std::vector<const sc_core::sc_object*> models, std::string fallback)
      : Component(inst), models_(std::move(models)), fallback_(std::move(fallback)) {}
  void bind(const std::string&, Component&, const std::string&) override {}
  std::vector<const sc_core::sc_object*> models() const override { return models_; }
  std::string fallback_state(const sc_core::sc_object& m) const override { return fallback_ + m.basename() + "\n"; }

 private:
  std::vector<const sc_core::sc_object*> models_;
  std::string fallback_;
};

TEST(InFlightReport, ReportersSpeakForThemselvesOthersThroughTheirComponentInComponentOrder) {
  const NetlistInstance a{"a", "t", "x.yaml:1", {}, {}, {}, {}, {}}, b{"b", "t", "x.yaml:2", {}, {}, {}, {}, {}};
  const Reporting l2("report_l2", "l2.slice2: read 0x80001200 waiting for memory since cycle 1234\n");
  const Silent sm0("report_sm0"), sm1("report_sm1");
  const Reporting idle("report_idle", "");  // idle: says nothing
  const Fake memory_side(a, {&l2, &idle}, "unused: ");
  const Fake sms(b, {&sm0, &sm1}, "dump of ");
  EXPECT_EQ(in_flight_report({&sms, &memory_side}),
            "dump of report_sm0\ndump of report_sm1\n"
            "l2.slice2: read 0x80001200 waiting for memory since cycle 1234\n");
  EXPECT_EQ(in_flight_report({}), "");
}

}  // namespace
