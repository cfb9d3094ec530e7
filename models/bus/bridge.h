// The cluster's bridge to the rest of the chip (a mem::MemorySide), and its
// slot accounting: cluster.bridge.queue_entries slots, each holding one line
// on its way to or from memory.
//  - A line memory must supply takes a slot when its snoop resolves; the
//    data is ready one memory read latency later and waits in the bridge's
//    queue for the response bus; the slot is free when it has crossed.
//  - A WriteBack takes a slot when it is ordered; the slot is free when its
//    data has crossed the response bus and reached memory.
// A transaction that needs a slot when none is free is NACKed at its snoop
// (the snoop bus asks full()), so memory never refuses a line.
// A line reaching memory writes only the bytes the cores wrote since it
// last did (mem::WrittenBytes, which the cache controllers mark).
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "bus/bus_response.h"
#include "mem/memory_side.h"
#include "mem/written_bytes.h"

namespace tessera::bus {

class Bridge {
 public:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

  // `reads` and `writes` count lines read from and written to memory.
  Bridge(mem::MemorySide& memory, uint32_t slots, uint32_t line_bytes, uint64_t* reads, uint64_t* writes);

  bool full() const { return used_ >= slots_; }
  uint32_t used() const { return used_; }
  uint32_t slots() const { return slots_; }

  // A WriteBack ordered on the bus takes a slot.
  void take_write_back_slot() { ++used_; }
  // Memory supplies `line` for transaction `tag`: takes a slot, reads the
  // line now; its response is ready one read latency after `now`.
  void read(uint32_t tag, uint64_t line, uint64_t now);
  // A read's data or a write-back's has crossed the response bus.
  void free_slot() { --used_; }
  // A line reaches memory (a write-back, a flush, a coherence point): its
  // bytes written since it last did; counted as a line written either way.
  void write(uint64_t line, const uint8_t* data);
  // The bytes the cores have written, line by line.
  mem::WrittenBytes& written() { return written_; }

  // Memory's answers waiting for the response bus, oldest first.
  bool has_response() const { return !queue_.empty(); }
  uint64_t next_ready() const { return queue_.empty() ? kNever : queue_.front()->ready_at; }
  std::unique_ptr<BusResponse> pop_response();

  // "cluster.bridge: ..." lines, empty when no slot is in use.
  std::string describe_in_flight() const;

 private:
  mem::MemorySide& memory_;
  uint32_t slots_;
  uint32_t line_bytes_;
  uint64_t* reads_;
  uint64_t* writes_;
  uint32_t used_ = 0;
  mem::WrittenBytes written_;
  mem::WrittenBytes::Mask mask_{};  // the bytes of the line being written
  std::vector<uint8_t> merged_;     // the line as memory will hold it
  std::deque<std::unique_ptr<BusResponse>> queue_;
};

}  // namespace tessera::bus
