// RISC-V "V" vector extension 1.0, a subset (docs/vector.md, "ISA"): decoder,
// disassembler and a functional executor over an explicit vector state. No
// SystemC and no timing: the vector unit beside the control cores
// (models/vector) sits on top and owns lanes, chaining and memory timing.
//
// The scalar decode() of isa.h keeps returning Op::kIllegal for these words,
// so a core without a vector unit traps exactly as before; a core with one
// hands the word to decode_vector().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/isa.h"

namespace tessera::isa::vec {

// One value per mnemonic family; the operand form (.vv, .vx, ...) is in
// VInst::form. Loads and stores carry their element width in VInst::eew.
enum class VOp : uint8_t {
  kIllegal,
  // Configuration (spec 6)
  kVsetvli,
  kVsetivli,
  kVsetvl,
  // Loads and stores (spec 7): unit-stride, strided, indexed unordered/ordered
  kVle,
  kVse,
  kVlse,
  kVsse,
  kVluxei,
  kVloxei,
  kVsuxei,
  kVsoxei,
  // Integer arithmetic (spec 11)
  kVadd,
  kVsub,
  kVrsub,
  kVminu,
  kVmin,
  kVmaxu,
  kVmax,
  kVand,
  kVor,
  kVxor,
  kVsll,
  kVsrl,
  kVsra,
  kVnsrl,
  kVnsra,
  kVmseq,
  kVmsne,
  kVmsltu,
  kVmslt,
  kVmsleu,
  kVmsle,
  kVmsgtu,
  kVmsgt,
  kVmul,
  kVmacc,
  kVnmsac,
  kVmadd,
  kVwaddu,
  kVwadd,
  kVwmulu,
  kVwmul,
  kVmerge,  // vmerge.v[vxi]m (vm = 0)
  kVmv,     // vmv.v.[vxi] (the vm = 1 form of vmerge)
  // Single-width floating point, SEW = 32 only (spec 13)
  kVfadd,
  kVfsub,
  kVfmul,
  kVfdiv,
  kVfmacc,
  kVfnmsac,
  kVfmin,
  kVfmax,
  kVmfeq,
  kVmflt,
  kVmfle,
  kVfmvVF,  // vfmv.v.f
  // Reductions (spec 14)
  kVredsum,
  kVredand,
  kVredor,
  kVredxor,
  kVredminu,
  kVredmin,
  kVredmaxu,
  kVredmax,
  kVfredusum,
  kVfredosum,
  // Mask instructions (spec 15)
  kVmandn,
  kVmand,
  kVmor,
  kVmxor,
  kVmorn,
  kVmnand,
  kVmnor,
  kVmxnor,
  kVcpop,
  kVfirst,
  kVid,
  // Permutations (spec 16)
  kVmvXS,
  kVmvSX,
  kVfmvFS,
  kVfmvSF,
  kVslideup,
  kVslidedown,
  kVslide1up,
  kVslide1down,
  kCount
};

// Operand form: what vs1/rs1 is and how wide the operands are.
enum class Form : uint8_t {
  kNone,  // vset*, loads/stores, vmv.x.s-like moves, vcpop/vfirst/vid
  kVV,
  kVX,
  kVI,
  kVF,
  kWV,  // narrowing: vs2 is 2*SEW wide
  kWX,
  kWI,
  kVS,  // reductions: scalar in vs1[0]
  kMM,  // mask logical
};

// The functional-unit class a timing model schedules on.
enum class FuClass : uint8_t {
  kConfig,       // vset*: no lane work
  kAdd,          // integer add/logic/shift/compare/min/max, FP add/compare/min/max/move
  kMul,          // integer and FP multiply and multiply-add
  kDiv,          // FP divide (and square root, when added)
  kLoadStore,    // vector memory unit
  kMaskPermute,  // mask logic, vcpop/vfirst/vid, slides, scalar moves, reductions
};

enum class MemKind : uint8_t { kNone, kUnitStride, kStrided, kIndexedUnordered, kIndexedOrdered };

struct VInst {
  VOp op = VOp::kIllegal;
  Form form = Form::kNone;
  uint8_t vd = 0;       // vd, vs3 of stores, or rd (x or f) of vmv.x.s/vfmv.f.s/vcpop/vfirst/vset*
  uint8_t vs1 = 0;      // vs1, rs1 or fs1 (the raw field)
  uint8_t vs2 = 0;      // vs2, rs2 of vsetvl and of strided accesses (the raw field)
  bool masked = false;  // vm = 0: v0.t
  int32_t imm = 0;      // simm5 / uimm5 (.vi, vsetivli AVL), per the instruction
  uint16_t vtypei = 0;  // vsetvli / vsetivli immediate
  uint8_t eew = 0;      // memory: data EEW (unit/strided) or index EEW (indexed), in bits
  FuClass fu = FuClass::kAdd;
  MemKind mem = MemKind::kNone;
  uint32_t raw = 0;

  bool is_load() const { return op == VOp::kVle || op == VOp::kVlse || op == VOp::kVluxei || op == VOp::kVloxei; }
  bool is_store() const { return op == VOp::kVse || op == VOp::kVsse || op == VOp::kVsuxei || op == VOp::kVsoxei; }
};

// Decodes one 32-bit word of the supported subset; anything else (including
// the scalar instructions) gives op == VOp::kIllegal. Never throws.
VInst decode_vector(uint32_t raw);

// Text identical to GNU objdump 2.40 `-d -M no-aliases` ("vadd.vx\tv1,v2,a0,v0.t").
std::string disassemble(const VInst& inst);

// Mnemonic with its form suffix ("vadd.vv", "vle16.v", "vmv.x.s").
std::string mnemonic(const VInst& inst);

// ---- Architectural state (spec 3) ----

inline constexpr unsigned kElen = 32;  // widest element: SEW 8, 16 and 32 only
inline constexpr uint32_t kVtypeVill = 0x80000000u;

namespace csr {
inline constexpr uint16_t kVstart = 0x008, kVxsat = 0x009, kVxrm = 0x00A, kVcsr = 0x00F;
inline constexpr uint16_t kVl = 0xC20, kVtype = 0xC21, kVlenb = 0xC22;
}  // namespace csr

// vtype fields (spec 3.4).
struct Vtype {
  bool vill = true;
  unsigned sew = 8;    // bits
  unsigned lmul8 = 8;  // LMUL * 8: 1 (mf8) .. 64 (m8)
  bool vta = false, vma = false;
};
// The fields of a vtype value, vill set when this implementation does not
// support it (reserved bits, vlmul 4, SEW above ELEN, SEW > LMUL * ELEN).
Vtype parse_vtype(uint32_t value);

class VectorState {
 public:
  // vlen_bits: a power of two, 64..4096 (throws std::invalid_argument otherwise).
  explicit VectorState(unsigned vlen_bits);

  unsigned vlen() const { return vlen_; }
  unsigned vlenb() const { return vlen_ / 8; }
  // VLMAX = LMUL * VLEN / SEW (spec 3.4.2); 0 while vill.
  unsigned vlmax() const;
  Vtype type() const { return parse_vtype(vtype); }

  // The register file: 32 registers of VLENB bytes, element i of a group
  // at byte i * EEW/8 from the first register's start (spec 4.1).
  uint8_t* reg(unsigned v) { return &file_[v * vlenb()]; }
  const uint8_t* reg(unsigned v) const { return &file_[v * vlenb()]; }
  uint32_t element(unsigned v, unsigned i, unsigned eew) const;
  void set_element(unsigned v, unsigned i, unsigned eew, uint32_t value);
  bool mask_bit(unsigned v, unsigned i) const { return (reg(v)[i / 8] >> (i % 8)) & 1; }
  void set_mask_bit(unsigned v, unsigned i, bool bit);

  // vstart, vl, vtype, vlenb through Zicsr (an ExecEnv forwards its
  // csr_read/csr_write here). vl, vtype and vlenb are read-only.
  bool csr_read(uint16_t csr, uint32_t* value) const;
  bool csr_write(uint16_t csr, uint32_t value);

  uint32_t vl = 0;
  uint32_t vtype = kVtypeVill;  // the reset value recommended by spec 3.11
  uint32_t vstart = 0;

 private:
  unsigned vlen_;
  std::vector<uint8_t> file_;
};

// Memory as the vector unit sees it: n bytes at a guest address.
class VectorMemory {
 public:
  virtual ~VectorMemory() = default;
  virtual MemStatus read(uint32_t addr, unsigned bytes, uint8_t* data) = 0;
  virtual MemStatus write(uint32_t addr, unsigned bytes, const uint8_t* data) = 0;
  // The elements of an unmasked unit-stride access at once: `bytes`
  // contiguous bytes from `addr` (aligned elements of `element_bytes`,
  // in element order). False if this memory does not do it whole (an
  // element would fault, or it works element by element only): then nothing
  // was read or written and the executor makes the accesses one by one, so
  // a fault names its element as before.
  virtual bool read_span(uint32_t /*addr*/, uint32_t /*bytes*/, unsigned /*element_bytes*/, uint8_t* /*data*/) {
    return false;
  }
  virtual bool write_span(uint32_t /*addr*/, uint32_t /*bytes*/, unsigned /*element_bytes*/, const uint8_t* /*data*/) {
    return false;
  }
};

struct VResult {
  Trap trap = Trap::kNone;
  uint32_t fault_addr = 0;  // memory traps: the element's address
  uint32_t element = 0;     // memory traps: the element index (also left in vstart)
};

// Executes one vector instruction. Scalar operands come from and scalar
// results go to `scalar` (x, f and fcsr; the pc is not touched). On an
// illegal instruction nothing changes; on a memory fault the elements before
// the faulting one are done and vstart holds its index (spec 7.7, 3.7).
VResult execute(const VInst& inst, VectorState& state, ThreadState& scalar, VectorMemory& memory);

// ---- Facts for the timing model ----

struct RegGroup {
  uint8_t first = 0;
  uint8_t count = 0;  // 0: unused
};

struct VFacts {
  bool legal = false;  // false: execute() would raise an illegal instruction
  unsigned vl = 0;     // elements the instruction processes (vl, or 1 for scalar moves)
  unsigned sew = 0;
  unsigned lmul8 = 0;  // LMUL * 8
  FuClass fu = FuClass::kAdd;
  MemKind mem = MemKind::kNone;
  RegGroup dst;     // vector destination group (count 0 for scalar or memory results)
  RegGroup src[4];  // vector sources: vs1, vs2, the old vd (multiply-add, slides up), v0 when masked
};

// What the instruction does under the current state (vtype, vl).
VFacts facts(const VInst& inst, const VectorState& state);

}  // namespace tessera::isa::vec
