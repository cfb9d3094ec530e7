#include "dram/memory_system.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace tessera::dram {

namespace {
constexpr size_t kLatencyBuckets = 8192;
}

MemorySystem::MemorySystem(const DramConfig& config, Completion on_complete)
    : config_(config),
      on_complete_(std::move(on_complete)),
      map_(config.spec, config.address_map, config.xor_bank_hash),
      checker_(config.spec),
      energy_(config.spec) {
  validate(config_.spec);
  for (unsigned c = 0; c < config_.spec.channels(); ++c) {
    channels_.push_back(std::make_unique<ChannelController>(
        c, config_.spec, config_.controller, [this](const Transaction& t, uint64_t done) { burst_done(t, done); }));
    channels_.back()->set_models(config_.check_protocol ? &checker_ : nullptr, &energy_);
  }
  need_.assign(channels_.size() * config_.spec.org.pseudo_channels, 0);
  closed_.assign(need_.size(), 0);
  stats_.read_latency_histogram.assign(kLatencyBuckets, 0);
}

void MemorySystem::add_observer(CommandObserver* o) {
  for (auto& ch : channels_) ch->add_observer(o);
}

void MemorySystem::split(const MemRequest& r, Split& s) const {
  if (r.bytes == 0 || r.address >= capacity() || r.bytes > capacity() - r.address)
    throw std::out_of_range(
        fmt::format("DRAM request 0x{:x}+{} beyond capacity 0x{:x}", r.address, r.bytes, capacity()));
  s.request = r;
  s.bursts.clear();
  const unsigned shift = map_.offset_bits();  // a burst is 1 << offset_bits bytes
  const uint64_t first = r.address >> shift, last = (r.address + r.bytes - 1) >> shift;
  for (uint64_t b = first; b <= last; ++b) s.bursts.push_back(map_.decode(b << shift));
}

bool MemorySystem::enqueue(const MemRequest& r, uint64_t cycle) {
  split(r, scratch_);
  return enqueue(scratch_, cycle);
}

bool MemorySystem::enqueue(const Split& s, uint64_t cycle) {
  const MemRequest& r = s.request;
  advance_to(cycle);
  const unsigned count = static_cast<unsigned>(s.bursts.size());
  // All or nothing: every burst needs room in its pseudo channel's queue,
  // and none of them may be closed by an older refused request this cycle.
  if (closed_cycle_ != cycle && closed_cycle_ != kNever) {
    std::fill(closed_.begin(), closed_.end(), 0);
    closed_cycle_ = kNever;
  }
  for (const DramAddress& a : s.bursts) ++need_[queue_id(a)];
  bool room = true;
  for (const DramAddress& a : s.bursts) {
    const unsigned q = queue_id(a);
    if (need_[q] && (closed_[q] || !channels_[a.channel]->can_accept(a.pc, r.is_write, need_[q]))) room = false;
    need_[q] = 0;
  }
  if (!room) {
    for (const DramAddress& a : s.bursts) closed_[queue_id(a)] = 1;
    closed_cycle_ = cycle;
    ++stats_.rejected;
    return false;
  }
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(pending_.size());
    pending_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  pending_[slot] = Pending{r.id, cycle, 0, count, r.is_write};
  ++live_;
  ++stats_.requests;
  ++(r.is_write ? stats_.write_requests : stats_.read_requests);
  for (const DramAddress& a : s.bursts) {
    Transaction t;
    t.tag = slot;
    t.arrival = cycle;
    t.address = a;
    t.is_write = r.is_write;
    t.source = r.source;
    channels_[a.channel]->enqueue(t);
  }
  return true;
}

void MemorySystem::burst_done(const Transaction& t, uint64_t data_end) {
  const uint64_t done = data_end + config_.logic_layer_cycles;
  Pending& p = pending_[t.tag];
  p.done = std::max(p.done, done);
  ++stats_.bursts;
  stats_.bytes += config_.spec.org.burst_bytes();
  stats_.last_done = std::max(stats_.last_done, done);
  if (--p.bursts_left) return;
  if (!p.is_write) {
    const uint64_t latency = p.done - p.arrival;
    stats_.read_latency_sum += latency;
    ++stats_.read_latency_histogram[std::min<uint64_t>(latency, kLatencyBuckets - 1)];
  }
  --live_;
  free_slots_.push_back(static_cast<uint32_t>(t.tag));
  if (on_complete_) on_complete_(p.id, p.done);
}

void MemorySystem::advance_to(uint64_t cycle) {
  if (cycle <= now_) return;
  for (auto& ch : channels_) ch->run_until(cycle, config_.skip_idle);
  now_ = cycle;
}

uint64_t MemorySystem::next_event_cycle() const {
  uint64_t next = kNever;
  for (const auto& ch : channels_) next = std::min(next, ch->next_event());
  return std::max(next, now_);
}

bool MemorySystem::idle() const {
  return std::all_of(channels_.begin(), channels_.end(), [](const auto& ch) { return ch->idle(); });
}

void MemorySystem::finish(uint64_t end) {
  advance_to(end);
  energy_.finish(end);
  if (config_.check_protocol) checker_.finish(end);
}

ChannelStats MemorySystem::channel_totals() const {
  ChannelStats s;
  for (const auto& ch : channels_) {
    const ChannelStats& c = ch->stats();
    s.reads += c.reads;
    s.writes += c.writes;
    s.acts += c.acts;
    s.pres += c.pres;
    s.conflict_pres += c.conflict_pres;
    s.refab += c.refab;
    s.refsb += c.refsb;
    s.mode_switches += c.mode_switches;
  }
  return s;
}

double MemorySystem::p99_read_latency_cycles() const {
  const auto& h = stats_.read_latency_histogram;
  uint64_t total = 0;
  for (uint64_t v : h) total += v;
  if (total == 0) return 0;
  // The smallest latency with at least 99% of reads at or below it.
  const uint64_t target = (total * 99 + 99) / 100;
  uint64_t seen = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    seen += h[i];
    if (seen >= target) return static_cast<double>(i);
  }
  return static_cast<double>(h.size() - 1);
}

}  // namespace tessera::dram
