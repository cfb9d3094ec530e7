// Cover points of the RTL blocks (docs/cosim.md, "Coverage"): the table and
// its file format, and the shared bank unit's points counted from the
// Verilated block's pins for directed requests whose counts are derived by
// hand below. (The router's are in noc_router_test.cpp, beside its directed
// cases.)
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "rtl/common/coverage.h"
#include "sim/config.h"
#include "sm/shared_bank_coverage.h"
#include "sm/shared_bank_pins.h"
#include "sm/shared_bank_stimulus.h"
#include "sm/sm_params.h"

// A namespace of its own: the test files of an executable are compiled
// together (tessera_test_batches).
namespace tessera::coverage_test {

using rtl::CoverageReport;
using rtl::CoverTable;
using sm::BankOp;
using sm::BankRequest;

namespace {

CoverTable table(std::vector<std::string> names, std::vector<uint64_t> hits) {
  CoverTable t(std::move(names));
  for (size_t i = 0; i < hits.size(); ++i) t.set(i, hits[i]);
  return t;
}

}  // namespace

TEST(RtlCoverage, ReportSumsInstancesAndKeepsUnreachedPoints) {
  CoverageReport r;
  r.add("blk", table({"blk.a", "blk.b", "blk.c"}, {1, 0, 2}));
  r.add("blk", table({"blk.a", "blk.b", "blk.c"}, {3, 0, 0}));
  const auto& b = r.blocks().at("blk");
  EXPECT_EQ(b.instances, 2u);
  EXPECT_EQ(b.table.hits("blk.a"), 4u);
  EXPECT_EQ(b.table.hits("blk.c"), 2u);
  EXPECT_EQ(b.table.reached(), 2u);
  EXPECT_EQ(b.table.unreached(), std::vector<std::string>{"blk.b"});
  const std::string text = r.summary();
  EXPECT_NE(text.find("blk: 2 of 3 cover points reached (2 instances)"), std::string::npos) << text;
  EXPECT_NE(text.find("    blk.b\n"), std::string::npos) << text;
  EXPECT_THROW(r.add("blk", table({"blk.a", "blk.b"}, {1, 1})), std::invalid_argument);
}

TEST(RtlCoverage, JsonRoundTripKeepsDeclarationOrderAndMergeIsTheSum) {
  CoverageReport a;
  a.add("blk", table({"blk.z", "blk.a", "blk.m"}, {5, 0, 1}));
  const auto j = a.to_json();
  EXPECT_EQ(j["format"], "tessera-rtl-coverage");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["blocks"]["blk"]["declared"], 3);
  EXPECT_EQ(j["blocks"]["blk"]["reached"], 2);
  EXPECT_EQ(j["blocks"]["blk"]["points"].begin().key(), "blk.z");  // declared first, not sorted
  CoverageReport b = CoverageReport::from_json(nlohmann::ordered_json::parse(j.dump()), "a.json");
  b.merge(a, "a.json");
  EXPECT_EQ(b.runs(), 2u);
  const CoverTable& t = b.blocks().at("blk").table;
  EXPECT_EQ(t.hits("blk.z"), 10u);
  EXPECT_EQ(t.hits("blk.a"), 0u);
  EXPECT_EQ(t.hits("blk.m"), 2u);
}

TEST(RtlCoverage, FilesOfAnotherFormatOrPointSetAreRefusedNamingTheFile) {
  const auto refuse = [](const nlohmann::ordered_json& j, const std::string& what) {
    try {
      CoverageReport::from_json(j, "other.json");
      ADD_FAILURE() << "accepted: " << j.dump();
    } catch (const rtl::CoverageFileError& e) {
      EXPECT_NE(std::string(e.what()).find("other.json"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refuse(nlohmann::ordered_json::parse(R"({"chip": {"sm0": {}}})"), "format");
  refuse(nlohmann::ordered_json::parse(R"({"format": "tessera-rtl-coverage", "version": 2, "blocks": {}})"), "version");
  refuse(nlohmann::ordered_json::parse(R"({"format": "tessera-rtl-coverage", "version": 1, "blocks": {"b": {}}})"),
         "points");
  CoverageReport a, b;
  a.add("blk", table({"blk.a", "blk.b"}, {1, 1}));
  b.add("blk", table({"blk.a", "blk.c"}, {1, 1}));
  try {
    a.merge(b, "b.json");
    ADD_FAILURE() << "merged different point sets";
  } catch (const rtl::CoverageFileError& e) {
    EXPECT_NE(std::string(e.what()).find("b.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("blk"), std::string::npos) << e.what();
  }
}

TEST(RtlCoverage, NothingIsTrackedUnlessCollectionIsOn) {
  rtl::CoverageCollection::reset();
  EXPECT_EQ(rtl::CoverageCollection::track("blk", "x", {"blk.a"}), nullptr);
  rtl::CoverageCollection::enable();
  EXPECT_NE(rtl::CoverageCollection::track("blk", "x", {"blk.a"}), nullptr);
  EXPECT_EQ(rtl::CoverageCollection::instances(), 1u);
  rtl::CoverageCollection::reset();
}

namespace {

using sm::strided_request;

// Drives the RTL bank unit (sm.shared_impl=rtl) with `reqs`, each presented
// from the cycle after the one before was taken (the first at cycle 0)
// until the unit takes it, for `cycles` cycles; returns its cover points.
CoverTable drive(const std::vector<BankRequest>& reqs, uint64_t cycles) {
  rtl::CoverageCollection::reset();
  rtl::CoverageCollection::enable();
  sim::Config cfg;
  cfg.set("sm.shared_impl", "rtl", "test");
  const sm::SmParams p = sm::SmParams::from_config(cfg);
  sm::SharedBankUnit model(32, 65536, 2);
  {
    auto pins = sm::make_shared_bank_pins(p, model, "shared_banks");
    size_t next = 0;
    for (uint64_t c = 0; c < cycles; ++c) {
      const BankRequest* req = next < reqs.size() ? &reqs[next] : nullptr;
      const bool ready = pins->ready();
      pins->step(req, c);
      if (req && ready) ++next;
    }
  }
  const CoverageReport r = rtl::CoverageCollection::report();
  rtl::CoverageCollection::reset();
  return r.blocks().at(sm::SharedBankCoverage::kBlock).table;
}

void expect_hits(const CoverTable& t, const std::vector<std::pair<std::string, uint64_t>>& expected) {
  uint64_t listed = 0;
  for (const auto& [name, hits] : expected) {
    EXPECT_EQ(t.hits(name), hits) << name;
    listed += hits > 0;
  }
  EXPECT_EQ(t.reached(), listed) << "points hit that the derivation does not list";
}

}  // namespace

// Three requests, each presented from the cycle after the one before was
// taken:
//   cycle 0: load, 32 lanes, stride 2 (lanes l and l+16 share bank 2l mod
//            32 on distinct words: 2 passes, cycles 1-2). Taken: load,
//            mask.full.
//   cycle 1: store of word 5 by every lane: req_ready is low (the load's
//            first pass): stall.
//   cycle 2: the load's last pass, req_ready high: the store is taken,
//            back_to_back, mask.full; the load answers after it: degree2.
//   cycle 3: amoadd by lanes 0-3 on word 7: the store's one pass, taken
//            back_to_back: atomic.add, mask.partial, atomic.same_word; the
//            store answers (1 pass, 32 lanes on one word: 1 broadcast):
//            degree1, broadcast.store.
//   cycles 4-11: the atomic's 4 passes of 2 cycles; answered after 11:
//            degree4.
TEST(RtlCoverage, SharedBankPointsOfThreeDirectedRequests) {
  BankRequest add = strided_request(BankOp::kAdd, 0xf, 0, 7);
  add.data.fill(1);
  const CoverTable t = drive(
      {strided_request(BankOp::kLoad, 0xffffffffu, 2, 0), strided_request(BankOp::kStore, 0xffffffffu, 0, 5), add}, 16);
  EXPECT_EQ(t.size(), sm::SharedBankCoverage::point_names().size());
  EXPECT_EQ(t.size(), 59u);  // 15 operations, 2 broadcasts, 32 degrees, 4 masks, 6 others
  expect_hits(t, {{"shared_bank.load", 1},
                  {"shared_bank.store", 1},
                  {"shared_bank.atomic.add", 1},
                  {"shared_bank.mask.full", 2},
                  {"shared_bank.mask.partial", 1},
                  {"shared_bank.stall", 1},
                  {"shared_bank.back_to_back", 2},
                  {"shared_bank.conflict.degree1", 1},
                  {"shared_bank.conflict.degree2", 1},
                  {"shared_bank.conflict.degree4", 1},
                  {"shared_bank.broadcast.store", 1},
                  {"shared_bank.atomic.same_word", 1},
                  {"shared_bank.broadcast.load", 0},
                  {"shared_bank.mask.empty", 0}});
}

// atom.cas by lanes 0 and 1 on word 9 (zero at power-up), both comparing
// with 0 and swapping in 5: lane 0 runs first and matches (old 0), lane 1
// then finds 5 (no match). One bank, two lanes: 2 passes. A sub-word store
// by one lane (a byte) comes first: store.subword, mask.single, degree1.
TEST(RtlCoverage, SharedBankCasMatchAndMismatchInLaneOrder) {
  BankRequest st = strided_request(BankOp::kStore, 0x1, 0, 100);
  st.be[0] = 0x1;
  BankRequest cas = strided_request(BankOp::kCas, 0x3, 0, 9);
  cas.swap.fill(5);
  const CoverTable t = drive({st, cas}, 12);
  expect_hits(t, {{"shared_bank.store", 1},
                  {"shared_bank.store.subword", 1},
                  {"shared_bank.mask.single", 1},
                  {"shared_bank.atomic.cas", 1},
                  {"shared_bank.mask.partial", 1},
                  {"shared_bank.atomic.same_word", 1},
                  {"shared_bank.atomic.cas_match", 1},
                  {"shared_bank.atomic.cas_mismatch", 1},
                  {"shared_bank.conflict.degree1", 1},
                  {"shared_bank.conflict.degree2", 1},
                  {"shared_bank.stall", 0},
                  {"shared_bank.back_to_back", 1}});
}

}  // namespace tessera::coverage_test
