// Request sources for the standalone DRAM driver (`tessera dram`) and the
// tests: a sequential stream, uniform random accesses, or a trace file of
// "<cycle> <R|W> <hex address>" lines; and the loop that feeds one into a
// MemorySystem as fast as its queues accept.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dram/memory_system.h"

namespace tessera::dram {

struct TraceEntry {
  uint64_t cycle = 0;  // earliest DRAM cycle the request may enter
  bool is_write = false;
  uint64_t address = 0;
  unsigned line = 0;  // trace file line (0 for generated traffic)
};

// Throws sim::ConfigError "<origin>:<line>: ..." for a malformed line.
// Blank lines and lines starting with '#' are skipped.
std::vector<TraceEntry> parse_trace(std::istream& in, const std::string& origin);

class TrafficSource {
 public:
  virtual ~TrafficSource() = default;
  virtual bool next(TraceEntry& e) = 0;
};

class StreamSource : public TrafficSource {
 public:
  StreamSource(uint64_t capacity, uint32_t request_bytes, double read_ratio, uint64_t seed);
  bool next(TraceEntry& e) override;

 private:
  uint64_t capacity_, address_ = 0;
  uint32_t bytes_;
  double read_ratio_;
  std::mt19937_64 rng_;
};

class RandomSource : public TrafficSource {
 public:
  RandomSource(uint64_t capacity, uint32_t request_bytes, double read_ratio, uint64_t seed);
  bool next(TraceEntry& e) override;

 private:
  uint64_t slots_;
  uint32_t bytes_;
  double read_ratio_;
  std::mt19937_64 rng_;
};

class TraceSource : public TrafficSource {
 public:
  explicit TraceSource(std::vector<TraceEntry> entries) : entries_(std::move(entries)) {}
  bool next(TraceEntry& e) override;

 private:
  std::vector<TraceEntry> entries_;
  size_t pos_ = 0;
};

struct DriveResult {
  uint64_t requests = 0;
  uint64_t end_cycle = 0;  // the last data transfer's end (or the last arrival)
};

// Requests a source holds that the controllers' queues have not accepted
// yet, by default: with the default refresh stagger more only adds
// queueing (docs/dram.md, "Queues and sources"; refresh_stagger=all needs
// about 256).
constexpr unsigned kDefaultSourceWindow = 32;

// Feeds up to `max_requests` from `source` (each `request_bytes`), each no
// earlier than its cycle and as soon as the queues accept it; runs until
// every request's last command has issued. The source holds up to `window`
// requests not yet accepted and offers them oldest first every cycle, so a
// request waiting for a full queue is passed by younger ones to other
// pseudo channels (never to its own: MemorySystem::enqueue); with window 1
// it stalls on the first full queue. The caller ends the run with
// ms.finish(end).
// Request k comes from requester k mod `sources` (MemRequest::source, 1 to 256).
DriveResult drive(MemorySystem& ms, TrafficSource& source, uint64_t max_requests, uint32_t request_bytes,
                  unsigned window = kDefaultSourceWindow, unsigned sources = 1);

}  // namespace tessera::dram
