// gpu::CrossbarInterconnect between a raw SM-side initiator and a raw
// slice-side target, times derived by hand from gpu/crossbar.h and the cycle
// rules in gpu/crossbar_interconnect.h (1 GHz: cycle n starts at n ns;
// xbar defaults: 32 bytes/cycle, latency 48). One elaboration per test.
#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <systemc>
#include <tlm>

#include "gpu/crossbar_interconnect.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "tlm_test_util.h"

namespace tessera::gpu {
namespace {

using test::keep_all;
using test::ns;

// One slice that has room from cycle 5 on, takes requests at once and
// answers each at 60 ns.
class Slice : public sc_core::sc_module, public CrossbarTargets {
 public:
  tlm_utils::simple_target_socket<Slice> socket;
  sc_core::sc_time begin_req = sc_core::sc_max_time(), delay = sc_core::sc_max_time();

  Slice(const sc_core::sc_module_name& name, const sim::ClockDomain& clock)
      : sc_module(name), socket("socket"), clock_(clock) {
    socket.register_nb_transport_fw(this, &Slice::fw);
  }
  unsigned targets() const override { return 1; }
  const sim::ClockDomain& targets_clock() const override { return clock_; }
  unsigned target_of(uint64_t) const override { return 0; }
  bool has_room(unsigned, uint64_t cycle) const override { return cycle >= 5; }

 private:
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& d) {
    if (phase != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    begin_req = sc_core::sc_time_stamp();
    delay = d;
    sc_core::sc_spawn([this, &gp] {
      sc_core::wait(ns(60) - sc_core::sc_time_stamp());
      tlm::tlm_phase p = tlm::BEGIN_RESP;
      sc_core::sc_time z = sc_core::SC_ZERO_TIME;
      EXPECT_EQ(socket->nb_transport_bw(gp, p, z), tlm::TLM_COMPLETED);
    });
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }

  const sim::ClockDomain& clock_;
};

TEST(CrossbarInterconnect, ReadCrossesWhenTheSliceHasRoomAndItsAnswerComesBack) {
  // BEGIN_REQ at 0 ns -> admitted in cycle 1 (END_REQ at 1 ns). The slice has
  // no room in cycles 1-4, so the request crosses in cycle 5: 8 header bytes
  // take ceil(8/32) = 1 cycle, + 48 -> it reaches the slice in cycle 54
  // (annotated delay 49 ns). The slice answers in cycle 60; the answer enters
  // the crossbar as of cycle 60: 8 + 128 bytes take ceil(136/32) = 5 cycles,
  // + 48 -> BEGIN_RESP to the SM in cycle 113.
  sim::Config cfg;
  sim::StatGroup root("chip");
  sim::ClockDomain clock("l2", 1000.0);
  Slice slice("slice", clock);
  CrossbarInterconnect xbar("xbar", cfg, clock, 1, 1, slice, root);
  xbar.initiator_socket.bind(slice.socket);
  struct Sm : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Sm> socket{"socket"};
    sc_core::sc_time end_req = sc_core::sc_max_time(), begin_resp = sc_core::sc_max_time();
    tlm::tlm_generic_payload gp;
    unsigned char data[128] = {};
    explicit Sm(const sc_core::sc_module_name& n) : sc_module(n) {
      gp.set_mm(&keep_all);
      gp.set_command(tlm::TLM_READ_COMMAND);
      gp.set_address(0x80000000);
      gp.set_data_ptr(data);
      gp.set_data_length(128);
      gp.set_streaming_width(128);
      socket.register_nb_transport_bw(this, &Sm::bw);
      sc_core::sc_spawn([this] {
        tlm::tlm_phase p = tlm::BEGIN_REQ;
        sc_core::sc_time z = sc_core::SC_ZERO_TIME;
        EXPECT_EQ(socket->nb_transport_fw(gp, p, z), tlm::TLM_ACCEPTED);
      });
    }
    tlm::tlm_sync_enum bw(tlm::tlm_generic_payload&, tlm::tlm_phase& p, sc_core::sc_time&) {
      if (p == tlm::END_REQ) {
        end_req = sc_core::sc_time_stamp();
        return tlm::TLM_ACCEPTED;
      }
      begin_resp = sc_core::sc_time_stamp();
      p = tlm::END_RESP;
      return tlm::TLM_COMPLETED;
    }
  } requester("requester");
  requester.socket.bind(xbar.target_socket);
  sc_core::sc_start(ns(200));
  EXPECT_EQ(requester.end_req, ns(1));
  EXPECT_EQ(slice.begin_req, ns(5));
  EXPECT_EQ(slice.delay, ns(49));
  EXPECT_EQ(requester.begin_resp, ns(113));
  EXPECT_TRUE(xbar.idle());
  EXPECT_EQ(xbar.describe_in_flight(), "");
}

}  // namespace
}  // namespace tessera::gpu
