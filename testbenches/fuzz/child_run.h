// The harnesses that run a SystemC model (fuzz_sm, fuzz_netlist) run each
// input in a child process forked from the harness, since SystemC
// elaborates once per process. The child copies its edge counters (this
// binary's inline 8-bit counters, the ones libFuzzer reads) into shared
// memory before it exits and the harness copies them back, so libFuzzer sees
// the coverage of the child's run as that of the input. child_run.cpp also
// defines the sc_main libsystemc references and ASan's default options for
// these programs.
#pragma once

#include <functional>

namespace tessera::fuzz {

// Maps the shared block; call once, from LLVMFuzzerInitialize.
void init_child_runs();

// Runs body in a child process and waits for it. A finding (fail(), which
// aborts so that libFuzzer saves the input) when the child does not return
// from body normally: a signal, a sanitizer report, an uncaught exception,
// an exit of its own. `what` names the work in that message.
void run_in_child(const std::function<void()>& body, const char* what);

}  // namespace tessera::fuzz
