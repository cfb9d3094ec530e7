#include "dram/traffic.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <sstream>

#include "sim/config.h"

namespace tessera::dram {

namespace {

// Digits of `base` and nothing else: no sign, no second 0x, no overflow
// (std::stoull would take "+5", "0x0x5" and " 5").
bool parse_digits(const std::string& text, int base, uint64_t& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  return !text.empty() && ec == std::errc() && ptr == end;
}

}  // namespace

std::vector<TraceEntry> parse_trace(std::istream& in, const std::string& origin) {
  std::vector<TraceEntry> out;
  std::string line;
  unsigned number = 0;
  uint64_t last_cycle = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream fields(line);
    std::string cycle_text, op, address_text, extra;
    // Blank (whitespace as the fields are split: isspace) or a comment.
    if (!(fields >> cycle_text) || cycle_text[0] == '#') continue;
    fields >> op >> address_text;
    const auto bad = [&](const std::string& why) {
      return sim::ConfigError(
          fmt::format("{}:{}: {} (expected '<cycle> <R|W> <hex address>', got '{}')", origin, number, why, line));
    };
    if (address_text.empty()) throw bad("too few fields");
    if (fields >> extra) throw bad("too many fields");
    TraceEntry e;
    e.line = number;
    if (!parse_digits(cycle_text, 10, e.cycle)) throw bad("bad cycle '" + cycle_text + "'");
    if (op == "R" || op == "r") {
      e.is_write = false;
    } else if (op == "W" || op == "w") {
      e.is_write = true;
    } else {
      throw bad("bad operation '" + op + "' (R or W)");
    }
    const bool prefixed =
        address_text.size() > 2 && address_text[0] == '0' && (address_text[1] == 'x' || address_text[1] == 'X');
    if (!parse_digits(address_text.substr(prefixed ? 2 : 0), 16, e.address))
      throw bad("bad hex address '" + address_text + "'");
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
