// The shared-memory bank unit's RTL (models/rtl/shared_bank) against its C++
// model (sm/shared_bank_unit.h): constrained-random warp requests compared
// pin by pin every cycle, directed requests with numbers derived by hand,
// and the lockstep pins catching a deliberately broken unit.
#include <gtest/gtest.h>
#include <Vshared_bank_unit.h>
#include <Vshared_bank_unit_96k.h>

#include <bitset>
#include <cstdio>
#include <filesystem>
#include <string>

#include "rtl/common/lockstep.h"
#include "rtl/common/rtl_harness.h"
#include "rtl_mutants.h"
#include "sim/config.h"
#include "sm/shared_bank_pins.h"
#include "sm/shared_bank_stimulus.h"
#include "sm/sm_params.h"
#include "test_scratch.h"

using namespace tessera;
using sm::BankOp;
using sm::BankRequest;
using sm::BankResponse;
using sm::SharedBankUnit;

namespace {

constexpr uint32_t kAll = 0xffffffffu;

using In = sm::BankPinsIn;

// The RTL block alone, stepped with one request at a time.
template <class V>
class Rtl {
 public:
  Rtl() : h_("shared_banks", &sm::apply_bank_pins<V>, rtl::WaveOptions{}) {}
  // Presents `req` until taken, then idles until the response; returns the
  // steps after the one that took it.
  unsigned run(const BankRequest& req, BankResponse& out) {
    In in;
    in.valid = true;
    in.req = req;
    while (!h_.model().req_ready) h_.step(In{});
    h_.step(in);
    unsigned n = 0;
    while (!h_.model().resp_valid) {
      h_.step(In{});
      ++n;
    }
    const V& v = h_.model();
    out.mask = v.resp_mask;
    for (unsigned l = 0; l < 32; ++l) out.data[l] = v.resp_data[l];
    out.passes = v.resp_passes;
    out.broadcasts = v.resp_broadcasts;
    return n;
  }

 private:
  rtl::RtlHarness<V, In> h_;
};

using sm::strided_request;

// Runs `cycles` cycles of random requests on the RTL and the model and
// compares every output after every cycle, and the bank RAMs' write ports
// (before the edge) with the model's writes of the cycle; returns the first
// difference.
template <class V>
std::string random_run(uint64_t seed, unsigned bytes, uint64_t cycles, unsigned* responses, uint64_t* writes,
                       std::bitset<sm::kBankOpCount>* ops) {
  rtl::RtlHarness<V, In> h("shared_banks", &sm::apply_bank_pins<V>, rtl::WaveOptions{});
  SharedBankUnit m(32, bytes, 2);
  sm::BankStimulus stim(seed, bytes / 4);
  In in;
  for (uint64_t c = 0; c < cycles; ++c) {
    if (!in.valid && stim.present()) {
      in.valid = true;
      in.req = stim.next();
    }
    const bool ready = m.ready();
    std::vector<sm::BankWrite> rtl_writes;  // the RAM write ports before the edge
    h.step(in, c, [&](const V& v) {
      for (unsigned b = 0; b < 32; ++b) {
        if (v.ram_we[b]) rtl_writes.push_back({b, v.ram_row[b], v.ram_wdata[b], 0});
      }
    });
    m.step(in.valid ? &in.req : nullptr);
    if (in.valid && ready) {
      ops->set(static_cast<unsigned>(in.req.op));
      in.valid = false;
    }
    const V& v = h.model();
    char buf[160];
    if (v.req_ready != m.ready() || v.resp_valid != m.resp_valid()) {
      std::snprintf(buf, sizeof buf, "cycle %llu: ready %d/%d resp_valid %d/%d (rtl/model)",
                    static_cast<unsigned long long>(c), v.req_ready, m.ready(), v.resp_valid, m.resp_valid());
      return buf;
    }
    if (rtl_writes.size() != m.writes().size()) {
      std::snprintf(buf, sizeof buf, "cycle %llu: %zu/%zu RAM writes (rtl/model)", static_cast<unsigned long long>(c),
                    rtl_writes.size(), m.writes().size());
      return buf;
    }
    for (size_t i = 0; i < rtl_writes.size(); ++i) {
      const sm::BankWrite &r = rtl_writes[i], &w = m.writes()[i];
      if (r.bank != w.bank || r.row != w.row || r.value != w.value) {
        std::snprintf(buf, sizeof buf, "cycle %llu: RAM write bank %u row %u %08x / bank %u row %u %08x (rtl/model)",
                      static_cast<unsigned long long>(c), r.bank, r.row, r.value, w.bank, w.row, w.value);
        return buf;
      }
      ++*writes;
    }
    if (!m.resp_valid()) continue;
    ++*responses;
    const BankResponse& r = m.response();
    if (v.resp_mask != r.mask || v.resp_passes != r.passes || v.resp_broadcasts != r.broadcasts) {
      std::snprintf(buf, sizeof buf, "cycle %llu: passes %u/%u broadcasts %u/%u (rtl/model)",
                    static_cast<unsigned long long>(c), v.resp_passes, r.passes, v.resp_broadcasts, r.broadcasts);
      return buf;
    }
    for (unsigned l = 0; l < 32; ++l) {
      if ((r.mask & (1u << l)) && v.resp_data[l] != r.data[l]) {
        std::snprintf(buf, sizeof buf, "cycle %llu lane %u: rtl %08x model %08x", static_cast<unsigned long long>(c), l,
                      v.resp_data[l], r.data[l]);
        return buf;
      }
    }
  }
  return "";
}

}  // namespace

// 100,000 cycles per seed of every operation and access pattern, back to
// back and sparse: the RTL's ready, resp_valid, passes, broadcasts and every
// active lane's data equal the model's in every cycle, and so do its bank
// RAMs' writes.
TEST(SharedBankRtl, RandomRequestsAgreeWithTheModelEveryCycle) {
  for (uint64_t seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
    unsigned responses = 0;
    uint64_t writes = 0;
    std::bitset<sm::kBankOpCount> ops;
    EXPECT_EQ(random_run<Vshared_bank_unit>(seed, 65536, 100000, &responses, &writes, &ops), "");
    EXPECT_GT(responses, 10000u);  // about one request every 6 cycles
    EXPECT_GT(writes, 100000u);
    EXPECT_TRUE(ops.all()) << ops;
  }
}

// The 96 KiB configuration (chip52): rows beyond a 64 KiB unit's.
TEST(SharedBankRtl, RandomRequestsAgreeAt96KiB) {
  std::printf("seed 7\n");
  unsigned responses = 0;
  uint64_t writes = 0;
  std::bitset<sm::kBankOpCount> ops;
  EXPECT_EQ(random_run<Vshared_bank_unit_96k>(7, 98304, 100000, &responses, &writes, &ops), "");
  EXPECT_TRUE(ops.all()) << ops;
}

// Stride 2: lanes l and l+16 share bank 2l mod 32 => 2 passes, answered 2
// cycles after it was taken.
TEST(SharedBankRtl, StrideTwoTakesTwoPasses) {
  Rtl<Vshared_bank_unit> u;
  BankResponse r;
  EXPECT_EQ(u.run(strided_request(BankOp::kLoad, kAll, 2), r), 2u);
  EXPECT_EQ(r.passes, 2u);
  EXPECT_EQ(r.broadcasts, 0u);
}

// Every lane stores then reads word 3: the store is one pass (highest lane
// wins: 31), the load one pass and one broadcast.
TEST(SharedBankRtl, OneWordForEveryLaneIsOneBroadcast) {
  Rtl<Vshared_bank_unit> u;
  BankRequest st = strided_request(BankOp::kStore, kAll, 0, 3);
  for (unsigned l = 0; l < 32; ++l) st.data[l] = 0x100 + l;
  BankResponse r;
  EXPECT_EQ(u.run(st, r), 1u);
  EXPECT_EQ(u.run(strided_request(BankOp::kLoad, kAll, 0, 3), r), 1u);
  EXPECT_EQ(r.passes, 1u);
  EXPECT_EQ(r.broadcasts, 1u);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(r.data[l], 0x11fu) << l;
}

// 32 amoadd of 1 on one word: 32 passes of 2 cycles (answered 64 cycles
// after it was taken); lane l reads l; a load then reads 32.
TEST(SharedBankRtl, AtomicsOnOneWordTakeThirtyTwoPassesOfTwoCycles) {
  Rtl<Vshared_bank_unit> u;
  BankRequest a = strided_request(BankOp::kAdd, kAll, 0, 40);
  a.data.fill(1);
  BankResponse r;
  EXPECT_EQ(u.run(a, r), 64u);
  EXPECT_EQ(r.passes, 32u);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(r.data[l], l);
  u.run(strided_request(BankOp::kLoad, 1, 0, 40), r);
  EXPECT_EQ(r.data[0], 32u);
}

// Sub-word stores into one word: byte 0 = 0x11 (lane 0), half 1 = 0x3322
// (lane 1), byte 2 = 0x44 (lane 2, wins over lane 1) => 0x3344_0011.
TEST(SharedBankRtl, SubWordStoresMergeHigherLaneWins) {
  Rtl<Vshared_bank_unit> u;
  BankRequest st = strided_request(BankOp::kStore, 0x7, 0, 9);
  st.be = {0x1, 0xc, 0x4};
  st.data = {0x11, 0x33220000, 0x00440000};
  BankResponse r;
  u.run(st, r);
  u.run(strided_request(BankOp::kLoad, 1, 0, 9), r);
  EXPECT_EQ(r.data[0], 0x33440011u);
}

// atom.fadd bit for bit: 2^-149 + 2^-149 = 2^-148 (0x00000002);
// +inf + -inf and NaN + 1 give the canonical NaN; -0 + -0 = -0; +0 + -0 =
// +0; 1 + 2^-24 is a tie that rounds to even (1.0); largest finite + itself
// overflows to +inf; 0x00800000 - 0x007fffff = the smallest denormal.
TEST(SharedBankRtl, FaddIsBitExact) {
  struct Case {
    uint32_t word, operand, sum;
  };
  const Case cases[] = {{0x00000001, 0x00000001, 0x00000002}, {0x7f800000, 0xff800000, 0x7fc00000},
                        {0x7fa00000, 0x3f800000, 0x7fc00000}, {0x80000000, 0x80000000, 0x80000000},
                        {0x00000000, 0x80000000, 0x00000000}, {0x3f800000, 0x33800000, 0x3f800000},
                        {0x7f7fffff, 0x7f7fffff, 0x7f800000}, {0x00800000, 0x807fffff, 0x00000001}};
  Rtl<Vshared_bank_unit> u;
  BankRequest st = strided_request(BankOp::kStore, 0xff, 1);
  for (unsigned i = 0; i < 8; ++i) st.data[i] = cases[i].word;
  BankResponse r;
  u.run(st, r);
  BankRequest f = strided_request(BankOp::kFadd, 0xff, 1);
  for (unsigned i = 0; i < 8; ++i) f.data[i] = cases[i].operand;
  u.run(f, r);
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(r.data[i], cases[i].word) << i;  // the old values
  u.run(strided_request(BankOp::kLoad, 0xff, 1), r);
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(r.data[i], cases[i].sum) << i;
}

// The mutant without broadcast detection (the implementation
// shared_no_broadcast of libtessera_rtl_mutants.so) in lockstep: a load of one word by
// every lane is 1 pass for the model and 32 for the mutant, so in the cycle
// that takes it (cycle 5) the model is ready for the next request and the
// mutant is not: LockstepMismatch names the cycle and the instance, and the
// FST of the cycles before it is readable.
TEST(SharedBankRtl, LockstepCatchesTheMutantWithoutBroadcast) {
  const auto dir = std::filesystem::path(tessera::test::scratch_dir()) / "cosim_shared";
  std::filesystem::remove_all(dir);
  tessera::test::load_rtl_mutants();
  sim::Config cfg;
  cfg.set("sm.shared_impl", "lockstep:shared_no_broadcast", "test");
  cfg.set("rtl.wave_dir", dir.string(), "test");
  const sm::SmParams p = sm::SmParams::from_config(cfg);
  SharedBankUnit model(32, 65536, 2);
  auto pins = sm::make_shared_bank_pins(p, model, "chip.sm3.shared_banks");
  const BankRequest load = strided_request(BankOp::kLoad, kAll, 0, 12);
  for (uint64_t c = 0; c < 5; ++c) pins->step(nullptr, c);
  try {
    pins->step(&load, 5);
    FAIL() << "no mismatch";
  } catch (const rtl::LockstepMismatch& e) {
    EXPECT_EQ(e.cycle(), 5u);
    EXPECT_EQ(e.instance(), "chip.sm3.shared_banks");
    const std::string text = e.what();
    EXPECT_NE(text.find("req_ready"), std::string::npos) << text;
    EXPECT_NE(text.find("req.op"), std::string::npos) << text;
    ASSERT_TRUE(std::filesystem::exists(e.wave_path())) << e.wave_path();
    std::string vcd;
    FILE* f = popen((std::string(FST2VCD) + " " + e.wave_path() + " 2>&1").c_str(), "r");
    ASSERT_NE(f, nullptr);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) vcd.append(buf, n);
    EXPECT_EQ(pclose(f), 0) << vcd;
    EXPECT_NE(vcd.find("req_ready"), std::string::npos);
    EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

// rtl and lockstep need parameters the block was built with.
TEST(SharedBankRtl, UnsupportedParametersAreConfigErrors) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{{"sm.shared_banks", "16"},
                                                                                   {"sm.shared_bank_bytes", "8"},
                                                                                   {"sm.shared_bytes", "32768"},
                                                                                   {"sm.shared_atomic_cycles", "3"}}) {
    sim::Config cfg;
    cfg.set("sm.shared_impl", "rtl", "test");
    cfg.set(key, value, "test");
    try {
      sm::SmParams::from_config(cfg);
      ADD_FAILURE() << key << "=" << value << " accepted";
    } catch (const sim::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}
