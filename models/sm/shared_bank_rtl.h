// The Verilated shared_bank_unit behind SharedBankPins (docs/cosim.md,
// "Implementations and how they are selected"): the pins driven by the
// block alone (rtl) or by the block beside the C++ model (lockstep), for any
// Verilated class V of the block's ports. The registration .cpp that
// tessera_add_rtl_block(... IMPLEMENTS shared_bank_unit) generates
// instantiates these for its class and registers it; nothing else includes
// this header (it includes Verilator's).
#pragma once

#include <fmt/format.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "rtl/common/coverage.h"
#include "rtl/common/impl_registry.h"
#include "rtl/common/rtl_harness.h"
#include "rtl/common/rtl_wave.h"
#include "sm/shared_bank_coverage.h"
#include "sm/shared_bank_pins.h"

namespace tessera::sm {

namespace bank_rtl {

inline std::string lanes_hex(const std::array<uint32_t, 32>& v, uint32_t mask) {
  std::string s;
  for (unsigned l = 0; l < 32; ++l) {
    if (mask & (1u << l)) s += fmt::format("{}{}:{:x}", s.empty() ? "" : " ", l, v[l]);
  }
  return s;
}

// Whether the block declares its bank RAMs' write ports (ram_we, ram_row,
// ram_wdata; docs/cosim.md, "Internal state"), which lockstep then compares.
template <class V, class = void>
struct HasRamPorts : std::false_type {};
template <class V>
struct HasRamPorts<V, std::void_t<decltype(std::declval<V&>().ram_we[0]), decltype(std::declval<V&>().ram_row[0]),
                                  decltype(std::declval<V&>().ram_wdata[0])>> : std::true_type {};

// The Verilated block drives the pins.
template <class V>
class RtlPins : public SharedBankPins {
 public:
  RtlPins(const std::string& instance, const rtl::WaveOptions& waves) : h_(instance, &apply_bank_pins<V>, waves) {
    if (auto table =
            rtl::CoverageCollection::track(SharedBankCoverage::kBlock, instance, SharedBankCoverage::point_names()))
      cover_ = std::make_unique<SharedBankCoverage>(std::move(table));
  }

  void step(const BankRequest* req, uint64_t cycle) override {
    in_.valid = req != nullptr;
    if (req) in_.req = *req;
    const bool ready = h_.model().req_ready;
    if constexpr (HasRamPorts<V>::value) {
      if (ram_banks_ > 0) {
        h_.step(in_, cycle, [this](const V& v) { sample_writes(v); });
      } else {
        h_.step(in_, cycle);
      }
    } else {
      h_.step(in_, cycle);
    }
    const V& v = h_.model();
    if (v.resp_valid) {
      out_.mask = v.resp_mask;
      for (unsigned l = 0; l < 32; ++l) out_.data[l] = v.resp_data[l];
      out_.passes = v.resp_passes;
      out_.broadcasts = v.resp_broadcasts;
    }
    if (cover_) cover_->sample(req, ready, v.resp_valid ? &out_ : nullptr);
  }
  bool ready() const override { return h_.model().req_ready; }
  bool resp_valid() const override { return h_.model().resp_valid; }
  const BankResponse& response() const override { return out_; }
  void trace(sim::Waveform& wave, const std::string& scope, uint64_t period_ps) override {
    // The unit's buses are unpacked per lane (req_word[32], ...) and its RAM
    // one array per bank (g_bank[b].mem): one signal per element already,
    // nothing packed to split.
    wave_ = std::make_unique<rtl::RtlWave>(wave, scope, h_.signals(), std::vector<rtl::BusSplit>{}, period_ps);
    h_.trace_to(wave_.get());
  }

 protected:
  // The RAM writes of each cycle are sampled from the block's write ports
  // (lockstep, when the block has them) for `banks` banks.
  void sample_ram_writes(unsigned banks) {
    if constexpr (HasRamPorts<V>::value) ram_banks_ = banks;
  }
  bool samples_ram_writes() const { return ram_banks_ > 0; }
  void sample_writes(const V& v) {
    if constexpr (HasRamPorts<V>::value) {
      ram_writes_.clear();
      for (unsigned b = 0; b < ram_banks_; ++b) {
        if (v.ram_we[b]) ram_writes_.push_back({b, static_cast<uint32_t>(v.ram_row[b]), v.ram_wdata[b], 0});
      }
    }
  }

  rtl::RtlHarness<V, BankPinsIn> h_;
  unsigned ram_banks_ = 0;
  std::vector<BankWrite> ram_writes_;   // the last cycle's, in bank order (old unknown: 0)
  std::unique_ptr<rtl::RtlWave> wave_;  // when the run traces this unit
  BankPinsIn in_;
  BankResponse out_;
  std::unique_ptr<SharedBankCoverage> cover_;  // when coverage is collected
};

// The block and the C++ model side by side.
template <class V>
class LockstepPins final : public RtlPins<V> {
 public:
  LockstepPins(const std::string& instance, const rtl::WaveOptions& waves, SharedBankUnit& model)
      : RtlPins<V>(instance, waves), model_(model) {
    model_.reset();
    this->sample_ram_writes(model_.banks());
  }

  void step(const BankRequest* req, uint64_t cycle) override {
    const bool take = req && model_.ready();
    serving_ = in_service_;
    busy_ = model_.busy();
    RtlPins<V>::step(req, cycle);
    model_.step(req);
    if (model_.resp_valid()) answering_ = in_service_;
    if (take) in_service_ = *req;
    compare(cycle);
  }

 private:
  // Whether a bank's writes in a cycle leave its RAM as the model's do: the
  // same row and value, or a write-back of the word it holds on one side
  // and none on the other.
  bool same_write(const BankWrite* m, const BankWrite* r) const {
    if (m && r) return m->row == r->row && m->value == r->value;
    if (m) return m->value == m->old;
    if (r) return r->value == model_.ram_word(r->bank, r->row);
    return true;
  }
  // The banks whose writes differ in the cycle, each with the model's and
  // the RTL's write (nullptr: none).
  std::vector<std::pair<const BankWrite*, const BankWrite*>> differing_writes() const {
    std::vector<std::pair<const BankWrite*, const BankWrite*>> out;
    if (!this->samples_ram_writes()) return out;
    const std::vector<BankWrite>& mw = model_.writes();
    const std::vector<BankWrite>& rw = this->ram_writes_;
    if (mw.size() == rw.size()) {  // the usual case: the same banks, the same writes
      bool same = true;
      for (size_t i = 0; same && i < mw.size(); ++i)
        same = mw[i].bank == rw[i].bank && mw[i].row == rw[i].row && mw[i].value == rw[i].value;
      if (same) return out;
    }
    size_t i = 0, j = 0;  // both in bank order
    while (i < mw.size() || j < rw.size()) {
      const BankWrite* m = i < mw.size() ? &mw[i] : nullptr;
      const BankWrite* r = j < rw.size() ? &rw[j] : nullptr;
      if (m && r && m->bank != r->bank) {  // one side writes the lower bank alone
        if (m->bank < r->bank) {
          r = nullptr;
        } else {
          m = nullptr;
        }
      }
      if (!same_write(m, r)) out.emplace_back(m, r);
      i += m != nullptr;
      j += r != nullptr;
    }
    return out;
  }

  void compare(uint64_t cycle) {
    const V& v = this->h_.model();
    const BankResponse& m = model_.response();
    bool same = v.req_ready == model_.ready() && v.resp_valid == model_.resp_valid();
    uint32_t lanes = 0;  // active lanes whose data differ
    if (same && model_.resp_valid()) {
      same = v.resp_mask == m.mask && v.resp_passes == m.passes && v.resp_broadcasts == m.broadcasts;
      for (unsigned l = 0; l < 32; ++l) {
        if ((m.mask & (1u << l)) && v.resp_data[l] != m.data[l]) lanes |= 1u << l;
      }
    }
    const auto writes = differing_writes();
    if (same && lanes == 0 && writes.empty()) return;
    rtl::MismatchReport r("shared_bank_unit", this->h_.instance(), cycle);
    const BankPinsIn& in = this->in_;
    r.input("req_valid", in.valid ? "1" : "0");
    if (in.valid) describe(r, "req", in.req);
    if (busy_) describe(r, "serving", serving_);
    if (model_.resp_valid() || v.resp_valid) describe(r, "answered", answering_);
    auto b = [](bool x) { return std::string(x ? "1" : "0"); };
    r.output("req_ready", b(model_.ready()), b(v.req_ready));
    r.output("resp_valid", b(model_.resp_valid()), b(v.resp_valid));
    if (model_.resp_valid() || v.resp_valid) {
      r.output("resp_mask", fmt::format("{:08x}", m.mask), fmt::format("{:08x}", v.resp_mask));
      r.output("resp_passes", std::to_string(m.passes), std::to_string(v.resp_passes));
      r.output("resp_broadcasts", std::to_string(m.broadcasts), std::to_string(v.resp_broadcasts));
      for (unsigned l = 0; l < 32; ++l) {
        if (m.mask & (1u << l))
          r.output(fmt::format("resp_data[{}]", l), fmt::format("{:08x}", m.data[l]),
                   fmt::format("{:08x}", v.resp_data[l]));
      }
    }
    const unsigned banks = model_.banks();
    auto write_text = [](const BankWrite* w) {
      return w ? fmt::format("row {} <- {:08x}", w->row, w->value) : std::string("no write");
    };
    for (const auto& [model_write, rtl_write] : writes) {
      const BankWrite& any = model_write ? *model_write : *rtl_write;
      const uint32_t word = any.row * banks + any.bank;
      r.output(fmt::format("bank {} RAM (word at 0x{:x})", any.bank, word * 4), write_text(model_write),
               write_text(rtl_write));
    }
    try {
      r.set_wave(this->h_.dump_window(fmt::format("{}_cycle{}", this->h_.instance(), cycle)));
    } catch (const std::exception& e) {  // the mismatch is the result; the waveform is its evidence
      r.input("waveform", fmt::format("not written: {}", e.what()));
    }
    throw rtl::LockstepMismatch(r);
  }

  static void describe(rtl::MismatchReport& r, const std::string& what, const BankRequest& q) {
    r.input(what + ".op", bank_op_name(q.op));
    r.input(what + ".mask", fmt::format("{:08x}", q.mask));
    r.input(what + ".word", lanes_hex(q.word, q.mask));
    if (q.op == BankOp::kStore) {
      std::array<uint32_t, 32> be{};
      for (unsigned l = 0; l < 32; ++l) be[l] = q.be[l];
      r.input(what + ".be", lanes_hex(be, q.mask));
    }
    if (q.op != BankOp::kLoad) r.input(what + ".data", lanes_hex(q.data, q.mask));
    if (q.op == BankOp::kCas) r.input(what + ".swap", lanes_hex(q.swap, q.mask));
  }

  SharedBankUnit& model_;
  // The request taken last, the one answered, the one in service during the
  // cycle (when busy_).
  BankRequest in_service_, answering_, serving_;
  bool busy_ = false;
};

template <class V>
std::unique_ptr<SharedBankPins> make_pins(const SmParams& p, SharedBankUnit& model, const std::string& instance) {
  if (p.shared_impl == rtl::Impl::kRtl) return std::make_unique<RtlPins<V>>(instance, p.rtl.waves.without_recording());
  return std::make_unique<LockstepPins<V>>(instance, p.rtl.waves, model);
}

}  // namespace bank_rtl

// Registers V as the shared_bank_unit implementation `name`, Verilated
// with `params` (BANKS, SHARED_BYTES, ATOMIC_CYCLES).
template <class V>
struct SharedBankRtlRegistration {
  SharedBankRtlRegistration(const char* name, const char* prefix,
                            std::vector<std::pair<std::string, std::string>> params) {
    const SharedBankFactory make = &bank_rtl::make_pins<V>;
    rtl::register_impl({kSharedBankKind, name, prefix, std::move(params), reinterpret_cast<void (*)()>(make)});
  }
};

}  // namespace tessera::sm
