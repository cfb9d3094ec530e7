#include "gpu/l2_system.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpu/crossbar_params.h"
#include "sim/hit_rate.h"
#include "sim/mem_ext.h"

namespace tessera::gpu {

namespace {
constexpr uint64_t kNever = L2Slice::kNever;

}  // namespace

L2System::L2System(const sc_core::sc_module_name& name, sim::Config& cfg, bool network_ports, sim::RunControl& run,
                   sim::StatGroup& stats_parent)
    : sc_module(name),
      sm_port_("slice_socket", *this, &L2System::on_request),
      run_(run),
      clock_("l2", cfg.get_float("clock.l2_mhz", 1000.0, 1.0, 100000.0, "L2 and crossbar clock, MHz")),
      skip_idle_(cfg.get_bool("l2.skip_idle", true,
                              "Sleep through L2 cycles in which nothing is due (false: tick every cycle, to compare)")),
      clocked_(clock_),
      stats_("l2", &stats_parent) {
  const auto n = static_cast<unsigned>(cfg.get_int("l2.slices", 4, 1, 64, "L2 slices (address-interleaved)"));
  const auto size_kb =
      static_cast<uint32_t>(cfg.get_int("l2.size_kb", 2048, 1, 1 << 20, "L2 capacity, KiB (all slices)"));
  const auto ways = static_cast<unsigned>(cfg.get_int("l2.ways", 16, 1, 64, "L2 associativity"));
  L2Params p;
  p.hit_latency = static_cast<unsigned>(cfg.get_int(
      "l2.hit_latency", 123, 1, 10000, "Cycles from a slice's tag lookup to its answer when every sector hits"));
  p.mshrs =
      static_cast<unsigned>(cfg.get_int("l2.mshrs", 64, 1, 4096, "MSHRs per slice (lines with misses in flight)"));
  p.queue_depth = static_cast<unsigned>(
      cfg.get_int("l2.queue_depth", 16, 1, 4096, "Requests a slice's input queue holds (back-pressure beyond)"));
  p.atomic_cycles = static_cast<unsigned>(
      cfg.get_int("l2.atomic_cycles", 2, 1, 1000, "Cycles the slice's atomic unit spends per lane operation"));
  xor_interleave_ =
      cfg.get_enum("l2.interleave", "linear", {"linear", "xor"},
                   "Line-to-slice map: line mod slices, or xor-folded upper line bits (spreads strides)") == "xor";
  if (size_kb % n != 0)
    throw sim::ConfigError(fmt::format("l2.size_kb: {} KiB does not divide into l2.slices={} slices", size_kb, n));
  p.geometry = mem::SectorGeometry{size_kb / n * 1024, ways, mem::kLineBytes, n};
  p.geometry.validate("l2.size_kb", "l2.ways");

  input_.resize(n);
  popped_.assign(n, 0);
  if (!network_ports) sm_port_.accept_at_once(&L2System::take_request);  // the crossbar asked has_room()
  mem_port_ = std::make_unique<MemoryPort>("memory_socket", *this, n, &L2System::on_memory_answer,
                                           &L2System::on_memory_end_req);

  if (network_ports)  // behind the crossbar, it counts these stalls itself (port_stall_cycles)
    stats_.add_counter("slice_full_stall_cycles", &slice_full_stall_cycles_,
                       "Network-port cycles whose head request waited for a full slice input queue");
  capacity_bytes_ = p.geometry.size_bytes * n;
  for (unsigned s = 0; s < n; ++s) {
    slices_.push_back(std::make_unique<L2Slice>(p));

    auto g = std::make_unique<sim::StatGroup>(fmt::format("slice{}", s), &stats_);
    const L2Stats& st = slices_.back()->stats();
    g->add_counter("reads", &st.reads, "Read requests (one per line, any sectors)");
    g->add_counter("writes", &st.writes, "Write requests");
    g->add_counter("atomics", &st.atomics, "Atomic requests");
    g->add_counter("atomic_ops", &st.atomic_ops, "Lane atomic operations executed by the atomic unit");
    g->add_counter("hit_sectors", &st.hit_sectors, "Requested sectors present in the slice");
    g->add_counter("miss_sectors", &st.miss_sectors,
                   "Requested sectors absent from the slice and not yet requested from memory (each is fetched)");
    g->add_counter("mshr_merged_sectors", &st.mshr_merged_sectors,
                   "Requested sectors absent from the slice but already being fetched (merged into the MSHR)");
    g->add_counter("memory_reads", &st.mem_reads, "32-byte sector reads sent to memory");
    g->add_counter("writebacks", &st.writebacks, "Dirty 32-byte sectors written back to memory");
    g->add_counter("mshr_full_cycles", &st.mshr_full_cycles, "Cycles the head request waited for a free MSHR");
    g->add_formula(
        "sector_hit_rate", [&st] { return sim::hit_rate(st.hit_sectors + st.mshr_merged_sectors, st.miss_sectors); },
        "(Hit + merged sectors) / requested sectors (reads and atomics): independent of memory timing");
    slice_stats_.push_back(std::move(g));
  }

  SC_HAS_PROCESS(L2System);
  SC_METHOD(cycle);
  sensitive << clocked_.event();
  dont_initialize();
}

L2System::~L2System() = default;

void L2System::set_waveform(sim::Waveform* wave) {
  if (!wave) return;
  wave_ = wave;
  wave->add_clock(clock_);
  ps_ = sc_core::sc_time(1, sc_core::SC_PS).value();
  wave_slices_.resize(slices_.size());
  for (unsigned s = 0; s < slices_.size(); ++s) {
    const std::string scope = fmt::format("{}.slice{}", sim::wave_scope(name()), s);
    if (!wave->scope_enabled(scope)) continue;
    SliceWave& w = wave_slices_[s];
    w.req = wave->add_signal(scope, "req", 1);
    w.kind = wave->add_signal(scope, "req_kind", 2, &sim::kMemOpWave);
    w.addr = wave->add_signal(scope, "req_addr", 32);
    w.sm = wave->add_signal(scope, "req_sm", 8);
    w.hit = wave->add_signal(scope, "hit", 1);
    w.miss = wave->add_signal(scope, "miss", 1);
    w.mshr = wave->add_signal(scope, "mshr", 8);
    w.atomic_busy = wave->add_signal(scope, "atomic_busy", 1);
    w.mem_outstanding = wave->add_signal(scope, "mem_outstanding", 12);
    slices_[s]->log_atomic_busy(&w.atomic);
  }
}

void L2System::trace_begin(uint64_t now) {
  // Strobes of earlier cycles drop (the method woke in the next cycle).
  const uint64_t t = now_ps();
  for (SliceWave& w : wave_slices_) {
    if (w.strobe_cycle >= now) continue;
    wave_->change(w.req, 0, t);
    wave_->change(w.hit, 0, t);
    wave_->change(w.miss, 0, t);
    w.strobe_cycle = kNever;
  }
}

void L2System::trace_slice(unsigned s, const L2Stats& before, const L2Request* served, uint64_t now) {
  SliceWave& w = wave_slices_[s];
  const L2Slice& slice = *slices_[s];
  const L2Stats& after = slice.stats();
  const uint64_t t = now_ps();
  const bool read = after.reads != before.reads, write = after.writes != before.writes,
             atomic = after.atomics != before.atomics;
  if (read || write || atomic) {
    wave_->change(w.req, 1, t);
    wave_->change(w.kind, read ? 0 : write ? 1 : 2, t);
    if (served) {
      wave_->change(w.addr, served->line, t);
      const auto* gp = reinterpret_cast<const tlm::tlm_generic_payload*>(served->handle);
      if (const auto* ext = gp->get_extension<sim::MemExt>()) wave_->change(w.sm, ext->source, t);
    }
    if (!write) {
      const bool missed =
          after.miss_sectors != before.miss_sectors || after.mshr_merged_sectors != before.mshr_merged_sectors;
      wave_->change(missed ? w.miss : w.hit, 1, t);
    }
    w.strobe_cycle = now;
  }
  wave_->change(w.mshr, slice.mshrs_used(), t);
  while (!w.atomic.empty() && w.atomic.front().second <= now) w.atomic.pop_front();
  wave_->change(w.atomic_busy, !w.atomic.empty() && w.atomic.front().first <= now, t);
}

uint64_t L2System::trace_next(uint64_t now) const {
  uint64_t next = kNever;
  for (const SliceWave& w : wave_slices_) {
    if (w.strobe_cycle != kNever) next = std::min(next, w.strobe_cycle + 1);
    if (w.atomic.empty()) continue;
    const auto& [first, end] = w.atomic.front();
    next = std::min(next, first <= now ? end : first);  // the atomic unit starts or stops
  }
  return next;
}

unsigned L2System::slice_of(uint32_t addr) const {
  return slice_for_line(addr / mem::kLineBytes, static_cast<unsigned>(slices_.size()), xor_interleave_);
}

L2System::SectorTotals L2System::sector_totals() const {
  SectorTotals t;
  for (const auto& s : slices_) {
    t.hits += s->stats().hit_sectors;
    t.merged += s->stats().mshr_merged_sectors;
    t.misses += s->stats().miss_sectors;
  }
  return t;
}

bool L2System::idle() const {
  if (sm_port_.waiting() != 0 || !deliveries_.empty() || !fills_.empty()) return false;
  for (const auto& q : input_)
    if (!q.empty()) return false;
  for (const auto& s : slices_)
    if (!s->idle()) return false;
  return true;
}

bool L2System::has_room(unsigned slice, uint64_t cycle) const {
  size_t queued = slices_[slice]->queued();
  if (clocked_.processed(cycle)) queued += popped_[slice];  // as it was before this cycle's tag lookups
  return queued < slices_[slice]->queue_depth();
}

void L2System::on_request(const TargetPort::Request&) {
  clocked_.wake_next_cycle();  // END_REQ when the SM's crossbar port has room
}

bool L2System::take_request(const TargetPort::Request& r, const sc_core::sc_time& delay) {
  tlm::tlm_generic_payload& gp = *r.gp;
  const auto slice = static_cast<unsigned>(r.socket);
  const uint64_t arrival = clock_.cycle_at(sc_core::sc_time_stamp() + delay);
  const auto* ext = gp.get_extension<sim::MemExt>();
  L2Request q;
  q.handle = reinterpret_cast<uintptr_t>(&gp);
  q.line = static_cast<uint32_t>(gp.get_address()) & ~(mem::kLineBytes - 1);
  q.sectors = ext->sectors ? ext->sectors : static_cast<uint8_t>(0xf);
  q.op = ext->op;
  q.atomic_ops = ext->atomic_ops;
  slices_[slice]->push(q, arrival);
  if (timeline_) timeline_stage(gp, slice, arrival);
  origin_[&gp] = Origin{r.socket, r.arrival};
  clocked_.wake_at(arrival);
  return true;
}

void L2System::on_memory_end_req(unsigned) { clocked_.wake_next_cycle(); }

void L2System::on_memory_answer(unsigned slice, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at) {
  if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
    run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
              fmt::format("{}: memory answered {} for address 0x{:08x}", name(), gp.get_response_string(),
                          static_cast<uint32_t>(gp.get_address())));
  }
  if (timeline_)
    timeline_->async_end(timeline_track_, {}, sim::Timeline::memory_request_id(slice, gp.get_address()),
                         sim::Timeline::now_ps());
  if (gp.is_read()) fills_.push_back(Fill{slice, static_cast<uint32_t>(gp.get_address()), clock_.cycle_at(at)});
  gp.release();
  if (wave_) wave_->change(wave_slices_[slice].mem_outstanding, --wave_slices_[slice].outstanding, now_ps());
  clocked_.wake_next_cycle();
}

void L2System::cycle() {
  if (run_.stopped()) return;
  if (!clocked_.begin_cycle()) return;  // a second wake-up in a cycle already processed
  const uint64_t now = clocked_.cycle();

  // Memory answers of earlier cycles fill the slices.
  size_t kept = 0;
  for (const Fill& f : fills_) {
    if (f.cycle < now) {
      slices_[f.slice]->fill(f.addr, now);
    } else {
      fills_[kept++] = f;
    }
  }
  fills_.resize(kept);

  if (wave_) trace_begin(now);
  admit(sc_core::sc_time_stamp());
  forward_requests(now);
  for (unsigned s = 0; s < slices_.size(); ++s) {
    const size_t before = slices_[s]->queued();
    if (wave_) {
      const L2Stats stats_before = slices_[s]->stats();
      const L2Request* next = slices_[s]->next_request(now);
      const std::optional<L2Request> served = next ? std::optional<L2Request>(*next) : std::nullopt;
      slices_[s]->cycle(now);
      trace_slice(s, stats_before, served ? &*served : nullptr, now);
    } else {
      slices_[s]->cycle(now);
    }
    popped_[s] = before - slices_[s]->queued();
  }
  collect_answers(now);
  deliver(now);
  send_to_memory(now);

  uint64_t next = next_cycle(now);  // kNever: sleep until a request or answer arrives
  if (wave_) next = std::min(next, trace_next(now));
  clocked_.wake_at(next);
}

void L2System::admit(const sc_core::sc_time& now_time) {
  // Requests of earlier instants, in the port's order (oldest first, then by
  // SM port); an SM port whose input queue is full keeps its request waiting.
  sm_port_.admit(
      [this](const TargetPort::Request& r) {
        auto& q = input_[static_cast<unsigned>(r.socket)];
        if (!q.empty()) return TargetPort::Admit::kWait;  // one request per binding; the network queues
        q.push_back(r.gp);
        origin_[r.gp] = Origin{r.socket, r.arrival};
        return TargetPort::Admit::kAccept;
      },
      now_time);
}

void L2System::forward_requests(uint64_t now) {
  // Behind the network: round-robin over the bindings by cycle number (not by
  // activation, so sleeping through idle cycles changes nothing).
  const auto n = static_cast<unsigned>(input_.size());
  const auto first = static_cast<unsigned>(now % n);
  for (unsigned k = 0; k < n; ++k) {
    const unsigned i = (first + k) % n;
    if (input_[i].empty()) continue;
    tlm::tlm_generic_payload* gp = input_[i].front();
    const auto addr = static_cast<uint32_t>(gp->get_address());
    const unsigned o = slice_of(addr);
    L2Slice& slice = *slices_[o];
    if (!slice.can_accept()) {
      ++slice_full_stall_cycles_;
      continue;
    }
    const auto* ext = gp->get_extension<sim::MemExt>();
    const uint64_t arrival = now;  // delivered at the slice's node
    L2Request r;
    r.handle = reinterpret_cast<uintptr_t>(gp);
    r.line = addr & ~(mem::kLineBytes - 1);
    r.sectors = ext->sectors ? ext->sectors : static_cast<uint8_t>(0xf);
    r.op = ext->op;
    r.atomic_ops = ext->atomic_ops;
    slice.push(r, arrival);
    if (timeline_) timeline_stage(*gp, o, arrival);
    input_[i].pop_front();
  }
}

void L2System::collect_answers(uint64_t now) {
  for (unsigned s = 0; s < slices_.size(); ++s) {
    auto& answers = slices_[s]->answers();
    while (!answers.empty() && answers.front().cycle <= now) {
      auto* gp = reinterpret_cast<tlm::tlm_generic_payload*>(answers.front().handle);
      answers.pop_front();
      deliveries_.push(Delivery{now, seq_++, gp});  // BEGIN_RESP this cycle, in slice order
    }
  }
}

void L2System::deliver(uint64_t now) {
  while (!deliveries_.empty() && deliveries_.top().cycle <= now) {
    tlm::tlm_generic_payload* gp = deliveries_.top().gp;
    deliveries_.pop();
    const int sm = origin_.at(gp).sm;
    origin_.erase(gp);
    gp->set_response_status(tlm::TLM_OK_RESPONSE);
    if (timeline_) {
      const auto* ext = gp->get_extension<sim::MemExt>();
      timeline_->async_end(timeline_track_, {}, sim::Timeline::sm_request_id(ext->source, ext->tag, gp->get_address()),
                           sim::Timeline::cycle_ps(clock_, now));
    }
    sm_port_.respond(sm, *gp);  // the port ends the response (END_RESP or TLM_COMPLETED)
  }
}

void L2System::send_to_memory(uint64_t now) {
  // One BEGIN_REQ per slice at a time; the next goes out the cycle after its
  // END_REQ (the port's rule, given the start of this cycle).
  const sc_core::sc_time cycle_start = clock_.time_of(now);
  for (unsigned s = 0; s < slices_.size(); ++s) {
    std::deque<MemoryRequest>& queue = slices_[s]->to_memory();
    if (queue.empty() || !mem_port_->can_send(s, cycle_start)) continue;
    const MemoryRequest m = queue.front();
    queue.pop_front();
    // Timing only: the SMs executed the accesses at issue.
    tlm::tlm_generic_payload* gp = nullptr;
    pool_.request(gp, m.addr, mem::kSectorBytes, m.write ? sim::MemOp::kWrite : sim::MemOp::kRead).source =
        static_cast<uint16_t>(s);
    if (wave_) wave_->change(wave_slices_[s].mem_outstanding, ++wave_slices_[s].outstanding, now_ps());
    if (timeline_) timeline_memory_request(m, s, now);
    mem_port_->send(s, *gp);  // an answer on the return path comes through on_memory_answer
  }
}

uint64_t L2System::next_cycle(uint64_t now) const {
  uint64_t next = kNever;
  const uint64_t soon = now + 1;
  if (sm_port_.waiting() != 0 || !fills_.empty()) next = soon;
  for (const auto& q : input_)
    if (!q.empty()) next = soon;
  for (const auto& s : slices_) next = std::min(next, s->next_work(now));
  if (!deliveries_.empty()) next = std::min(next, std::max(soon, deliveries_.top().cycle));
  for (unsigned s = 0; s < slices_.size(); ++s)
    if (!slices_[s]->to_memory().empty() && !mem_port_->awaiting_end_req(s)) next = soon;
  if (!skip_idle_ && !idle()) next = soon;
  return next;
}

std::string L2System::describe_in_flight() const {
  // SM requests, oldest first, then each slice's memory request still
  // waiting for END_REQ.
  sim::InFlightLines lines;
  for (const auto& [gp, o] : origin_) {
    const auto addr = static_cast<uint32_t>(gp->get_address());
    const uint64_t cycle = clock_.cycle_at(o.since);
    lines.add(cycle, fmt::format("{}.slice{}: {} 0x{:08x} from SM port {} since cycle {}\n", name(), slice_of(addr),
                                 sim::op_name(*gp), addr, o.sm, cycle));
  }
  sm_port_.describe_waiting(lines, name(), clock_, "SM port");
  std::string out = lines.str();
  for (unsigned s = 0; s < slices_.size(); ++s) {
    if (const tlm::tlm_generic_payload* gp = mem_port_->awaiting(s))
      out += fmt::format("{}.slice{}: memory {} 0x{:08x} waiting for END_REQ since cycle {}\n", name(), s,
                         gp->is_read() ? "read" : "write", static_cast<uint32_t>(gp->get_address()),
                         clock_.cycle_at(mem_port_->end_req_time(s)));
    if (!slices_[s]->to_memory().empty())
      out += fmt::format("{}.slice{}: {} sector request(s) queued for memory\n", name(), s,
                         slices_[s]->to_memory().size());
  }
  return out;
}

// ---------------------------------------------------------------- timeline

void L2System::set_timeline(sim::Timeline* t) {
  timeline_ = t;
  if (t) timeline_track_ = t->track("memory", name());
}

// Every Nth memory request, and every fill a recorded SM request's miss
// asks for, linked to it: the chain SM -> L2 -> memory (-> DRAM) is whole.
void L2System::timeline_memory_request(const MemoryRequest& m, unsigned slice, uint64_t now) {
  const bool sampled = timeline_->sample(1);
  uint64_t cause = 0;
  if (m.cause) {
    const auto& gp = *reinterpret_cast<const tlm::tlm_generic_payload*>(m.cause);
    const auto* ext = gp.get_extension<sim::MemExt>();
    cause = sim::Timeline::sm_request_id(ext->source, ext->tag, gp.get_address());
  }
  if (!sampled && !(m.cause && timeline_->async_open(cause))) return;
  const uint64_t id = sim::Timeline::memory_request_id(slice, m.addr);
  const uint64_t ps = sim::Timeline::cycle_ps(clock_, now);
  const std::string args = fmt::format(R"({{"slice":{},"addr":"0x{:08x}"}})", slice, m.addr);
  if (m.cause) {
    timeline_->async_begin_caused(cause, "l2 miss", timeline_track_, "l2 fill", id, ps, args);
  } else {
    timeline_->async_begin(timeline_track_, m.write ? "l2 write-back" : "l2 fill", id, ps, args);
  }
}

void L2System::timeline_stage(const tlm::tlm_generic_payload& gp, unsigned slice, uint64_t cycle) {
  const auto* ext = gp.get_extension<sim::MemExt>();
  const uint64_t id = sim::Timeline::sm_request_id(ext->source, ext->tag, gp.get_address());
  if (!timeline_->async_open(id)) return;
  timeline_->async_stage_begin(timeline_track_, fmt::format("l2 slice{}", slice), id,
                               sim::Timeline::cycle_ps(clock_, cycle));
}

}  // namespace tessera::gpu
