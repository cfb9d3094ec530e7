// Helpers for the executor tests: hand encoders for each instruction format
// (from the spec's encoding tables, independent of decode.cpp), a memory
// ExecEnv over a std::vector, and a one-thread harness.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "isa/isa.h"

namespace tessera::isa::test {

// ---- encoders (unprivileged spec 20191213, chapter 24) ----
namespace enc {
constexpr uint32_t r(uint32_t opc, uint32_t f3, uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc;
}
constexpr uint32_t i(uint32_t opc, uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm) {
  return (static_cast<uint32_t>(imm) & 0xFFF) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc;
}
constexpr uint32_t s(uint32_t opc, uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  const auto u = static_cast<uint32_t>(imm);
  return ((u >> 5) & 0x7F) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 0x1F) << 7 | opc;
}
constexpr uint32_t b(uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  const auto u = static_cast<uint32_t>(imm);
  return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3F) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | ((u >> 1) & 0xF) << 8 |
         ((u >> 11) & 1) << 7 | 0x63;
}
constexpr uint32_t u(uint32_t opc, uint32_t rd, uint32_t imm20) { return imm20 << 12 | rd << 7 | opc; }
constexpr uint32_t j(uint32_t rd, int32_t imm) {
  const auto v = static_cast<uint32_t>(imm);
  return ((v >> 20) & 1) << 31 | ((v >> 1) & 0x3FF) << 21 | ((v >> 11) & 1) << 20 | ((v >> 12) & 0xFF) << 12 | rd << 7 |
         0x6F;
}
constexpr uint32_t r4(uint32_t opc, uint32_t rm, uint32_t rd, uint32_t rs1, uint32_t rs2, uint32_t rs3) {
  return rs3 << 27 | rs2 << 20 | rs1 << 15 | rm << 12 | rd << 7 | opc;
}
// Shorthands.
constexpr uint32_t op(uint32_t f3, uint32_t f7, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return r(0x33, f3, f7, rd, rs1, rs2);
}
constexpr uint32_t opimm(uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm) { return i(0x13, f3, rd, rs1, imm); }
constexpr uint32_t load(uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm) { return i(0x03, f3, rd, rs1, imm); }
constexpr uint32_t store(uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm) { return s(0x23, f3, rs1, rs2, imm); }
constexpr uint32_t amo(uint32_t f5, uint32_t rd, uint32_t rs1, uint32_t rs2, uint32_t aqrl = 0) {
  return r(0x2F, 2, f5 << 2 | aqrl, rd, rs1, rs2);
}
constexpr uint32_t csr(uint32_t f3, uint32_t rd, uint32_t csr_num, uint32_t rs1) {
  return csr_num << 20 | rs1 << 15 | f3 << 12 | rd << 7 | 0x73;
}
constexpr uint32_t fp(uint32_t f7, uint32_t rm, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return r(0x53, rm, f7, rd, rs1, rs2);
}
}  // namespace enc

// Funct7 values of OP-FP with fmt = S.
namespace f7 {
constexpr uint32_t kAdd = 0x00, kSub = 0x04, kMul = 0x08, kDiv = 0x0C, kSqrt = 0x2C, kSgnj = 0x10, kMinMax = 0x14,
                   kCvtWS = 0x60, kMvXClass = 0x70, kCmp = 0x50, kCvtSW = 0x68, kMvWX = 0x78;
}
// AMO funct5 values.
namespace f5 {
constexpr uint32_t kLr = 0x02, kSc = 0x03, kSwap = 0x01, kAdd = 0x00, kXor = 0x04, kAnd = 0x0C, kOr = 0x08, kMin = 0x10,
                   kMax = 0x14, kMinu = 0x18, kMaxu = 0x1C;
}

inline uint32_t bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline float flt(uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Memory at [kBase, kBase + size): the first kReadOnlyBytes reject stores
// (a read-only page); everything else is an access fault.
class TestEnv : public ExecEnv {
 public:
  static constexpr uint32_t kBase = 0x1000;
  static constexpr uint32_t kReadOnlyBytes = 0x100;

  std::vector<uint8_t> mem = std::vector<uint8_t>(0x1000, 0);
  std::map<uint16_t, uint32_t> csrs;      // readable CSRs
  std::map<uint16_t, bool> csr_writable;  // CSRs that accept writes
  std::optional<uint32_t> reservation;
  int loads = 0, stores = 0, csr_reads = 0, csr_writes = 0;
  bool last_load_read_only = false;

  bool in_range(uint32_t addr, unsigned bytes) const { return addr >= kBase && addr - kBase + bytes <= mem.size(); }
  uint32_t word(uint32_t addr) const {
    uint32_t v = 0;
    std::memcpy(&v, &mem[addr - kBase], 4);
    return v;
  }
  void set_word(uint32_t addr, uint32_t v) { std::memcpy(&mem[addr - kBase], &v, 4); }

  MemStatus load(uint32_t addr, unsigned bytes, uint32_t* value, bool read_only) override {
    ++loads;
    last_load_read_only = read_only;
    if (!in_range(addr, bytes)) return MemStatus::kAccessFault;
    uint32_t v = 0;
    std::memcpy(&v, &mem[addr - kBase], bytes);  // little-endian host
    *value = v;
    return MemStatus::kOk;
  }
  MemStatus store(uint32_t addr, unsigned bytes, uint32_t value) override {
    ++stores;
    if (!in_range(addr, bytes) || addr < kBase + kReadOnlyBytes) return MemStatus::kAccessFault;
    std::memcpy(&mem[addr - kBase], &value, bytes);
    if (reservation && (*reservation & ~3u) == (addr & ~3u)) reservation.reset();
    return MemStatus::kOk;
  }
  MemStatus load_reserved(uint32_t addr, uint32_t* value) override {
    const MemStatus s = load(addr, 4, value, false);
    if (s == MemStatus::kOk) reservation = addr;
    return s;
  }
  MemStatus store_conditional(uint32_t addr, uint32_t value, bool* success) override {
    if (!in_range(addr, 4)) return MemStatus::kAccessFault;
    *success = reservation && *reservation == addr;
    reservation.reset();
    if (*success) return store(addr, 4, value);
    return MemStatus::kOk;
  }
  bool csr_read(uint16_t c, uint32_t* value) override {
    ++csr_reads;
    const auto it = csrs.find(c);
    if (it == csrs.end()) return false;
    *value = it->second;
    return true;
  }
  bool csr_write(uint16_t c, uint32_t value) override {
    ++csr_writes;
    if (!csr_writable[c]) return false;
    csrs[c] = value;
    return true;
  }
};

// One thread with its environment.
struct Harness {
  ThreadState t;
  TestEnv env;
  Harness() { t.pc = 0x8000; }

  template <bool kTrack = false>
  ExecResult run(uint32_t word) {
    const Inst inst = decode(word);
    EXPECT_NE(inst.op, Op::kIllegal) << std::hex << word;
    return execute<kTrack>(inst, t, env);
  }
  // Runs and expects no trap and pc + 4.
  template <bool kTrack = false>
  void step(uint32_t word) {
    const uint32_t pc = t.pc;
    const ExecResult r = run<kTrack>(word);
    EXPECT_EQ(r.trap, Trap::kNone) << trap_name(r.trap) << " for " << std::hex << word;
    EXPECT_EQ(t.pc, pc + 4);
  }
};

}  // namespace tessera::isa::test
