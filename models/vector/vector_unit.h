// The vector unit without its SystemC shell: an RVV 1.0 instruction is
// executed functionally by the ISA library (models/isa/vector.h) and timed
// by VectorTiming, from the facts the ISA library gives about it under the
// current vtype and vl and from the element addresses it actually accessed.
// The control core that drives it supplies the scalar registers, the
// memory and the cycle each instruction reaches the unit.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/vector.h"
#include "vector/vector_params.h"
#include "vector/vector_timing.h"

namespace tessera::vector {

class VectorUnit {
 public:
  explicit VectorUnit(const VectorParams& params);

  struct Step {
    isa::vec::VResult result;  // a trap leaves the instruction untimed
    bool timed = false;        // vset* and trapping instructions take no vector-unit time
    IssueResult timing;
  };
  // Executes `inst` now and times it from cycle `ready`.
  Step execute(const isa::vec::VInst& inst, isa::ThreadState& scalar, isa::vec::VectorMemory& memory, uint64_t ready);

  isa::vec::VectorState& state() { return state_; }
  const VectorTiming& timing() const { return timing_; }

 private:
  // Passes accesses through and records each element's address, in order.
  class Recorder : public isa::vec::VectorMemory {
   public:
    isa::vec::VectorMemory* target = nullptr;
    std::vector<uint64_t> addresses;
    isa::MemStatus read(uint32_t addr, unsigned bytes, uint8_t* data) override;
    isa::MemStatus write(uint32_t addr, unsigned bytes, const uint8_t* data) override;
  };

  isa::vec::VectorState state_;
  VectorTiming timing_;
  Recorder recorder_;
  std::vector<uint64_t> element_addresses_;
};

}  // namespace tessera::vector
