// The hardware-transaction instructions (custom-3, opcode 0x7B), assembled
// by binutils from the .insn forms of docs/firmware-abi.md (htm_insns.S):
// each word is the one the encoding table gives, decodes to the right Op and
// operands and disassembles to our syntax; the reserved neighbours are
// illegal; the shared executor refuses every tx.* (only the control cores
// run transactions) with a report that says so; the abort status layout.
#include <gtest/gtest.h>

#include "isa/isa.h"
#include "isa/trap_report.h"
#include "unit/isa/isa_test_util.h"
#include "unit/isa/objdump_text.h"

namespace tessera::isa::htm_insn_test {
namespace {

using test::enc::csr;
using test::enc::i;
using test::enc::r;

struct Expected {
  uint32_t word;  // from the encoding table of docs/firmware-abi.md, by hand
  Op op;
  uint8_t rd;
  int32_t imm;
  uint16_t csr;
  uint8_t dst;
  const char* text;
};

// In the order of htm_insns.S. a0=10 a1=11 a2=12 a5=15 ra=1 s11=27 t6=31.
constexpr uint8_t N = kNoReg;
constexpr Expected kExpected[] = {
    {r(0x7B, 0, 0, 10, 0, 0), Op::kTxBegin, 10, 0, 0, 10, "tx.begin\ta0"},
    {r(0x7B, 0, 0, 31, 0, 0), Op::kTxBegin, 31, 0, 0, 31, "tx.begin\tt6"},
    {r(0x7B, 0, 0, 1, 0, 0), Op::kTxBegin, 1, 0, 0, 1, "tx.begin\tra"},
    {r(0x7B, 0, 0, 0, 0, 0), Op::kTxBegin, 0, 0, 0, N, "tx.begin\tzero"},
    {r(0x7B, 1, 0, 0, 0, 0), Op::kTxEnd, 0, 0, 0, N, "tx.end"},
    {i(0x7B, 2, 0, 0, 0), Op::kTxAbort, 0, 0, 0, N, "tx.abort\t0"},
    {i(0x7B, 2, 0, 0, 1), Op::kTxAbort, 0, 1, 0, N, "tx.abort\t1"},
    {i(0x7B, 2, 0, 0, 7), Op::kTxAbort, 0, 7, 0, N, "tx.abort\t7"},
    {i(0x7B, 2, 0, 0, 255), Op::kTxAbort, 0, 255, 0, N, "tx.abort\t255"},
    {r(0x7B, 3, 0, 10, 0, 0), Op::kTxTest, 10, 0, 0, 10, "tx.test\ta0"},
    {r(0x7B, 3, 0, 27, 0, 0), Op::kTxTest, 27, 0, 0, 27, "tx.test\ts11"},
    {csr(1, 11, 0x8C0, 12), Op::kCsrrw, 11, 0, 0x8C0, 11, "csrrw\ta1,txlogbase,a2"},
    {csr(2, 15, 0x8C1, 0), Op::kCsrrs, 15, 0, 0x8C1, 15, "csrrs\ta5,txlogsize,zero"},
    {csr(5, 0, 0x8C2, 1), Op::kCsrrwi, 0, 1, 0x8C2, N, "csrrwi\tzero,txfallback,1"},
};

TEST(HtmInsn, BinutilsWordsMatchTheDocumentedEncodings) {
  const auto lines = test::read_objdump(ISA_HTM_INSNS_OBJDUMP);
  ASSERT_EQ(lines.size(), std::size(kExpected));
  for (size_t n = 0; n < lines.size(); ++n) {
    SCOPED_TRACE(lines[n].source);
    EXPECT_EQ(lines[n].word, kExpected[n].word);
  }
  // Spot checks of the table itself: tx.begin a0 = 0x0000057b, tx.abort 255
  // = 0x0ff0207b (imm 0xFF in bits 31:20).
  EXPECT_EQ(kExpected[0].word, 0x0000057Bu);
  EXPECT_EQ(kExpected[8].word, 0x0FF0207Bu);
}

TEST(HtmInsn, DocumentedEncodingsDecodeAndDisassemble) {
  const auto lines = test::read_objdump(ISA_HTM_INSNS_OBJDUMP);
  ASSERT_EQ(lines.size(), std::size(kExpected));
  for (size_t n = 0; n < lines.size(); ++n) {
    const Expected& e = kExpected[n];
    SCOPED_TRACE(lines[n].source);
    const Inst in = decode(lines[n].word);
    EXPECT_EQ(in.op, e.op);
    EXPECT_EQ(in.rd, e.rd);
    EXPECT_EQ(in.imm, e.imm);
    EXPECT_EQ(in.dst, e.dst);
    EXPECT_EQ(disassemble(in, lines[n].addr), e.text);
    if (is_tx_op(e.op)) {
      EXPECT_EQ(in.rs1, 0);
      EXPECT_EQ(in.src[0], kNoReg);
      EXPECT_EQ(in.src[1], kNoReg);
      EXPECT_EQ(in.unit, Unit::kCtrl);
      EXPECT_FALSE(in.is_load || in.is_store || in.is_control);
      EXPECT_EQ(in.mem_bytes, 0);
    } else {
      EXPECT_EQ(in.csr, e.csr);
    }
  }
}

TEST(HtmInsn, OpNamesAndTxOps) {
  EXPECT_STREQ(op_name(Op::kTxBegin), "tx.begin");
  EXPECT_STREQ(op_name(Op::kTxEnd), "tx.end");
  EXPECT_STREQ(op_name(Op::kTxAbort), "tx.abort");
  EXPECT_STREQ(op_name(Op::kTxTest), "tx.test");
  EXPECT_TRUE(is_tx_op(Op::kTxBegin) && is_tx_op(Op::kTxTest));
  EXPECT_FALSE(is_tx_op(Op::kMembarCta) || is_tx_op(Op::kCsrrw) || is_tx_op(Op::kIllegal));
  EXPECT_TRUE(csr::is_tx_csr(0x8C0) && csr::is_tx_csr(0x8C2));
  EXPECT_FALSE(csr::is_tx_csr(0x8BF) || csr::is_tx_csr(0x8C3));
}

TEST(HtmInsn, ReservedNeighboursAreIllegal) {
  const uint32_t illegal[] = {
      r(0x7B, 0, 1, 10, 0, 0),     // tx.begin with funct7 1
      r(0x7B, 0, 0x40, 10, 0, 0),  // tx.begin with funct7 0x40
      r(0x7B, 0, 0, 10, 11, 0),    // tx.begin with rs1 != 0
      r(0x7B, 0, 0, 10, 0, 12),    // tx.begin with rs2 != 0
      r(0x7B, 1, 0, 0, 11, 0),     // tx.end with rs1 != 0
      r(0x7B, 1, 0, 0, 0, 12),     // tx.end with rs2 != 0
      r(0x7B, 1, 0, 10, 0, 0),     // tx.end with rd != 0
      r(0x7B, 1, 2, 0, 0, 0),      // tx.end with funct7 2
      i(0x7B, 2, 10, 0, 7),        // tx.abort with rd != 0
      i(0x7B, 2, 0, 11, 7),        // tx.abort with rs1 != 0
      i(0x7B, 2, 0, 0, 256),       // tx.abort code 256
      i(0x7B, 2, 0, 0, 2047),      // tx.abort code 2047
      i(0x7B, 2, 0, 0, -1),        // tx.abort code -1 (imm 0xFFF)
      r(0x7B, 3, 1, 10, 0, 0),     // tx.test with funct7 1
      r(0x7B, 3, 0, 10, 11, 0),    // tx.test with rs1 != 0
      r(0x7B, 3, 0, 10, 0, 1),     // tx.test with rs2 != 0
      r(0x7B, 4, 0, 0, 0, 0),      // funct3 4..7 are reserved
      r(0x7B, 5, 0, 10, 0, 0),    r(0x7B, 6, 0, 0, 0, 0), r(0x7B, 7, 0, 10, 11, 12),
  };
  for (uint32_t w : illegal) {
    const Inst in = decode(w);
    EXPECT_EQ(in.op, Op::kIllegal) << std::hex << w << " decoded as " << op_name(in.op);
    EXPECT_EQ(in.raw, w);
    EXPECT_EQ(in.dst, kNoReg);
    EXPECT_EQ(in.imm, 0);
  }
}

// ---- the shared executor (SM threads) ----

TEST(HtmInsn, ExecutorRefusesEveryTxInstructionAndChangesNothing) {
  for (const uint32_t w :
       {r(0x7B, 0, 0, 10, 0, 0), r(0x7B, 1, 0, 0, 0, 0), i(0x7B, 2, 0, 0, 7), r(0x7B, 3, 0, 10, 0, 0)}) {
    test::Harness h;
    h.t.x[10] = 0x1234;
    const ThreadState before = h.t;
    const ExecResult res = h.run(w);
    EXPECT_EQ(res.trap, Trap::kTransactional) << std::hex << w;
    EXPECT_TRUE(same_state(h.t, before)) << std::hex << w;
    EXPECT_EQ(h.env.loads + h.env.stores + h.env.csr_reads + h.env.csr_writes, 0);
  }
  EXPECT_STREQ(trap_name(Trap::kTransactional), "transactional instruction");
}

TEST(HtmInsn, TransactionalCsrsRefusedByTheEnvironmentSayWhereTheyLive) {
  test::Harness h;  // its environment has no CSR 0x8C0..0x8C2, as an SM thread
  h.t.x[12] = 0x80001000u;
  EXPECT_EQ(h.run(csr(2, 15, 0x8C1, 0)).trap, Trap::kTransactional);       // csrr a5, txlogsize
  EXPECT_EQ(h.run(csr(1, 0, 0x8C0, 12)).trap, Trap::kTransactional);       // csrw txlogbase, a2
  EXPECT_EQ(h.run(csr(5, 0, 0x8C2, 1)).trap, Trap::kTransactional);        // csrwi txfallback, 1
  EXPECT_EQ(h.run(csr(2, 15, 0x8C3, 0)).trap, Trap::kIllegalInstruction);  // not one of them
  // An environment that has them (a control core) reads and writes them.
  h.env.csrs[0x8C1] = 4096;
  h.env.csr_writable[0x8C0] = true;
  h.step(csr(2, 15, 0x8C1, 0));
  EXPECT_EQ(h.t.x[15], 4096u);
  h.step(csr(1, 0, 0x8C0, 12));
  EXPECT_EQ(h.env.csrs[0x8C0], 0x80001000u);
}

TEST(HtmInsn, TrapReportSaysTransactionsRunOnTheControlCores) {
  const Inst in = decode(r(0x7B, 0, 0, 10, 0, 0));
  ExecResult res;
  res.trap = Trap::kTransactional;
  EXPECT_EQ(describe_trap(in, res, 0x80000100u, true, "in kernels"),
            "tx.begin\ta0: transactions run on the control cores only (HTM lives in the cluster's L1 caches)");
  const Inst abort7 = decode(i(0x7B, 2, 0, 0, 7));
  EXPECT_EQ(describe_trap(abort7, res, 0x80000104u, true, "in kernels"),
            "tx.abort\t7: transactions run on the control cores only (HTM lives in the cluster's L1 caches)");
}

// ---- abort status (tx.begin's rd after an abort) ----

TEST(HtmInsn, AbortStatusLayout) {
  using tx::AbortReason;
  // Bits 7:0 the reason, 15:8 the code (explicit only), bit 16 retry.
  EXPECT_EQ(tx::abort_status(AbortReason::kExplicit, 0), 0x00001u);
  EXPECT_EQ(tx::abort_status(AbortReason::kExplicit, 7), 0x00701u);
  EXPECT_EQ(tx::abort_status(AbortReason::kExplicit, 255), 0x0FF01u);
  EXPECT_EQ(tx::abort_status(AbortReason::kConflictRw), 0x10002u);
  EXPECT_EQ(tx::abort_status(AbortReason::kConflictWr), 0x10003u);
  EXPECT_EQ(tx::abort_status(AbortReason::kConflictWw), 0x10004u);
  EXPECT_EQ(tx::abort_status(AbortReason::kCapacity), 0x00005u);
  EXPECT_EQ(tx::abort_status(AbortReason::kMmio), 0x00006u);
  EXPECT_EQ(tx::abort_status(AbortReason::kNesting), 0x00007u);
  EXPECT_EQ(tx::abort_status(AbortReason::kLogOverflow), 0x00008u);
  // A code given with another reason is not part of the status.
  EXPECT_EQ(tx::abort_status(AbortReason::kCapacity, 9), 0x00005u);
  EXPECT_EQ(tx::status_reason(0x10004u), 4u);
  EXPECT_EQ(tx::status_reason(0x0FF01u), 1u);
  EXPECT_EQ(tx::status_reason(0u), 0u);
  EXPECT_EQ(tx::status_reason(9u), 0u);
  EXPECT_STREQ(tx::abort_reason_name(AbortReason::kConflictWr), "conflict_wr");
  EXPECT_STREQ(tx::abort_reason_name(AbortReason::kLogOverflow), "log_overflow");
  EXPECT_EQ(tx::kLogEntryBytes, 8u);
}

}  // namespace
}  // namespace tessera::isa::htm_insn_test
