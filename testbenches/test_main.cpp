// Shared GoogleTest main: any SystemC warning or error reported while a test
// runs fails that test, so a model that reports a problem cannot pass.
#include <gtest/gtest.h>
#include <systemc>

namespace {
void fail_on_report(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  if (report.get_severity() >= sc_core::SC_WARNING) {
    ADD_FAILURE() << "SystemC " << (report.get_severity() == sc_core::SC_WARNING ? "warning" : "error") << " ["
                  << report.get_msg_type() << "]: " << report.get_msg();
  }
  sc_core::sc_report_handler::default_handler(report, actions & ~sc_core::SC_STOP & ~sc_core::SC_ABORT);
}
}  // namespace

int sc_main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_handler(fail_on_report);
  return RUN_ALL_TESTS();
}
