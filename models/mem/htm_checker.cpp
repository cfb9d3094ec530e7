#include "mem/htm_checker.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

namespace tessera::mem {

namespace {
constexpr uint64_t kEmpty = ~uint64_t{0};  // no block number is this (blocks are at least 4 bytes)
constexpr uint32_t kInitialTableShift = 64 - 10;

const char* op_name(uint8_t op) {
  static const char* const names[] = {"tx read", "tx write", "read", "write", "commit write"};
  return op < 5 ? names[op] : "?";
}

uint32_t log2_of(uint32_t v) {
  uint32_t s = 0;
  while ((1u << s) < v) ++s;
  return s;
}

// The byte lanes of a word that an access covers.
uint8_t lane_mask(uint64_t addr, uint32_t size) { return static_cast<uint8_t>(((1u << size) - 1) << (addr & 3)); }
}  // namespace

std::string HtmFailure::text() const {
  switch (kind) {
    case Kind::kNone:
      return "";
    case Kind::kValue:
      return fmt::format("serialisability violation at cycle {}: {}\n  history of {:#x}, oldest first:\n{}", cycle,
                         what, addr, history);
    case Kind::kMisuse:
      return fmt::format("HTM checker protocol misuse at cycle {}: {}", cycle, what);
  }
  return what;
}

HtmChecker::HtmChecker(uint32_t cores, uint32_t block_bytes, Initial initial)
    : block_bytes_(block_bytes),
      block_shift_(log2_of(block_bytes)),
      initial_(std::move(initial)),
      cores_(cores),
      keys_(size_t{1} << (64 - kInitialTableShift), kEmpty),
      slots_(keys_.size(), 0),
      table_shift_(kInitialTableShift) {
  if (block_bytes < 4 || block_bytes > 4096 || (block_bytes & (block_bytes - 1)) != 0)
    throw std::invalid_argument(
        fmt::format("HTM checker: block size {} bytes is not a power of two from 4 to 4096", block_bytes));
  if (cores == 0 || cores > 65535)
    throw std::invalid_argument(fmt::format("HTM checker: {} cores is not from 1 to 65535", cores));
  if (!initial_) throw std::invalid_argument("HTM checker: no initial-memory callback");
}

CoherenceFailure HtmChecker::coherence_failure() const {
  if (!failed()) return {};
  return CoherenceFailure::make(failure_.kind == HtmFailure::Kind::kValue ? CoherenceFailure::Kind::kViolation
                                                                          : CoherenceFailure::Kind::kProtocolError,
                                failure_.cycle, failure_.addr & ~static_cast<uint64_t>(block_bytes_ - 1),
                                "HTM " + failure_.what,
                                failure_.history.empty() ? "(HTM history)" : "HTM history:\n" + failure_.history);
}

// ---- shadow blocks ---------------------------------------------------------

void HtmChecker::grow() {
  std::vector<uint64_t> old_keys(keys_.size() * 2, kEmpty);
  std::vector<uint32_t> old_slots(keys_.size() * 2, 0);
  old_keys.swap(keys_);
  old_slots.swap(slots_);
  --table_shift_;
  const size_t mask = keys_.size() - 1;
  for (size_t i = 0; i < old_keys.size(); ++i) {
    if (old_keys[i] == kEmpty) continue;
    size_t h = (old_keys[i] * 0x9E3779B97F4A7C15ull) >> table_shift_;
    while (keys_[h] != kEmpty) h = (h + 1) & mask;
    keys_[h] = old_keys[i];
    slots_[h] = old_slots[i];
  }
}

uint32_t HtmChecker::block_index(uint64_t addr) {
  const uint64_t key = addr >> block_shift_;
  if (key == last_key_) return last_index_;
  size_t mask = keys_.size() - 1;
  size_t h = (key * 0x9E3779B97F4A7C15ull) >> table_shift_;
  while (keys_[h] != kEmpty) {
    if (keys_[h] == key) {
      last_key_ = key;
      return last_index_ = slots_[h];
    }
    h = (h + 1) & mask;
  }
  if ((static_cast<size_t>(blocks_) + 1) * 2 > keys_.size()) {
    grow();
    mask = keys_.size() - 1;
    h = (key * 0x9E3779B97F4A7C15ull) >> table_shift_;
    while (keys_[h] != kEmpty) h = (h + 1) & mask;
  }
  const uint32_t index = blocks_++;
  keys_[h] = key;
  slots_[h] = index;
  shadow_.resize(static_cast<size_t>(blocks_) * block_bytes_);
  if (seed_)
    std::memcpy(bytes(index), seed_, block_bytes_);
  else
    initial_(key << block_shift_, bytes(index));
  history_.resize(static_cast<size_t>(blocks_) * kHistory);
  history_at_.push_back(0);
  last_key_ = key;
  return last_index_ = index;
}

uint32_t HtmChecker::load(uint32_t index, uint64_t addr, uint32_t size) {
  const uint8_t* b = bytes(index) + (addr & (block_bytes_ - 1));
  uint32_t v = 0;
  for (uint32_t i = 0; i < size; ++i) v |= static_cast<uint32_t>(b[i]) << (8 * i);
  return v;
}

void HtmChecker::store(uint32_t index, uint64_t addr, uint32_t size, uint32_t value) {
  uint8_t* b = bytes(index) + (addr & (block_bytes_ - 1));
  for (uint32_t i = 0; i < size; ++i) b[i] = static_cast<uint8_t>(value >> (8 * i));
}

void HtmChecker::record(uint32_t index, uint64_t cycle, uint32_t core, Op op, uint64_t addr, uint32_t size,
                        uint32_t value) {
  uint32_t& at = history_at_[index];
  history_[static_cast<size_t>(index) * kHistory + at] =
      Event{cycle, addr, value, static_cast<uint16_t>(core), static_cast<uint8_t>(size), op};
  at = (at + 1) % kHistory;
}

void HtmChecker::seed(uint64_t block_addr, const uint8_t* data) {
  if (failed()) return;
  seed_ = data;
  block_index(block_addr);
  seed_ = nullptr;
}

void HtmChecker::forget_all(uint64_t cycle) {
  if (failed()) return;
  for (uint32_t c = 0; c < cores_.size(); ++c)
    if (cores_[c].open)
      return fail_misuse(cycle, c,
                         fmt::format("memory forgotten while core {}'s transaction begun at cycle {} is open", c,
                                     cores_[c].begin_cycle));
  std::fill(keys_.begin(), keys_.end(), kEmpty);
  blocks_ = 0;
  shadow_.clear();
  history_.clear();
  history_at_.clear();
  ghosts_.clear();
  last_key_ = kEmpty;
}

// ---- validation ------------------------------------------------------------

bool HtmChecker::valid_core(uint64_t cycle, uint32_t core, const char* event) {
  if (core < cores_.size()) return true;
  fail_misuse(cycle, core, fmt::format("{} from core {}, but the cluster has {} cores", event, core, cores_.size()));
  return false;
}

bool HtmChecker::valid_access(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value,
                              const char* event) {
  if (!valid_core(cycle, core, event)) return false;
  if (size != 1 && size != 2 && size != 4) {
    fail_misuse(cycle, core, fmt::format("core {} {} at {:#x} has size {} (1, 2 or 4 bytes)", core, event, addr, size));
    return false;
  }
  if (addr % size != 0) {
    fail_misuse(cycle, core,
                fmt::format("core {} {} at {:#x} of size {} is not naturally aligned", core, event, addr, size));
    return false;
  }
  if (size < 4 && (value >> (8 * size)) != 0) {
    fail_misuse(
        cycle, core,
        fmt::format("core {} {} at {:#x}: value {:#x} does not fit in {} byte(s)", core, event, addr, value, size));
    return false;
  }
  return true;
}

// ---- events ----------------------------------------------------------------

void HtmChecker::begin(uint64_t cycle, uint32_t core) {
  if (failed() || !valid_core(cycle, core, "transaction begin")) return;
  ++events_;
  Core& c = cores_[core];
  if (c.open)
    return fail_misuse(cycle, core,
                       fmt::format("core {} began a transaction inside its transaction begun at cycle {} (nesting "
                                   "is flattened: only the outermost begin is an event)",
                                   core, c.begin_cycle));
  c.open = true;
  c.begin_cycle = cycle;
  c.log.clear();
}

void HtmChecker::tx_read(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value) {
  if (failed() || !valid_access(cycle, core, addr, size, value, "transactional read")) return;
  ++events_;
  Core& c = cores_[core];
  if (!c.open)
    return fail_misuse(cycle, core,
                       fmt::format("core {} made a transactional read of {:#x} outside a transaction", core, addr));
  c.log.push_back(Access{cycle, addr, value, static_cast<uint8_t>(size), false});
  record(block_index(addr), cycle, core, Op::kTxRead, addr, size, value);
}

void HtmChecker::tx_write(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value) {
  if (failed() || !valid_access(cycle, core, addr, size, value, "transactional write")) return;
  ++events_;
  Core& c = cores_[core];
  if (!c.open)
    return fail_misuse(cycle, core,
                       fmt::format("core {} made a transactional write of {:#x} outside a transaction", core, addr));
  c.log.push_back(Access{cycle, addr, value, static_cast<uint8_t>(size), true});
  record(block_index(addr), cycle, core, Op::kTxWrite, addr, size, value);
}

void HtmChecker::commit(uint64_t cycle, uint32_t core) {
  if (failed() || !valid_core(cycle, core, "commit")) return;
  ++events_;
  Core& c = cores_[core];
  if (!c.open) return fail_misuse(cycle, core, fmt::format("core {} committed outside a transaction", core));
  // The transaction takes its place in the witness order now: replayed in
  // program order against the shadow, its writes land as they come, so a
  // later read of its own sees them (byte by byte) and a read of anything
  // else sees the latest committed value.
  for (const Access& a : c.log) {
    const uint32_t index = block_index(a.addr);
    if (a.write) {
      store(index, a.addr, a.size, a.value);
      record(index, cycle, core, Op::kCommitWrite, a.addr, a.size, a.value);
      continue;
    }
    ++reads_checked_;
    const uint32_t expected = load(index, a.addr, a.size);
    if (expected != a.value) {
      fail_value(cycle, core, a, expected, true);
      c.open = false;
      return;
    }
  }
  c.open = false;
  ++commits_;
}

void HtmChecker::abort(uint64_t cycle, uint32_t core) {
  if (failed() || !valid_core(cycle, core, "abort")) return;
  ++events_;
  Core& c = cores_[core];
  if (!c.open) return fail_misuse(cycle, core, fmt::format("core {} aborted outside a transaction", core));
  for (const Access& a : c.log) {
    if (!a.write) continue;
    GhostWord& word = ghosts_[a.addr & ~uint64_t{3}];
    Ghost& g = word.ghosts[word.next];
    word.next = (word.next + 1) % kGhosts;
    g.begin_cycle = c.begin_cycle;
    g.core = core;
    g.value = a.value << (8 * (a.addr & 3));
    g.mask = lane_mask(a.addr, a.size);
  }
  c.open = false;
  ++aborts_;
}

void HtmChecker::read(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value) {
  if (failed() || !valid_access(cycle, core, addr, size, value, "read")) return;
  ++events_;
  ++reads_checked_;
  const uint32_t index = block_index(addr);
  record(index, cycle, core, Op::kRead, addr, size, value);
  const uint32_t expected = load(index, addr, size);
  if (expected != value)
    fail_value(cycle, core, Access{cycle, addr, value, static_cast<uint8_t>(size), false}, expected, false);
}

void HtmChecker::write(uint64_t cycle, uint32_t core, uint64_t addr, uint32_t size, uint32_t value) {
  if (failed() || !valid_access(cycle, core, addr, size, value, "write")) return;
  ++events_;
  const uint32_t index = block_index(addr);
  store(index, addr, size, value);
  record(index, cycle, core, Op::kWrite, addr, size, value);
}

void HtmChecker::debug_write(uint64_t addr, uint32_t size, uint32_t value) {
  if (failed() || !valid_access(0, 0, addr, size, value, "debug write")) return;
  const uint64_t key = addr >> block_shift_;
  const size_t mask = keys_.size() - 1;
  for (size_t h = (key * 0x9E3779B97F4A7C15ull) >> table_shift_; keys_[h] != kEmpty; h = (h + 1) & mask)
    if (keys_[h] == key) return store(slots_[h], addr, size, value);
}

// ---- reports ---------------------------------------------------------------

// Which uncommitted write the read returned, if any: a transaction (open on
// another core, or aborted) whose writes hold the read's value in every byte
// where it differs from the shadow; failing that, an older visible value.
std::string HtmChecker::explain(uint32_t reader, uint32_t index, uint64_t addr, uint32_t size, uint32_t actual,
                                uint32_t expected) const {
  uint32_t diff = 0;  // the read's bytes that differ from the shadow
  for (uint32_t i = 0; i < size; ++i)
    if (((actual ^ expected) >> (8 * i)) & 0xffu) diff |= 1u << i;
  auto byte_of = [&](uint32_t i) { return static_cast<uint8_t>(actual >> (8 * i)); };

  for (uint32_t c = 0; c < cores_.size(); ++c) {
    if (c == reader || !cores_[c].open) continue;
    bool all = true;
    for (uint32_t i = 0; i < size && all; ++i) {
      if (!(diff & (1u << i))) continue;
      bool found = false;
      for (const Access& w : cores_[c].log)
        if (w.write && addr + i >= w.addr && addr + i < w.addr + w.size &&
            static_cast<uint8_t>(w.value >> (8 * (addr + i - w.addr))) == byte_of(i))
          found = true;
      all = found;
    }
    if (all)
      return fmt::format(", the value written by core {}'s open transaction begun at cycle {}", c,
                         cores_[c].begin_cycle);
  }

  auto it = ghosts_.find(addr & ~uint64_t{3});
  if (it == ghosts_.end()) return stale(index, addr, size, actual);
  const GhostWord& word = it->second;
  for (uint32_t k = 0; k < kGhosts; ++k) {  // the most recent first
    const Ghost& cand = word.ghosts[(word.next + kGhosts - 1 - k) % kGhosts];
    if (cand.mask == 0) continue;
    bool all = true;
    for (uint32_t i = 0; i < size && all; ++i) {
      if (!(diff & (1u << i))) continue;
      const uint32_t lane = static_cast<uint32_t>((addr & 3) + i);
      bool found = false;
      for (const Ghost& g : word.ghosts)
        if (g.mask && g.core == cand.core && g.begin_cycle == cand.begin_cycle && (g.mask & (1u << lane)) &&
            static_cast<uint8_t>(g.value >> (8 * lane)) == byte_of(i))
          found = true;
      all = found;
    }
    if (all)
      return fmt::format(", the value written by core {}'s aborted transaction begun at cycle {}", cand.core,
                         cand.begin_cycle);
  }
  return stale(index, addr, size, actual);
}

// An older visible value the read returned (a conflict that went unnoticed):
// the newest write in the block's history that covers the read and holds it.
std::string HtmChecker::stale(uint32_t index, uint64_t addr, uint32_t size, uint32_t actual) const {
  for (uint32_t k = 1; k <= kHistory; ++k) {
    const Event& e = history_[static_cast<size_t>(index) * kHistory + (history_at_[index] + kHistory - k) % kHistory];
    if ((e.op != Op::kWrite && e.op != Op::kCommitWrite) || e.size == 0 || addr < e.addr ||
        addr + size > e.addr + e.size)
      continue;
    const uint32_t shifted = e.value >> (8 * (addr - e.addr));
    if ((size == 4 ? shifted : shifted & ((1u << (8 * size)) - 1)) == actual)
      return fmt::format(", a stale value (written at cycle {} by core {}{})", e.cycle, e.core,
                         e.op == Op::kCommitWrite ? "'s commit" : "");
  }
  return "";
}

std::string HtmChecker::history_of(uint64_t addr, uint32_t size) {
  const uint32_t index = block_index(addr);
  std::string out;
  for (uint32_t k = 0; k < kHistory; ++k) {
    const Event& e = history_[static_cast<size_t>(index) * kHistory + (history_at_[index] + k) % kHistory];
    if (e.size == 0 || e.addr + e.size <= addr || addr + size <= e.addr) continue;
    out += fmt::format("    cycle {} core {} {} {:#x} = {:#x} (size {})\n", e.cycle, e.core,
                       op_name(static_cast<uint8_t>(e.op)), e.addr, e.value, e.size);
  }
  if (out.empty()) out = fmt::format("    (none among the last {} events of its block)\n", kHistory);
  return out;
}

void HtmChecker::fail_value(uint64_t cycle, uint32_t core, const Access& read, uint32_t expected, bool in_tx) {
  HtmFailure f;
  f.kind = HtmFailure::Kind::kValue;
  f.cycle = cycle;
  f.core = core;
  f.addr = read.addr;
  f.size = read.size;
  f.expected = expected;
  f.actual = read.value;
  f.in_transaction = in_tx;
  f.begin_cycle = in_tx ? cores_[core].begin_cycle : 0;
  f.read_cycle = read.cycle;
  const std::string why =
      explain(in_tx ? core : ~0u, block_index(read.addr), read.addr, read.size, read.value, expected);
  if (in_tx)
    f.what = fmt::format(
        "core {}'s transaction begun at cycle {} read {:#x} at {:#x} (size {}, cycle {}){}; in commit order the value "
        "there is {:#x}",
        core, f.begin_cycle, read.value, read.addr, read.size, read.cycle, why, expected);
  else
    f.what = fmt::format("core {} read {:#x} at {:#x} (size {}, non-transactional){}; the value there is {:#x}", core,
                         read.value, read.addr, read.size, why, expected);
  f.history = history_of(read.addr, read.size);
  failure_ = std::move(f);
  report_ = failure_.text();
}

void HtmChecker::fail_misuse(uint64_t cycle, uint32_t core, std::string what) {
  if (failed()) return;
  HtmFailure f;
  f.kind = HtmFailure::Kind::kMisuse;
  f.cycle = cycle;
  f.core = core;
  if (core < cores_.size() && cores_[core].open) {
    f.in_transaction = true;
    f.begin_cycle = cores_[core].begin_cycle;
  }
  f.what = std::move(what);
  failure_ = std::move(f);
  report_ = failure_.text();
}

}  // namespace tessera::mem
