// gpu::FixedLatencyMemory through its AT target port: admission order,
// back-pressure and the in-flight report, with times derived by hand from the
// rules in gpu/fixed_latency_memory.h. One elaboration per test (CTest runs
// each test in its own process).
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>

#include "gpu/fixed_latency_memory.h"
#include "sim/backing_memory.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "tlm_test_util.h"

namespace tessera::gpu {
namespace {

using test::keep_all;
using test::ns;

// Sends one 32-byte read at 0 ns; records END_REQ and BEGIN_RESP times.
class Reader : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Reader> socket;
  sc_core::sc_time end_req = sc_core::sc_max_time(), begin_resp = sc_core::sc_max_time();

  Reader(const sc_core::sc_module_name& name, uint64_t addr) : sc_module(name), socket("socket") {
    gp_.set_mm(&keep_all);
    gp_.set_command(tlm::TLM_READ_COMMAND);
    gp_.set_address(addr);
    gp_.set_data_ptr(data_);
    gp_.set_data_length(32);
    gp_.set_streaming_width(32);
    socket.register_nb_transport_bw(this, &Reader::bw);
    SC_HAS_PROCESS(Reader);
    SC_THREAD(run);
  }

 private:
  void run() {
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(socket->nb_transport_fw(gp_, phase, delay), tlm::TLM_ACCEPTED);
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_core::sc_time&) {
    if (phase == tlm::END_REQ) {
      end_req = sc_core::sc_time_stamp();
      return tlm::TLM_ACCEPTED;
    }
    begin_resp = sc_core::sc_time_stamp();
    phase = tlm::END_RESP;
    return tlm::TLM_COMPLETED;
  }
  tlm::tlm_generic_payload gp_;
  unsigned char data_[32] = {};
};

TEST(FixedLatencyMemory, SecondRequestWaitsForEndReqAndTheReportShowsBoth) {
  // 1 GHz, latency 10, 64 bytes/cycle, one request in service. Both reads
  // arrive at 0 ns; the arbiter runs at 1 ps and admits socket 0 (same
  // instant: lower socket first): transfer ceil(32/64) = 1 cycle from the
  // 0 ns edge, answer at 1 + 10 = 11 ns. Socket 1's END_REQ is withheld until
  // that response ends (re-arbitration at 11 ns + 1 ps); it starts on the
  // next edge, 12 ns, and is answered at 12 + 1 + 10 = 23 ns.
  sim::Config cfg;
  cfg.set("memory.latency", "10", "test");
  cfg.set("memory.bytes_per_cycle", "64", "test");
  cfg.set("memory.queue_depth", "1", "test");
  sim::StatGroup root("chip");
  sim::BackingMemory backing(0x80000000u, 1u << 20);
  FixedLatencyMemory memory("memory", cfg, backing, root);
  Reader r0("r0", 0x80000040), r1("r1", 0x80000080);
  r0.socket.bind(memory.socket);
  r1.socket.bind(memory.socket);
  std::string at5, at15, at30;
  sc_core::sc_spawn([&] {
    sc_core::wait(ns(5));
    at5 = memory.describe_in_flight();
    sc_core::wait(ns(10));
    at15 = memory.describe_in_flight();
    sc_core::wait(ns(15));
    at30 = memory.describe_in_flight();
  });
  sc_core::sc_start(ns(100));
  EXPECT_EQ(r0.end_req, sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(r0.begin_resp, ns(11));
  EXPECT_EQ(r1.end_req, ns(11) + sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(r1.begin_resp, ns(23));
  EXPECT_EQ(at5,
            "memory: read 0x80000040 in service since cycle 0\n"
            "memory: read 0x80000080 waiting for END_REQ since cycle 0\n");
  EXPECT_EQ(at15, "memory: read 0x80000080 in service since cycle 0\n");
  EXPECT_EQ(at30, "");
}

}  // namespace
}  // namespace tessera::gpu
