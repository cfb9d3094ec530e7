// The SystemC NocInterconnect: two requesters and two targets on a 2x2 mesh,
// TLM-2.0 AT on both sides. Checks data end to end, exact zero-load latency
// and back-pressure as withheld END_REQ. One elaboration for the process.
//
// Placement: requesters at nodes 0 (0,0) and 1 (1,0), targets at nodes
// 2 (0,1) and 3 (1,1); address bit 12 selects the target. Hops (XY):
// 0->2 and 1->3 are 1, 0->3 and 1->2 are 2.
#include <gtest/gtest.h>
#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "noc/noc_interconnect.h"
#include "sim/config.h"
#include "sim/payload_pool.h"
#include "sim/stats.h"

namespace {

using namespace sc_core;
using tessera::noc::NocInterconnect;

constexpr int kTargetLatency = 10;  // cycles from a target's BEGIN_REQ to its BEGIN_RESP
constexpr double kPeriodNs = 1.0;   // clock.icnt_mhz = 1000

// A memory target: END_REQ at once, BEGIN_RESP kTargetLatency cycles later.
struct Target : sc_module {
  tlm_utils::simple_target_socket<Target> socket;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> ready;
  std::vector<unsigned char> memory = std::vector<unsigned char>(4096, 0);
  int requests = 0;

  explicit Target(const sc_module_name& name) : sc_module(name), socket("socket"), ready("ready") {
    socket.register_nb_transport_fw(this, &Target::fw);
    SC_HAS_PROCESS(Target);
    SC_METHOD(respond);
    sensitive << ready.get_event();
    dont_initialize();
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time&) {
    if (phase != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    ++requests;
    const uint64_t offset = gp.get_address() & 0xFFF;
    if (gp.is_write()) {
      std::memcpy(&memory[offset], gp.get_data_ptr(), gp.get_data_length());
    } else {
      std::memcpy(gp.get_data_ptr(), &memory[offset], gp.get_data_length());
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    ready.notify(gp, sc_time(kTargetLatency * kPeriodNs, SC_NS));
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  void respond() {
    while (tlm::tlm_generic_payload* gp = ready.get_next_transaction()) {
      tlm::tlm_phase phase = tlm::BEGIN_RESP;
      sc_time delay = SC_ZERO_TIME;
      EXPECT_EQ(socket->nb_transport_bw(*gp, phase, delay), tlm::TLM_COMPLETED);
    }
  }
};

struct Access {
  uint64_t address;
  bool write;
  unsigned char fill;  // written pattern, or the pattern a read must return
  uint64_t begin_cycle = 0, end_req_cycle = 0, response_cycle = 0;
  bool data_ok = false;
};

// A requester that runs a script: `sequential` accesses one at a time from
// given cycles, then `pipelined` ones issued back to back (each BEGIN_REQ
// as soon as the previous END_REQ), then reads those back.
struct Requester : sc_module {
  tlm_utils::simple_initiator_socket<Requester> socket;
  tessera::sim::PayloadPool pool;
  sc_event end_req, response;
  tlm::tlm_generic_payload* responded = nullptr;
  std::vector<Access> sequential, pipelined, readback, unmapped;
  uint64_t start_cycle = 0, pipeline_cycle = 0;
  int outstanding = 0;

  Requester(const sc_module_name& name) : sc_module(name), socket("socket") {
    socket.register_nb_transport_bw(this, &Requester::bw);
    SC_HAS_PROCESS(Requester);
    SC_THREAD(run);
  }
  static uint64_t cycle() { return static_cast<uint64_t>(sc_time_stamp() / sc_time(kPeriodNs, SC_NS)); }
  void wait_until(uint64_t c) {
    if (cycle() < c || sc_time_stamp() != sc_time(c * kPeriodNs, SC_NS))
      wait(sc_time(c * kPeriodNs, SC_NS) - sc_time_stamp());
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time&) {
    if (phase == tlm::END_REQ) {
      end_req.notify();
    } else if (phase == tlm::BEGIN_RESP) {
      finish(gp);
      return tlm::TLM_COMPLETED;
    }
    return tlm::TLM_ACCEPTED;
  }
  std::vector<Access*> in_flight;
  void finish(tlm::tlm_generic_payload& gp) {
    Access& a = *in_flight[gp.get_extension<tessera::sim::MemExt>()->tag];
    a.response_cycle = cycle();
    a.data_ok = gp.is_response_ok();
    if (!a.write)
      for (unsigned i = 0; i < gp.get_data_length(); ++i)
        if (gp.get_data_ptr()[i] != static_cast<unsigned char>(a.fill + i)) a.data_ok = false;
    --outstanding;
    gp.release();
    response.notify();
  }
  // Sends BEGIN_REQ and waits for END_REQ.
  void begin(Access& a) {
    tlm::tlm_generic_payload* gp = pool.allocate();
    gp->set_command(a.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp->set_address(a.address);
    gp->set_data_length(32);
    gp->set_streaming_width(32);
    gp->set_byte_enable_ptr(nullptr);
    gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    for (unsigned i = 0; i < 32; ++i) gp->get_data_ptr()[i] = a.write ? static_cast<unsigned char>(a.fill + i) : 0;
    gp->get_extension<tessera::sim::MemExt>()->tag = static_cast<uint32_t>(in_flight.size());
    in_flight.push_back(&a);
    a.begin_cycle = cycle();
    ++outstanding;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time delay = SC_ZERO_TIME;
    const tlm::tlm_sync_enum status = socket->nb_transport_fw(*gp, phase, delay);
    if (status == tlm::TLM_ACCEPTED) wait(end_req);
    a.end_req_cycle = cycle();
  }
  void run() {
    wait_until(start_cycle);
    for (Access& a : sequential) {
      begin(a);
      while (outstanding > 0) wait(response);
      wait_until(cycle() + 5);
    }
    wait_until(pipeline_cycle);
    for (Access& a : pipelined) begin(a);
    while (outstanding > 0) wait(response);
    wait_until(cycle() + 5);
    for (Access& a : readback) begin(a);
    while (outstanding > 0) wait(response);
    wait_until(cycle() + 5);
    for (Access& a : unmapped) {
      begin(a);
      while (outstanding > 0) wait(response);
    }
  }
};

// One interconnect with its requesters and targets, all names prefixed, so
// two copies (idle skipping on and off) elaborate side by side.
struct System {
  tessera::sim::Config cfg;
  tessera::sim::StatGroup root;
  std::unique_ptr<NocInterconnect> icnt;
  Requester r0, r1;
  Target t0, t1;

  System(const std::string& prefix, const char* skip_idle)
      : root("chip"),
        r0((prefix + "r0").c_str()),
        r1((prefix + "r1").c_str()),
        t0((prefix + "t0").c_str()),
        t1((prefix + "t1").c_str()) {
    for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"noc.topology", "mesh"},
                                                                               {"noc.k", "2"},
                                                                               {"noc.vcs", "4"},
                                                                               {"noc.classes", "2"},
                                                                               {"noc.flit_bytes", "16"},
                                                                               {"noc.ni_queue", "1"},
                                                                               {"clock.icnt_mhz", "1000"},
                                                                               {"noc.skip_idle", skip_idle}})
      cfg.set(k, v, "test");
    // Addresses 0x0000-0x1FFF: bit 12 selects the target; beyond: no target.
    icnt = std::make_unique<NocInterconnect>(
        (prefix + "icnt").c_str(), cfg, std::vector<int>{0, 1}, std::vector<int>{2, 3},
        [](uint64_t a) { return a < 0x2000 ? static_cast<int>((a >> 12) & 1) : -1; }, root);
    cfg.check_all_used();
    r0.socket.bind(icnt->target_socket);
    r1.socket.bind(icnt->target_socket);
    icnt->initiator_socket.bind(t0.socket);
    icnt->initiator_socket.bind(t1.socket);
    // Sequential phase: r0 from cycle 10, r1 from cycle 1000 (no overlap).
    script(r0, 0);
    script(r1, 1);
    r0.unmapped = {{0x5000, false, 0}};
    r0.start_cycle = 10;
    r1.start_cycle = 1000;
    r0.pipeline_cycle = r1.pipeline_cycle = 2000;
  }
  static void script(Requester& r, int id) {
    const uint64_t base = static_cast<uint64_t>(id) * 64;
    r.sequential = {{0x0000 + base, true, static_cast<unsigned char>(0x10 + id)},
                    {0x0000 + base, false, static_cast<unsigned char>(0x10 + id)},
                    {0x1000 + base, true, static_cast<unsigned char>(0x20 + id)},
                    {0x1000 + base, false, static_cast<unsigned char>(0x20 + id)}};
    for (int i = 0; i < 8; ++i) {
      const uint64_t address =
          static_cast<uint64_t>(i % 2) * 0x1000 + 0x400 + base + static_cast<uint64_t>(i / 2) * 128;
      r.pipelined.push_back({address, true, static_cast<unsigned char>(0x40 + 8 * id + i)});
      r.readback.push_back({address, false, static_cast<unsigned char>(0x40 + 8 * id + i)});
    }
  }
};

std::vector<uint64_t> timeline(const Requester& r) {
  std::vector<uint64_t> t;
  for (const auto* list : {&r.sequential, &r.pipelined, &r.readback, &r.unmapped})
    for (const Access& a : *list) t.insert(t.end(), {a.begin_cycle, a.end_req_cycle, a.response_cycle});
  return t;
}

TEST(NocInterconnect, TwoRequestersTwoTargetsOnA2x2Mesh) {
  System skipping("", "true"), ticking("tick_", "false");
  Requester& r0 = skipping.r0;
  Requester& r1 = skipping.r1;
  Target& t0 = skipping.t0;
  Target& t1 = skipping.t1;
  const NocInterconnect& icnt = *skipping.icnt;
  tessera::sim::StatGroup& root = skipping.root;
  sc_start(sc_time(10, SC_US));

  // Zero-load round trip (derivation in docs/noc.md, "Network interface"):
  // BEGIN_REQ at cycle c is admitted at c + 1 (END_REQ) into the source
  // queue; the request reaches the target's interface (H + 1) * 5 + 2 +
  // (Fq - 1) cycles later (the source queue's cycle, the injection
  // channel's, then 5 per router with the ejection channel counted as the
  // last router's link) and goes to the target that cycle; the target
  // answers L = 10 cycles later; the response enters the source queue the
  // cycle after and arrives (H + 1) * 5 + 2 + (Fr - 1) cycles later, when
  // BEGIN_RESP is sent.
  //   total = 1 + 5 (H + 1) + 2 + (Fq - 1) + L + 1 + 5 (H + 1) + 2 + (Fr - 1)
  // 32 bytes in 16-byte flits: a write request and a read response are
  // 1 + 2 = 3 flits, a read request and a write response 1 flit, so
  // (Fq - 1) + (Fr - 1) = 2 for both: total = 10 (H + 1) + L + 8.
  auto expected = [](int hops) { return static_cast<uint64_t>(10 * (hops + 1) + kTargetLatency + 8); };
  const int hops[2][2] = {{1, 2}, {2, 1}};  // [requester][target]
  for (int id = 0; id < 2; ++id) {
    Requester& r = id == 0 ? r0 : r1;
    for (size_t i = 0; i < r.sequential.size(); ++i) {
      const Access& a = r.sequential[i];
      EXPECT_TRUE(a.data_ok) << "requester " << id << " access " << i;
      EXPECT_EQ(a.end_req_cycle, a.begin_cycle + 1) << "requester " << id << " access " << i;
      EXPECT_EQ(a.response_cycle - a.begin_cycle, expected(hops[id][i / 2])) << "requester " << id << " access " << i;
    }
    // Pipelined writes: data lands, then reads it back.
    for (size_t i = 0; i < r.readback.size(); ++i) {
      EXPECT_TRUE(r.pipelined[i].data_ok) << "requester " << id << " write " << i;
      EXPECT_TRUE(r.readback[i].data_ok) << "requester " << id << " read " << i;
    }
    // With one packet of room per interface, 3-flit writes issued back to
    // back must wait for END_REQ: back-pressure.
    bool withheld = false;
    for (const Access& a : r.pipelined) withheld |= a.end_req_cycle > a.begin_cycle + 1;
    EXPECT_TRUE(withheld) << "requester " << id;
  }
  // An unmapped address is answered by the interconnect itself, at the edge
  // that admits the request: BEGIN_RESP one cycle after BEGIN_REQ.
  ASSERT_EQ(r0.unmapped.size(), 1u);
  EXPECT_FALSE(r0.unmapped[0].data_ok);
  EXPECT_EQ(r0.unmapped[0].response_cycle, r0.unmapped[0].begin_cycle + 1);
  EXPECT_EQ(t0.requests + t1.requests, 2 * (4 + 8 + 8));
  const nlohmann::json stats = root.to_json();
  EXPECT_EQ(stats["icnt"]["requests"].get<uint64_t>(), 41u);
  EXPECT_EQ(stats["icnt"]["responses"].get<uint64_t>(), 41u);
  EXPECT_GT(stats["icnt"]["backpressure_cycles"].get<uint64_t>(), 0u);
  EXPECT_EQ(stats["icnt"]["noc"]["packets_delivered"].get<uint64_t>(), 80u);
  // Every packet leaves through its destination router's switch: 80 packets
  // of 1 or 3 flits each pass 1 to 3 routers.
  uint64_t switched = 0;
  for (int r = 0; r < 4; ++r)
    switched += stats["icnt"]["noc"]["router" + std::to_string(r)]["flits_switched"].get<uint64_t>();
  EXPECT_GE(switched, stats["icnt"]["noc"]["flits_ejected"].get<uint64_t>());
  EXPECT_TRUE(icnt.network().checker()->ok());

  // The interconnect that ticks every cycle behaves identically; only its
  // count of stepped and skipped cycles differs.
  EXPECT_EQ(timeline(ticking.r0), timeline(r0));
  EXPECT_EQ(timeline(ticking.r1), timeline(r1));
  nlohmann::json a = stats["icnt"], b = ticking.root.to_json()["tick_icnt"];
  EXPECT_GT(a["noc"]["cycles_skipped"].get<uint64_t>(), 0u);
  EXPECT_EQ(b["noc"]["cycles_skipped"].get<uint64_t>(), 0u);
  EXPECT_GT(b["noc"]["cycles_stepped"].get<uint64_t>(), a["noc"]["cycles_stepped"].get<uint64_t>());
  for (auto* j : {&a, &b}) {
    (*j)["noc"].erase("cycles_skipped");
    (*j)["noc"].erase("cycles_stepped");
  }
  EXPECT_EQ(a, b);
}

}  // namespace
