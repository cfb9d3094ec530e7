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
      row_hits_(table_.rows().size(), 0),
      contention_(make_contention_manager(params.htm.policy)) {
  if (params.l1i.line_bytes != line_bytes_) throw std::invalid_argument("L1I and L1D line sizes differ");
  if (contention_->detection() != params.htm.detection)
    throw std::invalid_argument(fmt::format("htm.policy {} does not apply to {} detection", params.htm.policy,
                                            detection_name(params.htm.detection)));
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
                    ctx_.aborts_since_useful, deadlock_window_, params_.htm.policy, contention_->livelock_hint()),
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
  if (t.port == Port::kTx && r.tx.committing()) ++r.tx.counters.commit_bus_transactions;
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

void Cluster::free_tag(uint32_t tag) {
  if (timeline_ && timeline_ids_[tag]) {
    timeline_->async_end(timeline_track_, {}, timeline_ids_[tag], ctx_.now * timeline_cycle_ps_);
    timeline_ids_[tag] = 0;
  }
  bus_.free(tag);
}

}  // namespace tessera::bus
