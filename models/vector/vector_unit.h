// The vector unit without its SystemC shell: an RVV 1.0 instruction is
// executed functionally by the ISA library (models/isa/vector.h) and timed
// by VectorTiming, from the facts the ISA library gives about it under the
// current vtype and vl and from the element addresses it actually accessed.
// The control core that drives it supplies the scalar registers, the
// memory and the cycle each instruction reaches the unit. A unit shared by
// several cores (TimingParams::contexts) holds a register context per core:
// each instruction names its context, and the contexts share the timing
// model (issue queue, functional units, ports and banks).
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
  // Executes `inst` on the registers of `context` now and times it from
  // cycle `ready`. arrivals (memory through the cluster): the cycle each
  // access completed, in the order the instruction makes them; null: the
  // banks time the accesses.
  Step execute(const isa::vec::VInst& inst, isa::ThreadState& scalar, isa::vec::VectorMemory& memory, uint64_t ready,
               const std::vector<uint64_t>* arrivals = nullptr, unsigned context = 0);

  // One element access of a load or store.
  struct Access {
    uint32_t addr = 0;
    uint8_t bytes = 0;
    bool store = false;
    uint32_t value = 0;  // store data (little-endian)
  };
  struct Plan {
    std::vector<Access> accesses;  // in element order, the faulting one left out
    isa::vec::VResult result;      // the trap the instruction will raise, if any
  };
  // The accesses `inst` will make, found without changing the unit or
  // `scalar`: it runs on a copy of the state, `check` saying which accesses
  // fault (its reads' data is ignored). No address depends on data the same
  // instruction loads, so execute() with the same state makes the same ones.
  const Plan& plan(const isa::vec::VInst& inst, const isa::ThreadState& scalar, isa::vec::VectorMemory& check,
                   unsigned context = 0);
  const Plan& last_plan(unsigned context = 0) const { return plans_.at(context); }

  unsigned contexts() const { return static_cast<unsigned>(states_.size()); }
  isa::vec::VectorState& state(unsigned context = 0) { return states_.at(context); }
  const isa::vec::VectorState& state(unsigned context = 0) const { return states_.at(context); }
  const VectorTiming& timing() const { return timing_; }
  // The timing statistics as of the last instruction (stable storage for
  // counters).
  const TimingStats& stats() const { return stats_; }

 private:
  // Passes accesses through and records each element's address, in order:
  // a span alone is kept as its first address, element count and stride.
  class Recorder : public isa::vec::VectorMemory {
   public:
    isa::vec::VectorMemory* target = nullptr;
    std::vector<uint64_t> addresses;
    uint64_t span_addr = 0;
    uint32_t span_elements = 0;  // 0: no span kept apart
    unsigned span_stride = 0;
    void clear();
    void expand_span();  // the span's addresses into `addresses`, first
    isa::MemStatus read(uint32_t addr, unsigned bytes, uint8_t* data) override;
    isa::MemStatus write(uint32_t addr, unsigned bytes, const uint8_t* data) override;
    bool read_span(uint32_t addr, uint32_t bytes, unsigned element_bytes, uint8_t* data) override;
    bool write_span(uint32_t addr, uint32_t bytes, unsigned element_bytes, const uint8_t* data) override;

   private:
    void record_span(uint32_t addr, uint32_t bytes, unsigned element_bytes);
  };

  class Planner : public isa::vec::VectorMemory {
   public:
    isa::vec::VectorMemory* check = nullptr;
    std::vector<Access>* accesses = nullptr;
    isa::MemStatus read(uint32_t addr, unsigned bytes, uint8_t* data) override;
    isa::MemStatus write(uint32_t addr, unsigned bytes, const uint8_t* data) override;
  };

  std::vector<isa::vec::VectorState> states_;  // per context
  isa::vec::VectorState scratch_;
  std::vector<Plan> plans_;  // per context: the last plan() of its core
  TimingStats stats_;
  std::vector<uint64_t> element_arrivals_;
  VectorTiming timing_;
  Recorder recorder_;
  std::vector<uint64_t> element_addresses_;
};

}  // namespace tessera::vector
