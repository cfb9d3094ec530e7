#include "bus/random_tester.h"

#include <algorithm>
#include <chrono>

#include "sim/config.h"

namespace tessera::bus {

struct RandomTester::CoreState {
  uint64_t next_data = 0;  // cycle at which the data port may issue again
  uint64_t next_fetch = 0;
  bool sc_pending = false;  // the last data op was an LR: an SC follows
  uint64_t lr_addr = 0;
  // A transaction: accesses left before its commit; a rollback is due.
  bool in_tx = false;
  uint32_t tx_left = 0;
  uint32_t tx_size = 0;
  uint32_t attempts = 0;
  bool rollback = false;
  bool retry = false;  // the next data op begins the transaction again
};

TesterParams TesterParams::from_config(sim::Config& cfg) {
  TesterParams p;
  p.lines = static_cast<uint32_t>(
      cfg.get_int("coherence_test.lines", 8, 1, 64, "distinct lines the random tester touches (all in one set)"));
  p.think_cycles = static_cast<uint32_t>(
      cfg.get_int("coherence_test.think_cycles", 4, 0, 1000, "random 0..N cycles between a core's operations"));
  p.memory_latency = static_cast<uint32_t>(
      cfg.get_int("coherence_test.memory_latency", 20, 1, 10000, "bridge-to-memory read latency in bus cycles"));
  p.load_pct = static_cast<uint32_t>(cfg.get_int("coherence_test.load_pct", 40, 0, 100, "loads, percent of data ops"));
  p.store_pct =
      static_cast<uint32_t>(cfg.get_int("coherence_test.store_pct", 30, 0, 100, "stores, percent of data ops"));
  p.amo_pct = static_cast<uint32_t>(cfg.get_int("coherence_test.amo_pct", 10, 0, 100, "AMOs, percent of data ops"));
  p.lrsc_pct =
      static_cast<uint32_t>(cfg.get_int("coherence_test.lrsc_pct", 10, 0, 100, "LR/SC pairs, percent of data ops"));
  p.fetch_pct = static_cast<uint32_t>(
      cfg.get_int("coherence_test.fetch_pct", 10, 0, 100, "chance in percent that a free fetch port fetches"));
  p.tx_pct = static_cast<uint32_t>(cfg.get_int("coherence_test.tx_pct", 0, 0, 100,
                                               "with --htm: chance in percent that a data op begins a transaction"));
  p.tx_max_ops = static_cast<uint32_t>(
      cfg.get_int("coherence_test.tx_max_ops", 4, 1, 64, "with --htm: most accesses in one transaction"));
  p.tx_backoff = static_cast<uint32_t>(
      cfg.get_int("coherence_test.tx_backoff", 4, 0, 1000,
                  "with --htm: base of the random back-off before an aborted transaction runs again (0: at once)"));
  if (p.load_pct + p.store_pct + p.amo_pct + p.lrsc_pct > 100)
    throw sim::ConfigError("coherence_test.load_pct: load + store + amo + lrsc percentages exceed 100");
  return p;
}

RandomTester::RandomTester(const ClusterParams& cluster, const TesterParams& tester,
                           std::optional<mem::ProtocolTable> table, sim::StatGroup* stats_parent)
    : cluster_params_(cluster), params_(tester), rng_state_(tester.seed * 0x9E3779B97F4A7C15ull + 1) {
  // Lines one L1D set apart all fall in set 0.
  stride_ = static_cast<uint64_t>(cluster.l1d.sets) * cluster.l1d.line_bytes;
  // Undo logs (--htm) start a line past the lines under test, so they do
  // not fall in the set those lines share.
  log_base_ = stride_ * tester.lines + cluster.l1d.line_bytes;
  memory_bytes_ = stride_ * tester.lines + (tester.tx_pct > 0 ? cluster.l1d.line_bytes + kLogBytes * cluster.cores : 0);
  memory_ = std::make_unique<mem::SimpleMemory>(0, memory_bytes_, tester.memory_latency);
  cluster_ = std::make_unique<Cluster>(cluster, *memory_, stats_parent, std::move(table));
  cores_.resize(cluster.cores);
}

RandomTester::~RandomTester() = default;

uint64_t RandomTester::random(uint64_t n) {
  // splitmix64: small, fast and the same on every host.
  uint64_t z = (rng_state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) % n;
}

uint64_t RandomTester::pick_addr(uint32_t size) {
  // Offsets are drawn from the first 16 bytes of the line so cores collide
  // on words and on neighbouring bytes of one word.
  const uint64_t line = random(params_.lines) * stride_;
  const uint64_t span = std::min<uint64_t>(16, cluster_params_.l1d.line_bytes);
  return line + random(span / size) * size;
}

void RandomTester::issue_tx(uint32_t core) {
  CoreState& cs = cores_[core];
  Cluster& c = *cluster_;
  Op op;
  const uint32_t sizes[] = {1, 2, 4};
  if (cs.rollback) {
    op = Op{OpKind::kTxRollback, 0, 4, 0, AmoKind::kAdd};
  } else if (!cs.in_tx) {
    // The undo log lies past the lines under test, a region per core.
    op = Op{OpKind::kTxBegin, log_base_ + kLogBytes * core, 4, kLogBytes, AmoKind::kAdd};
  } else if (cs.tx_left == 0 || c.tx_abort_pending(core)) {
    op = Op{OpKind::kTxCommit, 0, 4, 0, AmoKind::kAdd};
  } else {
    const uint64_t r = random(100);
    const uint32_t size = sizes[random(3)];
    if (r < 45)
      op = Op{OpKind::kLoad, pick_addr(size), size, 0, AmoKind::kAdd};
    else if (r < 85)
      op = Op{OpKind::kStore, pick_addr(size), size, static_cast<uint32_t>(random(1ull << 32)), AmoKind::kAdd};
    else
      op =
          Op{OpKind::kAmo, pick_addr(4), 4, static_cast<uint32_t>(random(1ull << 32)), static_cast<AmoKind>(random(9))};
    --cs.tx_left;
  }
  ++issued_;
  const OpKind kind = op.kind;
  cluster_->issue(core, op, [this, core, kind](uint32_t value) {
    CoreState& s = cores_[core];
    ++completed_;
    uint64_t wait = random(params_.think_cycles + 1);
    switch (kind) {
      case OpKind::kTxBegin:
        s.in_tx = true;
        s.tx_left = s.tx_size;
        wait = 0;
        break;
      case OpKind::kTxCommit:
        if (value == 0) {
          ++tx_committed_;
          s.in_tx = false;
          s.attempts = 0;
        } else {
          s.rollback = true;
          wait = 0;
        }
        break;
      case OpKind::kTxRollback:
        // Run the transaction again after a back-off growing with the attempts.
        ++tx_aborted_;
        s.rollback = false;
        s.in_tx = false;
        s.retry = true;
        ++s.attempts;
        wait = params_.tx_backoff
                   ? random((params_.think_cycles + params_.tx_backoff) << std::min<uint32_t>(s.attempts, 6))
                   : 0;
        break;
      default:
        wait = 0;
        break;
    }
    s.next_data = cluster_->now() + wait;
  });
}

void RandomTester::issue_data(uint32_t core) {
  CoreState& cs = cores_[core];
  if (cs.in_tx || cs.rollback || cs.retry) {
    if (cs.retry) cs.retry = false;
    return issue_tx(core);
  }
  if (params_.tx_pct > 0 && !cs.sc_pending && random(100) < params_.tx_pct) {
    cs.tx_size = 1 + static_cast<uint32_t>(random(params_.tx_max_ops));
    return issue_tx(core);
  }
  Op op;
  const uint32_t sizes[] = {1, 2, 4};
  if (cs.sc_pending) {
    op = Op{OpKind::kSc, cs.lr_addr, 4, static_cast<uint32_t>(random(1u << 31)), AmoKind::kAdd};
    cs.sc_pending = false;
  } else {
    const uint64_t r = random(100);
    const uint32_t size = sizes[random(3)];
    if (r < params_.load_pct) {
      op = Op{OpKind::kLoad, pick_addr(size), size, 0, AmoKind::kAdd};
    } else if (r < params_.load_pct + params_.store_pct) {
      op = Op{OpKind::kStore, pick_addr(size), size, static_cast<uint32_t>(random(1ull << 32)), AmoKind::kAdd};
    } else if (r < params_.load_pct + params_.store_pct + params_.amo_pct) {
      op =
          Op{OpKind::kAmo, pick_addr(4), 4, static_cast<uint32_t>(random(1ull << 32)), static_cast<AmoKind>(random(9))};
    } else if (r < params_.load_pct + params_.store_pct + params_.amo_pct + params_.lrsc_pct) {
      op = Op{OpKind::kLr, pick_addr(4), 4, 0, AmoKind::kAdd};
      cs.sc_pending = true;
      cs.lr_addr = op.addr;
    } else {
      op = Op{OpKind::kFence, 0, 4, 0, AmoKind::kAdd};
    }
  }
  ++issued_;
  cluster_->issue(core, op, [this, core](uint32_t) {
    ++completed_;
    cores_[core].next_data = cluster_->now() + random(params_.think_cycles + 1);
  });
}

void RandomTester::issue_fetch(uint32_t core) {
  ++issued_;
  cluster_->issue(core, Op{OpKind::kIfetch, pick_addr(4), 4, 0, AmoKind::kAdd}, [this, core](uint32_t) {
    ++completed_;
    cores_[core].next_fetch = cluster_->now() + 1 + random(params_.think_cycles + 1);
  });
}

TesterResult RandomTester::run(const std::function<void(uint64_t, uint64_t)>& progress, uint64_t progress_every) {
  const auto start = std::chrono::steady_clock::now();
  uint64_t next_report = progress_every;
  Cluster& c = *cluster_;
  while (!c.failed()) {
    const uint64_t now = c.now();
    // Issue at this cycle, cores in order; the operations start next cycle.
    for (uint32_t core = 0; core < cores_.size(); ++core) {
      // A transaction begun finishes (commits, or rolls back) past the count.
      const bool open_tx = cores_[core].in_tx || cores_[core].rollback;
      if (issued_ >= params_.ops && !open_tx) continue;
      if (c.port_free(core, false) && cores_[core].next_data <= now) issue_data(core);
      if (issued_ < params_.ops && c.port_free(core, true) && cores_[core].next_fetch <= now) {
        if (random(100) < params_.fetch_pct)
          issue_fetch(core);
        else
          cores_[core].next_fetch = now + 1 + random(params_.think_cycles + 1);
      }
    }
    const bool open_tx =
        std::any_of(cores_.begin(), cores_.end(), [](const CoreState& s) { return s.in_tx || s.rollback; });
    if (completed_ >= params_.ops && c.idle() && !open_tx) break;
    uint64_t next = c.next_event_cycle();
    if (issued_ < params_.ops || open_tx)
      for (uint32_t core = 0; core < cores_.size(); ++core) {
        if (c.port_free(core, false)) next = std::min(next, std::max(cores_[core].next_data, now + 1));
        if (c.port_free(core, true)) next = std::min(next, std::max(cores_[core].next_fetch, now + 1));
      }
    if (next == Cluster::kNever) break;  // cannot happen while work is pending: the watchdog is an event
    c.advance_to(next);
    if (progress && progress_every && completed_ >= next_report) {
      progress(completed_, c.now());
      next_report += progress_every;
    }
  }
  TesterResult r;
  r.passed = !c.failed() && completed_ >= params_.ops;
  r.failure = c.failed() ? c.failure() : (r.passed ? "" : "the tester stopped before every operation completed");
  r.failure_kind = c.failed() ? c.failure_info().kind
                   : r.passed ? mem::CoherenceFailure::Kind::kNone
                              : mem::CoherenceFailure::Kind::kStalled;
  r.ops = completed_;
  r.cycles = c.now();
  r.tx_committed = tx_committed_;
  r.tx_aborted = tx_aborted_;
  r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace tessera::bus
