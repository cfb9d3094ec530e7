// Decodes and disassembles every one of the 2^32 instruction words and checks
// each against an independent table of the encodings: the MATCH/MASK pairs of
// the RISC-V unprivileged spec 20191213 chapter 24 (as riscv-opcodes lists
// them) and the Tessera custom encodings of docs/firmware-abi.md. A word must
// decode to the one instruction whose pattern it matches (FENCE.TSO before
// the general FENCE; F instructions with a rounding-mode field need a valid
// rm, not 5 or 6), or to kIllegal when none matches. Also checked for every
// word: Inst::raw, the operand view (no x0 in dst/src, register numbers below
// 64, access sizes only on memory ops) and the disassembly (names the op;
// "illegal\t0x<word>" for illegal words).
//
// Not a CTest: a full sweep takes minutes (docs/validation.md, "Fuzzing").
//   isa_sweep [--threads N] [--first W --last W]   (exit status 1 on a mismatch)
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "isa/isa.h"

namespace {

using namespace tessera::isa;

struct Pattern {
  uint32_t match, mask;
  Op op;
  bool needs_rm;  // bits 14:12 are a rounding mode: 5 and 6 are reserved
};

// clang-format off
constexpr Pattern kPatterns[] = {
    // RV32I
    {0x00000037, 0x0000007f, Op::kLui, false},     {0x00000017, 0x0000007f, Op::kAuipc, false},
    {0x0000006f, 0x0000007f, Op::kJal, false},     {0x00000067, 0x0000707f, Op::kJalr, false},
    {0x00000063, 0x0000707f, Op::kBeq, false},     {0x00001063, 0x0000707f, Op::kBne, false},
    {0x00004063, 0x0000707f, Op::kBlt, false},     {0x00005063, 0x0000707f, Op::kBge, false},
    {0x00006063, 0x0000707f, Op::kBltu, false},    {0x00007063, 0x0000707f, Op::kBgeu, false},
    {0x00000003, 0x0000707f, Op::kLb, false},      {0x00001003, 0x0000707f, Op::kLh, false},
    {0x00002003, 0x0000707f, Op::kLw, false},      {0x00004003, 0x0000707f, Op::kLbu, false},
    {0x00005003, 0x0000707f, Op::kLhu, false},     {0x00000023, 0x0000707f, Op::kSb, false},
    {0x00001023, 0x0000707f, Op::kSh, false},      {0x00002023, 0x0000707f, Op::kSw, false},
    {0x00000013, 0x0000707f, Op::kAddi, false},    {0x00002013, 0x0000707f, Op::kSlti, false},
    {0x00003013, 0x0000707f, Op::kSltiu, false},   {0x00004013, 0x0000707f, Op::kXori, false},
    {0x00006013, 0x0000707f, Op::kOri, false},     {0x00007013, 0x0000707f, Op::kAndi, false},
    {0x00001013, 0xfe00707f, Op::kSlli, false},    {0x00005013, 0xfe00707f, Op::kSrli, false},
    {0x40005013, 0xfe00707f, Op::kSrai, false},    {0x00000033, 0xfe00707f, Op::kAdd, false},
    {0x40000033, 0xfe00707f, Op::kSub, false},     {0x00001033, 0xfe00707f, Op::kSll, false},
    {0x00002033, 0xfe00707f, Op::kSlt, false},     {0x00003033, 0xfe00707f, Op::kSltu, false},
    {0x00004033, 0xfe00707f, Op::kXor, false},     {0x00005033, 0xfe00707f, Op::kSrl, false},
    {0x40005033, 0xfe00707f, Op::kSra, false},     {0x00006033, 0xfe00707f, Op::kOr, false},
    {0x00007033, 0xfe00707f, Op::kAnd, false},
    {0x8330000f, 0xfff0707f, Op::kFenceTso, false},  // listed before FENCE, which it also matches
    {0x0000000f, 0x0000707f, Op::kFence, false},
    {0x00000073, 0xffffffff, Op::kEcall, false},   {0x00100073, 0xffffffff, Op::kEbreak, false},
    // Zifencei, Zicsr, WFI
    {0x0000100f, 0x0000707f, Op::kFenceI, false},
    {0x00001073, 0x0000707f, Op::kCsrrw, false},   {0x00002073, 0x0000707f, Op::kCsrrs, false},
    {0x00003073, 0x0000707f, Op::kCsrrc, false},   {0x00005073, 0x0000707f, Op::kCsrrwi, false},
    {0x00006073, 0x0000707f, Op::kCsrrsi, false},  {0x00007073, 0x0000707f, Op::kCsrrci, false},
    {0x10500073, 0xffffffff, Op::kWfi, false},
    // M
    {0x02000033, 0xfe00707f, Op::kMul, false},     {0x02001033, 0xfe00707f, Op::kMulh, false},
    {0x02002033, 0xfe00707f, Op::kMulhsu, false},  {0x02003033, 0xfe00707f, Op::kMulhu, false},
    {0x02004033, 0xfe00707f, Op::kDiv, false},     {0x02005033, 0xfe00707f, Op::kDivu, false},
    {0x02006033, 0xfe00707f, Op::kRem, false},     {0x02007033, 0xfe00707f, Op::kRemu, false},
    // A
    {0x1000202f, 0xf9f0707f, Op::kLrW, false},     {0x1800202f, 0xf800707f, Op::kScW, false},
    {0x0800202f, 0xf800707f, Op::kAmoswapW, false},{0x0000202f, 0xf800707f, Op::kAmoaddW, false},
    {0x2000202f, 0xf800707f, Op::kAmoxorW, false}, {0x6000202f, 0xf800707f, Op::kAmoandW, false},
    {0x4000202f, 0xf800707f, Op::kAmoorW, false},  {0x8000202f, 0xf800707f, Op::kAmominW, false},
    {0xa000202f, 0xf800707f, Op::kAmomaxW, false}, {0xc000202f, 0xf800707f, Op::kAmominuW, false},
    {0xe000202f, 0xf800707f, Op::kAmomaxuW, false},
    // F
    {0x00002007, 0x0000707f, Op::kFlw, false},     {0x00002027, 0x0000707f, Op::kFsw, false},
    {0x00000043, 0x0600007f, Op::kFmaddS, true},   {0x00000047, 0x0600007f, Op::kFmsubS, true},
    {0x0000004b, 0x0600007f, Op::kFnmsubS, true},  {0x0000004f, 0x0600007f, Op::kFnmaddS, true},
    {0x00000053, 0xfe00007f, Op::kFaddS, true},    {0x08000053, 0xfe00007f, Op::kFsubS, true},
    {0x10000053, 0xfe00007f, Op::kFmulS, true},    {0x18000053, 0xfe00007f, Op::kFdivS, true},
    {0x58000053, 0xfff0007f, Op::kFsqrtS, true},   {0x20000053, 0xfe00707f, Op::kFsgnjS, false},
    {0x20001053, 0xfe00707f, Op::kFsgnjnS, false}, {0x20002053, 0xfe00707f, Op::kFsgnjxS, false},
    {0x28000053, 0xfe00707f, Op::kFminS, false},   {0x28001053, 0xfe00707f, Op::kFmaxS, false},
    {0xc0000053, 0xfff0007f, Op::kFcvtWS, true},   {0xc0100053, 0xfff0007f, Op::kFcvtWuS, true},
    {0xe0000053, 0xfff0707f, Op::kFmvXW, false},   {0xa0002053, 0xfe00707f, Op::kFeqS, false},
    {0xa0001053, 0xfe00707f, Op::kFltS, false},    {0xa0000053, 0xfe00707f, Op::kFleS, false},
    {0xe0001053, 0xfff0707f, Op::kFclassS, false}, {0xd0000053, 0xfff0007f, Op::kFcvtSW, true},
    {0xd0100053, 0xfff0007f, Op::kFcvtSWu, true},  {0xf0000053, 0xfff0707f, Op::kFmvWX, false},
    // Tessera custom-0 (0x0B): .insn r 0x0B, 0, f7, frd, frs1, f0 and .insn r 0x0B, 1, f7, x0, x0, x0
    {0x0000000b, 0xfff0707f, Op::kSfuSin, false},  {0x0200000b, 0xfff0707f, Op::kSfuCos, false},
    {0x0400000b, 0xfff0707f, Op::kSfuEx2, false},  {0x0600000b, 0xfff0707f, Op::kSfuLg2, false},
    {0x0800000b, 0xfff0707f, Op::kSfuRcp, false},  {0x0a00000b, 0xfff0707f, Op::kSfuRsqrt, false},
    {0x0000100b, 0xffffffff, Op::kBarSync, false}, {0x0200100b, 0xffffffff, Op::kExit, false},
    // Tessera custom-1 (0x2B): .insn i 0x2B, f3 (ldg), .insn r 0x2B, 6, f7, .insn r4 0x2B, 7, 0
    {0x0000002b, 0x0000707f, Op::kLdgB, false},    {0x0000102b, 0x0000707f, Op::kLdgH, false},
    {0x0000202b, 0x0000707f, Op::kLdgW, false},    {0x0000402b, 0x0000707f, Op::kLdgBu, false},
    {0x0000502b, 0x0000707f, Op::kLdgHu, false},   {0x0000602b, 0xfe00707f, Op::kAtomFadd, false},
    {0x0200602b, 0xfe00707f, Op::kAtomInc, false}, {0x0400602b, 0xfe00707f, Op::kAtomDec, false},
    {0x0000702b, 0x0600707f, Op::kAtomCas, false},
    // Wide memory (custom-2, 0x5B): .insn i 0x5B, 0..3 and .insn s 0x5B, 4..7;
    // 64-bit atomics: .insn r 0x2B, 3, 0/1 and .insn r4 0x2B, 7, 1 (register
    // groups checked by group_ok)
    {0x0000005b, 0x0000707f, Op::kLdV2, false},    {0x0000105b, 0x0000707f, Op::kLdV4, false},
    {0x0000205b, 0x0000707f, Op::kFldV2, false},   {0x0000305b, 0x0000707f, Op::kFldV4, false},
    {0x0000405b, 0x0000707f, Op::kStV2, false},    {0x0000505b, 0x0000707f, Op::kStV4, false},
    {0x0000605b, 0x0000707f, Op::kFstV2, false},   {0x0000705b, 0x0000707f, Op::kFstV4, false},
    {0x0000302b, 0xfe00707f, Op::kAtomAdd64, false}, {0x0200302b, 0xfe00707f, Op::kAtomExch64, false},
    {0x0200702b, 0x0600707f, Op::kAtomCas64, false},
    // Tessera custom-0 warp-level: .insn r4 0x0B, 2, f2 (shfl) and .insn r 0x0B, 3, f7
    {0x0000200b, 0x0600707f, Op::kShflIdx, false},    {0x0200200b, 0x0600707f, Op::kShflUp, false},
    {0x0400200b, 0x0600707f, Op::kShflDown, false},   {0x0600200b, 0x0600707f, Op::kShflXor, false},
    {0x0000300b, 0xfe00707f, Op::kVoteBallot, false}, {0x0200300b, 0xfe00707f, Op::kVoteAny, false},
    {0x0400300b, 0xfe00707f, Op::kVoteAll, false},    {0x0600300b, 0xfffff07f, Op::kActivemask, false},
    {0x0800300b, 0xfff07fff, Op::kSyncwarp, false},   {0x0a00300b, 0xfff0707f, Op::kBarRedPopc, false},
    {0x0c00300b, 0xfff0707f, Op::kBarRedAnd, false},  {0x0e00300b, 0xfff0707f, Op::kBarRedOr, false},
    {0x1000300b, 0xffffffff, Op::kMembarCta, false},
    // Tessera custom-3 (0x7B) transactions: .insn r 0x7B, 0/1/3, 0 and
    // .insn i 0x7B, 2, x0, x0, code (code 0..255: imm bits 11:8 zero)
    {0x0000007b, 0xfffff07f, Op::kTxBegin, false},    {0x0000107b, 0xffffffff, Op::kTxEnd, false},
    {0x0000207b, 0xf00fffff, Op::kTxAbort, false},    {0x0000307b, 0xfffff07f, Op::kTxTest, false},
};
// clang-format on

// Register groups (docs/firmware-abi.md): an x group neither starts at x0
// nor runs past x31, an f group does not run past f31.
bool group_ok(uint32_t w, Op op) {
  const uint32_t rd = (w >> 7) & 31, rs2 = (w >> 20) & 31, rs3 = w >> 27, f3 = (w >> 12) & 7;
  const auto x_ok = [](uint32_t r, uint32_t n) { return r >= 1 && r + n <= 32; };
  switch (op) {
    case Op::kLdV2:
    case Op::kLdV4:
    case Op::kFldV2:
    case Op::kFldV4:
    case Op::kStV2:
    case Op::kStV4:
    case Op::kFstV2:
    case Op::kFstV4: {
      const uint32_t n = (f3 & 1) ? 4 : 2, reg = (f3 & 4) ? rs2 : rd;
      return (f3 & 2) ? reg + n <= 32 : x_ok(reg, n);
    }
    case Op::kAtomAdd64:
    case Op::kAtomExch64:
      return x_ok(rd, 2) && x_ok(rs2, 2);
    case Op::kAtomCas64:
      return x_ok(rd, 2) && x_ok(rs2, 2) && x_ok(rs3, 2);
    default:
      return true;
  }
}

Op expected_op(uint32_t w) {
  for (const Pattern& p : kPatterns) {
    if ((w & p.mask) != p.match) continue;
    const uint32_t rm = (w >> 12) & 7;
    if (p.needs_rm && (rm == 5 || rm == 6)) return Op::kIllegal;
    return group_ok(w, p.op) ? p.op : Op::kIllegal;
  }
  return Op::kIllegal;
}

// The table, bucketed by major opcode (bits 6:0) so a word is compared with
// the few patterns of its opcode only.
struct Table {
  std::vector<Pattern> by_opcode[128];
  Table() {
    for (const Pattern& p : kPatterns) by_opcode[p.match & 0x7f].push_back(p);
  }
  Op expected(uint32_t w) const {
    for (const Pattern& p : by_opcode[w & 0x7f]) {
      if ((w & p.mask) != p.match) continue;
      const uint32_t rm = (w >> 12) & 7;
      if (p.needs_rm && (rm == 5 || rm == 6)) return Op::kIllegal;
      return group_ok(w, p.op) ? p.op : Op::kIllegal;
    }
    return Op::kIllegal;
  }
};

bool valid_reg(uint8_t r) { return r == kNoReg || (r != 0 && r < 64); }

// "" when the word is decoded and disassembled as the table says.
std::string check_word(const Table& table, uint32_t w, bool* is_legal) {
  const Inst i = decode(w);
  *is_legal = i.op != Op::kIllegal;
  const Op want = table.expected(w);
  if (i.op != want) return std::string("decoded as ") + op_name(i.op) + ", the encoding table says " + op_name(want);
  if (i.raw != w) return "Inst::raw differs from the word";
  if (!valid_reg(i.dst)) return "dst is x0 or out of range";
  for (uint8_t s : i.src)
    if (!valid_reg(s)) return "a src is x0 or out of range";
  const bool memory = i.is_load || i.is_store;
  if (memory != (i.mem_bytes != 0)) return "mem_bytes set without a memory access, or missing";
  if (i.mem_bytes != 0 && i.mem_bytes != 1 && i.mem_bytes != 2 && i.mem_bytes != 4 && i.mem_bytes != 8 &&
      i.mem_bytes != 16)
    return "mem_bytes not 1, 2, 4, 8 or 16";
  if (i.group != 1 && i.mem_bytes != 4 * i.group) return "a register group that does not match the access size";
  if (memory && i.unit != Unit::kLdst) return "memory access outside the LD/ST unit";
  const std::string text = disassemble(i, 0x80000000u);
  if (i.op == Op::kIllegal) {
    char expect[32];
    std::snprintf(expect, sizeof expect, "illegal\t0x%08x", w);
    if (text != expect) return "illegal word disassembled as '" + text + "'";
  } else {
    const std::string name = op_name(i.op);
    if (text.compare(0, name.size(), name) != 0) return "disassembly '" + text + "' does not start with " + name;
    if (text.size() >= 95) return "disassembly truncated: '" + text + "'";
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  uint64_t first = 0, last = 0xFFFFFFFFull;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string opt = argv[a];
    const uint64_t v = std::strtoull(argv[a + 1], nullptr, 0);
    if (opt == "--threads") {
      threads = static_cast<unsigned>(std::max<uint64_t>(1, v));
    } else if (opt == "--first") {
      first = v;
    } else if (opt == "--last") {
      last = v;
    } else {
      std::fprintf(stderr, "usage: isa_sweep [--threads N] [--first WORD] [--last WORD]\n");
      return 2;
    }
  }
  if (first > last || last > 0xFFFFFFFFull) {
    std::fprintf(stderr, "isa_sweep: need first <= last <= 0xffffffff\n");
    return 2;
  }
  // Self-check of the bucketed table against the plain scan.
  const Table table;
  for (uint32_t w : {0x8330000fu, 0x0ff0000fu, 0x1000202fu, 0x00007053u, 0x0000502bu, 0x0200100bu})
    if (table.expected(w) != expected_op(w)) {
      std::fprintf(stderr, "isa_sweep: bucketed table disagrees with the pattern list at 0x%08x\n", w);
      return 2;
    }

  const auto start = std::chrono::steady_clock::now();
  constexpr uint64_t kChunk = 1u << 20;
  std::atomic<uint64_t> next{first}, legal{0}, failures{0};
  std::mutex print;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      uint64_t my_legal = 0;
      for (uint64_t lo; (lo = next.fetch_add(kChunk)) <= last;) {
        const uint64_t hi = std::min(last, lo + kChunk - 1);
        for (uint64_t w = lo; w <= hi; ++w) {
          const auto word = static_cast<uint32_t>(w);
          bool is_legal = false;
          const std::string problem = check_word(table, word, &is_legal);
          my_legal += is_legal;
          if (!problem.empty() && failures.fetch_add(1) < 20) {
            std::lock_guard<std::mutex> lock(print);
            std::fprintf(stderr, "0x%08x: %s\n", word, problem.c_str());
          }
        }
      }
      legal += my_legal;
    });
  }
  for (auto& t : pool) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("isa_sweep: %llu words 0x%08llx..0x%08llx, %llu legal, %llu mismatches, %.1f s on %u threads\n",
              static_cast<unsigned long long>(last - first + 1), static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(last), static_cast<unsigned long long>(legal.load()),
              static_cast<unsigned long long>(failures.load()), seconds, threads);
  return failures.load() == 0 ? 0 : 1;
}
