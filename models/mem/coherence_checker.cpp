#include "mem/coherence_checker.h"

#include <fmt/format.h>

#include <cstring>

namespace tessera::mem {

namespace {
uint64_t bit(uint32_t agent) { return uint64_t{1} << agent; }
const char* perm_name(Permission p) {
  return p == Permission::kWrite ? "write" : p == Permission::kRead ? "read" : "none";
}
}  // namespace

CoherenceChecker::CoherenceChecker(const CacheView& view, uint32_t line_bytes, bool exclusive_clean,
                                   std::function<void(uint64_t line, uint8_t* out)> initial)
    : view_(view), line_bytes_(line_bytes), exclusive_clean_(exclusive_clean), initial_(std::move(initial)) {}

std::vector<uint8_t>& CoherenceChecker::shadow(uint64_t line) {
  auto it = shadow_.find(line);
  if (it != shadow_.end()) return it->second;
  std::vector<uint8_t> bytes(line_bytes_);
  initial_(line, bytes.data());
  return shadow_.emplace(line, std::move(bytes)).first->second;
}

CoherenceChecker::Grant& CoherenceChecker::grant(uint64_t line) { return grants_[line]; }

void CoherenceChecker::forget_all() {
  shadow_.clear();
  grants_.clear();
  buffered_.clear();
}

uint32_t CoherenceChecker::shadow_value(uint64_t addr, uint32_t size) {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  const auto& bytes = shadow(line);
  uint32_t v = 0;
  for (uint32_t i = 0; i < size; ++i) v |= static_cast<uint32_t>(bytes[addr - line + i]) << (8 * i);
  return v;
}

void CoherenceChecker::fail(uint64_t cycle, uint64_t line, const std::string& what) {
  if (failed()) return;  // the first violation is the one worth reading
  failure_ = CoherenceFailure::make(CoherenceFailure::Kind::kViolation, cycle, line, what, view_.describe_line(line));
  report_ = failure_.text();
}

void CoherenceChecker::on_ordered(uint64_t cycle, BusOp op, uint32_t requester, uint64_t line, bool shared) {
  shadow(line);
  Grant& g = grant(line);
  // A grant is only ever narrowed by what the caches hold: a cache that has
  // dropped the line keeps no permission. Widening comes only from the bus.
  for (uint32_t a = 0; a < view_.agent_count(); ++a) {
    if (a == requester || view_.line_state(a, line) != State::kI) continue;
    g.readers &= ~bit(a);
    if (g.writer == static_cast<int>(a)) g.writer = -1;
  }
  const uint64_t others = g.readers & ~bit(requester);
  switch (op) {
    case BusOp::kBusRd:
      g.readers |= bit(requester);
      g.writer = (exclusive_clean_ && !shared && others == 0) ? static_cast<int>(requester) : -1;
      break;
    case BusOp::kBusRdX:
    case BusOp::kBusUpgr:
      g.readers = bit(requester);
      g.writer = static_cast<int>(requester);
      break;
    case BusOp::kBusUpd:
      g.readers |= bit(requester);
      g.writer = (!shared && others == 0) ? static_cast<int>(requester) : -1;
      g.pending_update = static_cast<int>(requester);
      break;
    case BusOp::kWriteBack:
      g.readers &= ~bit(requester);
      if (g.writer == static_cast<int>(requester)) g.writer = -1;
      break;
    default:
      break;
  }
  ++checks_;
  (void)cycle;
}

void CoherenceChecker::on_fill(uint64_t cycle, uint32_t agent, uint64_t line, const uint8_t* data) {
  const auto& expected = shadow(line);
  ++checks_;
  for (uint32_t i = 0; i < line_bytes_; ++i) {
    if (data[i] != expected[i]) {
      fail(cycle, line,
           fmt::format("agent {} filled a stale line: byte {} is {:#04x}, the latest value is {:#04x}", agent, i,
                       data[i], expected[i]));
      return;
    }
  }
}

void CoherenceChecker::on_load(uint64_t cycle, uint32_t agent, uint64_t addr, uint32_t size, uint32_t value) {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  const Grant& g = grant(line);
  ++checks_;
  if (!(g.readers & bit(agent)) && g.writer != static_cast<int>(agent))
    return fail(cycle, line, fmt::format("agent {} loaded {:#x} without read permission from the bus", agent, addr));
  const uint32_t latest = shadow_value(addr, size);
  if (value != latest)
    fail(cycle, line,
         fmt::format("agent {} loaded {:#x} (size {}) = {:#x}, the latest value in bus order is {:#x}", agent, addr,
                     size, value, latest));
}

void CoherenceChecker::on_store(uint64_t cycle, uint32_t agent, uint64_t addr, uint32_t size, uint32_t value) {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  Grant& g = grant(line);
  ++checks_;
  const bool by_update = g.pending_update == static_cast<int>(agent);
  g.pending_update = -1;
  if (g.writer != static_cast<int>(agent) && !by_update)
    fail(cycle, line,
         fmt::format("agent {} stored to {:#x} without write permission (the bus granted writer {})", agent, addr,
                     g.writer));
  auto buffered = buffered_.find(agent);
  if (buffered != buffered_.end() && !buffered->second.empty()) {
    const BufferedStore& oldest = buffered->second.front();
    if (oldest.addr != addr || oldest.size != size || oldest.value != value)
      fail(cycle, line,
           fmt::format("agent {} performed store {:#x}={:#x} but its oldest buffered store is {:#x}={:#x}", agent, addr,
                       value, oldest.addr, oldest.value));
    buffered->second.pop_front();
  }
  auto& bytes = shadow(line);
  for (uint32_t i = 0; i < size; ++i) bytes[addr - line + i] = static_cast<uint8_t>(value >> (8 * i));
}

void CoherenceChecker::on_buffered(uint32_t agent, const BufferedStore& store) { buffered_[agent].push_back(store); }

void CoherenceChecker::on_forward(uint64_t cycle, uint32_t agent, uint64_t addr, uint32_t size, uint32_t value) {
  // Byte by byte, the youngest buffered store that wrote it.
  const auto& stores = buffered_[agent];
  uint32_t expected = 0;
  ++checks_;
  for (uint32_t i = 0; i < size; ++i) {
    bool found = false;
    for (auto it = stores.rbegin(); it != stores.rend() && !found; ++it) {
      if (addr + i >= it->addr && addr + i < it->addr + it->size) {
        expected |= ((it->value >> (8 * (addr + i - it->addr))) & 0xffu) << (8 * i);
        found = true;
      }
    }
    if (!found)
      return fail(cycle, addr & ~static_cast<uint64_t>(line_bytes_ - 1),
                  fmt::format("agent {} forwarded {:#x} from its store buffer, which holds no store to byte {}", agent,
                              addr, i));
  }
  if (expected != value)
    fail(cycle, addr & ~static_cast<uint64_t>(line_bytes_ - 1),
         fmt::format("agent {} forwarded {:#x} = {:#x}, its youngest buffered store holds {:#x}", agent, addr, value,
                     expected));
}

void CoherenceChecker::on_debug_write(uint64_t addr, uint32_t size, uint32_t value) {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  auto it = shadow_.find(line);
  if (it == shadow_.end()) return;  // read from memory when first needed
  for (uint32_t i = 0; i < size; ++i) it->second[addr - line + i] = static_cast<uint8_t>(value >> (8 * i));
}

void CoherenceChecker::check_line(uint64_t cycle, uint64_t line) {
  const auto& expected = shadow(line);
  const Grant& g = grant(line);
  ++checks_;
  for (uint32_t a = 0; a < view_.agent_count(); ++a) {
    const State s = view_.line_state(a, line);
    if (s == State::kI) continue;
    const Permission claimed = permission_of(s);
    const Permission granted = g.writer == static_cast<int>(a) ? Permission::kWrite
                               : (g.readers & bit(a))          ? Permission::kRead
                                                               : Permission::kNone;
    if (claimed > granted)
      return fail(cycle, line,
                  fmt::format("agent {} is in {} ({} permission) but the bus granted it {}", a, state_name(s),
                              perm_name(claimed), perm_name(granted)));
    const uint8_t* data = view_.line_data(a, line);
    if (data && std::memcmp(data, expected.data(), line_bytes_) != 0)
      return fail(cycle, line,
                  fmt::format("agent {} holds a copy in {} that differs from the latest value", a, state_name(s)));
  }
}

}  // namespace tessera::mem
