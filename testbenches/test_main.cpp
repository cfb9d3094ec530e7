// Shared GoogleTest main: any SystemC warning or error reported while a test
// runs fails that test, so a model that reports a problem cannot pass. The
// process's scratch files (test_scratch.h) are removed when every test
// passed and kept for a look when one failed.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <systemc>

#include "test_scratch.h"

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
  const int status = RUN_ALL_TESTS();
  const std::string scratch = tessera::test::scratch_dir();
  std::error_code error;
  if (std::filesystem::exists(scratch, error)) {
    if (status == 0)
      std::filesystem::remove_all(scratch, error);
    else
      std::cerr << "test files kept in " << scratch << "\n";
  }
  return status;
}
