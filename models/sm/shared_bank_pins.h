// The pins of the shared-memory bank unit as the SM engine drives them in
// the `rtl` and `lockstep` modes (sm.shared_impl; docs/cosim.md, "Shared-memory bank unit"):
// the Verilated block alone, or the block and the C++ model
// (SharedBankUnit::step) side by side, compared every cycle. The engine
// steps the pins only in cycles in which the unit has work (a request
// waiting in front of it or in service); `model` mode uses no pins.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "rtl/common/lockstep.h"
#include "sm/shared_bank_unit.h"
#include "sm/sm_params.h"

namespace tessera::sim {
class Waveform;
}

namespace tessera::sm {

// What the request pins carry in one cycle (the harness logs it for the
// waveform window), and how it drives a Verilated shared_bank_unit V.
struct BankPinsIn {
  bool valid = false;
  BankRequest req;
};

template <class V>
void apply_bank_pins(V& v, const BankPinsIn& in) {
  v.req_valid = in.valid;
  v.req_op = static_cast<uint8_t>(in.req.op);
  v.req_mask = in.req.mask;
  for (unsigned l = 0; l < 32; ++l) {
    v.req_word[l] = static_cast<std::remove_reference_t<decltype(v.req_word[l])>>(in.req.word[l]);
    v.req_be[l] = in.req.be[l];
    v.req_data[l] = in.req.data[l];
    v.req_swap[l] = in.req.swap[l];
  }
}

class SharedBankPins {
 public:
  virtual ~SharedBankPins() = default;
  // One cycle (number `cycle` of the SM's clock) with `req` on the request
  // pins (nullptr: req_valid low). Lockstep: throws rtl::LockstepMismatch
  // when the outputs after the cycle differ.
  virtual void step(const BankRequest* req, uint64_t cycle) = 0;
  virtual bool ready() const = 0;
  virtual bool resp_valid() const = 0;
  virtual const BankResponse& response() const = 0;
  // Puts the block's signals (its ports, registers and bank RAMs) in the
  // chip's waveform under `scope` ("chip.sm3.shared_banks.rtl"), sampled after
  // every step; a cycle is period_ps long (docs/cosim.md, "Waveforms of the RTL").
  virtual void trace(sim::Waveform& wave, const std::string& scope, uint64_t period_ps) = 0;
};

// The block kind Verilated shared_bank_unit implementations register as
// (rtl/common/impl_registry.h), and how its registrations build the pins
// (sm/shared_bank_rtl.h).
inline constexpr const char* kSharedBankKind = "shared_bank_unit";
using SharedBankFactory = std::unique_ptr<SharedBankPins> (*)(const SmParams& p, SharedBankUnit& model,
                                                              const std::string& instance);

// The pins for p.shared_impl (rtl or lockstep; `model` is the caller's bug),
// of the implementation p.shared_impl_name.
// `model` is the C++ unit lockstep compares with; `instance` names the unit
// in reports ("chip.sm3.shared_banks").
std::unique_ptr<SharedBankPins> make_shared_bank_pins(const SmParams& p, SharedBankUnit& model,
                                                      const std::string& instance);

// Throws sim::ConfigError when no implementation of that name was built for
// these parameters (called by SmParams::from_config for rtl and lockstep).
void check_shared_rtl_params(const SmParams& p);

}  // namespace tessera::sm
