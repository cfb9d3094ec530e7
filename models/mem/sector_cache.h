// A set-associative, sectored cache array with LRU replacement (the L1/texture
// halves and the L2 slices): 128-byte lines of four 32-byte sectors, each
// sector valid and dirty on its own, so a miss fetches only the sectors asked
// for. Tags only: the data lives in the functional memory (instructions
// execute at issue). And the miss-status holding registers that merge misses
// to a line already being fetched. No SystemC here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::mem {

inline constexpr unsigned kLineBytes = 128;
inline constexpr unsigned kSectorBytes = 32;
inline constexpr unsigned kSectorsPerLine = kLineBytes / kSectorBytes;

struct SectorGeometry {
  uint32_t size_bytes = 0;
  unsigned ways = 0;
  unsigned line_bytes = 128;
  // Lines that map here are `index_stride` lines apart (an L2 slice of an
  // interleaved L2 sees every n-th line): the set index skips that factor.
  unsigned index_stride = 1;
  unsigned sets() const { return size_bytes / (ways * line_bytes); }
  // Throws sim::ConfigError naming `size_key` when size is not
  // sets x ways x line.
  void validate(const std::string& size_key, const std::string& ways_key) const;
};

class SectorCache {
 public:
  explicit SectorCache(const SectorGeometry& g);

  struct Victim {
    uint32_t line = 0;
    uint8_t dirty = 0;  // sectors to write back
  };

  // The sectors of `mask` present in the line; a hit on any of them makes the
  // line most recently used.
  uint8_t lookup(uint32_t line, uint8_t mask);
  // Makes the sectors valid (and dirty if asked), allocating the line if it is
  // absent; the victim (if any) is returned with its dirty sectors.
  Victim fill(uint32_t line, uint8_t mask, bool dirty);
  void invalidate(uint32_t line, uint8_t mask);
  void invalidate_all();
  uint8_t dirty_sectors(uint32_t line) const;
  bool contains(uint32_t line) const { return find(line) >= 0; }
  unsigned sets() const { return sets_; }

 private:
  struct Way {
    uint32_t tag = 0;
    uint8_t valid = 0, dirty = 0;
    uint64_t last_use = 0;
  };
  int find(uint32_t line) const;  // index in ways_, or -1
  // Modulo, not a mask: the 12 KiB L1 half has 24 sets.
  unsigned set_of(uint32_t line) const { return (line / line_bytes_ / index_stride_) % sets_; }

  unsigned sets_, ways_per_set_, line_bytes_, index_stride_;
  std::vector<Way> ways_;
  uint64_t use_clock_ = 0;
};

// Outstanding line misses. Each entry records the sectors requested from the
// next level and those already back; requests for a line already in flight
// merge into its entry instead of going out again.
template <typename Waiter>
class MshrTable {
 public:
  explicit MshrTable(unsigned entries) : capacity_(entries) {}

  struct Entry {
    uint32_t line = 0;
    uint8_t requested = 0, arrived = 0;
    struct Wait {
      Waiter who;
      uint8_t sectors;
    };
    std::vector<Wait> waiters;
  };

  Entry* find(uint32_t line) {
    for (Entry& e : entries_)
      if (e.line == line) return &e;
    return nullptr;
  }
  bool full() const { return entries_.size() >= capacity_; }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }
  Entry& allocate(uint32_t line) {
    entries_.push_back(Entry{line, 0, 0, {}});
    return entries_.back();
  }
  // Sectors arrived for `line`: calls done(waiter) for each waiter whose
  // sectors are all back, and frees the entry when nothing more is awaited.
  template <typename Done>
  void arrive(uint32_t line, uint8_t sectors, Done&& done) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      Entry& e = entries_[i];
      if (e.line != line) continue;
      e.arrived = static_cast<uint8_t>(e.arrived | sectors);
      size_t kept = 0;
      for (auto& w : e.waiters) {
        if ((w.sectors & ~e.arrived) == 0) {
          done(w.who);
        } else {
          e.waiters[kept++] = w;
        }
      }
      e.waiters.resize(kept);
      if ((e.requested & ~e.arrived) == 0) entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  }

 private:
  unsigned capacity_;
  std::vector<Entry> entries_;  // few entries: a vector beats a map
};

}  // namespace tessera::mem
