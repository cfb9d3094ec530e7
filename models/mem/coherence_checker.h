// An independent checker of cache coherence, in the spirit of gem5 Ruby's
// random tester: it never looks at the protocol tables. It observes the bus
// serialization (every transaction as it is ordered, with its wired-OR shared
// signal) and every access the caches perform, and keeps
//  - its own shadow memory: the latest value of every byte in the bus's
//    serialization order, and
//  - per line, the permissions the bus has granted: one writer or a set of
//    readers (single-writer / multiple-reader).
// Rules checked:
//  SWMR   a cache's state never claims more than the bus granted it
//         (permission_of(state) <= grant), checked for every cache holding
//         the line after every ordered transaction and every fill;
//  value  every load performed in a cache returns the shadow value, every
//         fill brings the shadow line, every valid copy equals the shadow
//         after each transaction, store-buffer forwarding returns the
//         youngest buffered store and buffered stores leave in order.
// The first violation is kept with the cycle, the line and the states of
// every cache (from CacheView).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mem/coherence_failure.h"
#include "mem/coherence_protocol.h"
#include "mem/store_buffer.h"

namespace tessera::mem {

// What the checker may read from the caches: their claimed state and data,
// and a description of a line for reports.
class CacheView {
 public:
  virtual ~CacheView() = default;
  virtual uint32_t agent_count() const = 0;
  virtual State line_state(uint32_t agent, uint64_t line) const = 0;
  virtual const uint8_t* line_data(uint32_t agent, uint64_t line) const = 0;  // nullptr when absent
  virtual std::string describe_line(uint64_t line) const = 0;
};

class CoherenceChecker {
 public:
  // `initial` fills a line's shadow the first time the checker meets it (no
  // cache holds it then, so memory is the truth). `exclusive_clean` says
  // whether a BusRd nobody shares may grant a silently writable copy.
  CoherenceChecker(const CacheView& view, uint32_t line_bytes, bool exclusive_clean,
                   std::function<void(uint64_t line, uint8_t* out)> initial);

  void on_ordered(uint64_t cycle, BusOp op, uint32_t requester, uint64_t line, bool shared);
  void on_fill(uint64_t cycle, uint32_t agent, uint64_t line, const uint8_t* data);
  void on_load(uint64_t cycle, uint32_t agent, uint64_t addr, uint32_t size, uint32_t value);
  void on_store(uint64_t cycle, uint32_t agent, uint64_t addr, uint32_t size, uint32_t value);
  void on_buffered(uint32_t agent, const BufferedStore& store);
  void on_forward(uint64_t cycle, uint32_t agent, uint64_t addr, uint32_t size, uint32_t value);
  // A loader's functional write, applied everywhere at once.
  void on_debug_write(uint64_t addr, uint32_t size, uint32_t value);
  // SWMR and value rules for every cache holding the line.
  void check_line(uint64_t cycle, uint64_t line);
  // Every cache was emptied and memory may have been written from outside
  // the cluster (the SMs, between kernel-launch coherence points): forget
  // every shadow line and grant; memory is the truth again.
  void forget_all();

  bool failed() const { return static_cast<bool>(failure_); }
  // The first violation (kind kViolation), or none.
  const CoherenceFailure& failure() const { return failure_; }
  const std::string& report() const { return report_; }
  uint64_t checks() const { return checks_; }

 private:
  struct Grant {
    int writer = -1;          // agent allowed to write without the bus
    uint64_t readers = 0;     // agents allowed to read (the writer included)
    int pending_update = -1;  // agent whose BusUpd write is being performed
  };
  std::vector<uint8_t>& shadow(uint64_t line);
  Grant& grant(uint64_t line);
  uint32_t shadow_value(uint64_t addr, uint32_t size);
  void fail(uint64_t cycle, uint64_t line, const std::string& what);

  const CacheView& view_;
  uint32_t line_bytes_;
  bool exclusive_clean_;
  std::function<void(uint64_t, uint8_t*)> initial_;
  std::unordered_map<uint64_t, std::vector<uint8_t>> shadow_;
  std::unordered_map<uint64_t, Grant> grants_;
  std::unordered_map<uint32_t, std::deque<BufferedStore>> buffered_;
  CoherenceFailure failure_;
  std::string report_;  // failure_.text()
  uint64_t checks_ = 0;
};

}  // namespace tessera::mem
