// Executor tests of the RVV 1.0 subset (models/isa/vector.h). Instruction
// words come from hand encoders written from the spec's formats (section 10)
// and each is checked against the objdump text it must disassemble to, so an
// encoder slip cannot hide behind the decoder. Expected element values are
// derived by hand beside each test; m is the all-ones SEW value and h the
// SEW sign bit (0x80, 0x8000, 0x80000000).
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "isa/fp.h"
#include "isa/vector.h"

namespace tessera::isa::vec {
namespace {

// ---- encoders (RVV 1.0 section 10) ----
enum : uint32_t { kIvv = 0, kFvv = 1, kMvv = 2, kIvi = 3, kIvx = 4, kFvf = 5, kMvx = 6 };
constexpr uint32_t opv(uint32_t f6, uint32_t f3, uint32_t vd, uint32_t vs2, uint32_t vs1, bool masked = false) {
  return f6 << 26 | (masked ? 0u : 1u) << 25 | vs2 << 20 | (vs1 & 31) << 15 | f3 << 12 | vd << 7 | 0x57;
}
constexpr uint32_t vsetvli(uint32_t rd, uint32_t rs1, uint32_t vtypei) {
  return vtypei << 20 | rs1 << 15 | 7u << 12 | rd << 7 | 0x57;
}
constexpr uint32_t vsetivli(uint32_t rd, uint32_t uimm, uint32_t vtypei) {
  return 3u << 30 | vtypei << 20 | uimm << 15 | 7u << 12 | rd << 7 | 0x57;
}
constexpr uint32_t vsetvl(uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return 0x40u << 25 | rs2 << 20 | rs1 << 15 | 7u << 12 | rd << 7 | 0x57;
}
// mop 0 unit stride, 1 indexed unordered, 2 strided, 3 indexed ordered;
// width 0/5/6 = EEW 8/16/32.
constexpr uint32_t vmem(bool store, uint32_t mop, uint32_t width, uint32_t vd, uint32_t rs1, uint32_t rs2,
                        bool masked = false) {
  return mop << 26 | (masked ? 0u : 1u) << 25 | rs2 << 20 | rs1 << 15 | width << 12 | vd << 7 | (store ? 0x27u : 0x07u);
}
constexpr uint32_t width_of(unsigned eew) { return eew == 8 ? 0 : eew == 16 ? 5 : 6; }

// vtype immediates: vsew << 3 | vlmul, tu/mu.
enum Lmul : uint32_t { kM1 = 0, kM2 = 1, kM4 = 2, kM8 = 3, kMf8 = 5, kMf4 = 6, kMf2 = 7 };
constexpr uint32_t vtypei(unsigned sew, Lmul lmul) {
  return (sew == 8 ? 0u : sew == 16 ? 1u : sew == 32 ? 2u : 3u) << 3 | lmul;
}

uint32_t fbits(float f) {
  uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// Memory of 256 bytes at 0x1000 holding byte k = k; the rest faults.
class FakeMemory : public VectorMemory {
 public:
  static constexpr uint32_t kBase = 0x1000;
  std::vector<uint8_t> bytes = std::vector<uint8_t>(256);
  unsigned reads = 0, writes = 0;
  FakeMemory() {
    for (unsigned k = 0; k < bytes.size(); ++k) bytes[k] = static_cast<uint8_t>(k);
  }
  bool mapped(uint32_t addr, unsigned n) const { return addr >= kBase && addr - kBase + n <= bytes.size(); }
  MemStatus read(uint32_t addr, unsigned n, uint8_t* data) override {
    ++reads;
    if (!mapped(addr, n)) return MemStatus::kAccessFault;
    std::memcpy(data, &bytes[addr - kBase], n);
    return MemStatus::kOk;
  }
  MemStatus write(uint32_t addr, unsigned n, const uint8_t* data) override {
    ++writes;
    if (!mapped(addr, n)) return MemStatus::kAccessFault;
    std::memcpy(&bytes[addr - kBase], data, n);
    return MemStatus::kOk;
  }
};

class VectorExec : public ::testing::Test {
 protected:
  VectorState st{128};  // VLEN 128: VLMAX = 16 (e8), 8 (e16), 4 (e32) at LMUL 1
  ThreadState sc;
  FakeMemory mem;

  // Decodes, checks the objdump text, executes.
  VResult exec(uint32_t word, const std::string& text) {
    const VInst inst = decode_vector(word);
    EXPECT_EQ(disassemble(inst), text);
    return execute(inst, st, sc, mem);
  }
  void ok(uint32_t word, const std::string& text) {
    const VResult r = exec(word, text);
    EXPECT_EQ(r.trap, Trap::kNone) << text;
  }
  // Expects an illegal instruction that changes nothing.
  void rejects(uint32_t word, const std::string& text) {
    const std::vector<uint8_t> before(st.reg(0), st.reg(0) + 32 * st.vlenb());
    const uint32_t vl = st.vl, vtype = st.vtype, vstart = st.vstart;
    const VResult r = exec(word, text);
    EXPECT_EQ(r.trap, Trap::kIllegalInstruction) << text;
    EXPECT_EQ(std::vector<uint8_t>(st.reg(0), st.reg(0) + 32 * st.vlenb()), before) << text;
    EXPECT_EQ(st.vl, vl);
    EXPECT_EQ(st.vtype, vtype);
    EXPECT_EQ(st.vstart, vstart);
  }
  // vsetvli x6, x5 with AVL in x5.
  void cfg(unsigned sew, Lmul lmul, uint32_t avl) {
    sc.x[5] = avl;
    const VResult r = execute(decode_vector(vsetvli(6, 5, vtypei(sew, lmul))), st, sc, mem);
    ASSERT_EQ(r.trap, Trap::kNone);
    ASSERT_EQ(st.vl, sc.x[6]);
  }
  void setv(unsigned v, unsigned eew, const std::vector<uint32_t>& vals) {
    for (unsigned i = 0; i < vals.size(); ++i) st.set_element(v, i, eew, vals[i]);
  }
  std::vector<uint32_t> getv(unsigned v, unsigned eew, unsigned n) const {
    std::vector<uint32_t> out;
    for (unsigned i = 0; i < n; ++i) out.push_back(st.element(v, i, eew));
    return out;
  }
  void fill(unsigned first, unsigned count, uint8_t byte) { std::memset(st.reg(first), byte, count * st.vlenb()); }
};

constexpr uint32_t all_ones(unsigned sew) { return sew == 32 ? 0xFFFFFFFFu : (1u << sew) - 1; }

// ---- vtype, VLMAX, vsetvl ----

TEST(VectorState, VlmaxIsLmulTimesVlenOverSew) {
  struct Case {
    unsigned vlen, sew;
    Lmul lmul;
    unsigned vlmax;  // LMUL * VLEN / SEW
  };
  const Case cases[] = {
      {64, 8, kM1, 8},      {64, 32, kM1, 2},   {128, 8, kM1, 16},   {128, 16, kM2, 16},  {128, 32, kM8, 32},
      {128, 8, kMf2, 8},    {128, 16, kMf2, 4}, {128, 8, kMf4, 4},   {512, 16, kM4, 128}, {4096, 8, kM8, 4096},
      {4096, 32, kM1, 128}, {256, 8, kMf2, 16}, {1024, 32, kM2, 64},
  };
  for (const Case& c : cases) {
    VectorState st(c.vlen);
    st.vtype = vtypei(c.sew, c.lmul);
    EXPECT_EQ(st.vlmax(), c.vlmax) << "VLEN " << c.vlen << " SEW " << c.sew << " vlmul " << c.lmul;
    EXPECT_EQ(st.vlenb(), c.vlen / 8);
  }
}

TEST(VectorState, UnsupportedVtypesSetVill) {
  // e64 (> ELEN 32), vlmul 4 (reserved), a reserved bit, vill itself, mf8
  // (SEW 8 > LMUL * ELEN = 4), mf4 at e16 and mf2 at e32.
  const uint32_t values[] = {vtypei(64, kM1), 0x4, 0x100, 0x80000000u, vtypei(8, kMf8), vtypei(16, kMf4),
                             vtypei(32, kMf2)};
  for (const uint32_t v : values) EXPECT_TRUE(parse_vtype(v).vill) << std::hex << v;
  const Vtype t = parse_vtype(0xC0 | vtypei(16, kM4));
  EXPECT_FALSE(t.vill);
  EXPECT_EQ(t.sew, 16u);
  EXPECT_EQ(t.lmul8, 32u);
  EXPECT_TRUE(t.vta);
  EXPECT_TRUE(t.vma);
}

TEST(VectorState, VlenMustBeAPowerOfTwoFrom64To4096) {
  EXPECT_THROW(VectorState(32), std::invalid_argument);
  EXPECT_THROW(VectorState(96), std::invalid_argument);
  EXPECT_THROW(VectorState(8192), std::invalid_argument);
  EXPECT_NO_THROW(VectorState(64));
  EXPECT_NO_THROW(VectorState(4096));
}

TEST(VectorState, ResetsToVillWithVlZero) {
  const VectorState st(128);
  EXPECT_TRUE(st.type().vill);
  EXPECT_EQ(st.vl, 0u);
  EXPECT_EQ(st.vlmax(), 0u);
}

TEST_F(VectorExec, VsetvliAvlRules) {
  // VLEN 128, e8 m1: VLMAX 16.
  sc.x[11] = 10;
  ok(vsetvli(10, 11, vtypei(8, kM1)), "vsetvli\ta0,a1,e8,m1,tu,mu");
  EXPECT_EQ(st.vl, 10u);
  EXPECT_EQ(sc.x[10], 10u);
  sc.x[11] = 100;  // AVL above VLMAX: vl = VLMAX
  ok(vsetvli(10, 11, vtypei(8, kM1)), "vsetvli\ta0,a1,e8,m1,tu,mu");
  EXPECT_EQ(st.vl, 16u);
  // rs1 = x0, rd != x0: vl = VLMAX (e32 m2: 8).
  ok(vsetvli(10, 0, vtypei(32, kM2)), "vsetvli\ta0,zero,e32,m2,tu,mu");
  EXPECT_EQ(st.vl, 8u);
  EXPECT_EQ(sc.x[10], 8u);
  // rd = rs1 = x0 keeps vl when VLMAX stays: e32 m2 -> e16 m1 (VLMAX 8).
  sc.x[11] = 5;
  ok(vsetvli(0, 11, vtypei(32, kM2)), "vsetvli\tzero,a1,e32,m2,tu,mu");
  EXPECT_EQ(st.vl, 5u);
  ok(vsetvli(0, 0, vtypei(16, kM1)), "vsetvli\tzero,zero,e16,m1,tu,mu");
  EXPECT_EQ(st.vl, 5u);
  EXPECT_EQ(st.vtype, vtypei(16, kM1));
  // ... and sets vill when VLMAX would change (e16 m1 -> e8 m1: 8 -> 16).
  ok(vsetvli(0, 0, vtypei(8, kM1)), "vsetvli\tzero,zero,e8,m1,tu,mu");
  EXPECT_EQ(st.vtype, kVtypeVill);
  EXPECT_EQ(st.vl, 0u);
  // vsetivli: AVL from the 5-bit immediate; e16 mf2 VLMAX = 4.
  ok(vsetivli(10, 3, vtypei(16, kMf2)), "vsetivli\ta0,3,e16,mf2,tu,mu");
  EXPECT_EQ(st.vl, 3u);
  ok(vsetivli(10, 31, vtypei(16, kMf2)), "vsetivli\ta0,31,e16,mf2,tu,mu");
  EXPECT_EQ(st.vl, 4u);
  // vsetvl: vtype from x[rs2] (0xC0 | e32 m4: ta, ma).
  sc.x[11] = 7;
  sc.x[12] = 0xC0 | vtypei(32, kM4);
  ok(vsetvl(10, 11, 12), "vsetvl\ta0,a1,a2");
  EXPECT_EQ(st.vl, 7u);
  EXPECT_EQ(st.vtype, 0xC0 | vtypei(32, kM4));
  EXPECT_EQ(st.vlmax(), 16u);
}

TEST_F(VectorExec, VillMakesEveryVectorInstructionButVsetIllegal) {
  cfg(8, kM1, 4);
  sc.x[11] = 4;
  ok(vsetvli(10, 11, vtypei(64, kM1)), "vsetvli\ta0,a1,e64,m1,tu,mu");
  EXPECT_EQ(st.vtype, 0x80000000u);
  EXPECT_EQ(st.vl, 0u);
  EXPECT_EQ(sc.x[10], 0u);
  rejects(opv(0x00, kIvv, 1, 2, 3), "vadd.vv\tv1,v2,v3");
  rejects(vmem(false, 0, 0, 1, 10, 0), "vle8.v\tv1,(a0)");
  rejects(opv(0x10, kMvv, 10, 2, 0), "vmv.x.s\ta0,v2");
  // A reserved vtype through vsetvl (x[rs2] with bit 8 set) also sets vill.
  ok(vsetvli(10, 11, vtypei(8, kM1)), "vsetvli\ta0,a1,e8,m1,tu,mu");
  sc.x[12] = 0x100;
  ok(vsetvl(10, 11, 12), "vsetvl\ta0,a1,a2");
  EXPECT_EQ(st.vtype, 0x80000000u);
  // A valid vtype clears it again.
  ok(vsetvli(10, 11, vtypei(16, kM1)), "vsetvli\ta0,a1,e16,m1,tu,mu");
  EXPECT_EQ(st.vl, 4u);
  ok(opv(0x00, kIvv, 1, 2, 3), "vadd.vv\tv1,v2,v3");
}

// The vector CSRs through the scalar Zicsr path: the core's ExecEnv forwards
// the CSRs it does not own to the vector state.
class VectorCsrEnv : public ExecEnv {
 public:
  explicit VectorCsrEnv(VectorState& v) : v_(v) {}
  MemStatus load(uint32_t, unsigned, uint32_t*, bool) override { return MemStatus::kAccessFault; }
  MemStatus store(uint32_t, unsigned, uint32_t) override { return MemStatus::kAccessFault; }
  MemStatus load_reserved(uint32_t, uint32_t*) override { return MemStatus::kAccessFault; }
  MemStatus store_conditional(uint32_t, uint32_t, bool*) override { return MemStatus::kAccessFault; }
  bool csr_read(uint16_t c, uint32_t* value) override { return v_.csr_read(c, value); }
  bool csr_write(uint16_t c, uint32_t value) override { return v_.csr_write(c, value); }

 private:
  VectorState& v_;
};

TEST_F(VectorExec, CsrsReadThroughZicsr) {
  cfg(16, kM2, 9);  // VLMAX 16, vl 9
  VectorCsrEnv env(st);
  auto csr = [&](uint32_t f3, uint32_t rd, uint32_t num, uint32_t rs1) {
    const Inst inst = decode(num << 20 | rs1 << 15 | f3 << 12 | rd << 7 | 0x73);
    return isa::execute<true>(inst, sc, env);
  };
  EXPECT_EQ(csr(2, 10, 0xC20, 0).trap, Trap::kNone);  // csrrs a0,vl,zero
  EXPECT_EQ(sc.x[10], 9u);
  EXPECT_EQ(csr(2, 10, 0xC21, 0).trap, Trap::kNone);  // vtype
  EXPECT_EQ(sc.x[10], vtypei(16, kM2));
  EXPECT_EQ(csr(2, 10, 0xC22, 0).trap, Trap::kNone);  // vlenb
  EXPECT_EQ(sc.x[10], 16u);
  sc.x[11] = 3;
  EXPECT_EQ(csr(1, 0, 0x008, 11).trap, Trap::kNone);  // csrrw zero,vstart,a1
  EXPECT_EQ(st.vstart, 3u);
  EXPECT_EQ(csr(2, 10, 0x008, 0).trap, Trap::kNone);
  EXPECT_EQ(sc.x[10], 3u);
  // vl, vtype and vlenb are read-only.
  EXPECT_EQ(csr(1, 0, 0xC20, 11).trap, Trap::kIllegalInstruction);
  EXPECT_EQ(csr(1, 0, 0xC22, 11).trap, Trap::kIllegalInstruction);
  EXPECT_EQ(st.vl, 9u);
  EXPECT_EQ(isa::disassemble(decode(0xC2002573), 0), "csrrs\ta0,vl,zero");
}

// ---- integer arithmetic at SEW 8, 16, 32 ----
// Operands at every SEW: a = vs2 = {m-4 (-5), 3, h, 7}, b = vs1 = {10, 5, h, 1}.

class VectorSew : public VectorExec, public ::testing::WithParamInterface<unsigned> {
 protected:
  unsigned sew = GetParam();
  uint32_t m = all_ones(GetParam());
  uint32_t h = 1u << (GetParam() - 1);
  void SetUp() override {
    cfg(sew, kM1, 4);
    setv(2, sew, {m - 4, 3, h, 7});
    setv(3, sew, {10, 5, h, 1});
    fill(1, 1, 0x5A);  // the destination's tail must survive
  }
  // vd's 4 body elements, then checks its tail is untouched.
  std::vector<uint32_t> body(unsigned v = 1) {
    for (unsigned i = 4; i < 128 / sew; ++i) EXPECT_EQ(st.element(v, i, sew), 0x5A5A5A5Au & m) << "tail " << i;
    return getv(v, sew, 4);
  }
};

TEST_P(VectorSew, AddSubReverseSub) {
  ok(opv(0x00, kIvv, 1, 2, 3), "vadd.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{5, 8, 0, 8}));  // -5+10, 3+5, h+h wraps, 7+1
  ok(opv(0x02, kIvv, 1, 2, 3), "vsub.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 14, m - 1, 0, 6}));  // -15, -2, 0, 6
  sc.x[10] = 1;
  ok(opv(0x03, kIvx, 1, 2, 10), "vrsub.vx\tv1,v2,a0");
  EXPECT_EQ(body(), (std::vector<uint32_t>{6, m - 1, h + 1, m - 5}));  // 1-a: 6, -2, 1-h, -6
  ok(opv(0x00, kIvi, 1, 2, 0x10), "vadd.vi\tv1,v2,-16");
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 20, m - 12, h - 16, m - 8}));  // -21, -13, h-16, -9
  // .vx truncates x to SEW: 0xFFFFFF01 is 1 at SEW 8, 0xFF01 at 16.
  sc.x[10] = 0xFFFFFF01u;
  ok(opv(0x00, kIvx, 1, 2, 10), "vadd.vx\tv1,v2,a0");
  const uint32_t x = 0xFFFFFF01u & m;
  EXPECT_EQ(body(), (std::vector<uint32_t>{(m - 4 + x) & m, (3 + x) & m, (h + x) & m, (7 + x) & m}));
}

TEST_P(VectorSew, MinMaxLogicShifts) {
  ok(opv(0x04, kIvv, 1, 2, 3), "vminu.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{10, 3, h, 1}));
  ok(opv(0x05, kIvv, 1, 2, 3), "vmin.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 4, 3, h, 1}));
  ok(opv(0x06, kIvv, 1, 2, 3), "vmaxu.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 4, 5, h, 7}));
  ok(opv(0x07, kIvv, 1, 2, 3), "vmax.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{10, 5, h, 7}));
  ok(opv(0x09, kIvv, 1, 2, 3), "vand.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{10, 1, h, 1}));  // ...11111011 & 1010 = 1010
  ok(opv(0x0A, kIvv, 1, 2, 3), "vor.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 4, 7, h, 7}));
  ok(opv(0x0B, kIvi, 1, 2, 0x1F), "vxor.vi\tv1,v2,-1");
  EXPECT_EQ(body(), (std::vector<uint32_t>{4, m - 3, h - 1, m - 7}));
  ok(opv(0x25, kIvi, 1, 2, 1), "vsll.vi\tv1,v2,1");
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 9, 6, 0, 14}));  // -10, 6, h<<1 = 0, 14
  sc.x[10] = sew + 1;                                           // only the low lg2(SEW) bits count: a shift by 1
  ok(opv(0x28, kIvx, 1, 2, 10), "vsrl.vx\tv1,v2,a0");
  EXPECT_EQ(body(), (std::vector<uint32_t>{(m >> 1) - 2, 1, h >> 1, 3}));
  ok(opv(0x29, kIvi, 1, 2, 1), "vsra.vi\tv1,v2,1");
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 2, 1, h | (h >> 1), 3}));  // -3, 1, sign kept, 3
  // Shift amounts b & (SEW-1): {2, 5, 0, 1} at SEW 8, {10, 5, 0, 1} above.
  ok(opv(0x29, kIvv, 1, 2, 3), "vsra.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{sew == 8 ? m - 1 : m, 0, h, 3}));  // -5 >> 2 = -2, -5 >> 10 = -1
}

TEST_P(VectorSew, MultiplyAndMultiplyAdd) {
  ok(opv(0x25, kMvv, 1, 2, 3), "vmul.vv\tv1,v2,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 49, 15, 0, 7}));  // -50, 15, h*h wraps to 0, 7
  setv(1, sew, {1, 2, 3, 4});
  ok(opv(0x2D, kMvv, 1, 2, 3), "vmacc.vv\tv1,v3,v2");  // vd + vs1*vs2
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 48, 17, 3, 11}));
  setv(1, sew, {1, 2, 3, 4});
  sc.x[10] = 2;
  ok(opv(0x2F, kMvx, 1, 2, 10), "vnmsac.vx\tv1,a0,v2");  // vd - 2*vs2
  EXPECT_EQ(body(), (std::vector<uint32_t>{11, m - 3, 3, m - 9}));
  setv(1, sew, {1, 2, 3, 4});
  ok(opv(0x29, kMvv, 1, 2, 3), "vmadd.vv\tv1,v3,v2");        // vs1*vd + vs2
  EXPECT_EQ(body(), (std::vector<uint32_t>{5, 13, 0, 11}));  // 10-5, 10+3, 3h+h = 0, 4+7
}

TEST_P(VectorSew, ComparesWriteMaskBits) {
  // Mask destination v8 preset to 0xF0: bits 4..7 (tail) must stay set.
  auto cmp = [&](uint32_t word, const std::string& text) {
    fill(8, 1, 0xF0);
    ok(word, text);
    for (unsigned b = 1; b < st.vlenb(); ++b) EXPECT_EQ(st.reg(8)[b], 0xF0) << text;
    return st.reg(8)[0];
  };
  EXPECT_EQ(cmp(opv(0x18, kIvv, 8, 2, 3), "vmseq.vv\tv8,v2,v3"), 0xF4);  // only h == h
  EXPECT_EQ(cmp(opv(0x19, kIvv, 8, 2, 3), "vmsne.vv\tv8,v2,v3"), 0xFB);
  EXPECT_EQ(cmp(opv(0x1A, kIvv, 8, 2, 3), "vmsltu.vv\tv8,v2,v3"), 0xF2);  // 3 < 5
  EXPECT_EQ(cmp(opv(0x1B, kIvv, 8, 2, 3), "vmslt.vv\tv8,v2,v3"), 0xF3);   // -5 < 10, 3 < 5
  EXPECT_EQ(cmp(opv(0x1C, kIvi, 8, 2, 7), "vmsleu.vi\tv8,v2,7"), 0xFA);   // 3, 7
  sc.x[10] = 3;
  EXPECT_EQ(cmp(opv(0x1D, kIvx, 8, 2, 10), "vmsle.vx\tv8,v2,a0"), 0xF7);  // -5, 3, h (most negative)
  sc.x[10] = 4;
  EXPECT_EQ(cmp(opv(0x1E, kIvx, 8, 2, 10), "vmsgtu.vx\tv8,v2,a0"), 0xFD);  // m-4, h, 7
  EXPECT_EQ(cmp(opv(0x1F, kIvi, 8, 2, 3), "vmsgt.vi\tv8,v2,3"), 0xF8);     // 7
  // vmsleu.vi sign-extends the immediate, then compares unsigned: -1 is m.
  EXPECT_EQ(cmp(opv(0x1C, kIvi, 8, 2, 0x1F), "vmsleu.vi\tv8,v2,-1"), 0xFF);
}

TEST_P(VectorSew, Reductions) {
  setv(4, sew, {100});
  auto red = [&](uint32_t f6, const std::string& name) {
    fill(1, 1, 0x5A);
    ok(opv(f6, kMvv, 1, 2, 4), name + "\tv1,v2,v4");
    for (unsigned i = 1; i < 128 / sew; ++i) EXPECT_EQ(st.element(1, i, sew), 0x5A5A5A5Au & m) << name;
    return st.element(1, 0, sew);
  };
  EXPECT_EQ(red(0x00, "vredsum.vs"), (105 + h) & m);  // 100 - 5 + 3 + h + 7
  EXPECT_EQ(red(0x01, "vredand.vs"), 0u);
  EXPECT_EQ(red(0x02, "vredor.vs"), m);
  const uint32_t x = sew == 8 ? 0x1Bu : sew == 16 ? 0x7F9Bu : 0x7FFFFF9Bu;  // 0x64 ^ (m-4) ^ 3 ^ h ^ 7
  EXPECT_EQ(red(0x03, "vredxor.vs"), x);
  EXPECT_EQ(red(0x04, "vredminu.vs"), 3u);
  EXPECT_EQ(red(0x05, "vredmin.vs"), h);
  EXPECT_EQ(red(0x06, "vredmaxu.vs"), m - 4);
  EXPECT_EQ(red(0x07, "vredmax.vs"), 100u);
  // Masked: only elements 0 and 2 (v0 = 0b0101).
  st.reg(0)[0] = 0x05;
  fill(1, 1, 0x5A);
  ok(opv(0x00, kMvv, 1, 2, 4, true), "vredsum.vs\tv1,v2,v4,v0.t");
  EXPECT_EQ(st.element(1, 0, sew), (95 + h) & m);
}

TEST_P(VectorSew, MergeMoveAndScalarMoves) {
  st.reg(0)[0] = 0x05;  // elements 0 and 2 take the merge operand
  ok(opv(0x17, kIvi, 1, 2, 9, true), "vmerge.vim\tv1,v2,9,v0");
  EXPECT_EQ(body(), (std::vector<uint32_t>{9, 3, 9, 7}));
  ok(opv(0x17, kIvv, 1, 2, 3, true), "vmerge.vvm\tv1,v2,v3,v0");
  EXPECT_EQ(body(), (std::vector<uint32_t>{10, 3, h, 7}));
  ok(opv(0x17, kIvi, 1, 0, 0x1D), "vmv.v.i\tv1,-3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{m - 2, m - 2, m - 2, m - 2}));
  sc.x[10] = 0x12345678;
  ok(opv(0x17, kIvx, 1, 0, 10), "vmv.v.x\tv1,a0");
  const uint32_t x = 0x12345678u & m;
  EXPECT_EQ(body(), (std::vector<uint32_t>{x, x, x, x}));
  ok(opv(0x17, kIvv, 1, 0, 3), "vmv.v.v\tv1,v3");
  EXPECT_EQ(body(), (std::vector<uint32_t>{10, 5, h, 1}));
  // vmv.x.s sign-extends element 0 (h) to 32 bits.
  setv(2, sew, {h});
  ok(opv(0x10, kMvv, 10, 2, 0), "vmv.x.s\ta0,v2");
  EXPECT_EQ(sc.x[10], sew == 8 ? 0xFFFFFF80u : sew == 16 ? 0xFFFF8000u : 0x80000000u);
  sc.x[11] = 0xFEDCBA98u;
  ok(opv(0x10, kMvx, 1, 0, 11), "vmv.s.x\tv1,a1");
  EXPECT_EQ(body(), (std::vector<uint32_t>{0xFEDCBA98u & m, 5, h, 1}));
}

TEST_P(VectorSew, IdAndSlides) {
  cfg(sew, kM1, 3);  // vl 3 of VLMAX 128/SEW
  const unsigned vlmax = 128 / sew;
  std::vector<uint32_t> src;
  for (unsigned i = 0; i < vlmax; ++i) src.push_back(10 + i);
  setv(2, sew, src);
  const uint32_t t = 0x5A5A5A5Au & m;
  ok(opv(0x14, kMvv, 1, 0, 0x11), "vid.v\tv1");
  EXPECT_EQ(getv(1, sew, 4), (std::vector<uint32_t>{0, 1, 2, t}));
  fill(1, 1, 0x5A);
  ok(opv(0x0E, kIvi, 1, 2, 1), "vslideup.vi\tv1,v2,1");
  EXPECT_EQ(getv(1, sew, 4), (std::vector<uint32_t>{t, 10, 11, t}));
  // vslidedown reads past vl up to VLMAX; sources at or past VLMAX read 0.
  sc.x[10] = vlmax - 2;
  ok(opv(0x0F, kIvx, 1, 2, 10), "vslidedown.vx\tv1,v2,a0");
  EXPECT_EQ(getv(1, sew, 4), (std::vector<uint32_t>{10 + vlmax - 2, 10 + vlmax - 1, 0, t}));
  sc.x[10] = 0xFFFFFF99u;  // truncated to SEW
  ok(opv(0x0E, kMvx, 1, 2, 10), "vslide1up.vx\tv1,v2,a0");
  EXPECT_EQ(getv(1, sew, 4), (std::vector<uint32_t>{0xFFFFFF99u & m, 10, 11, t}));
  ok(opv(0x0F, kMvx, 1, 2, 10), "vslide1down.vx\tv1,v2,a0");
  EXPECT_EQ(getv(1, sew, 4), (std::vector<uint32_t>{11, 12, 0xFFFFFF99u & m, t}));
}

TEST_P(VectorSew, MaskedOffElementsAndTailAreUndisturbed) {
  st.reg(0)[0] = 0x06;  // elements 1 and 2 active
  setv(1, sew, {0x11, 0x22, 0x33, 0x44});
  ok(opv(0x00, kIvv, 1, 2, 3, true), "vadd.vv\tv1,v2,v3,v0.t");
  EXPECT_EQ(body(), (std::vector<uint32_t>{0x11, 8, 0, 0x44}));
  // ta/ma set in vtype: this executor still leaves those elements alone.
  sc.x[5] = 4;
  ok(vsetvli(0, 5, 0xC0 | vtypei(sew, kM1)), std::string("vsetvli\tzero,t0,e") + std::to_string(sew) + ",m1,ta,ma");
  setv(1, sew, {0x11, 0x22, 0x33, 0x44});
  ok(opv(0x00, kIvv, 1, 2, 3, true), "vadd.vv\tv1,v2,v3,v0.t");
  EXPECT_EQ(body(), (std::vector<uint32_t>{0x11, 8, 0, 0x44}));
}

TEST_P(VectorSew, VlZeroWritesNothing) {
  cfg(sew, kM1, 0);
  EXPECT_EQ(st.vl, 0u);
  const std::vector<uint8_t> before(st.reg(0), st.reg(0) + 32 * st.vlenb());
  ok(opv(0x00, kIvv, 1, 2, 3), "vadd.vv\tv1,v2,v3");
  ok(opv(0x00, kMvv, 1, 2, 3), "vredsum.vs\tv1,v2,v3");
  ok(opv(0x10, kMvx, 1, 0, 10), "vmv.s.x\tv1,a0");
  ok(vmem(true, 0, width_of(sew), 1, 10, 0), "vse" + std::to_string(sew) + ".v\tv1,(a0)");
  EXPECT_EQ(std::vector<uint8_t>(st.reg(0), st.reg(0) + 32 * st.vlenb()), before);
  EXPECT_EQ(mem.writes, 0u);
  // vmv.x.s still reads element 0 (spec 16.1).
  ok(opv(0x10, kMvv, 10, 2, 0), "vmv.x.s\ta0,v2");
  EXPECT_EQ(sc.x[10], 0xFFFFFFFBu);  // -5 at every SEW
}

INSTANTIATE_TEST_SUITE_P(Sew, VectorSew, ::testing::Values(8u, 16u, 32u),
                         [](const ::testing::TestParamInfo<unsigned>& i) { return "e" + std::to_string(i.param); });

// ---- widening and narrowing (SEW 8 and 16; 2*SEW must fit ELEN 32) ----

TEST_F(VectorExec, WideningAtSew8) {
  cfg(8, kM1, 4);
  setv(4, 8, {0xFF, 1, 0x80, 2});
  setv(6, 8, {0xFF, 2, 0x80, 3});
  ok(opv(0x30, kMvv, 2, 4, 6), "vwaddu.vv\tv2,v4,v6");
  EXPECT_EQ(getv(2, 16, 4), (std::vector<uint32_t>{0x1FE, 3, 0x100, 5}));
  ok(opv(0x31, kMvv, 2, 4, 6), "vwadd.vv\tv2,v4,v6");
  EXPECT_EQ(getv(2, 16, 4), (std::vector<uint32_t>{0xFFFE, 3, 0xFF00, 5}));  // -1-1, 1+2, -128-128, 2+3
  sc.x[10] = 0xFF;
  ok(opv(0x38, kMvx, 2, 4, 10), "vwmulu.vx\tv2,v4,a0");
  EXPECT_EQ(getv(2, 16, 4), (std::vector<uint32_t>{0xFE01, 0xFF, 0x7F80, 0x1FE}));
  ok(opv(0x3B, kMvx, 2, 4, 10), "vwmul.vx\tv2,v4,a0");  // times -1
  EXPECT_EQ(getv(2, 16, 4), (std::vector<uint32_t>{1, 0xFFFF, 0x80, 0xFFFE}));
}

TEST_F(VectorExec, WideningAtSew16) {
  cfg(16, kM1, 4);
  setv(4, 16, {0xFFFF, 1, 0x8000, 2});
  setv(6, 16, {0xFFFF, 2, 0x8000, 3});
  ok(opv(0x30, kMvv, 2, 4, 6), "vwaddu.vv\tv2,v4,v6");
  EXPECT_EQ(getv(2, 32, 4), (std::vector<uint32_t>{0x1FFFE, 3, 0x10000, 5}));
  ok(opv(0x31, kMvv, 2, 4, 6), "vwadd.vv\tv2,v4,v6");
  EXPECT_EQ(getv(2, 32, 4), (std::vector<uint32_t>{0xFFFFFFFE, 3, 0xFFFF0000, 5}));
  sc.x[10] = 0xFFFF;
  ok(opv(0x38, kMvx, 2, 4, 10), "vwmulu.vx\tv2,v4,a0");
  EXPECT_EQ(getv(2, 32, 4), (std::vector<uint32_t>{0xFFFE0001, 0xFFFF, 0x7FFF8000, 0x1FFFE}));
  ok(opv(0x3B, kMvv, 2, 4, 6), "vwmul.vv\tv2,v4,v6");
  EXPECT_EQ(getv(2, 32, 4), (std::vector<uint32_t>{1, 2, 0x40000000, 6}));  // (-1)(-1), 1*2, (-2^15)^2, 2*3
}

TEST_F(VectorExec, NarrowingShifts) {
  cfg(8, kM1, 4);
  setv(4, 16, {0x1234, 0x8001, 0xFF00, 0x00FF});
  ok(opv(0x2C, kIvi, 1, 4, 4), "vnsrl.wi\tv1,v4,4");
  EXPECT_EQ(getv(1, 8, 4), (std::vector<uint32_t>{0x23, 0x00, 0xF0, 0x0F}));
  sc.x[10] = 8;
  ok(opv(0x2D, kIvx, 1, 4, 10), "vnsra.wx\tv1,v4,a0");
  EXPECT_EQ(getv(1, 8, 4), (std::vector<uint32_t>{0x12, 0x80, 0xFF, 0x00}));
  setv(3, 8, {0, 17, 8, 4});  // 17 & 15 = 1
  ok(opv(0x2C, kIvv, 1, 4, 3), "vnsrl.wv\tv1,v4,v3");
  EXPECT_EQ(getv(1, 8, 4), (std::vector<uint32_t>{0x34, 0x00, 0xFF, 0x0F}));
  cfg(16, kM1, 2);
  setv(4, 32, {0x12345678, 0x80000001});
  ok(opv(0x2C, kIvi, 1, 4, 4), "vnsrl.wi\tv1,v4,4");
  EXPECT_EQ(getv(1, 16, 2), (std::vector<uint32_t>{0x4567, 0x0000}));
  sc.x[10] = 16;
  ok(opv(0x2D, kIvx, 1, 4, 10), "vnsra.wx\tv1,v4,a0");
  EXPECT_EQ(getv(1, 16, 2), (std::vector<uint32_t>{0x1234, 0x8000}));
}

TEST_F(VectorExec, WideningAndNarrowingNeedTwiceSewWithinElen) {
  cfg(32, kM1, 2);
  rejects(opv(0x30, kMvv, 2, 4, 6), "vwaddu.vv\tv2,v4,v6");
  rejects(opv(0x2C, kIvi, 1, 4, 4), "vnsrl.wi\tv1,v4,4");
  cfg(8, kM8, 2);  // 2*LMUL = 16 is not a register group
  rejects(opv(0x31, kMvv, 16, 8, 0), "vwadd.vv\tv16,v8,v0");
}

// ---- single-precision floating point ----

class VectorFp : public VectorExec {
 protected:
  void SetUp() override {
    cfg(32, kM1, 4);
    setv(2, 32, {fbits(1.5f), fbits(-2.0f), fbits(0.25f), fbits(3.0f)});
    setv(3, 32, {fbits(2.0f), fbits(0.5f), fbits(4.0f), fbits(-1.0f)});
  }
  std::vector<uint32_t> f(std::initializer_list<float> v) {
    std::vector<uint32_t> out;
    for (const float x : v) out.push_back(fbits(x));
    return out;
  }
};

TEST_F(VectorFp, Arithmetic) {
  ok(opv(0x00, kFvv, 1, 2, 3), "vfadd.vv\tv1,v2,v3");
  EXPECT_EQ(getv(1, 32, 4), f({3.5f, -1.5f, 4.25f, 2.0f}));
  ok(opv(0x02, kFvv, 1, 2, 3), "vfsub.vv\tv1,v2,v3");
  EXPECT_EQ(getv(1, 32, 4), f({-0.5f, -2.5f, -3.75f, 4.0f}));
  ok(opv(0x24, kFvv, 1, 2, 3), "vfmul.vv\tv1,v2,v3");
  EXPECT_EQ(getv(1, 32, 4), f({3.0f, -1.0f, 1.0f, -3.0f}));
  ok(opv(0x20, kFvv, 1, 2, 3), "vfdiv.vv\tv1,v2,v3");
  EXPECT_EQ(getv(1, 32, 4), f({0.75f, -4.0f, 0.0625f, -3.0f}));
  sc.set_fs(10, fbits(2.0f));
  setv(1, 32, f({1.0f, 1.0f, 1.0f, 1.0f}));
  ok(opv(0x2C, kFvf, 1, 2, 10), "vfmacc.vf\tv1,fa0,v2");  // 1 + 2*vs2
  EXPECT_EQ(getv(1, 32, 4), f({4.0f, -3.0f, 1.5f, 7.0f}));
  setv(1, 32, f({1.0f, 1.0f, 1.0f, 1.0f}));
  ok(opv(0x2F, kFvv, 1, 2, 3), "vfnmsac.vv\tv1,v3,v2");  // 1 - vs1*vs2
  EXPECT_EQ(getv(1, 32, 4), f({-2.0f, 2.0f, 0.0f, 4.0f}));
  ok(opv(0x04, kFvv, 1, 2, 3), "vfmin.vv\tv1,v2,v3");
  EXPECT_EQ(getv(1, 32, 4), f({1.5f, -2.0f, 0.25f, -1.0f}));
  ok(opv(0x06, kFvv, 1, 2, 3), "vfmax.vv\tv1,v2,v3");
  EXPECT_EQ(getv(1, 32, 4), f({2.0f, 0.5f, 4.0f, 3.0f}));
  sc.set_fs(10, fbits(-0.5f));
  ok(opv(0x00, kFvf, 1, 2, 10), "vfadd.vf\tv1,v2,fa0");
  EXPECT_EQ(getv(1, 32, 4), f({1.0f, -2.5f, -0.25f, 2.5f}));
  EXPECT_EQ(sc.fcsr & 0x1F, 0u);  // all exact
}

TEST_F(VectorFp, ComparesMovesReductionsAndFlags) {
  sc.set_fs(10, fbits(0.25f));
  ok(opv(0x18, kFvf, 8, 2, 10), "vmfeq.vf\tv8,v2,fa0");
  EXPECT_EQ(st.reg(8)[0] & 0xF, 0x4);
  ok(opv(0x1B, kFvv, 8, 2, 3), "vmflt.vv\tv8,v2,v3");
  EXPECT_EQ(st.reg(8)[0] & 0xF, 0x7);
  ok(opv(0x19, kFvf, 8, 2, 10), "vmfle.vf\tv8,v2,fa0");
  EXPECT_EQ(st.reg(8)[0] & 0xF, 0x6);
  setv(4, 32, f({10.0f}));
  ok(opv(0x03, kFvv, 1, 2, 4), "vfredosum.vs\tv1,v2,v4");
  EXPECT_EQ(st.element(1, 0, 32), fbits(12.75f));
  ok(opv(0x01, kFvv, 1, 2, 4), "vfredusum.vs\tv1,v2,v4");
  EXPECT_EQ(st.element(1, 0, 32), fbits(12.75f));
  sc.set_fs(11, fbits(-7.0f));
  ok(opv(0x17, kFvf, 1, 0, 11), "vfmv.v.f\tv1,fa1");
  EXPECT_EQ(getv(1, 32, 4), f({-7.0f, -7.0f, -7.0f, -7.0f}));
  ok(opv(0x10, kFvv, 12, 3, 0), "vfmv.f.s\tfa2,v3");
  EXPECT_EQ(sc.fd(12), fp::box(fbits(2.0f)));
  ok(opv(0x10, kFvf, 1, 0, 10), "vfmv.s.f\tv1,fa0");
  EXPECT_EQ(getv(1, 32, 4), f({0.25f, -7.0f, -7.0f, -7.0f}));
  // Division by zero gives inf and raises DZ in fflags.
  setv(3, 32, f({0.0f, 1.0f, 1.0f, 1.0f}));
  ok(opv(0x20, kFvv, 1, 2, 3), "vfdiv.vv\tv1,v2,v3");
  EXPECT_EQ(st.element(1, 0, 32), 0x7F800000u);
  EXPECT_EQ(sc.fcsr & 0x1F, 0x08u);
  // A reserved frm (5) makes FP instructions illegal.
  sc.fcsr = 5u << 5;
  rejects(opv(0x00, kFvv, 1, 2, 3), "vfadd.vv\tv1,v2,v3");
}

// The element loops clear and read the host's exception flags once per
// instruction (fp::ArithBatch): under every rounding mode each element is
// what scalar fp::arith gives, and fflags is the union of the elements'
// flags, for exact, inexact, overflowing, underflowing, infinite and NaN
// operands (signalling ones too).
TEST_F(VectorFp, BatchedElementsMatchScalarArithmetic) {
  cfg(32, kM1, 4);
  const uint32_t values[] = {fbits(1.5f), fbits(0.1f), 0x7F7FFFFFu, 0x00800001u, 0x7F800000u,  0xFF800000u,
                             0x7FC00000u, 0x7F800001u, 0x00000001u, 0x80000000u, fbits(-3.0f), fbits(1e-30f)};
  struct Case {
    uint32_t f6;
    fp::Arith op;
    bool acc, negate;  // vd accumulates; vs1 negated (vfnmsac)
  };
  const Case cases[] = {{0x00, fp::Arith::kAdd, false, false}, {0x02, fp::Arith::kSub, false, false},
                        {0x24, fp::Arith::kMul, false, false}, {0x20, fp::Arith::kDiv, false, false},
                        {0x2C, fp::Arith::kFma, true, false},  {0x2F, fp::Arith::kFma, true, true}};
  constexpr size_t kN = sizeof values / sizeof values[0];
  for (unsigned rm = 0; rm <= rm::kRmm; ++rm)
    for (const Case& c : cases)
      for (size_t first = 0; first < kN; first += 4) {
        std::vector<uint32_t> a, b, d;  // vs2, vs1, vd: shifted rows of the table
        for (size_t i = 0; i < 4; ++i) {
          a.push_back(values[(first + i) % kN]);
          b.push_back(values[(first + i + 5) % kN]);
          d.push_back(values[(first + i + 7) % kN]);
        }
        setv(2, 32, a);
        setv(3, 32, b);
        setv(1, 32, d);
        sc.fcsr = rm << 5;
        ASSERT_EQ(isa::vec::execute(decode_vector(opv(c.f6, kFvv, 1, 2, 3)), st, sc, mem).trap, Trap::kNone);
        uint32_t flags = 0;
        for (size_t i = 0; i < 4; ++i) {
          const uint32_t want = c.acc ? fp::arith(c.op, c.negate ? b[i] ^ fp::kSignBit : b[i], a[i], d[i], rm, &flags)
                                      : fp::arith(c.op, a[i], b[i], 0, rm, &flags);
          EXPECT_EQ(st.element(1, static_cast<unsigned>(i), 32), want)
              << "f6 0x" << std::hex << c.f6 << " rm " << rm << " element " << i;
        }
        EXPECT_EQ(sc.fcsr & 0x1F, flags) << "f6 0x" << std::hex << c.f6 << " rm " << rm << " first " << first;
      }
  // Reductions too.
  for (unsigned rm = 0; rm <= rm::kRmm; ++rm) {
    setv(2, 32, {0x7F7FFFFFu, 0x7F7FFFFFu, fbits(0.1f), fbits(-1.0f)});
    setv(4, 32, {fbits(0.3f)});
    sc.fcsr = rm << 5;
    ASSERT_EQ(isa::vec::execute(decode_vector(opv(0x03, kFvv, 1, 2, 4)), st, sc, mem).trap, Trap::kNone);
    uint32_t flags = 0, acc = fbits(0.3f);
    for (const uint32_t x : {0x7F7FFFFFu, 0x7F7FFFFFu, fbits(0.1f), fbits(-1.0f)})
      acc = fp::arith(fp::Arith::kAdd, acc, x, 0, rm, &flags);
    EXPECT_EQ(st.element(1, 0, 32), acc) << "rm " << rm;
    EXPECT_EQ(sc.fcsr & 0x1F, flags) << "rm " << rm;
  }
}

TEST_F(VectorFp, FpNeedsSew32) {
  cfg(16, kM1, 4);
  rejects(opv(0x00, kFvv, 1, 2, 3), "vfadd.vv\tv1,v2,v3");
  rejects(opv(0x10, kFvv, 10, 2, 0), "vfmv.f.s\tfa0,v2");
}

// ---- mask instructions ----

TEST_F(VectorExec, MaskLogicCpopFirstId) {
  cfg(8, kM1, 4);       // mask ops act on vl = 4 bits
  st.reg(1)[0] = 0x0C;  // vs2 = 1100
  st.reg(2)[0] = 0x0A;  // vs1 = 1010
  struct Case {
    uint32_t f6;
    const char* name;
    uint8_t expect;  // tail bits 4..7 of the 0xF0 preset stay
  };
  const Case cases[] = {{0x19, "vmand.mm", 0xF8}, {0x1D, "vmnand.mm", 0xF7}, {0x18, "vmandn.mm", 0xF4},
                        {0x1A, "vmor.mm", 0xFE},  {0x1E, "vmnor.mm", 0xF1},  {0x1C, "vmorn.mm", 0xFD},
                        {0x1B, "vmxor.mm", 0xF6}, {0x1F, "vmxnor.mm", 0xF9}};
  for (const Case& c : cases) {
    fill(3, 1, 0xF0);
    ok(opv(c.f6, kMvv, 3, 1, 2), std::string(c.name) + "\tv3,v1,v2");
    EXPECT_EQ(st.reg(3)[0], c.expect) << c.name;
  }
  ok(opv(0x10, kMvv, 10, 1, 0x10), "vcpop.m\ta0,v1");
  EXPECT_EQ(sc.x[10], 2u);
  st.reg(0)[0] = 0x04;
  ok(opv(0x10, kMvv, 10, 1, 0x10, true), "vcpop.m\ta0,v1,v0.t");
  EXPECT_EQ(sc.x[10], 1u);
  ok(opv(0x10, kMvv, 10, 1, 0x11), "vfirst.m\ta0,v1");
  EXPECT_EQ(sc.x[10], 2u);
  st.reg(4)[0] = 0xF0;  // set bits only past vl
  ok(opv(0x10, kMvv, 10, 4, 0x11), "vfirst.m\ta0,v4");
  EXPECT_EQ(sc.x[10], 0xFFFFFFFFu);
  cfg(8, kM1, 5);
  st.reg(0)[0] = 0x15;  // elements 0, 2, 4
  fill(5, 1, 0x5A);
  ok(opv(0x14, kMvv, 5, 0, 0x11, true), "vid.v\tv5,v0.t");
  EXPECT_EQ(getv(5, 8, 6), (std::vector<uint32_t>{0, 0x5A, 2, 0x5A, 4, 0x5A}));
}

// ---- loads and stores through the fake memory ----

TEST_F(VectorExec, UnitStrideLoadAndMaskedStore) {
  cfg(16, kM1, 4);
  sc.x[10] = 0x1010;
  ok(vmem(false, 0, 5, 1, 10, 0), "vle16.v\tv1,(a0)");
  EXPECT_EQ(getv(1, 16, 4), (std::vector<uint32_t>{0x1110, 0x1312, 0x1514, 0x1716}));
  cfg(8, kM1, 4);
  setv(2, 8, {0xA0, 0xA1, 0xA2, 0xA3});
  st.reg(0)[0] = 0x05;
  sc.x[11] = 0x1040;
  ok(vmem(true, 0, 0, 2, 11, 0, true), "vse8.v\tv2,(a1),v0.t");
  EXPECT_EQ(mem.bytes[0x40], 0xA0);
  EXPECT_EQ(mem.bytes[0x41], 0x41);  // masked off: memory untouched
  EXPECT_EQ(mem.bytes[0x42], 0xA2);
  EXPECT_EQ(mem.bytes[0x43], 0x43);
  EXPECT_EQ(mem.writes, 2u);  // inactive elements make no access
}

TEST_F(VectorExec, StridedLoadAndStore) {
  cfg(32, kM1, 3);
  sc.x[10] = 0x1020;
  sc.x[11] = static_cast<uint32_t>(-8);
  ok(vmem(false, 2, 6, 1, 10, 11), "vlse32.v\tv1,(a0),a1");
  EXPECT_EQ(getv(1, 32, 3), (std::vector<uint32_t>{0x23222120, 0x1B1A1918, 0x13121110}));
  cfg(16, kM1, 3);
  setv(2, 16, {0xBBAA, 0xDDCC, 0xFFEE});
  sc.x[10] = 0x1080;
  sc.x[11] = 4;
  ok(vmem(true, 2, 5, 2, 10, 11), "vsse16.v\tv2,(a0),a1");
  EXPECT_EQ(std::vector<uint8_t>(mem.bytes.begin() + 0x80, mem.bytes.begin() + 0x8C),
            (std::vector<uint8_t>{0xAA, 0xBB, 0x82, 0x83, 0xCC, 0xDD, 0x86, 0x87, 0xEE, 0xFF, 0x8A, 0x8B}));
}

TEST_F(VectorExec, IndexedLoadsAndStores) {
  // Data SEW 32, byte indices (EEW 8): gather.
  cfg(32, kM1, 3);
  setv(8, 8, {12, 0, 4});
  sc.x[10] = 0x1000;
  ok(vmem(false, 1, 0, 1, 10, 8), "vluxei8.v\tv1,(a0),v8");
  EXPECT_EQ(getv(1, 32, 3), (std::vector<uint32_t>{0x0F0E0D0C, 0x03020100, 0x07060504}));
  // Data SEW 8, 16-bit indices (index EMUL 2: an even register).
  cfg(8, kM1, 3);
  setv(8, 16, {5, 255, 1});
  ok(vmem(false, 3, 5, 1, 10, 8), "vloxei16.v\tv1,(a0),v8");
  EXPECT_EQ(getv(1, 8, 3), (std::vector<uint32_t>{5, 255, 1}));
  // Scatter: SEW 16 data, 32-bit indices, masked (element 1 off).
  cfg(16, kM1, 3);
  setv(2, 16, {0x1111, 0x2222, 0x3333});
  setv(8, 32, {0x90, 0x92, 0x80});
  st.reg(0)[0] = 0x05;
  ok(vmem(true, 1, 6, 2, 10, 8, true), "vsuxei32.v\tv2,(a0),v8,v0.t");
  EXPECT_EQ(std::vector<uint8_t>(mem.bytes.begin() + 0x90, mem.bytes.begin() + 0x94),
            (std::vector<uint8_t>{0x11, 0x11, 0x92, 0x93}));
  EXPECT_EQ(mem.bytes[0x80], 0x33);
  EXPECT_EQ(mem.bytes[0x81], 0x33);
  ok(vmem(true, 3, 6, 2, 10, 8), "vsoxei32.v\tv2,(a0),v8");
  EXPECT_EQ(mem.bytes[0x92], 0x22);
}

TEST_F(VectorExec, FaultNamesTheElementAndResumesFromVstart) {
  cfg(32, kM1, 4);
  fill(1, 1, 0x5A);
  sc.x[10] = 0x10F8;  // elements 2 and 3 fall past the 256 mapped bytes
  const VResult r = exec(vmem(false, 0, 6, 1, 10, 0), "vle32.v\tv1,(a0)");
  EXPECT_EQ(r.trap, Trap::kLoadAccessFault);
  EXPECT_EQ(r.element, 2u);
  EXPECT_EQ(r.fault_addr, 0x1100u);
  EXPECT_EQ(st.vstart, 2u);
  EXPECT_EQ(getv(1, 32, 4), (std::vector<uint32_t>{0xFBFAF9F8, 0xFFFEFDFC, 0x5A5A5A5A, 0x5A5A5A5A}));
  // The handler maps the page; re-execution starts at element vstart.
  mem.bytes.resize(512);
  for (unsigned k = 256; k < 512; ++k) mem.bytes[k] = static_cast<uint8_t>(k);
  mem.reads = 0;
  ok(vmem(false, 0, 6, 1, 10, 0), "vle32.v\tv1,(a0)");
  EXPECT_EQ(mem.reads, 2u);
  EXPECT_EQ(st.vstart, 0u);
  EXPECT_EQ(getv(1, 32, 4), (std::vector<uint32_t>{0xFBFAF9F8, 0xFFFEFDFC, 0x03020100, 0x07060504}));
}

TEST_F(VectorExec, StoreFaultAndMisalignedElements) {
  cfg(32, kM1, 3);
  setv(2, 32, {0x11111111, 0x22222222, 0x33333333});
  sc.x[10] = 0x10F0;
  sc.x[11] = 8;  // 0x10F0, 0x10F8, 0x1100 (unmapped)
  VResult r = exec(vmem(true, 2, 6, 2, 10, 11), "vsse32.v\tv2,(a0),a1");
  EXPECT_EQ(r.trap, Trap::kStoreAccessFault);
  EXPECT_EQ(r.element, 2u);
  EXPECT_EQ(r.fault_addr, 0x1100u);
  EXPECT_EQ(st.vstart, 2u);
  EXPECT_EQ(mem.bytes[0xF8], 0x22);
  st.vstart = 0;
  // A 16-bit element at an odd address.
  cfg(16, kM1, 2);
  sc.x[10] = 0x1001;
  r = exec(vmem(false, 0, 5, 1, 10, 0), "vle16.v\tv1,(a0)");
  EXPECT_EQ(r.trap, Trap::kLoadMisaligned);
  EXPECT_EQ(r.element, 0u);
  EXPECT_EQ(r.fault_addr, 0x1001u);
  // An index that misaligns element 1 only.
  st.vstart = 0;
  sc.x[10] = 0x1000;
  setv(8, 8, {0, 3});
  r = exec(vmem(false, 1, 0, 1, 10, 8), "vluxei8.v\tv1,(a0),v8");
  EXPECT_EQ(r.trap, Trap::kLoadMisaligned);
  EXPECT_EQ(r.element, 1u);
  EXPECT_EQ(r.fault_addr, 0x1003u);
  EXPECT_EQ(st.vstart, 1u);
  EXPECT_EQ(st.element(1, 0, 16), 0x0100u);
}

// ---- register-group misuse ----

TEST_F(VectorExec, RegisterGroupMisuseIsIllegal) {
  cfg(16, kM2, 4);
  rejects(opv(0x00, kIvv, 1, 2, 4), "vadd.vv\tv1,v2,v4");  // vd not a multiple of LMUL 2
  rejects(opv(0x00, kIvv, 2, 3, 4), "vadd.vv\tv2,v3,v4");  // vs2
  rejects(opv(0x00, kIvv, 2, 4, 5), "vadd.vv\tv2,v4,v5");  // vs1
  ok(opv(0x00, kIvv, 2, 4, 6), "vadd.vv\tv2,v4,v6");
  // A masked instruction may not write v0 ...
  rejects(opv(0x00, kIvv, 0, 2, 4, true), "vadd.vv\tv0,v2,v4,v0.t");
  rejects(opv(0x17, kIvi, 0, 2, 1, true), "vmerge.vim\tv0,v2,1,v0");
  // ... unless it writes a mask or a reduction's scalar.
  ok(opv(0x18, kIvv, 0, 2, 4, true), "vmseq.vv\tv0,v2,v4,v0.t");
  ok(opv(0x00, kMvv, 0, 2, 4, true), "vredsum.vs\tv0,v2,v4,v0.t");
  // A mask result may overlap a source group only at its lowest register.
  ok(opv(0x18, kIvv, 2, 2, 4), "vmseq.vv\tv2,v2,v4");
  rejects(opv(0x18, kIvv, 3, 2, 4), "vmseq.vv\tv3,v2,v4");
  // vslideup may not overwrite its source.
  rejects(opv(0x0E, kIvi, 2, 2, 1), "vslideup.vi\tv2,v2,1");
  rejects(opv(0x0E, kMvx, 4, 4, 10), "vslide1up.vx\tv4,v4,a0");
  // Loads: EMUL = EEW/SEW * LMUL = 32/16 * 2 = 4 needs vd % 4 == 0.
  rejects(vmem(false, 0, 6, 2, 10, 0), "vle32.v\tv2,(a0)");
  cfg(8, kM8, 4);  // EEW 32 at SEW 8, LMUL 8: EMUL 32 is reserved
  rejects(vmem(false, 0, 6, 0, 10, 0), "vle32.v\tv0,(a0)");
  // Widening (SEW 8, LMUL 1): vd needs 2*LMUL alignment; the wide result may
  // overlap a narrow source only in its highest-numbered register.
  cfg(8, kM1, 4);
  rejects(opv(0x31, kMvv, 3, 4, 6), "vwadd.vv\tv3,v4,v6");
  rejects(opv(0x31, kMvv, 4, 4, 6), "vwadd.vv\tv4,v4,v6");
  ok(opv(0x31, kMvv, 4, 5, 6), "vwadd.vv\tv4,v5,v6");
  // Narrowing: the narrow result may overlap the wide source's lowest register only.
  ok(opv(0x2C, kIvi, 4, 4, 0), "vnsrl.wi\tv4,v4,0");
  rejects(opv(0x2C, kIvi, 5, 4, 0), "vnsrl.wi\tv5,v4,0");
  rejects(opv(0x2C, kIvi, 4, 3, 0), "vnsrl.wi\tv4,v3,0");  // wide source needs even alignment
  // Reductions need vstart = 0.
  st.vstart = 1;
  rejects(opv(0x00, kMvv, 1, 2, 3), "vredsum.vs\tv1,v2,v3");
  rejects(opv(0x10, kMvv, 10, 2, 0x10), "vcpop.m\ta0,v2");
}

TEST_F(VectorExec, VstartSkipsEarlierElements) {
  cfg(8, kM1, 4);
  setv(2, 8, {1, 2, 3, 4});
  setv(3, 8, {10, 20, 30, 40});
  fill(1, 1, 0x5A);
  st.vstart = 2;
  ok(opv(0x00, kIvv, 1, 2, 3), "vadd.vv\tv1,v2,v3");
  EXPECT_EQ(getv(1, 8, 5), (std::vector<uint32_t>{0x5A, 0x5A, 33, 44, 0x5A}));
  EXPECT_EQ(st.vstart, 0u);
}

// ---- facts for the timing model ----

TEST_F(VectorExec, FactsDescribeUnitsGroupsAndAccessKind) {
  cfg(16, kM2, 10);
  VFacts f = facts(decode_vector(opv(0x00, kIvv, 2, 4, 6)), st);  // vadd.vv v2,v4,v6
  EXPECT_TRUE(f.legal);
  EXPECT_EQ(f.vl, 10u);
  EXPECT_EQ(f.sew, 16u);
  EXPECT_EQ(f.lmul8, 16u);
  EXPECT_EQ(f.fu, FuClass::kAdd);
  EXPECT_EQ(f.mem, MemKind::kNone);
  EXPECT_EQ(f.dst.first, 2);
  EXPECT_EQ(f.dst.count, 2);
  EXPECT_EQ(f.src[0].first, 6);
  EXPECT_EQ(f.src[1].first, 4);
  EXPECT_EQ(f.src[3].count, 0);
  f = facts(decode_vector(opv(0x2D, kMvv, 2, 4, 6, true)), st);  // vmacc.vv v2,v6,v4,v0.t
  EXPECT_EQ(f.fu, FuClass::kMul);
  EXPECT_EQ(f.src[2].first, 2);  // reads the old vd
  EXPECT_EQ(f.src[2].count, 2);
  EXPECT_EQ(f.src[3].first, 0);  // and v0
  EXPECT_EQ(f.src[3].count, 1);
  f = facts(decode_vector(opv(0x3B, kMvv, 4, 8, 10)), st);  // vwmul.vv v4,v8,v10: 4-register result
  EXPECT_EQ(f.dst.first, 4);
  EXPECT_EQ(f.dst.count, 4);
  f = facts(decode_vector(vmem(false, 2, 6, 4, 10, 11)), st);  // vlse32.v v4: EMUL 4
  EXPECT_EQ(f.fu, FuClass::kLoadStore);
  EXPECT_EQ(f.mem, MemKind::kStrided);
  EXPECT_EQ(f.dst.count, 4);
  f = facts(decode_vector(vmem(true, 1, 0, 2, 10, 8)), st);  // vsuxei8.v v2,(a0),v8: EMUL 1 index
  EXPECT_EQ(f.mem, MemKind::kIndexedUnordered);
  EXPECT_EQ(f.dst.count, 0);
  EXPECT_EQ(f.src[2].first, 2);
  EXPECT_EQ(f.src[1].first, 8);
  EXPECT_EQ(f.src[1].count, 1);
  f = facts(decode_vector(vmem(false, 3, 0, 2, 10, 8)), st);
  EXPECT_EQ(f.mem, MemKind::kIndexedOrdered);
  f = facts(decode_vector(opv(0x0E, kIvi, 2, 4, 1)), st);
  EXPECT_EQ(f.fu, FuClass::kMaskPermute);
  f = facts(decode_vector(opv(0x10, kMvv, 10, 4, 0)), st);  // vmv.x.s: one element
  EXPECT_EQ(f.vl, 1u);
  f = facts(decode_vector(opv(0x00, kIvv, 1, 4, 6)), st);  // misaligned vd
  EXPECT_FALSE(f.legal);
  cfg(32, kM1, 4);
  EXPECT_EQ(facts(decode_vector(opv(0x20, kFvv, 1, 2, 3)), st).fu, FuClass::kDiv);
  EXPECT_EQ(facts(decode_vector(vsetvli(10, 11, 0)), st).fu, FuClass::kConfig);
}

}  // namespace
}  // namespace tessera::isa::vec
