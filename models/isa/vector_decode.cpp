// Decoder and disassembler of the RVV 1.0 subset (vector.h). Encodings per
// the RISC-V "V" extension 1.0, section 10 (formats), 7.3-7.6 (memory), 6
// (vset*) and the instruction listing of section 19.
#include <cstdio>
#include <iterator>

#include "isa/vector.h"

namespace tessera::isa::vec {
namespace {

// funct3 of OP-V (spec 10.1): operand category.
enum Category : uint32_t {
  kOpivv = 0,
  kOpfvv = 1,
  kOpmvv = 2,
  kOpivi = 3,
  kOpivx = 4,
  kOpfvf = 5,
  kOpmvx = 6,
  kOpcfg = 7
};

// Which forms of a funct6 exist in one category family.
enum FormBits : uint8_t { kV = 1, kX = 2, kI = 4 };

struct Entry {
  VOp op;
  uint8_t forms;  // FormBits: vv, vx (or vf), vi
  FuClass fu;
};

constexpr Entry kNone{VOp::kIllegal, 0, FuClass::kAdd};

// OPIVV / OPIVX / OPIVI by funct6 (spec 19, "OPI" column).
constexpr Entry opi_entry(uint32_t f6) {
  switch (f6) {
    case 0x00:
      return {VOp::kVadd, kV | kX | kI, FuClass::kAdd};
    case 0x02:
      return {VOp::kVsub, kV | kX, FuClass::kAdd};
    case 0x03:
      return {VOp::kVrsub, kX | kI, FuClass::kAdd};
    case 0x04:
      return {VOp::kVminu, kV | kX, FuClass::kAdd};
    case 0x05:
      return {VOp::kVmin, kV | kX, FuClass::kAdd};
    case 0x06:
      return {VOp::kVmaxu, kV | kX, FuClass::kAdd};
    case 0x07:
      return {VOp::kVmax, kV | kX, FuClass::kAdd};
    case 0x09:
      return {VOp::kVand, kV | kX | kI, FuClass::kAdd};
    case 0x0A:
      return {VOp::kVor, kV | kX | kI, FuClass::kAdd};
    case 0x0B:
      return {VOp::kVxor, kV | kX | kI, FuClass::kAdd};
    case 0x0E:
      return {VOp::kVslideup, kX | kI, FuClass::kMaskPermute};
    case 0x0F:
      return {VOp::kVslidedown, kX | kI, FuClass::kMaskPermute};
    case 0x17:
      return {VOp::kVmerge, kV | kX | kI, FuClass::kAdd};
    case 0x18:
      return {VOp::kVmseq, kV | kX | kI, FuClass::kAdd};
    case 0x19:
      return {VOp::kVmsne, kV | kX | kI, FuClass::kAdd};
    case 0x1A:
      return {VOp::kVmsltu, kV | kX, FuClass::kAdd};
    case 0x1B:
      return {VOp::kVmslt, kV | kX, FuClass::kAdd};
    case 0x1C:
      return {VOp::kVmsleu, kV | kX | kI, FuClass::kAdd};
    case 0x1D:
      return {VOp::kVmsle, kV | kX | kI, FuClass::kAdd};
    case 0x1E:
      return {VOp::kVmsgtu, kX | kI, FuClass::kAdd};
    case 0x1F:
      return {VOp::kVmsgt, kX | kI, FuClass::kAdd};
    case 0x25:
      return {VOp::kVsll, kV | kX | kI, FuClass::kAdd};
    case 0x28:
      return {VOp::kVsrl, kV | kX | kI, FuClass::kAdd};
    case 0x29:
      return {VOp::kVsra, kV | kX | kI, FuClass::kAdd};
    case 0x2C:
      return {VOp::kVnsrl, kV | kX | kI, FuClass::kAdd};
    case 0x2D:
      return {VOp::kVnsra, kV | kX | kI, FuClass::kAdd};
    default:
      return kNone;
  }
}

// OPMVV / OPMVX by funct6 (the special unary encodings are handled apart).
constexpr Entry opm_entry(uint32_t f6) {
  switch (f6) {
    case 0x00:
      return {VOp::kVredsum, kV, FuClass::kMaskPermute};
    case 0x01:
      return {VOp::kVredand, kV, FuClass::kMaskPermute};
    case 0x02:
      return {VOp::kVredor, kV, FuClass::kMaskPermute};
    case 0x03:
      return {VOp::kVredxor, kV, FuClass::kMaskPermute};
    case 0x04:
      return {VOp::kVredminu, kV, FuClass::kMaskPermute};
    case 0x05:
      return {VOp::kVredmin, kV, FuClass::kMaskPermute};
    case 0x06:
      return {VOp::kVredmaxu, kV, FuClass::kMaskPermute};
    case 0x07:
      return {VOp::kVredmax, kV, FuClass::kMaskPermute};
    case 0x0E:
      return {VOp::kVslide1up, kX, FuClass::kMaskPermute};
    case 0x0F:
      return {VOp::kVslide1down, kX, FuClass::kMaskPermute};
    case 0x18:
      return {VOp::kVmandn, kV, FuClass::kMaskPermute};
    case 0x19:
      return {VOp::kVmand, kV, FuClass::kMaskPermute};
    case 0x1A:
      return {VOp::kVmor, kV, FuClass::kMaskPermute};
    case 0x1B:
      return {VOp::kVmxor, kV, FuClass::kMaskPermute};
    case 0x1C:
      return {VOp::kVmorn, kV, FuClass::kMaskPermute};
    case 0x1D:
      return {VOp::kVmnand, kV, FuClass::kMaskPermute};
    case 0x1E:
      return {VOp::kVmnor, kV, FuClass::kMaskPermute};
    case 0x1F:
      return {VOp::kVmxnor, kV, FuClass::kMaskPermute};
    case 0x25:
      return {VOp::kVmul, kV | kX, FuClass::kMul};
    case 0x29:
      return {VOp::kVmadd, kV | kX, FuClass::kMul};
    case 0x2D:
      return {VOp::kVmacc, kV | kX, FuClass::kMul};
    case 0x2F:
      return {VOp::kVnmsac, kV | kX, FuClass::kMul};
    case 0x30:
      return {VOp::kVwaddu, kV | kX, FuClass::kAdd};
    case 0x31:
      return {VOp::kVwadd, kV | kX, FuClass::kAdd};
    case 0x38:
      return {VOp::kVwmulu, kV | kX, FuClass::kMul};
    case 0x3B:
      return {VOp::kVwmul, kV | kX, FuClass::kMul};
    default:
      return kNone;
  }
}

// OPFVV / OPFVF by funct6.
constexpr Entry opf_entry(uint32_t f6) {
  switch (f6) {
    case 0x00:
      return {VOp::kVfadd, kV | kX, FuClass::kAdd};
    case 0x01:
      return {VOp::kVfredusum, kV, FuClass::kMaskPermute};
    case 0x02:
      return {VOp::kVfsub, kV | kX, FuClass::kAdd};
    case 0x03:
      return {VOp::kVfredosum, kV, FuClass::kMaskPermute};
    case 0x04:
      return {VOp::kVfmin, kV | kX, FuClass::kAdd};
    case 0x06:
      return {VOp::kVfmax, kV | kX, FuClass::kAdd};
    case 0x18:
      return {VOp::kVmfeq, kV | kX, FuClass::kAdd};
    case 0x19:
      return {VOp::kVmfle, kV | kX, FuClass::kAdd};
    case 0x1B:
      return {VOp::kVmflt, kV | kX, FuClass::kAdd};
    case 0x20:
      return {VOp::kVfdiv, kV | kX, FuClass::kDiv};
    case 0x24:
      return {VOp::kVfmul, kV | kX, FuClass::kMul};
    case 0x2C:
      return {VOp::kVfmacc, kV | kX, FuClass::kMul};
    case 0x2F:
      return {VOp::kVfnmsac, kV | kX, FuClass::kMul};
    default:
      return kNone;
  }
}

// Shift and slide immediates are unsigned (uimm5); the others sign-extend
// simm5 (spec 11.6, 16.3, 11.7 for vnsrl/vnsra).
constexpr bool unsigned_imm(VOp op) {
  return op == VOp::kVsll || op == VOp::kVsrl || op == VOp::kVsra || op == VOp::kVnsrl || op == VOp::kVnsra ||
         op == VOp::kVslideup || op == VOp::kVslidedown;
}

constexpr bool is_narrowing(VOp op) { return op == VOp::kVnsrl || op == VOp::kVnsra; }

constexpr bool is_reduction(VOp op) {
  return (op >= VOp::kVredsum && op <= VOp::kVredmax) || op == VOp::kVfredusum || op == VOp::kVfredosum;
}

constexpr bool is_mask_logical(VOp op) { return op >= VOp::kVmandn && op <= VOp::kVmxnor; }

VInst& illegal(VInst& i) {
  const uint32_t raw = i.raw;
  i = VInst{};
  i.raw = raw;
  return i;
}

void decode_opv(VInst& i, uint32_t f3, uint32_t f6) {
  const bool vm = !i.masked;
  if (f3 == kOpcfg) {
    i.fu = FuClass::kConfig;
    if ((i.raw >> 31) == 0) {
      i.op = VOp::kVsetvli;
      i.vtypei = static_cast<uint16_t>((i.raw >> 20) & 0x7FF);
    } else if ((i.raw >> 30) == 3) {
      i.op = VOp::kVsetivli;
      i.vtypei = static_cast<uint16_t>((i.raw >> 20) & 0x3FF);
      i.imm = i.vs1;  // uimm5 AVL
    } else if (((i.raw >> 25) & 0x3F) == 0) {
      i.op = VOp::kVsetvl;
    } else {
      illegal(i);
    }
    i.masked = false;
    return;
  }
  // The unary and scalar-move encodings first (spec 19, VWXUNARY0,
  // VRXUNARY0, VMUNARY0, VWFUNARY0, VRFUNARY0).
  if (f6 == 0x10) {
    i.fu = FuClass::kMaskPermute;
    if (f3 == kOpmvv && vm && i.vs1 == 0) {
      i.op = VOp::kVmvXS;
    } else if (f3 == kOpmvv && i.vs1 == 0x10) {
      i.op = VOp::kVcpop;
    } else if (f3 == kOpmvv && i.vs1 == 0x11) {
      i.op = VOp::kVfirst;
    } else if (f3 == kOpmvx && vm && i.vs2 == 0) {
      i.op = VOp::kVmvSX;
    } else if (f3 == kOpfvv && vm && i.vs1 == 0) {
      i.op = VOp::kVfmvFS;
    } else if (f3 == kOpfvf && vm && i.vs2 == 0) {
      i.op = VOp::kVfmvSF;
    } else {
      illegal(i);
    }
    return;
  }
  if (f6 == 0x14 && f3 == kOpmvv) {
    if (i.vs1 != 0x11 || i.vs2 != 0) return void(illegal(i));
    i.op = VOp::kVid;
    i.fu = FuClass::kMaskPermute;
    return;
  }
  if (f6 == 0x17 && f3 == kOpfvf) {  // vfmv.v.f; vfmerge.vfm is not in the subset
    if (!vm || i.vs2 != 0) return void(illegal(i));
    i.op = VOp::kVfmvVF;
    i.form = Form::kVF;
    return;
  }
  Entry e = kNone;
  uint8_t need = 0;
  switch (f3) {
    case kOpivv:
    case kOpivx:
    case kOpivi:
      e = opi_entry(f6);
      need = f3 == kOpivv ? kV : f3 == kOpivx ? kX : kI;
      break;
    case kOpmvv:
    case kOpmvx:
      e = opm_entry(f6);
      need = f3 == kOpmvv ? kV : kX;
      break;
    default:  // kOpfvv, kOpfvf
      e = opf_entry(f6);
      need = f3 == kOpfvv ? kV : kX;
      break;
  }
  if ((e.forms & need) == 0) return void(illegal(i));
  i.op = e.op;
  i.fu = e.fu;
  if (i.op == VOp::kVmerge && vm) {  // vm = 1: vmv.v.[vxi], vs2 must be v0
    if (i.vs2 != 0) return void(illegal(i));
    i.op = VOp::kVmv;
  }
  if (is_mask_logical(i.op) && !vm) return void(illegal(i));
  if (is_narrowing(i.op)) {
    i.form = need == kV ? Form::kWV : need == kX ? Form::kWX : Form::kWI;
  } else if (is_reduction(i.op)) {
    i.form = Form::kVS;
  } else if (is_mask_logical(i.op)) {
    i.form = Form::kMM;
  } else if (f3 == kOpfvf) {
    i.form = Form::kVF;
  } else {
    i.form = need == kV ? Form::kVV : need == kX ? Form::kVX : Form::kVI;
  }
  if (need == kI) i.imm = unsigned_imm(i.op) ? i.vs1 : (static_cast<int32_t>(i.vs1 << 27) >> 27);
}

// LOAD-FP / STORE-FP with a vector width (spec 7.3): nf, mew, mop, vm,
// lumop/rs2/vs2, rs1, width, vd/vs3.
void decode_memory(VInst& i, bool store) {
  const uint32_t width = (i.raw >> 12) & 7;
  const uint32_t mop = (i.raw >> 26) & 3;
  const bool mew = (i.raw >> 28) & 1;
  const uint32_t nf = i.raw >> 29;
  // Widths 0, 5, 6 are EEW 8, 16, 32; EEW 64 exceeds ELEN here. Segments
  // (nf != 0) and mew = 1 are not supported.
  static constexpr uint8_t kEew[8] = {8, 0, 0, 0, 0, 16, 32, 0};
  if (kEew[width] == 0 || mew || nf != 0) return void(illegal(i));
  i.eew = kEew[width];
  i.fu = FuClass::kLoadStore;
  switch (mop) {
    case 0:  // unit stride: lumop/sumop 0 only (no whole-register, mask or fault-only-first forms)
      if (i.vs2 != 0) return void(illegal(i));
      i.op = store ? VOp::kVse : VOp::kVle;
      i.mem = MemKind::kUnitStride;
      break;
    case 1:
      i.op = store ? VOp::kVsuxei : VOp::kVluxei;
      i.mem = MemKind::kIndexedUnordered;
      break;
    case 2:
      i.op = store ? VOp::kVsse : VOp::kVlse;
      i.mem = MemKind::kStrided;
      break;
    default:
      i.op = store ? VOp::kVsoxei : VOp::kVloxei;
      i.mem = MemKind::kIndexedOrdered;
      break;
  }
}

// ---- Disassembly ----

constexpr const char* kXNames[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
                                     "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                                     "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
constexpr const char* kFNames[32] = {"ft0", "ft1", "ft2", "ft3", "ft4",  "ft5",  "ft6", "ft7", "fs0",  "fs1", "fa0",
                                     "fa1", "fa2", "fa3", "fa4", "fa5",  "fa6",  "fa7", "fs2", "fs3",  "fs4", "fs5",
                                     "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};

constexpr const char* kNames[static_cast<unsigned>(VOp::kCount)] = {
    "illegal",  "vsetvli",  "vsetivli",   "vsetvl",    "vle",         "vse",     "vlse",    "vsse",     "vluxei",
    "vloxei",   "vsuxei",   "vsoxei",     "vadd",      "vsub",        "vrsub",   "vminu",   "vmin",     "vmaxu",
    "vmax",     "vand",     "vor",        "vxor",      "vsll",        "vsrl",    "vsra",    "vnsrl",    "vnsra",
    "vmseq",    "vmsne",    "vmsltu",     "vmslt",     "vmsleu",      "vmsle",   "vmsgtu",  "vmsgt",    "vmul",
    "vmacc",    "vnmsac",   "vmadd",      "vwaddu",    "vwadd",       "vwmulu",  "vwmul",   "vmerge",   "vmv",
    "vfadd",    "vfsub",    "vfmul",      "vfdiv",     "vfmacc",      "vfnmsac", "vfmin",   "vfmax",    "vmfeq",
    "vmflt",    "vmfle",    "vfmv.v.f",   "vredsum",   "vredand",     "vredor",  "vredxor", "vredminu", "vredmin",
    "vredmaxu", "vredmax",  "vfredusum",  "vfredosum", "vmandn",      "vmand",   "vmor",    "vmxor",    "vmorn",
    "vmnand",   "vmnor",    "vmxnor",     "vcpop.m",   "vfirst.m",    "vid.v",   "vmv.x.s", "vmv.s.x",  "vfmv.f.s",
    "vfmv.s.f", "vslideup", "vslidedown", "vslide1up", "vslide1down",
};

// The vtype immediate as objdump prints it: symbolic when every field is a
// defined encoding (SEW up to 64, vlmul not 4, no reserved bit), else decimal.
std::string vtype_text(unsigned v) {
  static constexpr const char* kLmul[8] = {"m1", "m2", "m4", "m8", nullptr, "mf8", "mf4", "mf2"};
  const unsigned vsew = (v >> 3) & 7, vlmul = v & 7;
  char buf[40];
  if ((v >> 8) == 0 && vsew < 4 && kLmul[vlmul] != nullptr) {
    std::snprintf(buf, sizeof buf, "e%u,%s,%s,%s", 8u << vsew, kLmul[vlmul], (v & 0x40) ? "ta" : "tu",
                  (v & 0x80) ? "ma" : "mu");
  } else {
    std::snprintf(buf, sizeof buf, "%u", v);
  }
  return buf;
}

// Multiply-add forms print vs1/rs1 before vs2 (spec 11.13: vd, vs1, vs2).
constexpr bool is_multiply_add(VOp op) {
  return op == VOp::kVmacc || op == VOp::kVnmsac || op == VOp::kVmadd || op == VOp::kVfmacc || op == VOp::kVfnmsac;
}

}  // namespace

VInst decode_vector(uint32_t raw) {
  VInst i;
  i.raw = raw;
  i.vd = static_cast<uint8_t>((raw >> 7) & 0x1F);
  i.vs1 = static_cast<uint8_t>((raw >> 15) & 0x1F);
  i.vs2 = static_cast<uint8_t>((raw >> 20) & 0x1F);
  i.masked = ((raw >> 25) & 1) == 0;
  switch (raw & 0x7F) {
    case 0x57:
      decode_opv(i, (raw >> 12) & 7, raw >> 26);
      break;
    case 0x07:
      decode_memory(i, false);
      break;
    case 0x27:
      decode_memory(i, true);
      break;
    default:
      illegal(i);
      break;
  }
  return i;
}

std::string mnemonic(const VInst& i) {
  const char* name = kNames[static_cast<unsigned>(i.op)];
  char buf[32];
  if (i.mem != MemKind::kNone) {
    std::snprintf(buf, sizeof buf, "%s%u.v", name, static_cast<unsigned>(i.eew));
    return buf;
  }
  if (i.op == VOp::kVmv) {
    std::snprintf(buf, sizeof buf, "vmv.v.%s", i.form == Form::kVV ? "v" : i.form == Form::kVX ? "x" : "i");
    return buf;
  }
  if (i.op == VOp::kVmerge) {
    std::snprintf(buf, sizeof buf, "vmerge.%s", i.form == Form::kVV ? "vvm" : i.form == Form::kVX ? "vxm" : "vim");
    return buf;
  }
  static constexpr const char* kSuffix[] = {"", ".vv", ".vx", ".vi", ".vf", ".wv", ".wx", ".wi", ".vs", ".mm"};
  const char* suffix = i.op == VOp::kVfmvVF ? "" : kSuffix[static_cast<unsigned>(i.form)];
  std::snprintf(buf, sizeof buf, "%s%s", name, suffix);
  return buf;
}

std::string disassemble(const VInst& i) {
  if (i.op == VOp::kIllegal) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "illegal\t0x%08x", i.raw);
    return buf;
  }
  const std::string name = mnemonic(i);
  const char* mask = i.masked ? ",v0.t" : "";
  char buf[96];
  // The vs1 operand by form: a vector, an x or f register, or the immediate.
  char src1[16];
  switch (i.form) {
    case Form::kVX:
    case Form::kWX:
      std::snprintf(src1, sizeof src1, "%s", kXNames[i.vs1]);
      break;
    case Form::kVF:
      std::snprintf(src1, sizeof src1, "%s", kFNames[i.vs1]);
      break;
    case Form::kVI:
    case Form::kWI:
      std::snprintf(src1, sizeof src1, "%d", i.imm);
      break;
    default:
      std::snprintf(src1, sizeof src1, "v%u", i.vs1);
      break;
  }
  switch (i.op) {
    case VOp::kVsetvli:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s", name.c_str(), kXNames[i.vd], kXNames[i.vs1],
                    vtype_text(i.vtypei).c_str());
      break;
    case VOp::kVsetivli:
      std::snprintf(buf, sizeof buf, "%s\t%s,%d,%s", name.c_str(), kXNames[i.vd], i.imm, vtype_text(i.vtypei).c_str());
      break;
    case VOp::kVsetvl:
      std::snprintf(buf, sizeof buf, "%s\t%s,%s,%s", name.c_str(), kXNames[i.vd], kXNames[i.vs1], kXNames[i.vs2]);
      break;
    case VOp::kVle:
    case VOp::kVse:
      std::snprintf(buf, sizeof buf, "%s\tv%u,(%s)%s", name.c_str(), i.vd, kXNames[i.vs1], mask);
      break;
    case VOp::kVlse:
    case VOp::kVsse:
      std::snprintf(buf, sizeof buf, "%s\tv%u,(%s),%s%s", name.c_str(), i.vd, kXNames[i.vs1], kXNames[i.vs2], mask);
      break;
    case VOp::kVluxei:
    case VOp::kVloxei:
    case VOp::kVsuxei:
    case VOp::kVsoxei:
      std::snprintf(buf, sizeof buf, "%s\tv%u,(%s),v%u%s", name.c_str(), i.vd, kXNames[i.vs1], i.vs2, mask);
      break;
    case VOp::kVmerge:
      std::snprintf(buf, sizeof buf, "%s\tv%u,v%u,%s,v0", name.c_str(), i.vd, i.vs2, src1);
      break;
    case VOp::kVmv:
      std::snprintf(buf, sizeof buf, "%s\tv%u,%s", name.c_str(), i.vd, src1);
      break;
    case VOp::kVfmvVF:
    case VOp::kVfmvSF:
      std::snprintf(buf, sizeof buf, "%s\tv%u,%s", name.c_str(), i.vd, kFNames[i.vs1]);
      break;
    case VOp::kVmvSX:
      std::snprintf(buf, sizeof buf, "%s\tv%u,%s", name.c_str(), i.vd, kXNames[i.vs1]);
      break;
    case VOp::kVmvXS:
      std::snprintf(buf, sizeof buf, "%s\t%s,v%u", name.c_str(), kXNames[i.vd], i.vs2);
      break;
    case VOp::kVfmvFS:
      std::snprintf(buf, sizeof buf, "%s\t%s,v%u", name.c_str(), kFNames[i.vd], i.vs2);
      break;
    case VOp::kVcpop:
    case VOp::kVfirst:
      std::snprintf(buf, sizeof buf, "%s\t%s,v%u%s", name.c_str(), kXNames[i.vd], i.vs2, mask);
      break;
    case VOp::kVid:
      std::snprintf(buf, sizeof buf, "%s\tv%u%s", name.c_str(), i.vd, mask);
      break;
    default:
      if (is_multiply_add(i.op)) {
        std::snprintf(buf, sizeof buf, "%s\tv%u,%s,v%u%s", name.c_str(), i.vd, src1, i.vs2, mask);
      } else {
        std::snprintf(buf, sizeof buf, "%s\tv%u,v%u,%s%s", name.c_str(), i.vd, i.vs2, src1, mask);
      }
      break;
  }
  return buf;
}

}  // namespace tessera::isa::vec
