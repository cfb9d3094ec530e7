#include "vector/vector_timing.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tessera::vector {

namespace {

unsigned ceil_log2(unsigned n) {
  unsigned k = 0;
  while ((1u << k) < n) ++k;
  return k;
}

}  // namespace

VectorTiming::VectorTiming(const TimingParams& params) : params_(params), bank_free_(params.banks, 0) {
  if (params.lanes == 0 || params.banks == 0 || params.bank_word_bytes == 0 || params.memory_units == 0 ||
      params.queue_depth == 0 || params.contexts == 0)
    throw std::invalid_argument(
        "VectorTiming: lanes, banks, bank_word_bytes, memory_units, queue_depth and contexts must be > 0");
  convoy_.writer.assign(size_t{kRegisters} * params.contexts, -1);
  convoy_.read.assign(convoy_.writer.size(), 0);
  const auto pow2 = [](uint64_t v) { return (v & (v - 1)) == 0; };
  pow2_banks_ = pow2(params.banks) && pow2(params.bank_word_bytes);
  while ((uint64_t{1} << word_shift_) < params.bank_word_bytes) ++word_shift_;
}

unsigned VectorTiming::latency(const VectorOp& op) const {
  switch (op.unit) {
    case Unit::kAdd:
      return params_.add_latency;
    case Unit::kMul:
      return params_.mul_latency;
    case Unit::kDiv:
      return params_.div_latency;
    case Unit::kMemory:
      return op.is_store ? params_.store_latency : params_.load_latency;
  }
  return 0;
}

bool VectorTiming::fits(const VectorOp& op, std::vector<int>& chained) const {
  chained.clear();
  if (running_count_ == 0) return false;
  // Structural hazards: each unit runs one instruction of a convoy (memory:
  // `memory_units`, loads and stores not mixed), and the register file has
  // its ports.
  const unsigned u = static_cast<unsigned>(op.unit);
  if (convoy_.units[u] >= (op.unit == Unit::kMemory ? params_.memory_units : 1u)) return false;
  if (op.unit == Unit::kMemory && (op.is_store ? convoy_.loads : convoy_.stores)) return false;
  unsigned operand_reads = op.masked ? 1 : 0;
  for (uint8_t r : op.vs) operand_reads += r != kNoReg;
  const unsigned writes = op.vd != kNoReg;
  if (convoy_.reads + operand_reads > params_.read_ports || convoy_.writes + writes > params_.write_ports) return false;
  // Data hazards with the convoy: a destination it reads or writes ends the
  // convoy, unless the instruction reads that register itself (an
  // accumulator): then each of its elements is written after it read the
  // earlier writer's, and chaining decides. A source the convoy writes may
  // be read only through chaining.
  // Registers of other contexts are other registers.
  const size_t base = size_t{op.context} * kRegisters;
  const auto reads = [&](unsigned r) {
    for (size_t i = 0; i < op.vs.size(); ++i)
      if (op.vs[i] != kNoReg && r >= op.vs[i] && r < unsigned{op.vs[i]} + op.vs_regs[i]) return true;
    return false;
  };
  if (op.vd != kNoReg) {
    for (unsigned r = op.vd; r < unsigned{op.vd} + op.vd_regs && r < kRegisters; ++r) {
      if (convoy_.read[base + r]) return false;
      if (convoy_.writer[base + r] >= 0 && !reads(r)) return false;
    }
  }
  const auto chain = [&](uint8_t first, uint8_t count) {
    for (unsigned r = first; r < unsigned{first} + count && r < kRegisters; ++r) {
      const int w = convoy_.writer[base + r];
      if (w < 0) continue;
      if (params_.chaining == Chaining::kNone || running_[static_cast<size_t>(w)].reduction) return false;
      if (std::find(chained.begin(), chained.end(), w) == chained.end()) chained.push_back(w);
    }
    return true;
  };
  for (size_t i = 0; i < op.vs.size(); ++i)
    if (op.vs[i] != kNoReg && !chain(op.vs[i], op.vs_regs[i])) return false;
  if (op.masked && !chain(0, 1)) return false;
  if (params_.chaining == Chaining::kFixed) {
    if (chained.size() > 1) return false;
    for (int w : chained)
      if (running_[static_cast<size_t>(w)].chained_readers > 0) return false;
  }
  return true;
}

void VectorTiming::open_convoy(uint64_t start) {
  if (convoy_.number > 0) stats_.busy_cycles += convoy_.end - convoy_.start;
  convoy_.start = convoy_.end = start;
  ++convoy_.number;
  convoy_.units.fill(0);
  convoy_.reads = convoy_.writes = 0;
  convoy_.loads = convoy_.stores = false;
  std::fill(convoy_.writer.begin(), convoy_.writer.end(), int8_t{-1});
  std::fill(convoy_.read.begin(), convoy_.read.end(), uint8_t{0});
  running_count_ = 0;
  ++stats_.convoys;
}

IssueResult VectorTiming::issue(const VectorOp& op, uint64_t ready) {
  if (op.context >= params_.contexts)
    throw std::invalid_argument("VectorTiming: an instruction of context " + std::to_string(op.context) +
                                " on a unit with " + std::to_string(params_.contexts));
  IssueResult r;
  // The issue queue holds `queue_depth` instructions that have not started.
  r.accepted = ready;
  if (recent_starts_.size() == params_.queue_depth) r.accepted = std::max(r.accepted, recent_starts_.front());

  std::vector<int> chained;
  // An instruction may join the convoy while it still runs; it starts when
  // it arrives (a scalar core hands over one instruction per cycle, so a
  // chained pair arrives a cycle apart).
  if (r.accepted >= convoy_.end || !fits(op, chained)) {
    open_convoy(std::max(convoy_.end, r.accepted));
    chained.clear();
  }
  const uint64_t start = std::max(convoy_.start, r.accepted);

  const unsigned lat = latency(op);
  const unsigned lanes = params_.lanes;
  // The convoy's entries are reused, so their element arrays keep their storage.
  if (running_count_ == running_.size()) running_.emplace_back();
  Running& run = running_[running_count_];
  run.vd = op.vd;
  run.vd_regs = op.vd_regs;
  run.reduction = op.reduction;
  run.chained_readers = 0;
  run.ready.resize(op.vl);
  entered_.resize(op.vl);
  for (uint32_t k = 0; k < op.vl; ++k) {
    // One element per lane per cycle, in order.
    uint64_t t = k < lanes ? start : entered_[k - lanes] + 1;
    if (k > 0) t = std::max(t, entered_[k - 1]);
    for (int w : chained) {
      const Running& p = running_[static_cast<size_t>(w)];
      if (k < p.ready.size()) t = std::max(t, p.ready[k]);
    }
    if (op.unit == Unit::kMemory && !op.arrivals) {
      const uint64_t address = op.addresses ? op.addresses[k] : op.base + static_cast<uint64_t>(op.stride) * k;
      if (address != kNoAddress) {
        uint64_t& free = bank_free_[bank_of(address)];
        if (free > t) {
          stats_.bank_conflict_stalls += free - t;
          t = free;
        }
        free = t + params_.bank_busy;
      }
    }
    entered_[k] = t;
    run.ready[k] = t + lat;
    // The start-up latency is the memory pipeline's best case; the cache may deliver later.
    if (op.arrivals && op.arrivals[k] != kNoAddress) run.ready[k] = std::max(run.ready[k], op.arrivals[k]);
  }
  if (op.vl == 0) {
    r.start = r.complete = start;
  } else {
    r.start = entered_[0];
    r.complete = entered_[op.vl - 1] + lat + 1;
    if (op.arrivals) r.complete = std::max(r.complete, *std::max_element(run.ready.begin(), run.ready.end()) + 1);
    // A reduction then combines the lanes' partial results pairwise.
    if (op.reduction) r.complete += ceil_log2(std::min<uint32_t>(lanes, op.vl)) * params_.add_latency;
    stats_.element_slots += (entered_[op.vl - 1] - entered_[0] + 1) * lanes;
  }

  // Record the instruction in its convoy.
  const int index = static_cast<int>(running_count_);
  for (int w : chained) ++running_[static_cast<size_t>(w)].chained_readers;
  ++convoy_.units[static_cast<unsigned>(op.unit)];
  if (op.unit == Unit::kMemory) (op.is_store ? convoy_.stores : convoy_.loads) = true;
  const size_t base = size_t{op.context} * kRegisters;
  for (size_t i = 0; i < op.vs.size(); ++i) {
    if (op.vs[i] == kNoReg) continue;
    ++convoy_.reads;
    for (unsigned g = op.vs[i]; g < unsigned{op.vs[i]} + op.vs_regs[i] && g < kRegisters; ++g)
      convoy_.read[base + g] = 1;
  }
  if (op.masked) {
    ++convoy_.reads;
    convoy_.read[base] = 1;
  }
  if (op.vd != kNoReg) {
    ++convoy_.writes;
    for (unsigned g = op.vd; g < unsigned{op.vd} + op.vd_regs && g < kRegisters; ++g)
      convoy_.writer[base + g] = static_cast<int8_t>(index);
  }
  convoy_.end = std::max(convoy_.end, r.complete);
  ++running_count_;

  recent_starts_.push_back(r.start);
  if (recent_starts_.size() > params_.queue_depth) recent_starts_.pop_front();
  r.convoy = convoy_.number;
  r.chained = static_cast<unsigned>(chained.size());
  ++stats_.instructions;
  stats_.element_ops += op.vl;
  stats_.chained_operands += r.chained;
  if (op.unit == Unit::kMemory) stats_.memory_elements += op.vl;
  return r;
}

TimingStats VectorTiming::stats() const {
  TimingStats s = stats_;
  if (convoy_.number > 0) s.busy_cycles += convoy_.end - convoy_.start;
  return s;
}

}  // namespace tessera::vector
