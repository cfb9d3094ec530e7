#include "bus/snoop_bus.h"

#include <fmt/format.h>

namespace tessera::bus {

SnoopBus::SnoopBus(const std::string& arbiter, uint32_t agents, uint32_t table_entries)
    : request_arbiter_(make_arbiter(arbiter, agents)), response_arbiter_(make_arbiter(arbiter, agents + 1)) {
  for (uint32_t t = 0; t < table_entries; ++t) entries_.push_back(std::make_unique<Txn>());
}

int SnoopBus::free_tag() const {
  for (size_t t = 0; t < entries_.size(); ++t)
    if (!entries_[t]->valid) return static_cast<int>(t);
  return -1;
}

bool SnoopBus::line_free(uint64_t line) const {
  for (const auto& e : entries_)
    if (e->valid && e->line == line) return false;
  return true;
}

bool SnoopBus::table_full() const {
  for (const auto& e : entries_)
    if (!e->valid) return false;
  return true;
}

bool SnoopBus::table_empty() const {
  for (const auto& e : entries_)
    if (e->valid) return false;
  return true;
}

void SnoopBus::granted(uint32_t tag, uint64_t busy_until) {
  snooping_.push_back(tag);
  request_free_at_ = busy_until;
}

uint32_t SnoopBus::pop_snoop() {
  const uint32_t tag = snooping_.front();
  snooping_.pop_front();
  return tag;
}

void SnoopBus::start_response(std::unique_ptr<BusResponse> response, uint64_t free_at) {
  on_bus_ = std::move(response);
  response_free_at_ = free_at;
}

std::string SnoopBus::describe_in_flight(std::string (*agent_name)(uint32_t)) const {
  std::string out;
  for (size_t t = 0; t < entries_.size(); ++t) {
    const Txn& e = *entries_[t];
    if (e.valid)
      out += fmt::format("cluster.bus: tag {}: {} {:#x} by {} {}\n", t, mem::bus_op_name(e.op), e.line,
                         agent_name(e.agent), e.resolved ? "awaiting data" : "snooping");
  }
  if (on_bus_)
    out += fmt::format("cluster.bus: response for tag {} on the data bus until cycle {}\n", on_bus_->tag,
                       response_free_at_);
  return out;
}

namespace {

mem::Event snoop_event(mem::BusOp op) {
  switch (op) {
    case mem::BusOp::kBusRd:
      return mem::Event::kBusRd;
    case mem::BusOp::kBusRdX:
      return mem::Event::kBusRdX;
    case mem::BusOp::kBusUpgr:
      return mem::Event::kBusUpgr;
    default:
      return mem::Event::kBusUpd;
  }
}

}  // namespace

SnoopResult snoop(const std::vector<std::unique_ptr<CacheController>>& caches, const SnoopBus::Txn& t,
                  const mem::ProtocolTable& table) {
  const mem::Event event = snoop_event(t.op);
  SnoopResult r;
  r.rows.assign(caches.size(), -1);
  for (const auto& a : caches) {
    if (a->id == t.agent) continue;
    if (a->find_wb(t.line)) r.wb_holder = static_cast<int>(a->id);
    const mem::State s = a->array.state_of(t.line);
    if (s == mem::State::kI) continue;
    const int row = table.find(s, event, false);
    if (row < 0) {
      r.error = fmt::format("{} has no row for ({}, {}) in {}", table.name(), mem::state_name(s),
                            mem::event_name(event), a->name());
      return r;
    }
    r.rows[a->id] = row;
    const mem::Row& rw = table.rows()[static_cast<size_t>(row)];
    if (rw.next != mem::State::kI) r.shared = true;
    if ((rw.actions & (mem::kFlush | mem::kSupply)) && r.supplier < 0) {
      r.supplier = static_cast<int>(a->id);
      r.flush = rw.actions & mem::kFlush;
    }
  }
  return r;
}

}  // namespace tessera::bus
