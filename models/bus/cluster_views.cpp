// The cluster's reports and views (traces, the timeline, line states and
// what is in flight), its coherence point with the rest of the chip and
// its functional (debug) access: everything besides the cycle
// (bus/cluster.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "bus/cluster.h"
#include "mem/bytes.h"

namespace tessera::bus {

using mem::BusOp;
using mem::State;

// ---------------------------------------------------------------------------
// Reports and views

void Cluster::trace(BusEvent::Kind kind, BusOp op, uint32_t agent, uint32_t tag, uint64_t line, int source,
                    uint64_t until, bool shared, bool dirty) {
  if (trace_) trace_(BusEvent{kind, ctx_.now, op, agent, tag, line, source, until, shared, dirty});
  if (timeline_) timeline_event(kind, op, agent, tag, line);
}

void Cluster::set_line_trace(std::function<void(uint32_t, uint64_t, uint8_t)> trace) {
  if (!trace) {
    ctx_.on_line = nullptr;
    return;
  }
  ctx_.on_line = [this, trace = std::move(trace)](uint32_t agent, uint64_t line) {
    trace(agent, line, agents_[agent]->coh_code_of(line));
  };
}

void Cluster::set_timeline(sim::Timeline* t, int track, uint64_t cycle_ps) {
  timeline_ = t;
  timeline_track_ = track;
  timeline_cycle_ps_ = cycle_ps;
  timeline_ids_.assign(bus_.table_size(), 0);
}

void Cluster::timeline_event(BusEvent::Kind kind, BusOp op, uint32_t agent, uint32_t tag, uint64_t line) {
  const uint64_t ps = ctx_.now * timeline_cycle_ps_;
  if (kind == BusEvent::kNack) {
    timeline_->instant(timeline_track_, fmt::format("NACK {} core{}", mem::bus_op_name(op), agent), ps);
  } else if (kind == BusEvent::kGrant) {
    // Bus transactions get ids of their own (bit 62), apart from memory requests'.
    const uint64_t id = (uint64_t{1} << 62) | ++timeline_seq_;
    timeline_->async_begin(timeline_track_, fmt::format("{} core{}", mem::bus_op_name(op), agent), id, ps,
                           fmt::format(R"({{"line":"0x{:08x}","tag":{}}})", line, tag));
    if (timeline_->async_open(id)) timeline_ids_[tag] = id;
  }
}

uint32_t Cluster::agent_count() const { return static_cast<uint32_t>(agents_.size()); }

mem::State Cluster::line_state(uint32_t agent, uint64_t line) const { return agents_[agent]->array.state_of(line); }

const uint8_t* Cluster::line_data(uint32_t agent, uint64_t line) const {
  const Agent& a = *agents_[agent];
  const int way = a.array.find(line);
  if (way < 0 || a.array.line(way).state == State::kI) return nullptr;
  return a.array.data(way);
}

mem::State Cluster::state_of(uint32_t agent, uint64_t addr) const {
  const Agent& a = *agents_.at(agent);
  return a.array.state_of(a.array.line_of(addr));
}

Transient Cluster::transient_of(uint32_t agent, uint64_t addr) const {
  const Agent& a = *agents_.at(agent);
  const uint64_t line = a.array.line_of(addr);
  if (const auto* m = a.miss_for(line)) return m->state;
  const auto* w = a.find_wb(line);
  return w ? w->state : Transient::kNone;
}

bool Cluster::granted(uint32_t agent, uint64_t addr) const {
  const Agent& a = *agents_.at(agent);
  const uint64_t line = a.array.line_of(addr);
  if (const auto* m = a.miss_for(line)) return m->granted();
  const auto* w = a.find_wb(line);
  return w && w->granted();
}

bool Cluster::tx_abort_pending(uint32_t core) const {
  const TxPhase p = agents_.at(l1d_agent(core))->tx.phase;
  return p == TxPhase::kRollingBack || p == TxPhase::kAborted;
}

bool Cluster::tx_running(uint32_t core) const { return agents_.at(l1d_agent(core))->tx.running(); }

uint32_t Cluster::tx_status(uint32_t core) const { return agents_.at(l1d_agent(core))->tx.status; }

const AgentCounters& Cluster::agent_counters(uint32_t agent) const { return agents_.at(agent)->counters; }

uint64_t Cluster::checker_checks() const { return checker_ ? checker_->checks() : 0; }

std::string Cluster::describe_line(uint64_t line) const {
  std::string out;
  for (const auto& a : agents_) {
    const int way = a->array.find(line);
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", agent_name(a->id),
                       way < 0 ? "I" : mem::state_name(a->array.line(way).state));
    if (way >= 0 && a->array.line(way).reserved) out += "(fill pending)";
    for (const auto& w : a->wb)
      if (w.line == line) out += "(+write-back buffer)";
  }
  for (uint32_t t = 0; t < bus_.table_size(); ++t) {
    const Txn& e = bus_.txn(t);
    if (e.valid && e.line == line)
      out += fmt::format("; tag {}: {} by {} {}", t, mem::bus_op_name(e.op), agent_name(e.agent),
                         e.resolved ? "awaiting data" : "snooping");
  }
  return out;
}

std::string Cluster::describe_in_flight() const {
  std::string out;
  for (const auto& a : agents_) out += a->describe_in_flight();
  out += bus_.describe_in_flight(agent_name);
  out += bridge_.describe_in_flight();
  return out;
}

// ---------------------------------------------------------------------------
// Coherence point with the rest of the chip

uint32_t Cluster::write_back_and_invalidate_all() {
  if (!idle()) throw std::logic_error("write_back_and_invalidate_all: the cluster has operations in flight");
  uint32_t written = 0;
  for (auto& a : agents_) written += a->write_back_and_invalidate(bridge_);
  if (checker_) checker_->forget_all();
  if (htm_checker_) htm_checker_->forget_all(ctx_.now);
  return written;
}

// ---------------------------------------------------------------------------
// Functional access

uint32_t Cluster::debug_read(uint64_t addr, uint32_t size) const {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  for (const auto& a : agents_) {
    const int way = a->array.find(line);
    if (way >= 0 && a->array.line(way).state != State::kI)
      return mem::read_le(a->array.data(way) + (addr - line), size);
    for (const auto& w : a->wb)
      if (w.line == line) return mem::read_le(w.data.data() + (addr - line), size);
  }
  std::vector<uint8_t> bytes(line_bytes_);
  memory_.read_line(line, bytes.data(), line_bytes_);
  return mem::read_le(bytes.data() + (addr - line), size);
}

void Cluster::debug_write(uint64_t addr, uint32_t size, uint32_t value) {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  const DebugPiece piece{static_cast<uint32_t>(addr - line), size, value};
  debug_write_line(line, &piece, 1);
}

void Cluster::debug_read_line(uint64_t line, uint8_t* out) const {
  for (const auto& a : agents_) {
    const int way = a->array.find(line);
    if (way >= 0 && a->array.line(way).state != State::kI) {
      std::memcpy(out, a->array.data(way), line_bytes_);
      return;
    }
    for (const auto& w : a->wb)
      if (w.line == line) {
        std::memcpy(out, w.data.data(), line_bytes_);
        return;
      }
  }
  memory_.read_line(line, out, line_bytes_);
}

void Cluster::debug_write_line(uint64_t line, const DebugPiece* pieces, size_t count) {
  // The pieces' hull inside memory puts every piece inside (one check for
  // the line); else the first piece outside is named.
  uint32_t lo = line_bytes_, hi = 0;
  for (size_t i = 0; i < count; ++i) {
    lo = std::min(lo, pieces[i].offset);
    hi = std::max(hi, pieces[i].offset + pieces[i].size);
  }
  if (count && !memory_.contains(line + lo, hi - lo))
    for (size_t i = 0; i < count; ++i)
      if (!memory_.contains(line + pieces[i].offset, pieces[i].size))
        throw std::invalid_argument(
            fmt::format("debug write: address {:#x} is outside the cluster's memory", line + pieces[i].offset));
  if (!bus_.line_free(line))
    throw std::logic_error(fmt::format("debug write to {:#x}: a bus transaction on the line is in flight",
                                       line + (count ? pieces[0].offset : 0)));
  debug_line_.resize(line_bytes_);
  memory_.read_line(line, debug_line_.data(), line_bytes_);
  for (size_t i = 0; i < count; ++i)
    mem::write_le(debug_line_.data() + pieces[i].offset, pieces[i].size, pieces[i].value);
  memory_.write_line(line, debug_line_.data(), line_bytes_);
  for (auto& a : agents_) {
    const int way = a->array.find(line);
    if (way >= 0 && a->array.line(way).state != State::kI)
      for (size_t i = 0; i < count; ++i)
        mem::write_le(a->array.data(way) + pieces[i].offset, pieces[i].size, pieces[i].value);
    for (auto& w : a->wb)
      if (w.line == line)
        for (size_t i = 0; i < count; ++i)
          mem::write_le(w.data.data() + pieces[i].offset, pieces[i].size, pieces[i].value);
  }
  for (size_t i = 0; i < count; ++i) {
    if (checker_) checker_->on_debug_write(line + pieces[i].offset, pieces[i].size, pieces[i].value);
    if (htm_checker_) htm_checker_->debug_write(line + pieces[i].offset, pieces[i].size, pieces[i].value);
  }
}

}  // namespace tessera::bus
