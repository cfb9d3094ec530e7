// Transactions on an SM thread (docs/firmware-abi.md, "Transactional memory
// (control cores)"): every tx.* instruction, and tessera_tx_begin() from
// tessera_htm.h (whose first instruction reads csr txlogsize), stops the run
// with a guest fault (status 3) that says transactions run on the control
// cores only, naming the instruction, its pc and the thread; the kernel
// never runs to its end.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "isa/elf_loader.h"
#include "tessera_run.h"

using tessera::test::run_tessera;

namespace {

constexpr const char* kWhy = "transactions run on the control cores only (HTM lives in the cluster's L1 caches)";

std::string fw(int form) { return fmt::format("{}/htm_tx_on_sm_{}.elf", FW_DIR, form); }
std::string platform(const std::string& name) { return std::string(PLATFORM_DIR) + "/" + name + ".yaml"; }

// The fault of lane 0 of the only block (the lowest lane faults first).
void expect_fault(int form, const std::string& text) {
  SCOPED_TRACE(fw(form));
  const auto elf = tessera::isa::load_elf(fw(form));
  const auto site = elf.symbol("htm_tx_site");
  ASSERT_TRUE(site.has_value());
  const auto r = run_tessera({"run", platform("sm1"), fw(form)});
  EXPECT_EQ(r.status, 3);
  const std::string all = r.out + r.err;
  // The pc (htm_tx_site, tx_kernel's first instruction) named by its
  // function and line, then the thread.
  const std::string want = fmt::format("{}: {} at pc 0x{:08x} in tx_kernel (tx_on_sm.c:", text, kWhy, *site);
  EXPECT_NE(all.find(want), std::string::npos) << "expected: " << want << "\n" << all;
  EXPECT_NE(all.find("), warp slot 0 (block (0,0,0) warp 0), thread (0,0,0) lane 0"), std::string::npos) << all;
  EXPECT_EQ(all.find("ran to the end"), std::string::npos) << all;
}

TEST(HtmIsa, TxBeginOnAnSmThreadIsAFault) { expect_fault(0, "tx.begin\ta0"); }
TEST(HtmIsa, TxEndOnAnSmThreadIsAFault) { expect_fault(1, "tx.end"); }
TEST(HtmIsa, TxAbortOnAnSmThreadIsAFault) { expect_fault(2, "tx.abort\t7"); }
TEST(HtmIsa, TxTestOnAnSmThreadIsAFault) { expect_fault(3, "tx.test\ta0"); }

// The undo-log area (16 cores x 4 KiB after .bss, not zeroed) and the
// counters are linked only into programs that use transactions: the others
// keep their image, with the heap right after .bss.
TEST(HtmIsa, OnlyProgramsUsingTheApiLinkTheUndoLogs) {
  const auto plain = tessera::isa::load_elf(fw(0));  // inline asm only
  EXPECT_FALSE(plain.symbol("__tessera_tx_log").has_value());
  EXPECT_FALSE(plain.symbol("__tessera_tx_counters").has_value());
  EXPECT_FALSE(plain.symbol("__tessera_tx_log_setup").has_value());
  EXPECT_EQ(plain.symbol("__heap_start"), plain.symbol("__bss_end"));

  for (const char* name : {"htm_api", "htm_api_O0"}) {
    SCOPED_TRACE(name);
    const auto elf = tessera::isa::load_elf(fmt::format("{}/{}.elf", FW_DIR, name));
    const auto log = elf.symbol("__tessera_tx_log");
    const auto bss_end = elf.symbol("__bss_end");
    const auto counters = elf.symbol("__tessera_tx_counters");
    ASSERT_TRUE(log && bss_end && counters && elf.symbol("__tessera_tx_log_setup"));
    EXPECT_EQ(*log, (*bss_end + 63u) & ~63u);  // after .bss, 64-byte aligned
    EXPECT_EQ(elf.symbol("__heap_start"), *log + 16u * 4096u);
    EXPECT_EQ(*counters % 64u, 0u);  // a line per core
    EXPECT_LT(*counters, *bss_end);  // zeroed at start-up
    // Nothing of the log is in the file: it is never loaded.
    for (const auto& seg : elf.segments) EXPECT_LE(seg.addr + seg.bytes.size(), *log);
  }
}

// The firmware API's first instruction is the read of txlogsize: the same
// fault, on the CSR.
TEST(HtmIsa, FirmwareTxBeginOnAnSmThreadIsAFault) {
  const auto r = run_tessera({"run", platform("sm1"), fw(4)});
  EXPECT_EQ(r.status, 3);
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find(fmt::format(",txlogsize,zero: {} at pc 0x", kWhy)), std::string::npos) << all;
  EXPECT_NE(all.find("thread (0,0,0) lane 0"), std::string::npos) << all;
  EXPECT_EQ(all.find("ran to the end"), std::string::npos) << all;
}

}  // namespace
