// Reads the vector unit's timing parameters from sim::Config under a key
// prefix ("vector." by default): vector.vlen, vector.lanes, vector.chaining,
// the start-up latencies vector.latency.{add,mul,div,load,store},
// vector.memory_units, vector.read_ports, vector.write_ports,
// vector.banks, vector.bank_busy, vector.bank_word_bytes and
// vector.queue_depth, and vector.memory (docs/vector.md, "Parameters").
#pragma once

#include <string>

#include "sim/config.h"
#include "vector/vector_timing.h"

namespace tessera::vector {

// Where vector loads and stores go. cluster: element by element through the
// core's coherent L1D, timed by the cluster. banked: the chapter's banked
// vector memory, timed by its banks (docs/vector.md, "Memory paths").
enum class MemoryPath : uint8_t { kCluster, kBanked };

struct VectorParams {
  unsigned vlen = 2048;  // bits per vector register: 64 elements of 32 bits
  MemoryPath memory = MemoryPath::kCluster;
  TimingParams timing;
};

VectorParams load_vector_params(sim::Config& cfg, const std::string& prefix = "vector.");

}  // namespace tessera::vector
