// What the top level of `tessera` does with an exception no subsystem
// handled: a message on stderr (never stdout, where the guest's console
// goes) and an exit status of its own (docs/firmware-abi.md, "Exit status"):
// the host out of memory (kStatusHostMemory), or an internal error, a bug of
// the simulator, which says so (kStatusInternalError).
#pragma once

#include <cstdio>
#include <exception>

namespace tessera::sim {

// Reports `error` (the exception being handled) on `out`; returns the
// status. SystemC rethrows what a process threw as an sc_report naming it.
int report_unhandled_exception(std::exception_ptr error, std::FILE* out);

}  // namespace tessera::sim
