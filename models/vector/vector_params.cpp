#include "vector/vector_params.h"

#include <fmt/format.h>

namespace tessera::vector {

VectorParams load_vector_params(sim::Config& cfg, const std::string& p) {
  VectorParams v;
  TimingParams& t = v.timing;
  const auto u = [&](const std::string& key, unsigned def, int64_t lo, int64_t hi, const std::string& desc) {
    return static_cast<unsigned>(cfg.get_int(p + key, def, lo, hi, desc));
  };
  // RISC-V V allows VLEN up to 65536; the register file model (isa::VectorState)
  // holds up to 4096 bits a register.
  v.vlen = u("vlen", v.vlen, 64, 4096, "VLEN: bits per vector register (a power of two)");
  if (v.vlen & (v.vlen - 1))
    throw sim::ConfigError(fmt::format("{}vlen = {} must be a power of two (RISC-V V 1.0, section 2)", p, v.vlen));
  t.lanes = u("lanes", t.lanes, 1, 64, "Lanes: elements processed per cycle by each functional unit");
  const std::string chaining = cfg.get_enum(p + "chaining", "flexible", {"none", "fixed", "flexible"},
                                            "Chaining: none, fixed (one chained operand and reader) or flexible");
  t.chaining = chaining == "none" ? Chaining::kNone : chaining == "fixed" ? Chaining::kFixed : Chaining::kFlexible;
  t.add_latency = u("latency.add", t.add_latency, 0, 1000, "Start-up latency of the add unit, cycles");
  t.mul_latency = u("latency.mul", t.mul_latency, 0, 1000, "Start-up latency of the multiply unit, cycles");
  t.div_latency = u("latency.div", t.div_latency, 0, 1000, "Start-up latency of the divide/reciprocal unit, cycles");
  t.load_latency = u("latency.load", t.load_latency, 0, 10000, "Start-up latency of a vector load, cycles");
  t.store_latency = u("latency.store", t.store_latency, 0, 10000, "Start-up latency of a vector store, cycles");
  t.memory_units = u("memory_units", t.memory_units, 1, 8, "Load/store pipelines");
  t.read_ports = u("read_ports", t.read_ports, 1, 64, "Vector register-file read ports per lane");
  t.write_ports = u("write_ports", t.write_ports, 1, 64, "Vector register-file write ports per lane");
  t.banks = u("banks", t.banks, 1, 4096, "Vector memory banks");
  t.bank_busy = u("bank_busy", t.bank_busy, 1, 10000, "Cycles a vector memory bank is busy per access");
  t.bank_word_bytes =
      u("bank_word_bytes", t.bank_word_bytes, 1, 4096, "Bytes per bank word (consecutive words in consecutive banks)");
  t.queue_depth = u("queue_depth", t.queue_depth, 1, 1024, "Vector instructions accepted and not yet started");
  const std::string memory = cfg.get_enum(
      p + "memory", "cluster", {"cluster", "banked"},
      "Vector loads and stores: cluster (through the core's coherent L1D) or banked (banked vector memory)");
  v.memory = memory == "banked" ? MemoryPath::kBanked : MemoryPath::kCluster;
  if (t.bank_word_bytes & (t.bank_word_bytes - 1))
    throw sim::ConfigError(fmt::format("{}bank_word_bytes = {} must be a power of two", p, t.bank_word_bytes));
  return v;
}

}  // namespace tessera::vector
