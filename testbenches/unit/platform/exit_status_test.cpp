// The exit status of a program's EXIT value, and of what the top level of
// `tessera` catches (docs/firmware-abi.md, "Exit status of tessera run").
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <systemc>

#include "platforms/system_regs.h"
#include "sim/run_control.h"
#include "sim/unhandled_error.h"

namespace {

using tessera::platform::program_exit_status;

TEST(ProgramExitStatus, IsTheLowEightBitsUnlessAFailureWouldReadAsSuccess) {
  EXPECT_EQ(program_exit_status(0), 0);
  EXPECT_EQ(program_exit_status(1), 1);
  EXPECT_EQ(program_exit_status(255), 255);
  EXPECT_EQ(program_exit_status(257), 1);
  EXPECT_EQ(program_exit_status(0xFFFFFFFFu), 255);  // main returned -1
  EXPECT_EQ(program_exit_status(256), 1);
  EXPECT_EQ(program_exit_status(0x80000000u), 1);
}

// What report_unhandled_exception printed, and its status.
std::pair<int, std::string> report(std::exception_ptr e) {
  std::FILE* out = std::tmpfile();
  const int status = tessera::sim::report_unhandled_exception(e, out);
  std::rewind(out);
  std::string text;
  for (int c; (c = std::fgetc(out)) != EOF;) text.push_back(static_cast<char>(c));
  std::fclose(out);
  return {status, text};
}

TEST(UnhandledException, AnyOtherExceptionIsAnInternalErrorThatSaysSo) {
  const auto [status, text] = report(std::make_exception_ptr(std::out_of_range("cluster line read at 0x0")));
  EXPECT_EQ(status, tessera::sim::kStatusInternalError);
  EXPECT_EQ(status, 70);
  EXPECT_NE(text.find("tessera: internal error: cluster line read at 0x0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("this is a bug in Tessera"), std::string::npos) << text;
  EXPECT_EQ(report(std::make_exception_ptr(42)).first, 70);
}

TEST(UnhandledException, HostOutOfMemoryHasItsOwnStatus) {
  const auto [status, text] = report(std::make_exception_ptr(std::bad_alloc()));
  EXPECT_EQ(status, tessera::sim::kStatusHostMemory);
  EXPECT_EQ(status, 9);
  EXPECT_NE(text.find("tessera: error: the host ran out of memory"), std::string::npos) << text;
}

// SystemC hands what a process threw to sc_start's caller as an sc_report
// made by sc_handle_exception, whose message is the exception's what().
// (The report passes through SystemC's own handler here: the test main's
// would count it as a failure.)
std::exception_ptr as_systemc_reports_it(std::exception_ptr thrown) {
  const auto test_handler = sc_core::sc_report_handler::set_handler(sc_core::sc_report_handler::default_handler);
  std::unique_ptr<sc_core::sc_report> report;
  try {
    std::rethrow_exception(thrown);
  } catch (...) {
    report.reset(sc_core::sc_handle_exception());
  }
  sc_core::sc_report_handler::set_handler(test_handler);
  return std::make_exception_ptr(*report);
}

TEST(UnhandledException, AProcessExceptionReportedBySystemCIsClassifiedByItsMessage) {
  EXPECT_EQ(report(as_systemc_reports_it(std::make_exception_ptr(std::bad_alloc()))).first, 9);
  const auto [status, text] =
      report(as_systemc_reports_it(std::make_exception_ptr(std::logic_error("core 1: data port is busy"))));
  EXPECT_EQ(status, 70);
  EXPECT_NE(text.find("tessera: internal error: core 1: data port is busy\n"), std::string::npos) << text;
}

}  // namespace
