// Checkpoint decoder harness: the input is the bytes of a checkpoint file
// (tessera run --checkpoint-out; docs/fast-forward.md, "Format"). It is
// decoded twice: as it is, where the checksum refuses almost every change,
// and with its last 8 bytes replaced by the right checksum, so the fuzzer
// reaches the structure behind it. A ConfigError is the only acceptable
// failure. What is returned keeps every promise of the decoder: memory no
// larger than the limit, pages inside it, aligned, each once, device
// registers from 0x100, 1 to 1024 cores; and it encodes to bytes that
// decode to the same checkpoint.
#include <cstdint>
#include <cstring>
#include <set>
#include <string>

#include "cpu/checkpoint.h"
#include "fuzz_util.h"
#include "sim/config.h"

namespace {

using tessera::cpu::Checkpoint;
using tessera::fuzz::check;

// The default platform's memory (memory.size_mb), which the seeds claim.
// What a decode allocates is bounded by the distinct pages the input holds.
constexpr uint64_t kMemoryLimit = uint64_t{256} << 20;

void check_promises(const Checkpoint& c) {
  check(c.memory_size <= kMemoryLimit, "a checkpoint larger than the memory limit was decoded");
  check(!c.cluster.harts.empty() && c.cluster.harts.size() <= 1024, "a checkpoint with 0 or over 1024 cores");
  for (const auto& [offset, value] : c.cluster.device_writes)
    check(offset >= 0x100 && offset % 4 == 0, "a device register below 0x100 or misaligned was decoded");
  std::set<uint32_t> seen;
  for (const Checkpoint::Page& p : c.pages) {
    check(p.bytes.size() == Checkpoint::kPageBytes, "a page of the wrong size");
    check(p.addr >= c.memory_base && uint64_t{p.addr} - c.memory_base + Checkpoint::kPageBytes <= c.memory_size,
          "a page outside the checkpoint's memory");
    check((p.addr - c.memory_base) % Checkpoint::kPageBytes == 0, "a misaligned page");
    check(seen.insert(p.addr).second, "a page decoded twice");
  }
}

void decode(const std::string& bytes) {
  Checkpoint c;
  try {
    c = tessera::cpu::decode_checkpoint(bytes, "fuzz.ckpt", kMemoryLimit);
  } catch (const tessera::sim::ConfigError&) {
    return;
  }
  check_promises(c);
  const Checkpoint again = tessera::cpu::decode_checkpoint(tessera::cpu::encode_checkpoint(c), "again", kMemoryLimit);
  check(again.program == c.program && again.elf_hash == c.elf_hash && again.memory_size == c.memory_size &&
            again.cluster.harts.size() == c.cluster.harts.size() && again.pages.size() == c.pages.size() &&
            again.cluster.device_writes == c.cluster.device_writes,
        "a decoded checkpoint encodes to another");
  for (size_t i = 0; i < c.pages.size(); ++i)
    check(again.pages[i].addr == c.pages[i].addr && again.pages[i].bytes == c.pages[i].bytes,
          "a page changed through encode and decode");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  decode(bytes);
  if (bytes.size() >= 8) {
    const uint64_t sum = tessera::cpu::bytes_hash(bytes.substr(0, bytes.size() - 8));
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
    decode(bytes);
  }
  return 0;
}
