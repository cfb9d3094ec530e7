#include "sim/unhandled_error.h"

#include <fmt/format.h>

#include <new>
#include <string>
#include <systemc>

#include "sim/run_control.h"

namespace tessera::sim {

namespace {

int out_of_memory(std::FILE* out) {
  fmt::print(out,
             "tessera: error: the host ran out of memory building or running the model (a configuration too large "
             "for this machine: fewer SMs, cores or instances, or smaller memories)\n");
  return kStatusHostMemory;
}

int internal_error(std::FILE* out, const std::string& what) {
  fmt::print(out,
             "tessera: internal error: {}\n"
             "tessera: this is a bug in Tessera, not in the program or the configuration; please report it with "
             "the command line and the files it names\n",
             what);
  return kStatusInternalError;
}

}  // namespace

int report_unhandled_exception(std::exception_ptr error, std::FILE* out) {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return out_of_memory(out);
  } catch (const sc_core::sc_report& report) {
    // A process's exception, which SystemC turned into a report whose
    // message is the exception's what().
    const std::string message = report.get_msg() ? report.get_msg() : "";
    if (message == "std::bad_alloc") return out_of_memory(out);
    return internal_error(out, message.empty() ? std::string(report.what()) : message);
  } catch (const std::exception& e) {
    return internal_error(out, e.what());
  } catch (...) {
    return internal_error(out, "an exception of unknown type");
  }
}

}  // namespace tessera::sim
