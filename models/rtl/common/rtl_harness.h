// Drives one Verilated RTL block a clock cycle at a time, and keeps what is
// needed to show the cycles before a problem as a waveform: the model's
// state at a recent checkpoint (Verilator's --savable serialisation, kept in
// memory) and the inputs applied since. Nothing is traced while running;
// dump_window() restores the checkpoint into a fresh, traced copy of the
// block and replays the logged inputs into an FST file. The block runs in
// the clock domain of the model it sits in: the caller steps it once per
// cycle in which it has work, and passes that cycle's number, which becomes
// the waveform's time axis (cycle c at c ns). Separately, a run that traces
// the chip (--vcd) hands the harness an RtlWave (trace_to): after every step
// it samples the block's signals into the chip's waveform.
//
// Every top module has `input clk` and `input rst` (synchronous, active
// high). In a step the inputs are applied, the clock falls and rises; the
// outputs read after step() are those of the state the rising edge made.
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>
#include <verilated_save.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rtl/common/rtl_signals.h"
#include "rtl/common/rtl_wave.h"
#include "rtl/common/wave_options.h"

namespace tessera::rtl {

// Verilator's serialisation into and out of memory.
// One MemorySave is reused for every checkpoint: its staging buffer is
// large, and checkpoints are frequent.
class MemorySave final : public VerilatedSerialize {
 public:
  MemorySave() { m_isOpen = true; }
  ~MemorySave() override { m_isOpen = false; }
  // Serialises `model` into `out` (replacing its contents).
  template <class V>
  void save(V& model, std::vector<uint8_t>& out) {
    out_ = &out;
    out.clear();
    *this << model;
    flush();
    out_ = nullptr;
  }
  void flush() override {
    if (out_) out_->insert(out_->end(), m_bufp, m_cp);
    m_cp = m_bufp;
  }

 private:
  std::vector<uint8_t>* out_ = nullptr;
};

class MemoryRestore final : public VerilatedDeserialize {
 public:
  explicit MemoryRestore(const std::vector<uint8_t>& in) : in_(in) {
    m_isOpen = true;
    m_endp = m_bufp;
  }

 private:
  void fill() override {
    // Keep what is unread, then append the next part of the image.
    uint8_t* rp = m_bufp;
    for (uint8_t* sp = m_cp; sp < m_endp; *rp++ = *sp++) {
    }
    m_endp = m_bufp + (m_endp - m_cp);
    m_cp = m_bufp;
    const size_t room = static_cast<size_t>(m_bufp + bufferSize() - m_endp);
    const size_t n = std::min(room, in_.size() - pos_);
    std::copy(in_.begin() + static_cast<std::ptrdiff_t>(pos_), in_.begin() + static_cast<std::ptrdiff_t>(pos_ + n),
              m_endp);
    pos_ += n;
    m_endp += n;
  }

  const std::vector<uint8_t>& in_;
  size_t pos_ = 0;
};

template <class V, class In>
class RtlHarness {
 public:
  using Apply = void (*)(V&, const In&);

  RtlHarness(std::string instance, Apply apply, WaveOptions waves)
      : instance_(std::move(instance)), apply_(apply), waves_(std::move(waves)), model_(make_model(*ctx_)) {
    if (waves_.record) check_wave_dir(waves_.dir);  // before the run, not at the mismatch
    if (waves_.cycles == 0) waves_.cycles = 1;
    older_.log.reserve(waves_.cycles);
    newer_.log.reserve(waves_.cycles);
    reset();
  }
  RtlHarness(const RtlHarness&) = delete;
  RtlHarness& operator=(const RtlHarness&) = delete;

  const std::string& instance() const { return instance_; }

  // Two cycles with rst high; the block is then in its reset state.
  void reset() {
    model_->rst = 1;
    for (int i = 0; i < 2; ++i) edge(*model_);
    model_->rst = 0;
    model_->eval();
    steps_ = 0;
    older_.log.clear();
    if (waves_.record) checkpoint(newer_, 0);
  }

  // One cycle of the block's clock (`cycle`: its number in the block's clock
  // domain, for the waveform's time axis).
  void step(const In& in, uint64_t cycle = UINT64_MAX) {
    step(in, cycle, [](const V&) {});
  }
  // The same, calling before_edge(model) with the inputs applied and the
  // clock low: the outputs the cycle's state and inputs drive before the
  // rising edge acts on them (a RAM's write port).
  template <class F>
  void step(const In& in, uint64_t cycle, F&& before_edge) {
    const uint64_t at = cycle == UINT64_MAX ? steps_ : cycle;
    if (waves_.record && newer_.log.size() == waves_.cycles) {
      std::swap(older_, newer_);
      checkpoint(newer_, at);
    }
    apply_(*model_, in);
    model_->clk = 0;
    model_->eval();
    before_edge(static_cast<const V&>(*model_));
    model_->clk = 1;
    model_->eval();
    if (waves_.record) newer_.log.push_back(Logged{in, at});
    ++steps_;
    if (trace_) trace_->sample(cycle);
  }

  // The block's signals (rtl_signals.h), pointing into the stepped model.
  std::vector<RtlVar> signals() { return rtl_signals<V>(*model_); }
  // Samples the block into `wave` after every step (nullptr: stops); the
  // caller keeps it alive.
  void trace_to(RtlWave* wave) { trace_ = wave && wave->any() ? wave : nullptr; }

  V& model() { return *model_; }
  const V& model() const { return *model_; }
  uint64_t steps() const { return steps_; }

  // Writes the last (at least) waves.cycles steps, replayed from the older
  // checkpoint, to <dir>/<file_stem>.fst and returns its path. Throws
  // std::runtime_error when the file cannot be written (std::logic_error
  // when waves.record is off).
  std::string dump_window(const std::string& file_stem) {
    if (!waves_.record) throw std::logic_error(instance_ + ": waveform asked of a harness that does not record");
    std::filesystem::create_directories(waves_.dir);
    const std::string path = (std::filesystem::path(waves_.dir) / (file_stem + ".fst")).string();
    const Window& from = older_.log.empty() ? newer_ : older_;
    auto ctx = make_context();
    std::unique_ptr<V> replay = make_model(*ctx);
    {
      MemoryRestore in(from.state);
      in >> *replay;
    }
    // After the restore: the image carries the context's settings too.
    ctx->traceEverOn(true);
    ctx->timeunit(-12);
    ctx->timeprecision(-12);
    VerilatedFstC fst;
    replay->trace(&fst, 99);
    fst.open(path.c_str());
    if (!fst.isOpen()) throw std::runtime_error("cannot write the waveform " + path);
    uint64_t last = from.start;
    fst.dump(last * 1000);
    auto replay_log = [&](const std::vector<Logged>& log) {
      for (const Logged& l : log) {
        apply_(*replay, l.in);
        replay->clk = 0;
        replay->eval();
        fst.dump(l.cycle * 1000 + 1);
        replay->clk = 1;
        replay->eval();
        fst.dump(l.cycle * 1000 + 500);
        last = l.cycle;
      }
    };
    if (&from == &older_) replay_log(older_.log);
    replay_log(newer_.log);
    fst.dump(last * 1000 + 999);
    fst.close();
    replay->final();
    return path;
  }

 private:
  struct Logged {
    In in;
    uint64_t cycle;
  };
  // A checkpoint and the inputs applied after it.
  struct Window {
    std::vector<uint8_t> state;
    uint64_t start = 0;
    std::vector<Logged> log;
  };

  // A context evaluates its models on the calling thread. Verilator's default
  // (std::thread::hardware_concurrency() threads) gives every context a pool
  // of that many less one idle worker threads, each with its own stack: a
  // 64-router RTL mesh held 64 of them on 2 cores, and would hold 4,032 on 64.
  static std::unique_ptr<VerilatedContext> make_context() {
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->threads(1);
    return ctx;
  }
  static std::unique_ptr<V> make_model(VerilatedContext& ctx) { return std::make_unique<V>(&ctx, "rtl"); }
  static void edge(V& m) {
    m.clk = 0;
    m.eval();
    m.clk = 1;
    m.eval();
  }
  void checkpoint(Window& w, uint64_t start) {
    saver_.save(*model_, w.state);
    w.start = start;
    w.log.clear();
  }

  std::string instance_;
  Apply apply_;
  WaveOptions waves_;
  std::unique_ptr<VerilatedContext> ctx_ = make_context();
  std::unique_ptr<V> model_;
  uint64_t steps_ = 0;
  RtlWave* trace_ = nullptr;  // the chip's waveform, when it shows this block
  Window older_, newer_;
  MemorySave saver_;
};

}  // namespace tessera::rtl
