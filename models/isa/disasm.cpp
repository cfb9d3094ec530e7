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

}  // namespace

const char* reg_name(uint8_t reg) { return reg < kFpRegBase ? x(reg) : f(static_cast<uint8_t>(reg - kFpRegBase)); }

namespace {

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

// A register field's name for its role.
const char* reg(Reg role, uint8_t r) { return is_fp(role) ? f(r) : x(r); }

}  // namespace

std::string disassemble(const Inst& i, uint32_t pc) {
  char buf[96];
  if (static_cast<unsigned>(i.op) >= kOpCount) {
    std::snprintf(buf, sizeof buf, "illegal\t0x%08x", i.raw);
    return buf;
  }
  const OpInfo& o = info(i.op);
  const char* name = o.name;
  switch (o.fmt) {
    case Fmt::kIllegal:
      std::snprintf(buf, sizeof buf, "illegal\t0x%08x", i.raw);
      break;
    case Fmt::kRegs: {
      // The register fields with a role, in order; the name alone when none has one.
      const Reg roles[4] = {o.rd, o.rs1, o.rs2, o.rs3};
      const uint8_t fields[4] = {i.rd, i.rs1, i.rs2, i.rs3};
      int n = std::snprintf(buf, sizeof buf, "%s", name);
      char sep = '\t';
      for (unsigned k = 0; k < 4; ++k) {
        if (roles[k] == Reg::kNone) continue;
        n += std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), "%c%s", sep, reg(roles[k], fields[k]));
        sep = ',';
      }
      if ((o.flags & opflag::kRm) != 0)
        std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), "%s", kRmNames[i.rm & 7]);
      break;
    }
    case Fmt::kU:
      std::snprintf(buf, sizeof buf, "%s\t%s,0x%x", name, x(i.rd), static_cast<uint32_t>(i.imm) >> 12);
      break;
    case Fmt::kJ:
      std::snprintf(buf, sizeof buf, "%s\t%s,0x%x", name, x(i.rd), pc + static_cast<uint32_t>(i.imm));
      break;
    case Fmt::kB:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,0x%x", name, x(i.rs1), x(i.rs2), pc + static_cast<uint32_t>(i.imm));
      break;
    // Wide memory: the first register of each group.
    case Fmt::kLoad:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, reg(o.rd, i.rd), i.imm, x(i.rs1));
      break;
    case Fmt::kStore:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d(%s)", name, reg(o.rs2, i.rs2), i.imm, x(i.rs1));
      break;
    case Fmt::kI:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%d", name, x(i.rd), x(i.rs1), i.imm);
      break;
    case Fmt::kShift:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,0x%x", name, x(i.rd), x(i.rs1), static_cast<unsigned>(i.imm));
      break;
    case Fmt::kFence: {
      char pred[8], succ[8];
      fence_set((i.raw >> 24) & 0xF, pred);
      fence_set((i.raw >> 20) & 0xF, succ);
      std::snprintf(buf, sizeof buf, "%s\t%s,%s", name, pred, succ);
      break;
    }
    case Fmt::kCsr:
    case Fmt::kCsrI: {
      char c[24];
      csr_name(i.csr, c, sizeof c);
      if (o.fmt == Fmt::kCsr) {
        std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s", name, x(i.rd), c, x(i.rs1));
      } else {
        std::snprintf(buf, sizeof buf, "%s\t%s,%s,%d", name, x(i.rd), c, i.imm);
      }
      break;
    }
    case Fmt::kAtomic: {
      const char* aqrl = (o.flags & opflag::kAqRl) != 0 ? kAqRl[i.rm & 3] : "";
      int n = std::snprintf(buf, sizeof buf, "%s%s\t%s,", name, aqrl, x(i.rd));
      if (o.rs2 != Reg::kNone) n += std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), "%s,", x(i.rs2));
      if (o.rs3 != Reg::kNone) n += std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), "%s,", x(i.rs3));
      std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), "(%s)", x(i.rs1));
      break;
    }
    case Fmt::kImm:
      std::snprintf(buf, sizeof buf, "%s\t%d", name, i.imm);
      break;
  }
  return buf;
}

}  // namespace tessera::isa
