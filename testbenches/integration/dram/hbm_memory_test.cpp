// HbmMemory through TLM-2.0 AT: a small initiator and two HBM2 targets are
// elaborated once (one with dram.skip_idle, one ticking every cycle) and
// run the same requests. Checks the idle latencies through TLM, data
// through the backing memory, timing-only transactions, the address error,
// back-pressure, and identical statistics with and without idle skipping.
// The protocol checker runs inside both targets (a violation would be a
// SystemC warning, which fails the test).
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>
#include <vector>

#include "dram/hbm_memory.h"
#include "sim/backing_memory.h"
#include "sim/config.h"
#include "sim/mem_ext.h"
#include "sim/payload_pool.h"
#include "sim/stats.h"
#include "tlm_test_util.h"

namespace tessera::dram {
namespace {

using test::ns;

constexpr uint64_t kBase = 0x80000000ull;

struct Access {
  sc_core::sc_time start;  // BEGIN_REQ
  uint64_t address;
  unsigned bytes;
  bool is_write;
  bool timing_only;
  uint8_t fill;  // write data byte
};

struct Result {
  sc_core::sc_time begin_req, end_req, begin_resp;
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  std::vector<uint8_t> data;
};

class Initiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Initiator> socket;
  std::vector<Access> accesses;
  std::vector<Result> results;
  // Loosely timed, after the AT traffic: write then read back 32 B, and a
  // read beyond the capacity.
  sc_core::sc_time lt_write_delay, lt_read_delay;
  std::vector<uint8_t> lt_data;
  tlm::tlm_response_status lt_error_status = tlm::TLM_INCOMPLETE_RESPONSE;

  explicit Initiator(const sc_core::sc_module_name& name) : sc_module(name), socket("socket") {
    socket.register_nb_transport_bw(this, &Initiator::nb_transport_bw);
    SC_HAS_PROCESS(Initiator);
    SC_THREAD(run);
  }

 private:
  void run() {
    results.resize(accesses.size());
    for (size_t i = 0; i < accesses.size(); ++i) {
      const Access& a = accesses[i];
      if (a.start > sc_core::sc_time_stamp()) wait(a.start - sc_core::sc_time_stamp());
      tlm::tlm_generic_payload* gp = pool_.allocate();
      gp->set_address(a.address);
      gp->set_data_length(a.bytes);
      gp->set_streaming_width(a.bytes);
      gp->set_byte_enable_ptr(nullptr);
      gp->set_command(a.is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      std::memset(gp->get_data_ptr(), a.is_write ? a.fill : 0, a.bytes);
      gp->get_extension<sim::MemExt>()->timing_only = a.timing_only;
      index_[gp] = i;
      results[i].begin_req = sc_core::sc_time_stamp();
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      const tlm::tlm_sync_enum s = socket->nb_transport_fw(*gp, phase, delay);
      ASSERT_EQ(s, tlm::TLM_ACCEPTED);
      wait(end_req_);  // one request phase at a time (AT base protocol)
    }
    loosely_timed();
  }

  void loosely_timed() {
    tlm::tlm_generic_payload* gp = pool_.allocate();
    gp->set_byte_enable_ptr(nullptr);
    gp->set_address(kBase + 0x2000);
    gp->set_data_length(32);
    gp->set_streaming_width(32);
    gp->set_command(tlm::TLM_WRITE_COMMAND);
    gp->get_extension<sim::MemExt>()->timing_only = false;
    std::memset(gp->get_data_ptr(), 0x3C, 32);
    socket->b_transport(*gp, lt_write_delay);
    gp->set_command(tlm::TLM_READ_COMMAND);
    std::memset(gp->get_data_ptr(), 0, 32);
    socket->b_transport(*gp, lt_read_delay);
    lt_data.assign(gp->get_data_ptr(), gp->get_data_ptr() + 32);
    gp->set_address(kBase + (4ull << 30));
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(*gp, delay);
    lt_error_status = gp->get_response_status();
    gp->release();
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time&) {
    Result& r = results[index_.at(&gp)];
    if (phase == tlm::END_REQ) {
      r.end_req = sc_core::sc_time_stamp();
      end_req_.notify();
      return tlm::TLM_ACCEPTED;
    }
    EXPECT_EQ(phase, tlm::BEGIN_RESP);
    r.begin_resp = sc_core::sc_time_stamp();
    r.status = gp.get_response_status();
    r.data.assign(gp.get_data_ptr(), gp.get_data_ptr() + gp.get_data_length());
    index_.erase(&gp);
    gp.release();
    return tlm::TLM_COMPLETED;
  }

  sim::PayloadPool pool_;
  std::map<tlm::tlm_generic_payload*, size_t> index_;
  sc_core::sc_event end_req_;
};

TEST(HbmMemory, IdleLatenciesDataAddressErrorBackpressureAndSkipEquivalence) {
  sim::Config cfg_skip, cfg_tick;
  for (auto* cfg : {&cfg_skip, &cfg_tick}) {
    cfg->set("dram.spec", "hbm2", "test");
    cfg->set("dram.read_queue", "4", "test");  // small, to see back-pressure
  }
  cfg_skip.set("dram.skip_idle", "true", "test");
  cfg_tick.set("dram.skip_idle", "false", "test");
  sim::StatGroup root_skip("chip"), root_tick("chip");
  sim::BackingMemory backing_skip(static_cast<uint32_t>(kBase), 0x80000000ull);
  sim::BackingMemory backing_tick(static_cast<uint32_t>(kBase), 0x80000000ull);
  HbmMemory skip("hbm_skip", cfg_skip, &backing_skip, kBase, root_skip);
  HbmMemory tick("hbm_tick", cfg_tick, &backing_tick, kBase, root_tick);
  Initiator init_skip("init_skip"), init_tick("init_tick");
  init_skip.socket.bind(skip.socket);
  init_tick.socket.bind(tick.socket);
  cfg_skip.check_all_used();
  ASSERT_EQ(skip.capacity(), 4ull << 30);

  // HBM2 map ro-ba-co-bg-pc-ch: row at bit 18, column at bit 11.
  std::vector<Access> accesses = {
      {ns(0), kBase + 0x40000, 32, false, false, 0},          // 0: miss, row 1
      {ns(200), kBase + 0x40800, 32, false, false, 0},        // 1: hit, row 1 column 1
      {ns(400), kBase + 0x80000, 32, false, false, 0},        // 2: conflict, row 2
      {ns(600), kBase + 0x1000, 64, true, false, 0x5A},       // 3: write 64 B (two channels)
      {ns(800), kBase + 0x1000, 64, false, false, 0},         // 4: read it back
      {ns(1000), kBase + 0x1000, 32, true, true, 0x77},       // 5: timing-only write
      {ns(1200), kBase + 0x1000, 32, false, false, 0},        // 6: still 0x5A
      {ns(1400), kBase + (4ull << 30), 32, false, false, 0},  // 7: beyond capacity
  };
  // 8..: 40 back-to-back requests; the reads go to successive rows of one
  // bank (row conflicts, so the 4-entry read queue fills), the writes spread.
  for (unsigned i = 0; i < 40; ++i) {
    const bool write = i % 3 == 0;
    const uint64_t offset = write ? (i * 0x40820ull) % 0x400000 : (i + 3) * 0x40000ull;
    accesses.push_back({ns(1600), kBase + offset, 32, write, false, uint8_t(i)});
  }
  init_skip.accesses = accesses;
  init_tick.accesses = accesses;

  // Two initiators on one HBM with one read entry per pseudo channel. A
  // sends two reads to bank 0 of ch0 pc0 at 0 ns: the first (row 1) enters,
  // the second (row 2) waits for the first's RD at cycle 14 and enters at
  // 15. B's read to ch1 at 1 ns passes it: END_REQ 1 ps after its arrival
  // and the idle miss latency, 30 ns (it would wait for 15 ns and answer at
  // 45 ns if a full queue held back every younger request).
  sim::Config cfg_pass;
  cfg_pass.set("dram.spec", "hbm2", "test");
  cfg_pass.set("dram.read_queue", "1", "test");
  sim::StatGroup root_pass("chip");
  HbmMemory pass("hbm_pass", cfg_pass, nullptr, kBase, root_pass);
  Initiator init_a("init_a"), init_b("init_b");
  init_a.socket.bind(pass.socket);
  init_b.socket.bind(pass.socket);
  init_a.accesses = {{ns(0), kBase + 0x40000, 32, false, true, 0}, {ns(0), kBase + 0x80000, 32, false, true, 0}};
  init_b.accesses = {{ns(1), kBase + 0x20, 32, false, true, 0}};

  sc_core::sc_start(ns(200000));
  sc_core::sc_stop();

  const auto& r = init_skip.results;
  ASSERT_EQ(r.size(), accesses.size());
  // Idle latencies (tCK 1 ns): miss tRCD 14 + CL 14 + burst 2 = 30 ns,
  // hit CL 14 + burst 2 = 16 ns, conflict tRP 14 + 30 = 44 ns.
  EXPECT_EQ(r[0].begin_resp - r[0].begin_req, ns(30));
  EXPECT_EQ(r[1].begin_resp - r[1].begin_req, ns(16));
  EXPECT_EQ(r[2].begin_resp - r[2].begin_req, ns(44));
  for (int i : {0, 1, 2}) EXPECT_EQ(r[i].status, tlm::TLM_OK_RESPONSE);
  // END_REQ when a queue takes the request: the decision 1 ps after the edge.
  EXPECT_EQ(r[0].end_req - r[0].begin_req, sc_core::sc_time(1, sc_core::SC_PS));
  // Data: the write lands in the backing memory; the timing-only one does not.
  EXPECT_EQ(r[4].status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(r[4].data, std::vector<uint8_t>(64, 0x5A));
  EXPECT_EQ(r[6].data, std::vector<uint8_t>(32, 0x5A));
  // Beyond capacity.
  EXPECT_EQ(r[7].status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  for (size_t i = 8; i < r.size(); ++i) EXPECT_EQ(r[i].status, tlm::TLM_OK_RESPONSE) << i;

  // b_transport: the idle row-miss latency, tRCD 14 + CL 14 + burst 2 = 30 ns.
  EXPECT_EQ(init_skip.lt_write_delay, ns(30));
  EXPECT_EQ(init_skip.lt_read_delay, ns(30));
  EXPECT_EQ(init_skip.lt_data, std::vector<uint8_t>(32, 0x3C));
  EXPECT_EQ(init_skip.lt_error_status, tlm::TLM_ADDRESS_ERROR_RESPONSE);

  const nlohmann::json js = root_skip.to_json(), jt = root_tick.to_json();
  EXPECT_GT(js["dram"]["backpressure_events"].get<uint64_t>(), 0u) << js.dump(2);
  EXPECT_EQ(js["dram"]["address_errors"].get<uint64_t>(), 2u);  // AT and LT
  EXPECT_EQ(js["dram"]["protocol_violations"].get<uint64_t>(), 0u);
  EXPECT_GT(js["dram"]["refreshes"].get<uint64_t>(), 0u);  // 200 us >> tREFI
  ASSERT_EQ(init_a.results.size(), 2u);
  ASSERT_EQ(init_b.results.size(), 1u);
  EXPECT_EQ(init_a.results[1].end_req, ns(15) + sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(init_b.results[0].end_req, ns(1) + sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(init_b.results[0].begin_resp, ns(31));
  // Identical with and without idle skipping: statistics and every response time.
  EXPECT_EQ(js.dump(), jt.dump());
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].begin_resp, init_tick.results[i].begin_resp) << i;
    EXPECT_EQ(r[i].end_req, init_tick.results[i].end_req) << i;
  }
}

}  // namespace
}  // namespace tessera::dram
