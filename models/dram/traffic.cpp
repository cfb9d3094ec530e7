#include "dram/traffic.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "sim/config.h"

namespace tessera::dram {

std::vector<TraceEntry> parse_trace(std::istream& in, const std::string& origin) {
  std::vector<TraceEntry> out;
  std::string line;
  unsigned number = 0;
  uint64_t last_cycle = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream fields(line);
    std::string cycle_text, op, address_text, extra;
    fields >> cycle_text >> op >> address_text;
    const auto bad = [&](const std::string& why) {
      return sim::ConfigError(fmt::format("{}:{}: {} (expected '<cycle> <R|W> <hex address>', got '{}')", origin,
                                          number, why, line));
    };
    if (address_text.empty()) throw bad("too few fields");
    if (fields >> extra) throw bad("too many fields");
    TraceEntry e;
    e.line = number;
    size_t used = 0;
    try {
      e.cycle = std::stoull(cycle_text, &used, 10);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != cycle_text.size() || cycle_text[0] == '-') throw bad("bad cycle '" + cycle_text + "'");
    if (op == "R" || op == "r") {
      e.is_write = false;
    } else if (op == "W" || op == "w") {
      e.is_write = true;
    } else {
      throw bad("bad operation '" + op + "' (R or W)");
    }
    std::string hex = address_text;
    if (hex.size() > 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex = hex.substr(2);
    used = 0;
    try {
      e.address = std::stoull(hex, &used, 16);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != hex.size() || hex[0] == '-') throw bad("bad hex address '" + address_text + "'");
    if (e.cycle < last_cycle) throw bad(fmt::format("cycle {} is before the previous line's {}", e.cycle, last_cycle));
    last_cycle = e.cycle;
    out.push_back(e);
  }
  return out;
}

StreamSource::StreamSource(uint64_t capacity, uint32_t request_bytes, double read_ratio, uint64_t seed)
    : capacity_(capacity / request_bytes * request_bytes), bytes_(request_bytes), read_ratio_(read_ratio), rng_(seed) {}

bool StreamSource::next(TraceEntry& e) {
  e.cycle = 0;
  e.address = address_;
  e.is_write = std::uniform_real_distribution<double>(0.0, 1.0)(rng_) >= read_ratio_;
  address_ += bytes_;
  if (address_ >= capacity_) address_ = 0;
  return true;
}

RandomSource::RandomSource(uint64_t capacity, uint32_t request_bytes, double read_ratio, uint64_t seed)
    : slots_(capacity / request_bytes), bytes_(request_bytes), read_ratio_(read_ratio), rng_(seed) {}

bool RandomSource::next(TraceEntry& e) {
  e.cycle = 0;
  e.address = std::uniform_int_distribution<uint64_t>(0, slots_ - 1)(rng_) * bytes_;
  e.is_write = std::uniform_real_distribution<double>(0.0, 1.0)(rng_) >= read_ratio_;
  return true;
}

bool TraceSource::next(TraceEntry& e) {
  if (pos_ >= entries_.size()) return false;
  e = entries_[pos_++];
  return true;
}

DriveResult drive(MemorySystem& ms, TrafficSource& source, uint64_t max_requests, uint32_t request_bytes) {
  DriveResult result;
  TraceEntry e;
  bool have = max_requests > 0 && source.next(e);
  uint64_t t = ms.now();
  while (have || !ms.idle()) {
    while (have && e.cycle <= t) {
      if (!ms.enqueue(MemRequest{result.requests, e.address, request_bytes, e.is_write}, t)) break;
      ++result.requests;
      have = result.requests < max_requests && source.next(e);
    }
    ms.advance_to(t + 1);
    uint64_t next = ms.next_event_cycle();
    if (have && e.cycle > t) next = std::min(next, e.cycle);
    if (next == kNever) break;
    t = std::max(next, t + 1);
  }
  result.end_cycle = std::max(ms.stats().last_done, ms.now());
  return result;
}

}  // namespace tessera::dram
