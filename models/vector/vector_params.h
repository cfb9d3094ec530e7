// Reads the vector unit's timing parameters from sim::Config under a key
// prefix ("vector." by default): vector.vlen, vector.lanes, vector.chaining,
// the start-up latencies vector.latency.{add,mul,div,load,store},
// vector.memory_units, vector.read_ports, vector.write_ports,
// vector.banks, vector.bank_busy, vector.bank_word_bytes and
// vector.queue_depth (docs/vector.md, "Parameters").
#pragma once

#include <string>

#include "sim/config.h"
#include "vector/vector_timing.h"

namespace tessera::vector {

struct VectorParams {
  unsigned vlen = 2048;  // bits per vector register: 64 elements of 32 bits
  TimingParams timing;
};

VectorParams load_vector_params(sim::Config& cfg, const std::string& prefix = "vector.");

}  // namespace tessera::vector
