// Golden test: for every instruction of all_forms.S, our decoder accepts the
// word and our disassembler prints exactly what GNU objdump prints.
#include <gtest/gtest.h>

#include <set>

#include "isa/isa.h"
#include "unit/isa/objdump_text.h"

namespace tessera::isa {
namespace {

// objdump prints branch and jump targets as bare hex ("1c <back>"); ours are
// "0x1c" (isa.h). Everything else must match character for character.
std::string expected_text(const test::ObjdumpLine& l) {
  static const std::set<std::string> kPcRelative = {"jal", "beq", "bne", "blt", "bge", "bltu", "bgeu"};
  std::string ops = l.operands;
  if (kPcRelative.count(l.mnemonic) != 0) {
    const auto comma = ops.rfind(',');
    ops.insert(comma + 1, "0x");
  }
  return ops.empty() ? l.mnemonic : l.mnemonic + "\t" + ops;
}

TEST(Golden, EveryFormMatchesObjdump) {
  const auto lines = test::read_objdump(ISA_ALL_FORMS_OBJDUMP);
  // all_forms.S has several hundred instructions; a parse failure must not pass silently.
  ASSERT_GT(lines.size(), 700u);
  std::set<Op> seen;
  for (const auto& l : lines) {
    SCOPED_TRACE(l.source);
    ASSERT_NE(l.mnemonic.rfind(".", 0), 0u) << "objdump did not recognise an instruction of all_forms.S";
    const Inst inst = decode(l.word);
    EXPECT_NE(inst.op, Op::kIllegal);
    EXPECT_EQ(inst.raw, l.word);
    EXPECT_EQ(disassemble(inst, l.addr), expected_text(l));
    seen.insert(inst.op);
  }
  // Every standard instruction appears at least once (the Tessera ones are
  // covered by custom_insn_test.cpp).
  for (unsigned op = 1; op < static_cast<unsigned>(Op::kSfuSin); ++op) {
    EXPECT_EQ(seen.count(static_cast<Op>(op)), 1u) << "all_forms.S lacks " << op_name(static_cast<Op>(op));
  }
}

}  // namespace
}  // namespace tessera::isa
