#include "dram/traffic.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <sstream>
#include <stdexcept>

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

namespace {

// The requests a source holds that the queues have not accepted, offered
// every cycle oldest first as MemorySystem::enqueue orders them: a request
// refused closes its pseudo channels to younger requests, so a request can
// only be accepted once every older waiting request that shares one of its
// pseudo channels has been. Each pseudo channel keeps its waiting requests
// in a FIFO, and only a request at the head of all of its FIFOs (a
// candidate) is offered: candidates share no pseudo channel, so at most one
// per pseudo channel is offered in a cycle instead of the whole window.
class Window {
 public:
  Window(MemorySystem& ms, unsigned capacity) : ms_(ms), capacity_(capacity), fifo_(ms.queue_count()) {}

  bool full() const { return live_ == capacity_; }
  bool empty() const { return live_ == 0; }

  // Offers the candidates oldest first at `cycle`, and those an accepted
  // one leaves at the head of all their FIFOs; returns how many were
  // accepted.
  uint64_t offer(uint64_t cycle) {
    // Queues gain room only when a column command takes a burst out.
    const uint64_t bursts = ms_.stats().bursts;
    if (bursts == bursts_at_offer_) return 0;
    bursts_at_offer_ = bursts;
    uint64_t accepted = 0;
    for (size_t i = 0; i < candidates_.size();) {
      const uint32_t slot = candidates_[i].slot;
      // A candidate shares no pseudo channel with an older waiting request,
      // so skipping one that cannot fit closes nothing enqueue would close.
      if (!ms_.may_accept(entries_[slot].split) || !ms_.enqueue(entries_[slot].split, cycle)) {
        ++i;
        continue;
      }
      ++accepted;
      candidates_.erase(candidates_.begin() + static_cast<std::ptrdiff_t>(i));
      remove(slot);  // new candidates are younger: they sort after i
    }
    return accepted;
  }

  // A new request (younger than every waiting one), offered at once if it
  // is a candidate; returns whether it was accepted.
  bool add(const MemRequest& request, uint64_t cycle) {
    uint32_t slot;
    if (free_.empty()) {
      slot = static_cast<uint32_t>(entries_.size());
      entries_.emplace_back();
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    Entry& entry = entries_[slot];
    ms_.split(request, entry.split);
    entry.queues.clear();
    for (const DramAddress& a : entry.split.bursts) {
      const unsigned q = ms_.queue_id(a);
      if (std::find(entry.queues.begin(), entry.queues.end(), q) == entry.queues.end()) entry.queues.push_back(q);
    }
    for (unsigned q : entry.queues) fifo_[q].push_back(slot);
    ++live_;
    if (!heads_all(slot)) return false;
    if (ms_.may_accept(entry.split) && ms_.enqueue(entry.split, cycle)) {
      remove(slot);  // the youngest: no request waits behind it
      return true;
    }
    candidates_.push_back(Key{request.id, slot});
    return false;
  }

 private:
  struct Entry {
    MemorySystem::Split split;
    std::vector<unsigned> queues;  // its pseudo channels, each once
  };
  struct Key {
    uint64_t id;  // the request's: its age
    uint32_t slot;
    bool operator<(const Key& o) const { return id < o.id; }
  };

  bool heads_all(uint32_t slot) const {
    for (unsigned q : entries_[slot].queues)
      if (fifo_[q].front() != slot) return false;
    return true;
  }

  // Takes an accepted request out of its FIFOs; a request it leaves at the
  // head of all of its own becomes a candidate.
  void remove(uint32_t slot) {
    for (unsigned q : entries_[slot].queues) {
      std::deque<uint32_t>& f = fifo_[q];
      f.pop_front();
      if (f.empty() || !heads_all(f.front())) continue;
      const Key k{entries_[f.front()].split.request.id, f.front()};
      candidates_.insert(std::upper_bound(candidates_.begin(), candidates_.end(), k), k);
    }
    free_.push_back(slot);
    --live_;
  }

  MemorySystem& ms_;
  unsigned capacity_;
  size_t live_ = 0;
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;
  std::vector<std::deque<uint32_t>> fifo_;  // per pseudo channel: waiting slots, oldest first
  std::vector<Key> candidates_;             // heads of all their FIFOs, oldest first
  uint64_t bursts_at_offer_ = 0;            // bursts served by the last offer()
};

}  // namespace

DriveResult drive(MemorySystem& ms, TrafficSource& source, uint64_t max_requests, uint32_t request_bytes,
                  unsigned window, unsigned sources) {
  if (window == 0) throw std::invalid_argument("drive: window must be at least 1");
  if (sources == 0 || sources > 256) throw std::invalid_argument("drive: sources must be 1 to 256");
  DriveResult result;
  uint64_t generated = 0;
  TraceEntry e;
  bool have = max_requests > 0 && source.next(e);
  Window waiting(ms, window);
  uint64_t t = ms.now();
  while (have || !waiting.empty() || !ms.idle()) {
    // The waiting requests first, then new arrivals while the window has room.
    result.requests += waiting.offer(t);
    while (have && e.cycle <= t && !waiting.full()) {
      const auto requester = static_cast<uint8_t>(generated % sources);
      result.requests += waiting.add(MemRequest{generated++, e.address, request_bytes, e.is_write, requester}, t);
      have = generated < max_requests && source.next(e);
    }
    ms.advance_to(t + 1);
    uint64_t next = ms.next_event_cycle();
    if (have && e.cycle > t && !waiting.full()) next = std::min(next, e.cycle);
    if (next == kNever) break;
    t = std::max(next, t + 1);
  }
  result.end_cycle = std::max(ms.stats().last_done, ms.now());
  return result;
}

}  // namespace tessera::dram
