// An SM engine in-process, without SystemC: a hand-assembled kernel, global
// memory, an atomic queue, and a memory port that answers every line request
// a fixed number of cycles after it leaves the SM. Tests drive it cycle by
// cycle and read what each partition issued from the waveform record
// (IssueStage::trace).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "isa/decoded_program.h"
#include "isa/elf_loader.h"
#include "sim/backing_memory.h"
#include "sim/config.h"
#include "sim/run_control.h"
#include "sim/stats.h"
#include "sm/atomic_queue.h"
#include "sm/sm_engine.h"
#include "unit/isa/isa_test_util.h"

namespace tessera::sm::test {

namespace enc = isa::test::enc;

inline constexpr uint32_t kCode = 0x80000000;    // the kernel
inline constexpr uint32_t kGlobal = 0x80000000;  // global memory, 64 KiB
inline constexpr uint32_t kData = 0x80008000;    // data in it

// Tessera custom-0 instructions (docs/firmware-abi.md).
inline constexpr uint32_t kExit = enc::r(0x0B, 1, 1, 0, 0, 0);
inline constexpr uint32_t kBarSync = enc::r(0x0B, 1, 0, 0, 0, 0);
inline uint32_t sfu_sin(uint32_t fd, uint32_t fs) { return enc::r(0x0B, 0, 0, fd, fs, 0); }
// ldg.w rd, imm(rs1): a read-only global load, cached in L1.
inline uint32_t ldg_w(uint32_t rd, uint32_t rs1, int32_t imm) { return enc::i(0x2B, 2, rd, rs1, imm); }
inline uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) { return enc::opimm(0, rd, rs1, imm); }
inline uint32_t csrr(uint32_t rd, uint16_t csr) { return enc::csr(2, rd, csr, 0); }
inline uint32_t lui(uint32_t rd, uint32_t imm20) { return enc::u(0x37, rd, imm20); }
inline uint32_t lw(uint32_t rd, uint32_t rs1, int32_t imm) { return enc::load(2, rd, rs1, imm); }

// One issue seen in a partition's waveform record.
struct Issue {
  uint64_t cycle;
  unsigned partition;
  int warp;
  uint32_t pc;  // offset from kCode
  unsigned lanes;
  bool operator==(const Issue& o) const {
    return cycle == o.cycle && partition == o.partition && warp == o.warp && pc == o.pc && lanes == o.lanes;
  }
};
inline std::ostream& operator<<(std::ostream& os, const Issue& i) {
  return os << "{cycle " << i.cycle << ", p" << i.partition << ", warp " << i.warp << ", pc +" << i.pc << ", "
            << i.lanes << " lanes}";
}

class SmHarness : public SmEngine::Port {
 public:
  // `sets`: parameter overrides ("sm.dual_issue=false").
  explicit SmHarness(const std::vector<uint32_t>& code, const std::vector<std::string>& sets = {},
                     uint64_t memory_latency = 100)
      : memory_latency_(memory_latency) {
    for (const std::string& s : sets) cfg_.set_override(s);
    params_ = SmParams::from_config(cfg_);
    isa::ElfSegment seg;
    seg.addr = kCode;
    seg.executable = true;
    seg.bytes.resize(code.size() * 4);
    std::memcpy(seg.bytes.data(), code.data(), seg.bytes.size());
    seg.mem_size = static_cast<uint32_t>(seg.bytes.size());
    image_.segments.push_back(seg);
    program_ = std::make_unique<isa::DecodedProgram>(image_);
    engine_ = std::make_unique<SmEngine>(
        0, SmEngine::Context{params_, global_, *program_, run_, root_, 1, atomics_, "chip.sm0"});
    engine_->set_port(this);
    engine_->set_tracing(true);
  }

  SmEngine& sm() { return *engine_; }
  sim::BackingMemory& global() { return global_; }
  sim::RunControl& run_control() { return run_; }
  const SmParams& params() const { return params_; }

  // A block of `threads` threads of the kernel, placed during cycle `now`.
  void launch(unsigned threads, uint64_t now, uint32_t shared_bytes = 0) {
    KernelLaunch k;
    k.start_pc = kCode;
    k.grid = {1, 1, 1};
    k.block = {threads, 1, 1};
    k.shared_bytes = shared_bytes;
    k.static_bytes = shared_bytes;  // the static window [0x20000000, + shared_bytes)
    k.regs_per_thread = 32;
    k.id = 1;
    ASSERT_TRUE(engine_->can_accept(k));
    engine_->start_block(k, 0, now);
  }

  // Runs cycles `from`..`to` one by one (the engine is told each cycle, as
  // with sm.skip_idle=false), answering memory requests and performing
  // queued atomics at the end of each cycle.
  void run(uint64_t from, uint64_t to) {
    for (uint64_t now = from; now <= to && !run_.stopped(); ++now) step(now);
  }

  void step(uint64_t now) {
    while (!answers_.empty() && answers_.front().due == now) {
      const Pending a = answers_.front();
      answers_.pop_front();
      engine_->answer(a.r.tag, a.r.line, a.r.sectors, now);
    }
    engine_->cycle(now);
    auto& parts = engine_->partitions();
    for (unsigned p = 0; p < parts.size(); ++p) {
      if (!parts[p].traced) continue;
      parts[p].traced = false;
      const IssueTrace& t = parts[p].trace;
      if (t.warp >= 0) issues_.push_back(Issue{now, p, t.warp, t.pc - kCode, t.lanes});
    }
    atomics_.perform();
  }

  // Every issue seen so far (the first instruction of a dual issue).
  const std::vector<Issue>& issues() const { return issues_; }
  // The cycle the instruction at `pc` (offset) first issued for warp `warp`.
  uint64_t issue_cycle(uint32_t pc, int warp = 0) const {
    for (const Issue& i : issues_)
      if (i.pc == pc && i.warp == warp) return i.cycle;
    ADD_FAILURE() << "pc +" << pc << " never issued for warp " << warp;
    return 0;
  }
  // Requests sent, in order, with the cycle they left.
  const std::vector<std::pair<uint64_t, MemRequest>>& sent() const { return sent_; }

  // SmEngine::Port: every queued request leaves (a port without
  // back-pressure) and is answered memory_latency cycles later.
  void before_issue(uint64_t now) override {
    auto& q = engine_->requests();
    while (!q.empty()) {
      sent_.emplace_back(now, q.front());
      answers_.push_back(Pending{now + memory_latency_, q.front()});
      q.pop_front();
    }
  }
  void block_finished() override { ++blocks_finished_; }
  unsigned blocks_finished() const { return blocks_finished_; }

 private:
  struct Pending {
    uint64_t due;
    MemRequest r;
  };
  uint64_t memory_latency_;
  sim::Config cfg_;
  SmParams params_{};
  isa::ElfImage image_;
  std::unique_ptr<isa::DecodedProgram> program_;
  sim::BackingMemory global_{kGlobal, 64 * 1024};
  sim::RunControl run_;
  sim::StatGroup root_{"chip"};
  AtomicQueue atomics_{global_, run_};
  std::unique_ptr<SmEngine> engine_;
  std::deque<Pending> answers_;
  std::vector<Issue> issues_;
  std::vector<std::pair<uint64_t, MemRequest>> sent_;
  unsigned blocks_finished_ = 0;
};

}  // namespace tessera::sm::test
