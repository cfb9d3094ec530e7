#include "vector/vector_unit.h"

#include <algorithm>

namespace tessera::vector {

namespace {

using isa::vec::FuClass;
using isa::vec::VOp;

Unit unit_of(FuClass fu) {
  switch (fu) {
    case FuClass::kMul:
      return Unit::kMul;
    case FuClass::kDiv:
      return Unit::kDiv;
    case FuClass::kLoadStore:
      return Unit::kMemory;
    case FuClass::kConfig:
    case FuClass::kAdd:
    case FuClass::kMaskPermute:  // the chapter's machine has no separate permute unit
      break;
  }
  return Unit::kAdd;
}

bool is_reduction(VOp op) { return op >= VOp::kVredsum && op <= VOp::kVfredosum; }

}  // namespace

isa::MemStatus VectorUnit::Recorder::read(uint32_t addr, unsigned bytes, uint8_t* data) {
  addresses.push_back(addr);
  return target->read(addr, bytes, data);
}

isa::MemStatus VectorUnit::Recorder::write(uint32_t addr, unsigned bytes, const uint8_t* data) {
  addresses.push_back(addr);
  return target->write(addr, bytes, data);
}

void VectorUnit::Recorder::record_span(uint32_t addr, uint32_t bytes, unsigned element_bytes) {
  if (addresses.empty() && span_elements == 0) {
    span_addr = addr;
    span_elements = bytes / element_bytes;
    span_stride = element_bytes;
    return;
  }
  expand_span();
  for (uint32_t offset = 0; offset < bytes; offset += element_bytes) addresses.push_back(addr + offset);
}

void VectorUnit::Recorder::expand_span() {
  if (span_elements == 0) return;
  std::vector<uint64_t> later;
  later.swap(addresses);
  for (uint32_t k = 0; k < span_elements; ++k) addresses.push_back(span_addr + uint64_t{k} * span_stride);
  addresses.insert(addresses.end(), later.begin(), later.end());
  span_elements = 0;
}

void VectorUnit::Recorder::clear() {
  addresses.clear();
  span_elements = 0;
}

bool VectorUnit::Recorder::read_span(uint32_t addr, uint32_t bytes, unsigned element_bytes, uint8_t* data) {
  if (!target->read_span(addr, bytes, element_bytes, data)) return false;
  record_span(addr, bytes, element_bytes);
  return true;
}

bool VectorUnit::Recorder::write_span(uint32_t addr, uint32_t bytes, unsigned element_bytes, const uint8_t* data) {
  if (!target->write_span(addr, bytes, element_bytes, data)) return false;
  record_span(addr, bytes, element_bytes);
  return true;
}

isa::MemStatus VectorUnit::Planner::read(uint32_t addr, unsigned bytes, uint8_t* data) {
  std::fill(data, data + bytes, uint8_t{0});
  const isa::MemStatus status = check->read(addr, bytes, data);
  if (status == isa::MemStatus::kOk) accesses->push_back(Access{addr, static_cast<uint8_t>(bytes), false, 0});
  return status;
}

isa::MemStatus VectorUnit::Planner::write(uint32_t addr, unsigned bytes, const uint8_t* data) {
  const isa::MemStatus status = check->write(addr, bytes, data);
  if (status != isa::MemStatus::kOk) return status;
  uint32_t value = 0;
  for (unsigned b = 0; b < bytes; ++b) value |= uint32_t{data[b]} << (8 * b);
  accesses->push_back(Access{addr, static_cast<uint8_t>(bytes), true, value});
  return status;
}

VectorUnit::VectorUnit(const VectorParams& params)
    : states_(params.timing.contexts, isa::vec::VectorState(params.vlen)),
      scratch_(params.vlen),
      plans_(params.timing.contexts),
      timing_(params.timing) {}

const VectorUnit::Plan& VectorUnit::plan(const isa::vec::VInst& inst, const isa::ThreadState& scalar,
                                         isa::vec::VectorMemory& check, unsigned context) {
  scratch_ = states_.at(context);
  isa::ThreadState s = scalar;
  Plan& plan = plans_.at(context);
  plan.accesses.clear();
  Planner planner;
  planner.check = &check;
  planner.accesses = &plan.accesses;
  plan.result = isa::vec::execute(inst, scratch_, s, planner);
  return plan;
}

VectorUnit::Step VectorUnit::execute(const isa::vec::VInst& inst, isa::ThreadState& scalar,
                                     isa::vec::VectorMemory& memory, uint64_t ready,
                                     const std::vector<uint64_t>* arrivals, unsigned context) {
  Step step;
  isa::vec::VectorState& state = states_.at(context);
  // The facts are those of the state the instruction starts from.
  const isa::vec::VFacts f = isa::vec::facts(inst, state);
  const uint32_t vstart = state.vstart;
  recorder_.target = &memory;
  recorder_.clear();
  step.result = isa::vec::execute(inst, state, scalar, recorder_);
  if (step.result.trap != isa::Trap::kNone || inst.fu == FuClass::kConfig) return step;

  VectorOp op;
  op.unit = unit_of(f.fu);
  op.is_store = inst.is_store();
  op.vl = f.vl;
  op.reduction = is_reduction(inst.op);
  op.context = static_cast<uint8_t>(context);
  if (f.dst.count > 0) {
    op.vd = f.dst.first;
    op.vd_regs = f.dst.count;
  }
  for (unsigned i = 0; i < 3; ++i) {
    if (f.src[i].count == 0) continue;
    op.vs[i] = f.src[i].first;
    op.vs_regs[i] = f.src[i].count;
  }
  op.masked = f.src[3].count > 0;
  if (op.unit == Unit::kMemory && !arrivals && vstart == 0 && recorder_.addresses.empty() &&
      recorder_.span_elements == f.vl) {
    // One span of every element (unit stride, unmasked): element k's
    // address is base + k * stride, which the timing model computes itself.
    op.base = recorder_.span_addr;
    op.stride = recorder_.span_stride;
  } else if (op.unit == Unit::kMemory) {
    // Element k's address, or none for an element that did not access
    // memory (before vstart, or masked off): it still takes its slot.
    recorder_.expand_span();
    element_addresses_.assign(f.vl, kNoAddress);
    if (arrivals) element_arrivals_.assign(f.vl, kNoAddress);
    size_t next = 0;
    for (uint32_t k = vstart; k < f.vl && next < recorder_.addresses.size(); ++k) {
      if (inst.masked && !state.mask_bit(0, k)) continue;
      if (arrivals && next < arrivals->size()) element_arrivals_[k] = (*arrivals)[next];
      element_addresses_[k] = recorder_.addresses[next++];
    }
    op.addresses = element_addresses_.data();
    if (arrivals) op.arrivals = element_arrivals_.data();
  }
  step.timing = timing_.issue(op, ready);
  step.timed = true;
  stats_ = timing_.stats();
  return step;
}

}  // namespace tessera::vector
