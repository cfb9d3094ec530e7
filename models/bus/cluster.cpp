#include "bus/cluster.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "sim/stats.h"

namespace tessera::bus {

using mem::BusOp;
using mem::Event;
using mem::State;

namespace {

constexpr size_t kPorts = kControllerPorts;

uint32_t read_bytes(const uint8_t* p, uint32_t size) {
  uint32_t v = 0;
  for (uint32_t i = 0; i < size; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

void write_bytes(uint8_t* p, uint32_t size, uint32_t value) {
  for (uint32_t i = 0; i < size; ++i) p[i] = static_cast<uint8_t>(value >> (8 * i));
}

std::string agent_name(uint32_t agent) { return fmt::format("{}{}", agent % 2 ? "l1i" : "l1d", agent / 2); }

}  // namespace

// ---------------------------------------------------------------------------
// Construction

Cluster::Cluster(const ClusterParams& params, mem::MemorySide& memory, sim::StatGroup* stats_parent,
                 std::optional<mem::ProtocolTable> table)
    : params_(params),
      memory_(memory),
      table_(table ? std::move(*table) : mem::ProtocolTable::standard(params.protocol)),
      line_bytes_(params.l1d.line_bytes),
      beats_per_line_(params.l1d.line_bytes * 8 / params.width_bits),
      // A legal access may wait for a write-back and then a fill, each a
      // memory read latency, behind other requests: a window shorter than a
      // few latencies would call a slow memory a deadlock.
      deadlock_window_(
          std::max<uint64_t>(params.deadlock_cycles, uint64_t{kDeadlockLatencies} * memory.read_latency())),
      bus_(params.arbiter, 2 * params.cores, params.request_table),
      bridge_(memory, params.bridge_queue_entries, params.l1d.line_bytes, &counters_.memory_reads,
              &counters_.memory_writes),
      row_hits_(table_.rows().size(), 0) {
  if (params.l1i.line_bytes != line_bytes_) throw std::invalid_argument("L1I and L1D line sizes differ");
  const uint32_t agents = 2 * params.cores;
  if (params.check)
    checker_ = std::make_unique<mem::CoherenceChecker>(
        static_cast<const mem::CacheView&>(*this), line_bytes_, table_.has_exclusive_clean(),
        [this](uint64_t line, uint8_t* out) { memory_.read_line(line, out, line_bytes_); });
  ctx_.table = &table_;
  ctx_.view = this;
  ctx_.checker = checker_.get();
  ctx_.line_bytes = line_bytes_;
  ctx_.hit_latency = params.hit_latency;
  ctx_.wb_buffer_entries = params.wb_buffer_entries;
  ctx_.tso = params.tso;
  ctx_.row_hits = &row_hits_;
  ctx_.value_changes = &counters_.value_changes;
  ctx_.sb_forwards = &counters_.sb_forwards;
  ctx_.written = &bridge_.written();
  ctx_.htm = &params_.htm;
  if (params.check) {
    htm_checker_ = std::make_unique<mem::HtmChecker>(
        params.cores, line_bytes_, [this](uint64_t line, uint8_t* out) { memory_.read_line(line, out, line_bytes_); });
    ctx_.htm_checker = htm_checker_.get();
  }
  ctx_.agents = &agents_;
  for (uint32_t a = 0; a < agents; ++a)
    agents_.push_back(std::make_unique<Agent>(a, a % 2 ? params.l1i : params.l1d, params.store_buffer_entries, &ctx_));
  register_stats(stats_parent);
}

Cluster::~Cluster() = default;

void Cluster::register_stats(sim::StatGroup* parent) {
  stats_ = std::make_unique<sim::StatGroup>("cluster", parent);
  stats_->add_counter("ops_completed", &counters_.ops_completed, "processor operations completed");
  stats_->add_counter("store_buffer_forwards", &counters_.sb_forwards, "loads served by the store buffer");
  bus_stats_ = std::make_unique<sim::StatGroup>("bus", stats_.get());
  sim::StatGroup& bus = *bus_stats_;
  for (size_t op = 1; op < static_cast<size_t>(BusOp::kCount); ++op)
    bus.add_counter(mem::bus_op_name(static_cast<BusOp>(op)), &counters_.bus_ops[op],
                    "transactions of this kind ordered on the bus");
  bus.add_counter("cache_to_cache", &counters_.cache_to_cache, "lines supplied by a cache to a cache");
  bus.add_counter("nacks", &counters_.nacks, "requests refused because a receiver's buffer was full");
  bus.add_counter("wb_snoop_hits", &counters_.wb_snoop_hits, "snoops answered by a write-back buffer");
  bus.add_counter("data_beats", &counters_.data_beats, "response bus cycles carrying data");
  bus.add_counter("request_busy_cycles", &counters_.request_bus_busy, "request bus cycles in use");
  bus.add_counter("max_grant_wait", &counters_.max_grant_wait, "longest wait for a request grant, cycles");
  bridge_stats_ = std::make_unique<sim::StatGroup>("bridge", stats_.get());
  bridge_stats_->add_counter("memory_reads", &counters_.memory_reads, "lines supplied by memory through the bridge");
  bridge_stats_->add_counter("memory_writes", &counters_.memory_writes, "write-backs and flushes reaching memory");
  for (uint32_t c = 0; c < params_.cores; ++c)
    core_stats_.push_back(std::make_unique<sim::StatGroup>(fmt::format("core{}", c), stats_.get()));
  for (auto& a : agents_) {
    auto g = std::make_unique<sim::StatGroup>(a->id % 2 ? "l1i" : "l1d", core_stats_[a->id / 2].get());
    g->add_counter("hits", &a->counters.hits, "accesses performed without a bus transaction");
    g->add_counter("misses", &a->counters.misses, "accesses that needed a bus transaction");
    g->add_counter("bus_transactions", &a->counters.bus_transactions, "transactions this cache had ordered");
    g->add_counter("invalidations", &a->counters.invalidations, "copies lost to another cache's transaction");
    g->add_counter("nacked", &a->counters.nacked, "this cache's requests that were NACKed");
    g->add_counter("grant_wait_max", &a->counters.grant_wait_max, "longest wait for a request grant, cycles");
    agent_stats_.push_back(std::move(g));
  }
  // HTM, per core and summed over the cluster.
  for (uint32_t c = 0; c < params_.cores; ++c) {
    HtmCounters& k = agents_[l1d_agent(c)]->tx.counters;
    auto g = std::make_unique<sim::StatGroup>("htm", core_stats_[c].get());
    g->add_counter("started", &k.started, "transactions begun (each retry counts)");
    g->add_counter("committed", &k.committed, "transactions committed");
    for (size_t r = 1; r < static_cast<size_t>(TxReason::kCount); ++r)
      g->add_counter(fmt::format("aborts_{}", tx_reason_name(static_cast<TxReason>(r))), &k.aborts[r],
                     "transactions aborted for this reason");
    g->add_counter("committed_cycles", &k.committed_cycles, "cycles from begin to commit of committed transactions");
    g->add_counter("aborted_cycles", &k.aborted_cycles, "cycles from begin to abort of aborted transactions (wasted)");
    g->add_counter("rollback_cycles", &k.rollback_cycles, "cycles walking the undo log back after aborts (eager)");
    g->add_counter("undo_log_bytes", &k.undo_log_bytes, "bytes written to the undo log (eager)");
    g->add_counter("commit_bus_transactions", &k.commit_bus_transactions,
                   "bus transactions ordered while committing (acquiring and publishing the write set)");
    g->add_counter("conflict_nacks", &k.conflict_nacks, "this core's requests refused by another's transaction");
    g->add_counter("fallback_locks", &k.fallback_locks,
                   "fallback-lock acquisitions reported by firmware (CSR txfallback)");
    htm_stats_.push_back(std::move(g));
  }
  auto total = std::make_unique<sim::StatGroup>("htm", stats_.get());
  auto sum = [this](std::function<uint64_t(const HtmCounters&)> get) {
    return [this, get = std::move(get)]() {
      uint64_t n = 0;
      for (uint32_t c = 0; c < params_.cores; ++c) n += get(agents_[l1d_agent(c)]->tx.counters);
      return static_cast<double>(n);
    };
  };
  total->add_formula("started", sum([](const HtmCounters& k) { return k.started; }), "transactions begun, all cores");
  total->add_formula("committed", sum([](const HtmCounters& k) { return k.committed; }),
                     "transactions committed, all cores");
  total->add_formula("aborted", sum([](const HtmCounters& k) {
                       uint64_t n = 0;
                       for (uint64_t a : k.aborts) n += a;
                       return n;
                     }),
                     "transactions aborted, all cores");
  for (size_t r = 1; r < static_cast<size_t>(TxReason::kCount); ++r)
    total->add_formula(fmt::format("aborts_{}", tx_reason_name(static_cast<TxReason>(r))),
                       sum([r](const HtmCounters& k) { return k.aborts[r]; }),
                       "transactions aborted for this reason, all cores");
  total->add_formula("aborted_cycles", sum([](const HtmCounters& k) { return k.aborted_cycles; }),
                     "wasted cycles in aborted transactions, all cores");
  total->add_formula("commit_bus_transactions", sum([](const HtmCounters& k) { return k.commit_bus_transactions; }),
                     "bus transactions ordered while committing, all cores");
  total->add_formula("fallback_locks", sum([](const HtmCounters& k) { return k.fallback_locks; }),
                     "fallback-lock acquisitions, all cores");
  htm_stats_.push_back(std::move(total));
}

// ---------------------------------------------------------------------------
// Processor side

void Cluster::validate(const Op& op, uint32_t core) const {
  if (core >= params_.cores)
    throw std::invalid_argument(fmt::format("core {} does not exist (the cluster has {})", core, params_.cores));
  const bool word_only = op.kind == OpKind::kAmo || op.kind == OpKind::kLr || op.kind == OpKind::kSc;
  if (op.kind == OpKind::kFence || is_tx_control(op.kind)) return;
  if ((op.size != 1 && op.size != 2 && op.size != 4) || (word_only && op.size != 4))
    throw std::invalid_argument(fmt::format("core {}: access size {} at {:#x} is not {}", core, op.size, op.addr,
                                            word_only ? "4 (AMO/LR/SC are word-sized)" : "1, 2 or 4"));
  if (op.addr % op.size != 0)
    throw std::invalid_argument(fmt::format("core {}: misaligned {}-byte access at {:#x}", core, op.size, op.addr));
  if (!memory_.contains(op.addr, op.size))
    throw std::invalid_argument(fmt::format("core {}: address {:#x} is outside the cluster's memory", core, op.addr));
}

bool Cluster::port_free(uint32_t core, bool fetch) const {
  const Agent& a = *agents_.at(fetch ? l1i_agent(core) : l1d_agent(core));
  return !a.ports[static_cast<size_t>(fetch ? Port::kFetch : Port::kData)].busy;
}

void Cluster::issue(uint32_t core, const Op& op, DoneFn on_done) {
  validate(op, core);
  const bool fetch = op.kind == OpKind::kIfetch;
  Agent& a = *agents_[fetch ? l1i_agent(core) : l1d_agent(core)];
  auto& p = a.port(fetch ? Port::kFetch : Port::kData);
  if (p.busy) throw std::logic_error(fmt::format("core {}: {} port is busy", core, fetch ? "fetch" : "data"));
  // The watchdog measures time without progress while work is outstanding:
  // after an idle stretch (cores asleep during a kernel) it starts now.
  // Transactions that keep aborting are no progress, even with idle moments
  // between their attempts (the watchdog reports the livelock).
  if (idle()) {
    ctx_.last_progress = ctx_.now;
    if (ctx_.aborts_since_useful == 0) ctx_.last_useful = ctx_.now;
  }
  p.busy = true;
  p.performed = false;
  p.op = op;
  // Everything a core issues between its transaction's begin and the end of
  // its rollback belongs to the transaction.
  p.op.tx = !fetch && !is_tx_control(op.kind) && a.tx.phase != TxPhase::kIdle;
  p.done = std::move(on_done);
  ctx_.active = true;
}

void Cluster::run_cores() {
  for (uint32_t c = 0; c < params_.cores; ++c) {
    agents_[l1d_agent(c)]->run_port(Port::kData);
    agents_[l1d_agent(c)]->run_port(Port::kStoreBuffer);
    agents_[l1i_agent(c)]->run_port(Port::kFetch);
    agents_[l1d_agent(c)]->run_port(Port::kTx);
  }
}

// ---------------------------------------------------------------------------
// The cycle

void Cluster::tick() {
  ++ctx_.now;
  ctx_.active = false;
  if (failed()) return;
  // Reuses the buffer's capacity across ticks (a callback may issue, never tick).
  std::vector<std::pair<DoneFn, uint32_t>> callbacks;
  callbacks.swap(callback_buffer_);
  callbacks.clear();
  for (auto it = ctx_.completions.begin(); it != ctx_.completions.end();) {
    if (it->at > ctx_.now) {
      ++it;
      continue;
    }
    auto& p = agents_[it->agent]->port(it->port);
    callbacks.emplace_back(std::move(p.done), it->value);
    p.busy = false;
    p.performed = false;
    ++counters_.ops_completed;
    it = ctx_.completions.erase(it);
    ctx_.active = true;
  }
  deliver_responses();
  start_response();
  resolve_snoops();
  grant_request();
  run_cores();
  if (!failed() && ctx_.aborts_since_useful > 0 && ctx_.now > ctx_.last_useful + deadlock_window_) {
    std::string running;
    for (uint32_t c = 0; c < params_.cores; ++c)
      if (agents_[l1d_agent(c)]->tx.phase != TxPhase::kIdle)
        running += fmt::format(" core{} (begun at cycle {})", c, agents_[l1d_agent(c)]->tx.begin_cycle);
    fail(mem::CoherenceFailure::make(
        mem::CoherenceFailure::Kind::kLivelock, ctx_.now, 0,
        fmt::format("transactions aborted {} times and none committed, and no plain access was performed, in {} "
                    "cycles (htm.policy={} does not guarantee progress{})",
                    ctx_.aborts_since_useful, deadlock_window_, policy_name(params_.htm.policy),
                    params_.htm.policy == Policy::kRequesterWins ? "; older-wins does" : ""),
        running.empty() ? " none" : running));
  }
  // The cheap test first: idle() walks every agent, and runs every tick.
  if (!failed() && ctx_.now > ctx_.last_progress + deadlock_window_ && !idle()) {
    std::string outstanding;
    for (const auto& a : agents_) {
      for (size_t p = 0; p < kPorts; ++p) {
        if (a->ports[p].busy)
          outstanding += fmt::format(" {}:{}@{:#x}", agent_name(a->id),
                                     p == 2   ? "fetch"
                                     : p == 3 ? "tx"
                                              : "data",
                                     a->ports[p].op.addr);
        if (a->misses[p].active())
          outstanding += fmt::format(" {}:{}miss@{:#x} {}{}", agent_name(a->id), p == 3 ? "tx-" : "", a->misses[p].line,
                                     transient_name(a->misses[p].state), a->misses[p].granted() ? "(granted)" : "");
      }
      if (!a->store_buffer.empty())
        outstanding += fmt::format(" {}:{} buffered stores", agent_name(a->id), a->store_buffer.size());
      for (const auto& w : a->wb) outstanding += fmt::format(" {}:wb@{:#x}", agent_name(a->id), w.line);
      if (a->tx.phase != TxPhase::kIdle) {
        static constexpr const char* kPhase[] = {"idle",       "running",      "acquiring",
                                                 "publishing", "rolling back", "aborted"};
        outstanding += fmt::format(" {}:transaction {}", agent_name(a->id), kPhase[static_cast<size_t>(a->tx.phase)]);
        if (!a->tx.ops.empty()) outstanding += fmt::format(" ({} queued)", a->tx.ops.size());
      }
    }
    // The states of every line someone is waiting for.
    std::vector<uint64_t> lines;
    for (const auto& a : agents_)
      for (const auto& m : a->misses)
        if (m.active() && std::find(lines.begin(), lines.end(), m.line) == lines.end()) lines.push_back(m.line);
    for (uint64_t line : lines) outstanding += fmt::format("\n  line {:#x}: {}", line, describe_line(line));
    fail(mem::CoherenceFailure::make(mem::CoherenceFailure::Kind::kDeadlock, ctx_.now, 0,
                                     fmt::format("no access performed for {} cycles", deadlock_window_),
                                     std::move(outstanding)));
  }
  for (auto& [fn, value] : callbacks)
    if (fn) fn(value);
  callbacks.clear();
  callbacks.swap(callback_buffer_);
}

void Cluster::advance_to(uint64_t cycle) {
  while (ctx_.now < cycle && !failed()) {
    if (params_.skip_idle) {
      const uint64_t next = next_event_cycle();
      if (next > cycle) {
        ctx_.now = cycle;
        return;
      }
      ctx_.now = next - 1;
    }
    tick();
  }
}

uint64_t Cluster::next_event_cycle() const {
  if (failed()) return kNever;
  const uint64_t soon = ctx_.now + 1;
  if (ctx_.active) return soon;
  uint64_t t = kNever;
  auto consider = [&t, soon](uint64_t at) { t = std::min(t, std::max(at, soon)); };
  for (const auto& c : ctx_.completions) consider(c.at);
  if (bus_.responding()) {
    consider(bus_.response_free_at());
  } else {
    for (const auto& a : agents_)
      if (!a->responses.empty()) consider(a->responses.front()->ready_at);
    if (bridge_.has_response()) consider(bridge_.next_ready());
  }
  if (bus_.snooping()) consider(bus_.next_snoop());
  // Requests: only those the request bus could take (a busy line or a full
  // table is freed by a response, which is an event above).
  if (!bus_.table_full()) {
    auto line_free = [this](uint64_t line) { return bus_.line_free(line); };
    for (const auto& a : agents_) {
      for (const auto& m : a->misses)
        if (m.active() && !m.granted() && line_free(m.line)) consider(std::max(m.retry_at, bus_.request_free_at()));
      for (const auto& w : a->wb)
        if (!w.granted() && line_free(w.line)) consider(std::max(w.retry_at, bus_.request_free_at()));
    }
  }
  // A transaction port with work of its own (a walk, a commit) runs every cycle.
  for (uint32_t c = 0; c < params_.cores; ++c) {
    const Agent& a = *agents_[l1d_agent(c)];
    if (!a.tx.ops.empty() && !a.misses[static_cast<size_t>(Port::kTx)].active()) consider(soon);
  }
  // The watchdog's deadline counts only if it comes first (idle() is the
  // costly test).
  if (std::max(ctx_.last_progress + deadlock_window_ + 1, soon) < t && !idle())
    consider(ctx_.last_progress + deadlock_window_ + 1);
  if (ctx_.aborts_since_useful > 0) consider(ctx_.last_useful + deadlock_window_ + 1);
  return t;
}

bool Cluster::idle() const {
  if (!ctx_.completions.empty() || bus_.responding() || bridge_.has_response() || bus_.snooping()) return false;
  if (!bus_.table_empty()) return false;
  for (const auto& a : agents_) {
    if (!a->store_buffer.empty() || !a->wb.empty() || !a->responses.empty()) return false;
    if (!a->tx.ops.empty() || a->tx.phase == TxPhase::kAcquiring || a->tx.phase == TxPhase::kPublishing ||
        a->tx.phase == TxPhase::kRollingBack)
      return false;
    for (size_t p = 0; p < kPorts; ++p)
      if (a->ports[p].busy || a->misses[p].active()) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Response bus

void Cluster::deliver_responses() {
  if (!bus_.responding() || bus_.response_free_at() > ctx_.now) return;
  std::unique_ptr<Response> resp = bus_.finish_response();
  Txn& t = bus_.txn(resp->tag);
  Agent& r = *agents_[t.agent];
  ctx_.active = true;
  progress();
  trace(BusEvent::kResponse, t.op, t.agent, resp->tag, t.line, resp->source);
  if (resp->source < 0) bridge_.free_slot();  // a memory read leaves the bridge
  if (resp->to_memory) bridge_.write(t.line, resp->data.data());
  if (t.write_back) {
    bridge_.free_slot();
    const std::string error = r.write_back_sent(t.line);
    if (!error.empty()) return protocol_error(t.line, error);
    free_tag(resp->tag);
    return;
  }
  // A fill: the line takes the state the snoop result chose.
  const Port port = t.port;
  r.fill(port, t.row, resp->data.data());
  free_tag(resp->tag);
  r.run_port(port);
}

void Cluster::start_response() {
  if (bus_.responding() || bus_.response_free_at() > ctx_.now) return;
  std::vector<Candidate> candidates;
  for (const auto& a : agents_)
    if (!a->responses.empty() && a->responses.front()->ready_at <= ctx_.now)
      candidates.push_back({a->id, a->responses.front()->ready_at});
  const auto bridge = static_cast<uint32_t>(agents_.size());
  if (bridge_.has_response() && bridge_.next_ready() <= ctx_.now) candidates.push_back({bridge, bridge_.next_ready()});
  if (candidates.empty()) return;
  const uint32_t winner = bus_.pick_response(candidates);
  if (winner == bridge) {
    bus_.start_response(bridge_.pop_response(), ctx_.now + beats_per_line_);
  } else {
    auto& queue = agents_[winner]->responses;
    bus_.start_response(std::move(queue.front()), ctx_.now + beats_per_line_);
    queue.pop_front();
  }
  counters_.data_beats += beats_per_line_;
  if (bus_.on_bus().source >= 0 && bus_.on_bus().to_requester) ++counters_.cache_to_cache;
  ctx_.active = true;
  if (trace_) {
    const Response& r = bus_.on_bus();
    const Txn& t = bus_.txn(r.tag);
    trace(BusEvent::kData, t.op, t.agent, r.tag, t.line, r.source, bus_.response_free_at());
  }
}

// ---------------------------------------------------------------------------
// Request bus and snooping

void Cluster::grant_request() {
  if (bus_.request_free_at() > ctx_.now) return;
  // Most cycles nobody waits for the bus: skip the arbitration's set-up.
  const bool anyone_waiting = std::any_of(agents_.begin(), agents_.end(), [](const auto& a) {
    for (const auto& m : a->misses)
      if (m.active() && !m.granted()) return true;
    for (const auto& w : a->wb)
      if (!w.granted()) return true;
    return false;
  });
  if (!anyone_waiting) return;
  const int free_tag_index = bus_.free_tag();
  if (free_tag_index < 0) return;  // the request table is full: nobody is granted
  auto line_free = [this](uint64_t line) { return bus_.line_free(line); };
  // Each cache presents one request: its oldest eligible demand miss, else
  // its oldest write-back (reads bypass the write-back buffer, which is why
  // that buffer must be snooped).
  std::vector<Presented>& presented = presented_scratch_;
  presented.assign(agents_.size(), Presented{});
  std::vector<Candidate>& candidates = candidate_scratch_;
  candidates.clear();
  for (const auto& a : agents_) {
    Presented& pr = presented[a->id];
    for (size_t p = 0; p < kPorts; ++p) {
      const auto& m = a->misses[p];
      if (m.active() && !m.granted() && m.retry_at <= ctx_.now && line_free(m.line) &&
          (pr.port < 0 || m.since < pr.since)) {
        pr.port = static_cast<int>(p);
        pr.since = m.since;
      }
    }
    if (pr.port < 0)
      for (size_t w = 0; w < a->wb.size(); ++w) {
        const auto& wb = a->wb[w];
        if (!wb.granted() && wb.retry_at <= ctx_.now && line_free(wb.line) && (pr.wb < 0 || wb.since < pr.since)) {
          pr.wb = static_cast<int>(w);
          pr.since = wb.since;
        }
      }
    if (pr.port >= 0 || pr.wb >= 0) candidates.push_back({a->id, pr.since});
  }
  if (candidates.empty()) return;
  prioritise_transactions(candidates, presented);
  const uint32_t winner = bus_.pick_request(candidates);
  Agent& a = *agents_[winner];
  const Presented& pr = presented[winner];
  const auto tag = static_cast<uint32_t>(free_tag_index);
  Txn& t = bus_.txn(tag);
  t = Txn{};
  ctx_.active = true;
  if (pr.wb >= 0) {
    auto& wb = a.wb[static_cast<size_t>(pr.wb)];
    wb.tag = static_cast<int>(tag);
    t.write_back = true;
    t.op = BusOp::kWriteBack;
    t.line = wb.line;
  } else {
    const Port port = static_cast<Port>(pr.port);
    auto& m = a.miss(port);
    // The transient state already says what to ask for (a snoop that took
    // the copy while the request waited turned SM_A into IM_AD).
    if (a.withdraw_lost_sc(port)) return;
    m.tag = static_cast<int>(tag);
    t.op = m.op;
    t.line = m.line;
    t.port = port;
  }
  t.valid = true;
  t.agent = winner;
  t.resolve_at = ctx_.now + params_.snoop_latency;
  const uint64_t occupancy = t.op == BusOp::kBusUpd ? 2 : 1;  // BusUpd carries its word
  bus_.granted(tag, ctx_.now + occupancy);
  counters_.request_bus_busy += occupancy;
  const uint64_t wait = ctx_.now - pr.since;
  counters_.max_grant_wait = std::max(counters_.max_grant_wait, wait);
  a.counters.grant_wait_max = std::max(a.counters.grant_wait_max, wait);
  trace(BusEvent::kGrant, t.op, winner, tag, t.line, -1, ctx_.now + occupancy);
}

// A commit's acquisitions go first: requests NACKed for the lines a
// committer holds retry all the time and could keep the bus from it for
// ever. A commit is short, so nothing else starves. Among equals the
// arbiter decides.
void Cluster::prioritise_transactions(std::vector<Candidate>& candidates,
                                      const std::vector<Presented>& presented) const {
  auto rank = [&](uint32_t agent) -> uint64_t {  // 0: a commit's request
    const Agent& a = *agents_[agent];
    const int port = presented[agent].port;
    if (port == static_cast<int>(Port::kTx) &&
        (a.tx.phase == TxPhase::kAcquiring || a.tx.phase == TxPhase::kPublishing))
      return 0;
    return ~uint64_t{0};
  };
  uint64_t best = ~uint64_t{0};
  for (const auto& c : candidates) best = std::min(best, rank(c.agent));
  if (best == ~uint64_t{0}) return;
  candidates.erase(
      std::remove_if(candidates.begin(), candidates.end(), [&](const Candidate& c) { return rank(c.agent) != best; }),
      candidates.end());
}

void Cluster::resolve_snoops() {
  while (bus_.snooping() && bus_.next_snoop() <= ctx_.now && !failed()) {
    const uint32_t tag = bus_.pop_snoop();
    resolve(tag);
  }
}

void Cluster::resolve(uint32_t tag) {
  Txn& t = bus_.txn(tag);
  Agent& r = *agents_[t.agent];
  ctx_.active = true;
  auto nack = [&](uint64_t* retry_at) {
    ++counters_.nacks;
    ++r.counters.nacked;
    *retry_at = ctx_.now + params_.nack_backoff;
    trace(BusEvent::kNack, t.op, t.agent, tag, t.line, -1);
    free_tag(tag);
  };

  if (t.write_back) {
    Agent::WriteBack* wb = r.find_wb(t.line);
    if (bridge_.full() || r.responses.size() >= params_.response_queue_entries) {
      wb->tag = -1;
      return nack(&wb->retry_at);
    }
    const std::string error = r.write_back_ordered(t.line, tag);
    if (!error.empty()) return protocol_error(t.line, error);
    bridge_.take_write_back_slot();
    ++counters_.bus_ops[static_cast<size_t>(BusOp::kWriteBack)];
    ++r.counters.bus_transactions;
    if (checker_) checker_->on_ordered(ctx_.now, BusOp::kWriteBack, t.agent, t.line, false);
    trace(BusEvent::kOrdered, t.op, t.agent, tag, t.line, -1);
    return;
  }

  // Transactions the request conflicts with (bus/htm.h): the contention
  // manager may abort them, make the requester wait, or abort the requester.
  TxReason requester_reason = TxReason::kNone;
  switch (contend(t, &requester_reason)) {
    case Contention::kProceed:
      break;
    case Contention::kNack: {
      ++r.tx.counters.conflict_nacks;
      auto& m = r.miss(t.port);
      m.tag = -1;
      return nack(&m.retry_at);
    }
    case Contention::kAbortRequester: {
      r.miss(t.port).tag = -1;
      free_tag(tag);
      r.tx_abort(requester_reason);
      return;
    }
  }

  // Snoop every other cache and write-back buffer: first decide, then apply
  // (a NACK must leave every cache as it was).
  SnoopResult snooped = snoop(agents_, t, table_);
  if (!snooped.error.empty()) return protocol_error(t.line, snooped.error);
  const std::vector<int>& rows = snooped.rows;
  // Sticky sharing: a line in a running transaction's sets whose copy was
  // taken (eager versioning with optimistic detection) is still read by it,
  // so a reader may not get it exclusive and later write it silently.
  bool shared = snooped.shared;
  if (!shared && t.op == BusOp::kBusRd)
    for (uint32_t c = 0; c < params_.cores && !shared; ++c) {
      const Agent& h = *agents_[l1d_agent(c)];
      shared = &h != &r && h.tx.running() && h.tx.find(t.line) != nullptr;
    }
  const int supplier = snooped.supplier, wb_holder = snooped.wb_holder;
  const bool flush = snooped.flush;
  const bool needs_data = t.op == BusOp::kBusRd || t.op == BusOp::kBusRdX;
  auto& miss = r.miss(t.port);
  if (needs_data) {
    const bool refused = wb_holder >= 0  ? agents_[wb_holder]->responses.size() >= params_.response_queue_entries
                         : supplier >= 0 ? agents_[supplier]->responses.size() >= params_.response_queue_entries
                                         : bridge_.full();
    if (refused) {
      miss.tag = -1;
      return nack(&miss.retry_at);
    }
  }

  // The supplier's copy, taken before its row may invalidate it.
  std::vector<uint8_t> supplied;
  if (needs_data && supplier >= 0 && wb_holder < 0) {
    const Agent& s = *agents_[supplier];
    const uint8_t* bytes = s.array.data(s.array.find(t.line));
    supplied.assign(bytes, bytes + line_bytes_);
  }

  // The dirty line (for the trace): a dirty copy or a write-back buffer answers.
  const bool dirty =
      trace_ && (wb_holder >= 0 || (supplier >= 0 && mem::is_dirty(agents_[supplier]->array.state_of(t.line))));

  // Ordered: apply the snoopers' rows.
  std::vector<uint32_t> updated;
  for (auto& a : agents_) {
    const int row = rows[a->id];
    if (row < 0) continue;
    bool update = false;
    const std::string error = a->apply_snoop(t.line, row, t.op, &update);
    if (!error.empty()) return protocol_error(t.line, error);
    if (update) updated.push_back(a->id);
  }
  std::unique_ptr<Response> data;
  if (wb_holder >= 0) {
    // A snooped write-back buffer entry answers like the dirty line it holds
    // and retires: for a read it flushes (requester and memory), an upgrade
    // or update makes the requester the owner of the same data.
    Agent& h = *agents_[wb_holder];
    std::string error;
    data = h.snoop_write_back(t.line, tag, needs_data, &error);
    if (!error.empty()) return protocol_error(t.line, error);
    ++counters_.wb_snoop_hits;
    if (data) h.responses.push_back(std::move(data));
  } else if (needs_data && supplier >= 0) {
    agents_[supplier]->responses.push_back(std::make_unique<Response>(
        Response{tag, supplier, ctx_.now + params_.hit_latency, true, flush, std::move(supplied)}));
  } else if (needs_data) {
    bridge_.read(tag, t.line, ctx_.now);
  }

  // The requester's row, now that the shared line is known.
  int rrow = -1;
  std::string error;
  const TransientRow* ordered = r.ordered(t.port, shared, &rrow, &error);
  if (!ordered) return protocol_error(t.line, error);
  t.row = rrow;
  t.resolved = true;
  ++counters_.bus_ops[static_cast<size_t>(t.op)];
  ++r.counters.bus_transactions;
  if (t.port == Port::kTx && (r.tx.phase == TxPhase::kAcquiring || r.tx.phase == TxPhase::kPublishing))
    ++r.tx.counters.commit_bus_transactions;
  trace(BusEvent::kOrdered, t.op, t.agent, tag, t.line, -1, 0, shared, dirty);
  if (checker_) checker_->on_ordered(ctx_.now, t.op, t.agent, t.line, shared);
  if (ordered->actions & kWaitData) {
    if (checker_) checker_->check_line(ctx_.now, t.line);
    check_failure();
    return;  // the fill completes it
  }
  // Upgrades and updates complete now: no data comes back.
  r.complete_without_data(t.port, rrow);
  const Port port = t.port;
  const uint64_t line = t.line;
  free_tag(tag);
  if (ordered->actions & kPerformWrite) {
    // The write is performed at its place in the bus order; the sharers take
    // the written bytes with it.
    int way = -1;
    const Op performed = r.perform_ordered_write(port, &way);
    for (uint32_t u : updated) {
      Agent& sharer = *agents_[u];
      const int sw = sharer.array.find(line);
      std::memcpy(sharer.array.data(sw) + (performed.addr - line), r.array.data(way) + (performed.addr - line),
                  performed.size);
    }
  } else {
    r.run_port(port);
  }
  if (checker_) checker_->check_line(ctx_.now, line);
  check_failure();
}

Cluster::Contention Cluster::contend(const Txn& t, TxReason* requester_reason) {
  Agent& r = *agents_[t.agent];
  // The requester as the contention manager sees it: a committer, a running
  // transaction's own access, or anything else (plain accesses, instruction
  // fetches, undo-log traffic).
  const bool committing = r.tx.phase == TxPhase::kAcquiring || r.tx.phase == TxPhase::kPublishing;
  const Role role = committing                                                ? Role::kCommitter
                    : r.tx.phase == TxPhase::kActive && t.port == Port::kData ? Role::kActive
                                                                              : Role::kPlain;
  const bool exclusive = t.op != BusOp::kBusRd;
  const uint64_t words = r.request_words(t.port);
  const bool stall_expired = r.tx.stalled && ctx_.now - r.tx.stalled_since >= params_.htm.stall_timeout;
  bool nack = false;
  for (uint32_t c = 0; c < params_.cores; ++c) {
    Agent& h = *agents_[l1d_agent(c)];
    if (&h == &r || h.tx.phase == TxPhase::kIdle || h.tx.phase == TxPhase::kAborted) continue;
    const TxLine* tl = h.tx.find(t.line);
    if (!tl) continue;
    // An invalidating request takes the whole line: were it allowed past the
    // holder's other words, the requester could later write the words the
    // holder read without a bus transaction. A read or an update (Dragon)
    // concerns only its own words.
    const uint64_t reach = t.op == BusOp::kBusRdX || t.op == BusOp::kBusUpgr ? ~uint64_t{0} : words;
    const bool hits_read = (tl->rmask & reach) != 0, hits_write = (tl->wmask & reach) != 0;
    ConflictInput in{};
    in.detection = params_.htm.detection;
    in.policy = params_.htm.policy;
    in.versioning = params_.htm.versioning;
    in.holder = h.tx.phase;
    in.requester = role;
    in.type = conflict_type(exclusive, hits_read, hits_write);
    in.requester_older =
        r.tx.phase != TxPhase::kIdle && std::make_pair(r.tx.timestamp, r.id) < std::make_pair(h.tx.timestamp, h.id);
    in.requester_commits_first = committing && h.tx.phase == TxPhase::kAcquiring &&
                                 std::make_pair(r.tx.commit_started, r.id) < std::make_pair(h.tx.commit_started, h.id);
    in.stall_expired = stall_expired;
    in.hits_write = hits_write;
    switch (decide(in)) {
      case Decision::kNone:
        break;
      case Decision::kAbortHolder:
        h.tx_abort(in.type);
        // An eager writer restores its lines before anyone reads them.
        if (h.tx.phase == TxPhase::kRollingBack && hits_write) nack = true;
        break;
      case Decision::kNackRequester:
        nack = true;
        break;
      case Decision::kAbortRequester:
        *requester_reason = in.type;
        return Contention::kAbortRequester;
      case Decision::kDeferred:
        r.tx.deferred.emplace_back(h.id, h.tx.begin_cycle);
        break;
    }
  }
  if (!nack) return Contention::kProceed;
  if (role == Role::kActive && !r.tx.stalled) {
    r.tx.stalled = true;
    r.tx.stalled_since = ctx_.now;
  }
  return Contention::kNack;
}

void Cluster::free_tag(uint32_t tag) {
  if (timeline_ && timeline_ids_[tag]) {
    timeline_->async_end(timeline_track_, {}, timeline_ids_[tag], ctx_.now * timeline_cycle_ps_);
    timeline_ids_[tag] = 0;
  }
  bus_.free(tag);
}

// ---------------------------------------------------------------------------
// Reports and views

void Cluster::trace(BusEvent::Kind kind, BusOp op, uint32_t agent, uint32_t tag, uint64_t line, int source,
                    uint64_t until, bool shared, bool dirty) {
  if (trace_) trace_(BusEvent{kind, ctx_.now, op, agent, tag, line, source, until, shared, dirty});
  if (timeline_) timeline_event(kind, op, agent, tag, line);
}

void Cluster::set_line_trace(std::function<void(uint32_t, uint64_t, uint8_t)> trace) {
  if (!trace) {
    ctx_.on_line = nullptr;
    return;
  }
  ctx_.on_line = [this, trace = std::move(trace)](uint32_t agent, uint64_t line) {
    trace(agent, line, agents_[agent]->coh_code_of(line));
  };
}

void Cluster::set_timeline(sim::Timeline* t, int track, uint64_t cycle_ps) {
  timeline_ = t;
  timeline_track_ = track;
  timeline_cycle_ps_ = cycle_ps;
  timeline_ids_.assign(bus_.table_size(), 0);
}

void Cluster::timeline_event(BusEvent::Kind kind, BusOp op, uint32_t agent, uint32_t tag, uint64_t line) {
  const uint64_t ps = ctx_.now * timeline_cycle_ps_;
  if (kind == BusEvent::kNack) {
    timeline_->instant(timeline_track_, fmt::format("NACK {} core{}", mem::bus_op_name(op), agent), ps);
  } else if (kind == BusEvent::kGrant) {
    // Bus transactions get ids of their own (bit 62), apart from memory requests'.
    const uint64_t id = (uint64_t{1} << 62) | ++timeline_seq_;
    timeline_->async_begin(timeline_track_, fmt::format("{} core{}", mem::bus_op_name(op), agent), id, ps,
                           fmt::format(R"({{"line":"0x{:08x}","tag":{}}})", line, tag));
    if (timeline_->async_open(id)) timeline_ids_[tag] = id;
  }
}

uint32_t Cluster::agent_count() const { return static_cast<uint32_t>(agents_.size()); }

mem::State Cluster::line_state(uint32_t agent, uint64_t line) const { return agents_[agent]->array.state_of(line); }

const uint8_t* Cluster::line_data(uint32_t agent, uint64_t line) const {
  const Agent& a = *agents_[agent];
  const int way = a.array.find(line);
  if (way < 0 || a.array.line(way).state == State::kI) return nullptr;
  return a.array.data(way);
}

mem::State Cluster::state_of(uint32_t agent, uint64_t addr) const {
  const Agent& a = *agents_.at(agent);
  return a.array.state_of(a.array.line_of(addr));
}

Transient Cluster::transient_of(uint32_t agent, uint64_t addr) const {
  const Agent& a = *agents_.at(agent);
  const uint64_t line = a.array.line_of(addr);
  if (const auto* m = a.miss_for(line)) return m->state;
  const auto* w = a.find_wb(line);
  return w ? w->state : Transient::kNone;
}

bool Cluster::granted(uint32_t agent, uint64_t addr) const {
  const Agent& a = *agents_.at(agent);
  const uint64_t line = a.array.line_of(addr);
  if (const auto* m = a.miss_for(line)) return m->granted();
  const auto* w = a.find_wb(line);
  return w && w->granted();
}

bool Cluster::tx_abort_pending(uint32_t core) const {
  const TxPhase p = agents_.at(l1d_agent(core))->tx.phase;
  return p == TxPhase::kRollingBack || p == TxPhase::kAborted;
}

bool Cluster::tx_running(uint32_t core) const { return agents_.at(l1d_agent(core))->tx.running(); }

uint32_t Cluster::tx_status(uint32_t core) const { return agents_.at(l1d_agent(core))->tx.status; }

const AgentCounters& Cluster::agent_counters(uint32_t agent) const { return agents_.at(agent)->counters; }

uint64_t Cluster::checker_checks() const { return checker_ ? checker_->checks() : 0; }

std::string Cluster::describe_line(uint64_t line) const {
  std::string out;
  for (const auto& a : agents_) {
    const int way = a->array.find(line);
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", agent_name(a->id),
                       way < 0 ? "I" : mem::state_name(a->array.line(way).state));
    if (way >= 0 && a->array.line(way).reserved) out += "(fill pending)";
    for (const auto& w : a->wb)
      if (w.line == line) out += "(+write-back buffer)";
  }
  for (uint32_t t = 0; t < bus_.table_size(); ++t) {
    const Txn& e = bus_.txn(t);
    if (e.valid && e.line == line)
      out += fmt::format("; tag {}: {} by {} {}", t, mem::bus_op_name(e.op), agent_name(e.agent),
                         e.resolved ? "awaiting data" : "snooping");
  }
  return out;
}

std::string Cluster::describe_in_flight() const {
  std::string out;
  for (const auto& a : agents_) out += a->describe_in_flight();
  out += bus_.describe_in_flight(agent_name);
  out += bridge_.describe_in_flight();
  return out;
}

// ---------------------------------------------------------------------------
// Coherence point with the rest of the chip

uint32_t Cluster::write_back_and_invalidate_all() {
  if (!idle()) throw std::logic_error("write_back_and_invalidate_all: the cluster has operations in flight");
  uint32_t written = 0;
  for (auto& a : agents_) written += a->write_back_and_invalidate(bridge_);
  if (checker_) checker_->forget_all();
  if (htm_checker_) htm_checker_->forget_all(ctx_.now);
  return written;
}

// ---------------------------------------------------------------------------
// Functional access

uint32_t Cluster::debug_read(uint64_t addr, uint32_t size) const {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  for (const auto& a : agents_) {
    const int way = a->array.find(line);
    if (way >= 0 && a->array.line(way).state != State::kI) return read_bytes(a->array.data(way) + (addr - line), size);
    for (const auto& w : a->wb)
      if (w.line == line) return read_bytes(w.data.data() + (addr - line), size);
  }
  std::vector<uint8_t> bytes(line_bytes_);
  memory_.read_line(line, bytes.data(), line_bytes_);
  return read_bytes(bytes.data() + (addr - line), size);
}

void Cluster::debug_write(uint64_t addr, uint32_t size, uint32_t value) {
  const uint64_t line = addr & ~static_cast<uint64_t>(line_bytes_ - 1);
  const DebugPiece piece{static_cast<uint32_t>(addr - line), size, value};
  debug_write_line(line, &piece, 1);
}

void Cluster::debug_read_line(uint64_t line, uint8_t* out) const {
  for (const auto& a : agents_) {
    const int way = a->array.find(line);
    if (way >= 0 && a->array.line(way).state != State::kI) {
      std::memcpy(out, a->array.data(way), line_bytes_);
      return;
    }
    for (const auto& w : a->wb)
      if (w.line == line) {
        std::memcpy(out, w.data.data(), line_bytes_);
        return;
      }
  }
  memory_.read_line(line, out, line_bytes_);
}

void Cluster::debug_write_line(uint64_t line, const DebugPiece* pieces, size_t count) {
  // The pieces' hull inside memory puts every piece inside (one check for
  // the line); else the first piece outside is named.
  uint32_t lo = line_bytes_, hi = 0;
  for (size_t i = 0; i < count; ++i) {
    lo = std::min(lo, pieces[i].offset);
    hi = std::max(hi, pieces[i].offset + pieces[i].size);
  }
  if (count && !memory_.contains(line + lo, hi - lo))
    for (size_t i = 0; i < count; ++i)
      if (!memory_.contains(line + pieces[i].offset, pieces[i].size))
        throw std::invalid_argument(
            fmt::format("debug write: address {:#x} is outside the cluster's memory", line + pieces[i].offset));
  if (!bus_.line_free(line))
    throw std::logic_error(fmt::format("debug write to {:#x}: a bus transaction on the line is in flight",
                                       line + (count ? pieces[0].offset : 0)));
  debug_line_.resize(line_bytes_);
  memory_.read_line(line, debug_line_.data(), line_bytes_);
  for (size_t i = 0; i < count; ++i)
    write_bytes(debug_line_.data() + pieces[i].offset, pieces[i].size, pieces[i].value);
  memory_.write_line(line, debug_line_.data(), line_bytes_);
  for (auto& a : agents_) {
    const int way = a->array.find(line);
    if (way >= 0 && a->array.line(way).state != State::kI)
      for (size_t i = 0; i < count; ++i)
        write_bytes(a->array.data(way) + pieces[i].offset, pieces[i].size, pieces[i].value);
    for (auto& w : a->wb)
      if (w.line == line)
        for (size_t i = 0; i < count; ++i)
          write_bytes(w.data.data() + pieces[i].offset, pieces[i].size, pieces[i].value);
  }
  for (size_t i = 0; i < count; ++i) {
    if (checker_) checker_->on_debug_write(line + pieces[i].offset, pieces[i].size, pieces[i].value);
    if (htm_checker_) htm_checker_->debug_write(line + pieces[i].offset, pieces[i].size, pieces[i].value);
  }
}

}  // namespace tessera::bus
