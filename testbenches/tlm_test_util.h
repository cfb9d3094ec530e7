// Small helpers for tests that drive TLM-2.0 sockets by hand.
#pragma once

#include <systemc>
#include <tlm>

namespace tessera::test {

inline sc_core::sc_time ns(double v) { return sc_core::sc_time(v, sc_core::SC_NS); }

// The shared AT ports hold a reference to each payload (acquire/release): a
// test's own payloads need a memory manager, which here frees nothing.
struct KeepAll : tlm::tlm_mm_interface {
  void free(tlm::tlm_generic_payload*) override {}
};
inline KeepAll keep_all;

}  // namespace tessera::test
