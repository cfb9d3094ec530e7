// A line on its way over the response bus, for the transaction holding
// request-table entry `tag`: from a cache's response queue (a supply or
// flush, or a write-back) or from the bridge (memory's answer).
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::bus {

struct BusResponse {
  uint32_t tag;
  int source;  // the supplying agent, or -1 for the bridge
  uint64_t ready_at;
  bool to_requester;
  bool to_memory;
  std::vector<uint8_t> data;
};

}  // namespace tessera::bus
