// Disassembler producing the text of GNU objdump 2.40 `-d -M no-aliases` for
// rv32imaf (checked against objdump by testbenches/unit/isa/golden_test.cpp),
// plus our own syntax for the Tessera custom instructions.
#include <cstdio>

#include "isa/isa.h"

namespace tessera::isa {
namespace {

constexpr const char* kXNames[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
                                     "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                                     "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
constexpr const char* kFNames[32] = {"ft0", "ft1", "ft2", "ft3", "ft4",  "ft5",  "ft6", "ft7", "fs0",  "fs1", "fa0",
                                     "fa1", "fa2", "fa3", "fa4", "fa5",  "fa6",  "fa7", "fs2", "fs3",  "fs4", "fs5",
                                     "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
constexpr const char* kRmNames[8] = {",rne", ",rtz", ",rdn", ",rup", ",rmm", ",rm5", ",rm6", ""};

const char* x(uint8_t r) { return kXNames[r & 31]; }
const char* f(uint8_t r) { return kFNames[r & 31]; }

// Names objdump (default privileged spec 1.11) gives the CSRs an RV32 core may
// plausibly touch; any other number prints as hex, like objdump does for
// CSRs it does not know.
struct CsrName {
  uint16_t number;
  const char* name;
};
constexpr CsrName kCsrNames[] = {
    {0x000, "ustatus"},
    {0x001, "fflags"},
    {0x002, "frm"},
    {0x003, "fcsr"},
    {0x008, "vstart"},
    {0x009, "vxsat"},
    {0x00A, "vxrm"},
    {0x00F, "vcsr"},
    {0x004, "uie"},
    {0x005, "utvec"},
    {0x040, "uscratch"},
    {0x041, "uepc"},
    {0x042, "ucause"},
    {0x043, "utval"},
    {0x044, "uip"},
    {0x100, "sstatus"},
    {0x102, "sedeleg"},
    {0x103, "sideleg"},
    {0x104, "sie"},
    {0x105, "stvec"},
    {0x106, "scounteren"},
    {0x140, "sscratch"},
    {0x141, "sepc"},
    {0x142, "scause"},
    {0x143, "stval"},
    {0x144, "sip"},
    {0x180, "satp"},
    {0x300, "mstatus"},
    {0x301, "misa"},
    {0x302, "medeleg"},
    {0x303, "mideleg"},
    {0x304, "mie"},
    {0x305, "mtvec"},
    {0x306, "mcounteren"},
    {0x320, "mcountinhibit"},
    {0x340, "mscratch"},
    {0x341, "mepc"},
    {0x342, "mcause"},
    {0x343, "mtval"},
    {0x344, "mip"},
    {0x3A0, "pmpcfg0"},
    {0x3A1, "pmpcfg1"},
    {0x3A2, "pmpcfg2"},
    {0x3A3, "pmpcfg3"},
    {0x7A0, "tselect"},
    {0x7A1, "tdata1"},
    {0x7A2, "tdata2"},
    {0x7A3, "tdata3"},
    {0x7A4, "tinfo"},
    {0x7A5, "tcontrol"},
    {0x7A8, "mcontext"},
    {0x7AA, "mscontext"},
    {0x7B0, "dcsr"},
    {0x7B1, "dpc"},
    {0x7B2, "dscratch0"},
    {0x7B3, "dscratch1"},
    {0xB00, "mcycle"},
    {0xB02, "minstret"},
    {0xB80, "mcycleh"},
    {0xB82, "minstreth"},
    {0xC00, "cycle"},
    {0xC01, "time"},
    {0xC02, "instret"},
    {0xC80, "cycleh"},
    {0xC81, "timeh"},
    {0xC82, "instreth"},
    {0xC20, "vl"},
    {0xC21, "vtype"},
    {0xC22, "vlenb"},
    {0xF11, "mvendorid"},
    {0xF12, "marchid"},
    {0xF13, "mimpid"},
    {0xF14, "mhartid"},
    // Tessera's own (docs/firmware-abi.md): objdump prints these as numbers.
    {0x8C0, "txlogbase"},
    {0x8C1, "txlogsize"},
    {0x8C2, "txfallback"},
};

// Writes the CSR's name (or hex number) into buf.
void csr_name(uint16_t csr, char* buf, size_t size) {
  for (const CsrName& c : kCsrNames) {
    if (c.number == csr) {
      std::snprintf(buf, size, "%s", c.name);
      return;
    }
  }
  // Numbered families: hpmcounter3..31(h), mhpmcounter3..31(h), mhpmevent3..31, pmpaddr0..15.
  const unsigned lo = csr & 0x1F;
  const unsigned fam = csr & ~0x1Fu;
  if (lo >= 3) {
    const char* prefix = nullptr;
    const char* suffix = "";
    switch (fam) {
      case 0xC00:
        prefix = "hpmcounter";
        break;
      case 0xC80:
        prefix = "hpmcounter";
        suffix = "h";
        break;
      case 0xB00:
        prefix = "mhpmcounter";
        break;
      case 0xB80:
        prefix = "mhpmcounter";
        suffix = "h";
        break;
      case 0x320:
        prefix = "mhpmevent";
        break;
      default:
        break;
    }
    if (prefix != nullptr) {
      std::snprintf(buf, size, "%s%u%s", prefix, lo, suffix);
      return;
    }
  }
  if (csr >= 0x3B0 && csr <= 0x3BF) {
    std::snprintf(buf, size, "pmpaddr%u", csr - 0x3B0u);
    return;
  }
  std::snprintf(buf, size, "0x%x", csr);
}

// FENCE predecessor/successor set: "iorw" letters, "unknown" when empty (objdump).
void fence_set(unsigned bits, char* buf) {
  if (bits == 0) {
    std::snprintf(buf, 8, "unknown");
    return;
  }
  char* p = buf;
  if (bits & 8) *p++ = 'i';
  if (bits & 4) *p++ = 'o';
  if (bits & 2) *p++ = 'r';
  if (bits & 1) *p++ = 'w';
  *p = '\0';
}

constexpr const char* kAqRl[4] = {"", ".rl", ".aq", ".aqrl"};

}  // namespace

std::string disassemble(const Inst& i, uint32_t pc) {
  char buf[96];
  const char* name = op_name(i.op);
  const char* rm = kRmNames[i.rm & 7];
  switch (i.op) {
    case Op::kIllegal:
      std::snprintf(buf, sizeof buf, "illegal\t0x%08x", i.raw);
      break;
    case Op::kLui:
    case Op::kAuipc:
      std::snprintf(buf, sizeof buf, "%s\t%s,0x%x", name, x(i.rd), static_cast<uint32_t>(i.imm) >> 12);
      break;
    case Op::kJal:
      std::snprintf(buf, sizeof buf, "%s\t%s,0x%x", name, x(i.rd), pc + static_cast<uint32_t>(i.imm));
      break;
    case Op::kBeq:
    case Op::kBne:
    case Op::kBlt:
    case Op::kBge:
    case Op::kBltu:
    case Op::kBgeu:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,0x%x", name, x(i.rs1), x(i.rs2), pc + static_cast<uint32_t>(i.imm));
      break;
    case Op::kJalr:
    case Op::kLb:
    case Op::kLh:
    case Op::kLw:
    case Op::kLbu:
    case Op::kLhu:
    case Op::kLdgB:
    case Op::kLdgH:
    case Op::kLdgW:
    case Op::kLdgBu:
    case Op::kLdgHu:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, x(i.rd), i.imm, x(i.rs1));
      break;
    case Op::kSb:
    case Op::kSh:
    case Op::kSw:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, x(i.rs2), i.imm, x(i.rs1));
      break;
    case Op::kAddi:
    case Op::kSlti:
    case Op::kSltiu:
    case Op::kXori:
    case Op::kOri:
    case Op::kAndi:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%d", name, x(i.rd), x(i.rs1), i.imm);
      break;
    case Op::kSlli:
    case Op::kSrli:
    case Op::kSrai:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,0x%x", name, x(i.rd), x(i.rs1), static_cast<unsigned>(i.imm));
      break;
    case Op::kAdd:
    case Op::kSub:
    case Op::kSll:
    case Op::kSlt:
    case Op::kSltu:
    case Op::kXor:
    case Op::kSrl:
    case Op::kSra:
    case Op::kOr:
    case Op::kAnd:
    case Op::kMul:
    case Op::kMulh:
    case Op::kMulhsu:
    case Op::kMulhu:
    case Op::kDiv:
    case Op::kDivu:
    case Op::kRem:
    case Op::kRemu:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s", name, x(i.rd), x(i.rs1), x(i.rs2));
      break;
    case Op::kFence: {
      char pred[8], succ[8];
      fence_set((i.raw >> 24) & 0xF, pred);
      fence_set((i.raw >> 20) & 0xF, succ);
      std::snprintf(buf, sizeof buf, "fence\t%s,%s", pred, succ);
      break;
    }
    case Op::kFenceTso:
    case Op::kFenceI:
    case Op::kEcall:
    case Op::kEbreak:
    case Op::kWfi:
    case Op::kBarSync:
    case Op::kExit:
      return name;
    case Op::kCsrrw:
    case Op::kCsrrs:
    case Op::kCsrrc: {
      char c[24];
      csr_name(i.csr, c, sizeof c);
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s", name, x(i.rd), c, x(i.rs1));
      break;
    }
    case Op::kCsrrwi:
    case Op::kCsrrsi:
    case Op::kCsrrci: {
      char c[24];
      csr_name(i.csr, c, sizeof c);
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%d", name, x(i.rd), c, i.imm);
      break;
    }
    case Op::kLrW:
      std::snprintf(buf, sizeof buf, "%s%s\t%s,(%s)", name, kAqRl[i.rm & 3], x(i.rd), x(i.rs1));
      break;
    case Op::kScW:
    case Op::kAmoswapW:
    case Op::kAmoaddW:
    case Op::kAmoxorW:
    case Op::kAmoandW:
    case Op::kAmoorW:
    case Op::kAmominW:
    case Op::kAmomaxW:
    case Op::kAmominuW:
    case Op::kAmomaxuW:
      std::snprintf(buf, sizeof buf, "%s%s\t%s,%s,(%s)", name, kAqRl[i.rm & 3], x(i.rd), x(i.rs2), x(i.rs1));
      break;
    case Op::kFlw:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, f(i.rd), i.imm, x(i.rs1));
      break;
    case Op::kFsw:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, f(i.rs2), i.imm, x(i.rs1));
      break;
    case Op::kFmaddS:
    case Op::kFmsubS:
    case Op::kFnmsubS:
    case Op::kFnmaddS:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s,%s%s", name, f(i.rd), f(i.rs1), f(i.rs2), f(i.rs3), rm);
      break;
    case Op::kFaddS:
    case Op::kFsubS:
    case Op::kFmulS:
    case Op::kFdivS:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s%s", name, f(i.rd), f(i.rs1), f(i.rs2), rm);
      break;
    case Op::kFsqrtS:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s%s", name, f(i.rd), f(i.rs1), rm);
      break;
    case Op::kFsgnjS:
    case Op::kFsgnjnS:
    case Op::kFsgnjxS:
    case Op::kFminS:
    case Op::kFmaxS:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s", name, f(i.rd), f(i.rs1), f(i.rs2));
      break;
    case Op::kFcvtWS:
    case Op::kFcvtWuS:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s%s", name, x(i.rd), f(i.rs1), rm);
      break;
    case Op::kFcvtSW:
    case Op::kFcvtSWu:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s%s", name, f(i.rd), x(i.rs1), rm);
      break;
    case Op::kFmvXW:
    case Op::kFclassS:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s", name, x(i.rd), f(i.rs1));
      break;
    case Op::kFmvWX:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s", name, f(i.rd), x(i.rs1));
      break;
    case Op::kFeqS:
    case Op::kFltS:
    case Op::kFleS:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s", name, x(i.rd), f(i.rs1), f(i.rs2));
      break;
    case Op::kSfuSin:
    case Op::kSfuCos:
    case Op::kSfuEx2:
    case Op::kSfuLg2:
    case Op::kSfuRcp:
    case Op::kSfuRsqrt:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s", name, f(i.rd), f(i.rs1));
      break;
    case Op::kAtomFadd:
    case Op::kAtomInc:
    case Op::kAtomDec:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,(%s)", name, x(i.rd), x(i.rs2), x(i.rs1));
      break;
    case Op::kAtomCas:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s,(%s)", name, x(i.rd), x(i.rs2), x(i.rs3), x(i.rs1));
      break;
    // Wide memory and 64-bit atomics: the first register of each group.
    case Op::kLdV2:
    case Op::kLdV4:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, x(i.rd), i.imm, x(i.rs1));
      break;
    case Op::kFldV2:
    case Op::kFldV4:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, f(i.rd), i.imm, x(i.rs1));
      break;
    case Op::kStV2:
    case Op::kStV4:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, x(i.rs2), i.imm, x(i.rs1));
      break;
    case Op::kFstV2:
    case Op::kFstV4:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, f(i.rs2), i.imm, x(i.rs1));
      break;
    case Op::kAtomAdd64:
    case Op::kAtomExch64:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,(%s)", name, x(i.rd), x(i.rs2), x(i.rs1));
      break;
    case Op::kAtomCas64:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s,(%s)", name, x(i.rd), x(i.rs2), x(i.rs3), x(i.rs1));
      break;
    // Warp-level SIMT instructions.
    case Op::kShflIdx:
    case Op::kShflUp:
    case Op::kShflDown:
    case Op::kShflXor:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s,%s", name, x(i.rd), x(i.rs1), x(i.rs2), x(i.rs3));
      break;
    case Op::kVoteBallot:
    case Op::kVoteAny:
    case Op::kVoteAll:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s", name, x(i.rd), x(i.rs1), x(i.rs2));
      break;
    case Op::kActivemask:
      std::snprintf(buf, sizeof buf, "%s\t%s", name, x(i.rd));
      break;
    case Op::kSyncwarp:
      std::snprintf(buf, sizeof buf, "%s\t%s", name, x(i.rs1));
      break;
    case Op::kBarRedPopc:
    case Op::kBarRedAnd:
    case Op::kBarRedOr:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s", name, x(i.rd), x(i.rs1));
      break;
    case Op::kMembarCta:
    case Op::kTxEnd:
      return name;
    case Op::kTxBegin:
    case Op::kTxTest:
      std::snprintf(buf, sizeof buf, "%s\t%s", name, x(i.rd));
      break;
    case Op::kTxAbort:
      std::snprintf(buf, sizeof buf, "%s\t%d", name, i.imm);
      break;
    case Op::kCount:
      std::snprintf(buf, sizeof buf, "illegal\t0x%08x", i.raw);
      break;
  }
  return buf;
}

}  // namespace tessera::isa
