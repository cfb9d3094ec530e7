#include "bus/cluster_waves.h"

#include <fmt/format.h>

namespace tessera::bus {

ClusterWaves::ClusterWaves(sim::Waveform& wave, const std::string& scope, unsigned cores, unsigned vector_cores)
    : wave_(wave) {
  auto add = [&](const std::string& s, const char* name, unsigned width, const sim::WaveEnum* values = nullptr) {
    const int id = wave.add_signal(s, name, width, values);
    any_ = any_ || id >= 0;
    return id;
  };
  const std::string bus = scope + ".bus";
  req_valid_ = add(bus, "req_valid", 1);
  req_cmd_ = add(bus, "req_cmd", 3, &kBusCmdWave);
  req_addr_ = add(bus, "req_addr", 32);
  req_core_ = add(bus, "req_core", 4);
  req_tag_ = add(bus, "req_tag", 8);
  resp_valid_ = add(bus, "resp_valid", 1);
  resp_core_ = add(bus, "resp_core", 4);
  resp_tag_ = add(bus, "resp_tag", 8);
  shared_ = add(bus, "shared", 1);
  dirty_ = add(bus, "dirty", 1);
  nack_ = add(bus, "nack", 1);
  cores_.resize(cores);
  for (unsigned c = 0; c < cores; ++c) {
    Core& k = cores_[c];
    const std::string core = fmt::format("{}.core{}", scope, c);
    k.pc = add(core, "pc", 32);
    k.retire = add(core, "retire", 2);
    k.stall = add(core, "stall", 2, &kCoreStallWave);
    k.line_addr = add(core + ".l1d", "line_addr", 32);
    k.line_state = add(core + ".l1d", "line_state", kCohStateBits, &kCohStateWave);
    if (c < vector_cores) {
      k.vector_issue = add(core + ".vector", "issue", 1);
      k.vector_convoy = add(core + ".vector", "convoy", 32);
    }
  }
}

void ClusterWaves::vector(unsigned core, uint64_t convoy, uint64_t start, uint64_t accepted) {
  const Core& k = cores_[core];
  pulse(k.vector_issue, accepted, accepted + 1);
  at(k.vector_convoy, convoy, start);
}

void ClusterWaves::pc(unsigned core, uint32_t pc, uint64_t cycle) {
  Core& k = cores_[core];
  // Straight-line code (the next 2- or 4-byte instruction) changes nothing:
  // the signal names where each run of it began, a change per taken branch,
  // jump or trap rather than per instruction, so that a long run's
  // waveform stays small and opens fast (--trace-insts lists every one).
  const bool sequential = k.pc_known && (pc == k.last_pc || pc == k.last_pc + 2 || pc == k.last_pc + 4);
  k.pc_known = true;
  k.last_pc = pc;
  if (!sequential) at(k.pc, pc, cycle);
}

void ClusterWaves::retire(unsigned core, uint64_t cycle) {
  Core& k = cores_[core];
  if (k.retire_cycle != cycle) {
    k.retire_cycle = cycle;
    k.retired = 0;
  }
  ++k.retired;
  at(k.retire, k.retired, cycle);
  at(k.retire, 0, cycle + 1);
}

void ClusterWaves::stall(unsigned core, unsigned code, uint64_t cycle) {
  Core& k = cores_[core];
  if (k.last_stall == code) return;
  k.last_stall = code;
  at(k.stall, code, cycle);
}

void ClusterWaves::bus(const BusEvent& e) {
  switch (e.kind) {
    case BusEvent::kGrant:
      pulse(req_valid_, e.cycle, e.until);
      at(req_cmd_, static_cast<uint64_t>(e.op), e.cycle);
      at(req_addr_, e.line, e.cycle);
      at(req_core_, e.agent / 2, e.cycle);
      at(req_tag_, e.tag, e.cycle);
      break;
    case BusEvent::kNack:
      pulse(nack_, e.cycle, e.cycle + 1);
      break;
    case BusEvent::kOrdered:
      if (e.shared) pulse(shared_, e.cycle, e.cycle + 1);
      if (e.dirty) pulse(dirty_, e.cycle, e.cycle + 1);
      break;
    case BusEvent::kData:
      pulse(resp_valid_, e.cycle, e.until);
      at(resp_core_, e.agent / 2, e.cycle);
      at(resp_tag_, e.tag, e.cycle);
      break;
    case BusEvent::kResponse:
      break;
  }
}

void ClusterWaves::line(unsigned core, uint64_t line, uint8_t coh_state, uint64_t cycle) {
  Core& k = cores_[core];
  at(k.line_addr, line, cycle);
  at(k.line_state, coh_state, cycle);
}

void ClusterWaves::release(uint64_t cycle, uint64_t ps) {
  for (const Change& c : late_) wave_.change(c.id, c.value, ps);
  late_.clear();
  const uint64_t mask = ring_.size() - 1;
  for (; pending_ && next_ <= cycle; ++next_) {
    std::vector<Change>& bucket = ring_[next_ & mask];
    for (const Change& c : bucket) wave_.change(c.id, c.value, ps);
    pending_ -= bucket.size();
    bucket.clear();
  }
  if (next_ <= cycle) next_ = cycle + 1;  // nothing waits: skip the idle cycles
}

uint64_t ClusterWaves::next_cycle() const {
  if (!late_.empty()) return next_ ? next_ - 1 : 0;
  if (!pending_) return kNever;
  const uint64_t mask = ring_.size() - 1;
  for (uint64_t c = next_;; ++c)
    if (!ring_[c & mask].empty()) return c;
}

void ClusterWaves::grow() {
  std::vector<std::vector<Change>> bigger(ring_.size() * 2);
  const uint64_t old_mask = ring_.size() - 1, new_mask = bigger.size() - 1;
  for (uint64_t c = next_; c < next_ + ring_.size(); ++c) bigger[c & new_mask] = std::move(ring_[c & old_mask]);
  ring_ = std::move(bigger);
}

}  // namespace tessera::bus
