// The kernel record (models/isa/kernel_record.h) of hand-written kernels
// (kernel_record_kernels.S): every figure below is counted from that file's
// text, not taken from the tool's output.
#include "isa/kernel_record.h"

#include <gtest/gtest.h>

#include <map>

#include "isa/elf_loader.h"

namespace tessera::isa {
namespace {

const KernelRecord& kernel(const KernelTable& t, const std::string& name) {
  for (const KernelRecord& k : t.kernels)
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name);
}

class KernelRecordTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { table_ = new KernelTable(analyse_kernels(KINFO_KERNELS_ELF)); }
  static void TearDownTestSuite() {
    delete table_;
    table_ = nullptr;
  }
  static KernelTable* table_;
};
KernelTable* KernelRecordTest::table_ = nullptr;

TEST_F(KernelRecordTest, ListsExactlyTheMarkedKernels) {
  std::map<std::string, int> names;
  for (const KernelRecord& k : table_->kernels) ++names[k.name];
  EXPECT_EQ(names, (std::map<std::string, int>{{"leaf_k", 1},
                                               {"caller_k", 1},
                                               {"tail_k", 1},
                                               {"indirect_k", 1},
                                               {"bounded_k", 1},
                                               {"maxrreg_k", 1},
                                               {"recursive_k", 1},
                                               {"big_frame_k", 1},
                                               {"jr_k", 1},
                                               {"switch_k", 1}}));  // not helper, not main
  const ElfImage image = load_elf(KINFO_KERNELS_ELF);
  EXPECT_EQ(kernel(*table_, "caller_k").entry, image.symbol("caller_k").value());
}

TEST_F(KernelRecordTest, LeafCountsDistinctXAndFRegisters) {
  const KernelRecord& k = kernel(*table_, "leaf_k");
  EXPECT_EQ(k.registers_used, 6u);  // a0 a1 ra + fa0 fa1 fa2
  EXPECT_EQ(k.registers, 6u);
  EXPECT_EQ(k.stack_bytes, 0u);
  EXPECT_EQ(k.shared_bytes, 0u);
}

TEST_F(KernelRecordTest, CallGraphUnionsRegistersStackAndSharedWindow) {
  const KernelRecord& k = kernel(*table_, "caller_k");
  EXPECT_EQ(k.registers, 8u);           // sp ra a5 a0 t0 t1 t2 + ft0
  EXPECT_EQ(k.stack_bytes, 48u);        // 32 + helper's 16
  EXPECT_EQ(k.shared_lo, 0x20000100u);  // tile_a
  EXPECT_EQ(k.shared_bytes, 0xA0u);     // to tile_b's end 0x200001a0
}

TEST_F(KernelRecordTest, TailCallIsFollowedAndWindowStartsAt128) {
  const KernelRecord& k = kernel(*table_, "tail_k");
  EXPECT_EQ(k.registers, 7u);  // a0 + sp t0 t1 t2 ra + ft0
  EXPECT_EQ(k.stack_bytes, 16u);
  EXPECT_EQ(k.shared_lo, 0x20000180u);  // tile_b only
  EXPECT_EQ(k.shared_bytes, 32u);
}

TEST_F(KernelRecordTest, IndirectCallCountsAllRegistersAndSaysWhy) {
  const KernelRecord& k = kernel(*table_, "indirect_k");
  EXPECT_EQ(k.registers, 64u);
  ASSERT_FALSE(k.notes.empty());
  EXPECT_NE(k.notes.front().find("indirect call"), std::string::npos) << k.notes.front();
}

TEST_F(KernelRecordTest, JrIsAnIndirectTailCallUnlessAJumpTablePointsIntoTheFunction) {
  const KernelRecord& jr = kernel(*table_, "jr_k");
  EXPECT_EQ(jr.registers, 64u);
  ASSERT_FALSE(jr.notes.empty());
  EXPECT_NE(jr.notes.front().find("indirect tail call"), std::string::npos) << jr.notes.front();
  const KernelRecord& sw = kernel(*table_, "switch_k");
  EXPECT_EQ(sw.registers, 3u);  // a0 a5 ra
  EXPECT_TRUE(sw.notes.empty());
}

TEST_F(KernelRecordTest, LaunchBoundsGiveTheLimitAndMaxrregCaps) {
  const KernelRecord& b = kernel(*table_, "bounded_k");
  EXPECT_EQ(b.max_threads, 1024u);
  EXPECT_EQ(b.min_blocks, 2u);
  EXPECT_EQ(b.register_limit, 32u);  // 65536 / (2 * 1024)
  EXPECT_EQ(b.registers, 1u);        // ra
  const KernelRecord& m = kernel(*table_, "maxrreg_k");
  EXPECT_EQ(m.maxrreg, 4u);
  EXPECT_EQ(m.registers_used, 7u);  // a0..a5 ra
  EXPECT_EQ(m.registers, 4u);
  EXPECT_EQ(describe(m), "kernel 'maxrreg_k': 4 registers, 0 bytes static shared, 0 bytes stack, maxrreg 4");
}

TEST_F(KernelRecordTest, RecursionAndRegisterFramesAreCounted) {
  const KernelRecord& r = kernel(*table_, "recursive_k");
  EXPECT_EQ(r.registers, 3u);
  EXPECT_EQ(r.stack_bytes, 16u);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.front().find("calls itself"), std::string::npos);
  const KernelRecord& f = kernel(*table_, "big_frame_k");
  EXPECT_EQ(f.registers, 3u);  // t0 sp ra
  EXPECT_EQ(f.stack_bytes, 8192u);
}

TEST_F(KernelRecordTest, TesseraCcStoresTheRecordTheLoaderReads) {
  const ElfImage image = load_elf(KINFO_KERNELS_ELF);
  ASSERT_TRUE(image.has_kernel_record);
  ASSERT_EQ(image.kernels.kernels.size(), table_->kernels.size());
  const KernelRecord* k = image.kernels.find(image.symbol("caller_k").value());
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name, "caller_k");
  EXPECT_EQ(k->registers, 8u);
  EXPECT_EQ(k->shared_bytes, 0xA0u);
}

TEST(KernelRecord, JsonRoundTrip) {
  KernelTable t;
  KernelRecord k;
  k.name = "sgemm";
  k.entry = 0x80000100;
  k.registers = k.registers_used = 23;
  k.shared_lo = 0x20000080;
  k.shared_bytes = 8192;
  k.stack_bytes = 48;
  k.max_threads = 256;
  k.min_blocks = 2;
  k.register_limit = 64;
  k.notes = {"a note"};
  t.kernels.push_back(k);
  const KernelTable back = kernels_from_json(kernels_to_json(t));
  ASSERT_EQ(back.kernels.size(), 1u);
  EXPECT_EQ(kernels_to_json(back), kernels_to_json(t));
  EXPECT_EQ(describe(back.kernels[0]),
            "kernel 'sgemm': 23 registers, 8192 bytes static shared, 48 bytes stack, __launch_bounds__(256, 2)");
}

TEST(KernelRecord, BadJsonIsAnError) {
  EXPECT_THROW(kernels_from_json("{"), KernelRecordError);
  EXPECT_THROW(kernels_from_json(R"({"version": 2, "kernels": []})"), KernelRecordError);
  EXPECT_THROW(kernels_from_json(R"({"version": 1, "kernels": [{"name": "k"}]})"), KernelRecordError);
}

TEST(KernelRecord, LaunchBoundsRegisterLimit) {
  EXPECT_EQ(launch_bounds_register_limit(0, 0, 65536), 0u);      // none
  EXPECT_EQ(launch_bounds_register_limit(1024, 2, 65536), 32u);  // 65536 / 2048
  EXPECT_EQ(launch_bounds_register_limit(256, 2, 65536), 96u);   // 128, capped at 96 (f registers as pairs)
  EXPECT_EQ(launch_bounds_register_limit(100, 8, 65536), 64u);   // 65536 / (8 * 128) = 64
  EXPECT_EQ(launch_bounds_register_limit(100, 9, 65536), 56u);   // 65536 / (9 * 128) = 56.9
  EXPECT_EQ(launch_bounds_register_limit(512, 0, 16384), 32u);   // min blocks 0 counts as 1
}

TEST(KernelRecord, NotAnElfIsAnErrorNamingTheFile) {
  try {
    analyse_kernels(ISA_TEXT_FILE);
    FAIL() << "no error";
  } catch (const KernelRecordError& e) {
    EXPECT_NE(std::string(e.what()).find(ISA_TEXT_FILE), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera::isa
