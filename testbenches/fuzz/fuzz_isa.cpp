// Instruction harness: decode, disassemble and execute one 32-bit word on a
// scratch architectural state whose memory is a 256-byte sandbox reached only
// through the ExecEnv callbacks. Checked for every word:
//  - decode is total and deterministic; the disassembly names the op;
//  - the memory callbacks see only what the decoder announced (is_load,
//    is_store, mem_bytes), naturally aligned, with store values that fit;
//  - a fault leaves registers, pc and memory unchanged; an instruction that
//    is not a control transfer advances the pc by 4;
//  - the scoreboard view is complete: only Inst::dst is written, and a
//    register outside Inst::src cannot change the outcome;
//  - the untracked (SM) and fflags-tracking (control core) executors agree
//    on everything but the accrued flags.
// Input: word (4 bytes), perturbed register index (1), perturbation (4), x1..x31,
// f0..f31 (4 each), fcsr (1), pc (4), sandbox bytes (256); missing bytes are 0.
#include <cstring>
#include <string>

#include "fuzz_util.h"
#include "isa/isa.h"

namespace {

using namespace tessera::isa;
using tessera::fuzz::check;

constexpr uint32_t kSandboxBase = 0;
constexpr uint32_t kSandboxBytes = 256;
constexpr uint16_t kScratchCsr = 0x800;  // a user read/write CSR of this environment

bool is_ldg(Op op) { return op >= Op::kLdgB && op <= Op::kLdgHu; }

class SandboxEnv : public ExecEnv {
 public:
  explicit SandboxEnv(const Inst& inst) : inst_(inst) {}

  uint8_t mem[kSandboxBytes] = {};
  uint32_t scratch_csr = 0;

  MemStatus load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) override {
    check(inst_.is_load, "load callback for an instruction the decoder says does not load");
    check_access(addr, bytes);
    check(read_only == is_ldg(inst_.op), "read_only flag differs from the op being an LDG");
    if (!inside(addr, bytes)) return MemStatus::kAccessFault;
    uint32_t v = 0;
    std::memcpy(&v, mem + (addr - kSandboxBase), bytes);
    *value = v;
    return MemStatus::kOk;
  }
  MemStatus store(uint32_t addr, unsigned bytes, uint32_t value) override {
    check(inst_.is_store, "store callback for an instruction the decoder says does not store");
    check_access(addr, bytes);
    check(bytes == 4 || (value >> (8 * bytes)) == 0, "store value wider than the access");
    if (!inside(addr, bytes)) return MemStatus::kAccessFault;
    std::memcpy(mem + (addr - kSandboxBase), &value, bytes);
    return MemStatus::kOk;
  }
  // Wide loads and stores and the 64-bit atomics: 8 or 16 bytes at once.
  MemStatus load_wide(uint32_t addr, unsigned bytes, uint32_t* words) override {
    check(inst_.is_load, "wide load callback for an instruction the decoder says does not load");
    check_wide(addr, bytes);
    if (!inside(addr, bytes)) return MemStatus::kAccessFault;
    std::memcpy(words, mem + (addr - kSandboxBase), bytes);
    return MemStatus::kOk;
  }
  MemStatus store_wide(uint32_t addr, unsigned bytes, const uint32_t* words) override {
    check(inst_.is_store, "wide store callback for an instruction the decoder says does not store");
    check_wide(addr, bytes);
    if (!inside(addr, bytes)) return MemStatus::kAccessFault;
    std::memcpy(mem + (addr - kSandboxBase), words, bytes);
    return MemStatus::kOk;
  }
  MemStatus load_reserved(uint32_t addr, uint32_t* value) override {
    check(inst_.op == Op::kLrW && inst_.is_load, "load_reserved callback outside lr.w");
    check_access(addr, 4);
    if (!inside(addr, 4)) return MemStatus::kAccessFault;
    std::memcpy(value, mem + (addr - kSandboxBase), 4);
    reserved_ = true;
    reserved_addr_ = addr;
    return MemStatus::kOk;
  }
  MemStatus store_conditional(uint32_t addr, uint32_t value, bool* success) override {
    check(inst_.op == Op::kScW && inst_.is_store, "store_conditional callback outside sc.w");
    check_access(addr, 4);
    if (!inside(addr, 4)) return MemStatus::kAccessFault;
    *success = reserved_ && reserved_addr_ == addr;
    if (*success) std::memcpy(mem + (addr - kSandboxBase), &value, 4);
    reserved_ = false;
    return MemStatus::kOk;
  }
  bool csr_read(uint16_t csr, uint32_t* value) override {
    if (csr == kScratchCsr) {
      *value = scratch_csr;
      return true;
    }
    // Counters and the Tessera SIMT CSRs read as a constant of their number.
    const bool known = csr == csr::kCycle || csr == csr::kTime || csr == csr::kInstret || csr == csr::kCycleh ||
                       csr == csr::kTimeh || csr == csr::kInstreth || csr == csr::kMhartid ||
                       (csr >= csr::kTidX && csr <= csr::kSharedBytes);
    if (known) *value = 0x1000u + csr;
    return known;
  }
  bool csr_write(uint16_t csr, uint32_t value) override {
    check((csr >> 10) != 3, "write callback for a read-only CSR");
    if (csr != kScratchCsr) return false;
    scratch_csr = value;
    return true;
  }

 private:
  static bool inside(uint32_t addr, unsigned bytes) {
    return addr >= kSandboxBase && uint64_t{addr} - kSandboxBase + bytes <= kSandboxBytes;
  }
  void check_access(uint32_t addr, unsigned bytes) const {
    check(bytes == 1 || bytes == 2 || bytes == 4, "access size other than 1, 2 or 4 bytes");
    const unsigned announced = inst_.mem_bytes;
    check(bytes == announced, "access size differs from Inst::mem_bytes");
    check(addr % bytes == 0, "misaligned address reached the memory callback");
  }
  void check_wide(uint32_t addr, unsigned bytes) const {
    check(bytes == 8 || bytes == 16, "wide access size other than 8 or 16 bytes");
    // A register group moves 4 bytes a register; fld/fsd one 8-byte f register.
    const bool doubleword = inst_.group == 1 && (inst_.op == Op::kFld || inst_.op == Op::kFsd);
    check(bytes == inst_.mem_bytes && (bytes == 4u * inst_.group || (doubleword && bytes == 8)),
          "wide access size differs from Inst::mem_bytes");
    check(addr % bytes == 0, "misaligned address reached the wide memory callback");
  }
  const Inst& inst_;
  bool reserved_ = false;
  uint32_t reserved_addr_ = 0;
};

struct Outcome {
  ThreadState t;
  uint8_t mem[kSandboxBytes];
  uint32_t scratch_csr;
  ExecResult r;
};

template <bool kTrack>
Outcome run(const Inst& inst, const ThreadState& start, const uint8_t* mem) {
  SandboxEnv env(inst);
  std::memcpy(env.mem, mem, kSandboxBytes);
  Outcome o;
  o.t = start;
  o.r = execute<kTrack>(inst, o.t, env);
  std::memcpy(o.mem, env.mem, kSandboxBytes);
  o.scratch_csr = env.scratch_csr;
  return o;
}

// Register in the scoreboard's 0..63 space.
// Whether register r (0..63) is in the group of `group` registers from base.
bool in_group(uint8_t base, unsigned group, unsigned r) { return base != kNoReg && r >= base && r < base + group; }

uint64_t reg(const ThreadState& t, unsigned r) { return r < 32 ? t.x[r] : t.fd(r - 32); }
void set_reg(ThreadState& t, unsigned r, uint64_t v) {
  if (r < 32) {
    t.x[r] = static_cast<uint32_t>(v);
  } else {
    t.set_fd(r - 32, v);
  }
}

bool same_inst(const Inst& a, const Inst& b) {
  return a.op == b.op && a.rd == b.rd && a.rs1 == b.rs1 && a.rs2 == b.rs2 && a.rs3 == b.rs3 && a.rm == b.rm &&
         a.csr == b.csr && a.imm == b.imm && a.raw == b.raw && a.unit == b.unit && a.dst == b.dst &&
         std::memcmp(a.src, b.src, sizeof a.src) == 0 && a.mem_bytes == b.mem_bytes && a.is_load == b.is_load &&
         a.is_store == b.is_store && a.is_control == b.is_control && a.group == b.group;
}

bool writes_fcsr(Op op) {
  const bool csr_op = op >= Op::kCsrrw && op <= Op::kCsrrci;
  const bool f_op = (op >= Op::kFlw && op <= Op::kFmvWX) || (op >= Op::kFld && op <= Op::kFcvtDWu);
  return csr_op || f_op;
}

std::string describe(const Inst& inst) {
  char word[16];
  std::snprintf(word, sizeof word, "0x%08x", inst.raw);
  return std::string(word) + " (" + disassemble(inst, 0) + ")";
}

void check_outcome(const Inst& inst, const ThreadState& start, const uint8_t* mem, const Outcome& o) {
  const auto what = [&inst] { return describe(inst); };
  const bool mem_same = std::memcmp(o.mem, mem, kSandboxBytes) == 0;
  switch (o.r.trap) {
    case Trap::kIllegalInstruction:
    case Trap::kLoadMisaligned:
    case Trap::kLoadAccessFault:
    case Trap::kStoreMisaligned:
    case Trap::kStoreAccessFault:
    case Trap::kInstructionMisaligned:
    case Trap::kEcall:
    case Trap::kEbreak:
    case Trap::kTransactional:
      check(same_state(o.t, start) && mem_same, [&] { return what() + ": a trap changed registers, pc or memory"; });
      return;
    case Trap::kBarrier:
    case Trap::kThreadExit:
    case Trap::kWfi: {
      ThreadState expect = start;
      expect.pc = start.pc + 4;
      check(same_state(o.t, expect) && mem_same,
            [&] { return what() + ": barrier/exit/wfi changed more than the pc"; });
      return;
    }
    case Trap::kNone:
      break;
  }
  check(inst.op != Op::kIllegal, [&] { return what() + ": an illegal word executed without a trap"; });
  check(inst.is_control || o.t.pc == start.pc + 4,
        [&] { return what() + ": pc moved by other than 4 without is_control"; });
  check(inst.is_store || mem_same, [&] { return what() + ": memory changed without is_store"; });
  check(writes_fcsr(inst.op) || o.t.fcsr == start.fcsr,
        [&] { return what() + ": fcsr changed by a non-F, non-CSR op"; });
  for (unsigned r = 0; r < 64; ++r) {
    if (in_group(inst.dst, inst.group, r)) continue;
    check(reg(o.t, r) == reg(start, r),
          [&] { return what() + ": wrote register " + std::to_string(r) + " that is not in Inst::dst's group"; });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The largest input taken: the word, the perturbed register and its 8-byte
  // delta, x1..x31, f0..f31 as doubles, fcsr, pc, the sandbox memory.
  uint8_t in[4 + 1 + 8 + 31 * 4 + 32 * 8 + 1 + 4 + kSandboxBytes] = {};
  std::memcpy(in, data, size < sizeof in ? size : sizeof in);
  const uint8_t* p = in;
  const auto take32 = [&p] {
    uint32_t v;
    std::memcpy(&v, p, 4);
    p += 4;
    return v;
  };
  const uint32_t word = take32();
  const unsigned perturb_reg = 1 + *p++ % 63;  // x1..x31, f0..f31
  uint64_t delta = take32();
  if (delta == 0) delta = 1;
  if (perturb_reg >= 32) delta |= uint64_t{take32()} << 32;  // the upper half of an f register matters too
  ThreadState start;
  for (unsigned r = 1; r < 32; ++r) start.x[r] = take32();
  // f registers: NaN-boxed singles, or doubles (any 64 bits) when the
  // low bit of the first word is set.
  for (unsigned r = 0; r < 32; ++r) {
    const uint32_t lo = take32();
    start.set_fd(r, (lo & 1) != 0 ? uint64_t{take32()} << 32 | lo : fp::box(lo));
  }
  start.fcsr = *p++;
  start.pc = take32();
  const uint8_t* mem = p;

  const Inst inst = decode(word);
  check(inst.raw == word, "Inst::raw differs from the decoded word");
  const Inst again = decode(word);
  check(same_inst(inst, again), "decode is not deterministic");
  const std::string text = disassemble(inst, start.pc);
  check(!text.empty(), "empty disassembly");
  const std::string name = op_name(inst.op);
  check(text.compare(0, name.size(), name) == 0,
        [&] { return "disassembly '" + text + "' does not start with " + name; });

  const Outcome tracked = run<true>(inst, start, mem);
  check_outcome(inst, start, mem, tracked);
  const Outcome fast = run<false>(inst, start, mem);
  check_outcome(inst, start, mem, fast);
  const auto what = [&inst] { return describe(inst); };
  check(tracked.r.trap == fast.r.trap && tracked.r.fault_addr == fast.r.fault_addr,
        [&] { return what() + ": the two executors trap differently"; });
  ThreadState a = tracked.t, b = fast.t;
  a.fcsr &= ~0x1Fu;
  b.fcsr &= ~0x1Fu;
  check(same_state(a, b) && std::memcmp(tracked.mem, fast.mem, kSandboxBytes) == 0,
        [&] { return what() + ": the fflags-tracking and the untracked executor give different results"; });

  // A register the scoreboard does not list as a source cannot change the
  // outcome (else the SM would issue before that register is ready).
  bool is_src = false;
  for (unsigned k = 0; k < 3; ++k) is_src = is_src || in_group(inst.src[k], k == 0 ? 1 : inst.group, perturb_reg);
  if (!is_src) {
    ThreadState start2 = start;
    set_reg(start2, perturb_reg, reg(start, perturb_reg) ^ delta);
    const Outcome o2 = run<true>(inst, start2, mem);
    check(o2.r.trap == tracked.r.trap && o2.r.fault_addr == tracked.r.fault_addr, [&] {
      return what() + ": register " + std::to_string(perturb_reg) + ", not in Inst::src, changed the trap";
    });
    check(std::memcmp(o2.mem, tracked.mem, kSandboxBytes) == 0 && o2.scratch_csr == tracked.scratch_csr, [&] {
      return what() + ": register " + std::to_string(perturb_reg) + ", not in Inst::src, changed memory or a CSR";
    });
    ThreadState expect = tracked.t;
    const bool written = tracked.r.trap == Trap::kNone && in_group(inst.dst, inst.group, perturb_reg);
    if (!written) set_reg(expect, perturb_reg, reg(start2, perturb_reg));
    check(same_state(o2.t, expect), [&] {
      return what() + ": register " + std::to_string(perturb_reg) + ", not in Inst::src, changed the result";
    });
  }
  return 0;
}
