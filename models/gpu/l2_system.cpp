#include "gpu/l2_system.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/mem_ext.h"

namespace tessera::gpu {

namespace {
constexpr unsigned kHeaderBytes = 8;  // command, address, sector mask, ids
constexpr uint64_t kNever = L2Slice::kNever;

}  // namespace

L2System::L2System(const sc_core::sc_module_name& name, sim::Config& cfg, unsigned num_sms, bool network_ports,
                   sim::RunControl& run, sim::StatGroup& stats_parent)
    : sc_module(name),
      sm_socket("sm_socket"),
      run_(run),
      clock_("l2", cfg.get_float("clock.l2_mhz", 1000.0, 1.0, 100000.0, "L2 and crossbar clock, MHz")),
      skip_idle_(cfg.get_bool("l2.skip_idle", true,
                              "Sleep through L2 cycles in which nothing is due (false: tick every cycle, to compare)")),
      network_ports_(network_ports),
      requests_(num_sms, 1, 1, 0),
      answers_(1, num_sms, 1, 0),
      stats_("l2", &stats_parent) {
  const auto n = static_cast<unsigned>(cfg.get_int("l2.slices", 4, 1, 64, "L2 slices (address-interleaved)"));
  const auto size_kb = static_cast<uint32_t>(cfg.get_int("l2.size_kb", 2048, 1, 1 << 20, "L2 capacity, KiB (all slices)"));
  const auto ways = static_cast<unsigned>(cfg.get_int("l2.ways", 16, 1, 64, "L2 associativity"));
  L2Params p;
  p.hit_latency = static_cast<unsigned>(cfg.get_int(
      "l2.hit_latency", 123, 1, 10000, "Cycles from a slice's tag lookup to its answer when every sector hits"));
  p.mshrs = static_cast<unsigned>(cfg.get_int("l2.mshrs", 64, 1, 4096, "MSHRs per slice (lines with misses in flight)"));
  p.queue_depth = static_cast<unsigned>(
      cfg.get_int("l2.queue_depth", 16, 1, 4096, "Requests a slice's input queue holds (back-pressure beyond)"));
  p.atomic_cycles = static_cast<unsigned>(
      cfg.get_int("l2.atomic_cycles", 2, 1, 1000, "Cycles the slice's atomic unit spends per lane operation"));
  xor_interleave_ = cfg.get_enum("l2.interleave", "linear", {"linear", "xor"},
                                 "Line-to-slice map: line mod slices, or xor-folded upper line bits (spreads strides)") ==
                    "xor";
  const unsigned ports = network_ports ? n : num_sms;
  double bpc = 1.0;
  unsigned xlat = 0;
  input_queue_ = 1;  // behind a network: the network interface queues
  if (!network_ports) {
    input_queue_ = static_cast<unsigned>(cfg.get_int(
        "xbar.input_queue", 4, 1, 1024, "Requests an SM port of the crossbar holds before END_REQ is withheld"));
    bpc = cfg.get_float("xbar.bytes_per_cycle", 32.0, 1.0, 4096.0, "Crossbar bandwidth per port, bytes/cycle");
    xlat = static_cast<unsigned>(
        cfg.get_int("xbar.latency", 48, 0, 10000, "Crossbar traversal latency per direction, cycles"));
  }
  if (size_kb % n != 0)
    throw sim::ConfigError(fmt::format("l2.size_kb: {} KiB does not divide into l2.slices={} slices", size_kb, n));
  p.geometry = sm::CacheGeometry{size_kb / n * 1024, ways, sm::kLineBytes, n};
  p.geometry.validate("l2.size_kb", "l2.ways");

  requests_ = Crossbar(ports, n, bpc, xlat);
  answers_ = Crossbar(n, ports, bpc, xlat);
  input_.resize(ports);
  sm_socket.register_nb_transport_fw(this, &L2System::nb_transport_fw);

  stats_.add_counter("xbar_request_bytes", &request_bytes_, "Bytes the crossbar carried towards the slices");
  stats_.add_counter("xbar_answer_bytes", &answer_bytes_, "Bytes the crossbar carried back to the SMs");
  stats_.add_counter("xbar_port_stall_cycles", &port_stall_cycles_,
                     "SM-port cycles whose head request waited for a busy port or a full slice");
  for (unsigned s = 0; s < n; ++s) {
    slices_.push_back(std::make_unique<L2Slice>(p));
    auto sock = std::make_unique<tlm_utils::simple_initiator_socket_tagged<L2System>>(
        fmt::format("memory_socket{}", s).c_str());
    sock->register_nb_transport_bw(this, &L2System::memory_bw, static_cast<int>(s));
    mem_sockets_.push_back(std::move(sock));
    MemoryPort port;
    port.queue = &slices_.back()->to_memory();
    mem_ports_.push_back(port);

    auto g = std::make_unique<sim::StatGroup>(fmt::format("slice{}", s), &stats_);
    const L2Stats& st = slices_.back()->stats();
    g->add_counter("reads", &st.reads, "Read requests (one per line, any sectors)");
    g->add_counter("writes", &st.writes, "Write requests");
    g->add_counter("atomics", &st.atomics, "Atomic requests");
    g->add_counter("atomic_ops", &st.atomic_ops, "Lane atomic operations executed by the atomic unit");
    g->add_counter("hit_sectors", &st.hit_sectors, "Requested sectors present in the slice");
    g->add_counter("miss_sectors", &st.miss_sectors, "Requested sectors absent from the slice");
    g->add_counter("mshr_merged_sectors", &st.mshr_merged_sectors, "Missing sectors already being fetched");
    g->add_counter("memory_reads", &st.mem_reads, "32-byte sector reads sent to memory");
    g->add_counter("writebacks", &st.writebacks, "Dirty 32-byte sectors written back to memory");
    g->add_counter("mshr_full_cycles", &st.mshr_full_cycles, "Cycles the head request waited for a free MSHR");
    g->add_formula("sector_hit_rate", [&st] {
      const uint64_t all = st.hit_sectors + st.miss_sectors;
      return all ? static_cast<double>(st.hit_sectors) / static_cast<double>(all) : 0.0;
    }, "Hit sectors / requested sectors (reads and atomics)");
    slice_stats_.push_back(std::move(g));
  }

  SC_HAS_PROCESS(L2System);
  SC_METHOD(cycle);
  sensitive << wake_;
  dont_initialize();
}

L2System::~L2System() = default;

unsigned L2System::slice_of(uint32_t addr) const {
  return slice_for_line(addr / sm::kLineBytes, static_cast<unsigned>(slices_.size()), xor_interleave_);
}

std::pair<uint64_t, uint64_t> L2System::sector_totals() const {
  std::pair<uint64_t, uint64_t> t{0, 0};
  for (const auto& s : slices_) {
    t.first += s->stats().hit_sectors;
    t.second += s->stats().miss_sectors;
  }
  return t;
}

bool L2System::idle() const {
  if (!inbox_.empty() || !deliveries_.empty() || !fills_.empty()) return false;
  for (const auto& q : input_)
    if (!q.empty()) return false;
  for (const auto& s : slices_)
    if (!s->idle()) return false;
  return true;
}

unsigned L2System::request_bytes(const tlm::tlm_generic_payload& gp) {
  return gp.is_write() ? kHeaderBytes + gp.get_data_length() : kHeaderBytes;
}

unsigned L2System::answer_bytes(const tlm::tlm_generic_payload& gp) {
  return gp.is_write() && gp.get_extension<sim::MemExt>()->op == sim::MemOp::kWrite ? kHeaderBytes
                                                                                      : kHeaderBytes + gp.get_data_length();
}

void L2System::wake_next_cycle() { wake_.notify(clock_.delay_until(clock_.now_cycle() + 1)); }

tlm::tlm_sync_enum L2System::nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                             sc_core::sc_time&) {
  if (phase == tlm::BEGIN_REQ) {
    gp.acquire();
    inbox_.push_back(Incoming{id, &gp, sc_core::sc_time_stamp()});
    wake_next_cycle();
    return tlm::TLM_ACCEPTED;  // END_REQ when the SM's crossbar port has room
  }
  if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
  return tlm::TLM_ACCEPTED;
}

tlm::tlm_sync_enum L2System::memory_bw(int slice, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                       sc_core::sc_time&) {
  MemoryPort& port = mem_ports_[static_cast<unsigned>(slice)];
  const uint64_t now = clock_.now_cycle();
  if (phase == tlm::END_REQ) {
    port.awaiting_end_req = false;
    port.end_req_cycle = now;
    wake_next_cycle();
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::BEGIN_RESP) {
    if (port.awaiting_end_req && port.awaiting == &gp) {  // its BEGIN_RESP implies its END_REQ
      port.awaiting_end_req = false;
      port.end_req_cycle = now;
    }
    if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
      run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
                fmt::format("{}: memory answered {} for address 0x{:08x}", name(), gp.get_response_string(),
                            static_cast<uint32_t>(gp.get_address())));
    }
    if (gp.is_read()) fills_.push_back(Fill{static_cast<unsigned>(slice), static_cast<uint32_t>(gp.get_address()), now});
    gp.release();
    wake_next_cycle();
    phase = tlm::END_RESP;
    return tlm::TLM_COMPLETED;
  }
  return tlm::TLM_ACCEPTED;
}

void L2System::cycle() {
  if (run_.stopped()) return;
  const uint64_t now = clock_.now_cycle();
  if (now == last_cycle_) {  // a second wake-up in a cycle already processed
    next_trigger(wake_);
    return;
  }
  last_cycle_ = now;

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

  admit(sc_core::sc_time_stamp());
  forward_requests(now);
  for (auto& s : slices_) s->cycle(now);
  collect_answers(now);
  deliver(now);
  send_to_memory(now);

  const uint64_t next = next_cycle(now);
  if (next == kNever) {
    next_trigger(wake_);
  } else {
    next_trigger(clock_.delay_until(next), wake_);
  }
}

void L2System::admit(const sc_core::sc_time& now_time) {
  // Requests of earlier instants, oldest first, then by SM port.
  std::stable_sort(inbox_.begin(), inbox_.end(), [](const Incoming& a, const Incoming& b) {
    return a.arrival != b.arrival ? a.arrival < b.arrival : a.sm < b.sm;
  });
  size_t kept = 0;
  for (const Incoming& in : inbox_) {
    auto& q = input_[static_cast<unsigned>(in.sm)];
    if (in.arrival >= now_time || q.size() >= input_queue_) {
      inbox_[kept++] = in;
      continue;
    }
    q.push_back(in.gp);
    origin_[in.gp] = in.sm;
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    sm_socket[static_cast<unsigned>(in.sm)]->nb_transport_bw(*in.gp, phase, delay);
  }
  inbox_.resize(kept);
}

void L2System::forward_requests(uint64_t now) {
  // Round-robin over the SM ports by cycle number (not by activation, so
  // sleeping through idle cycles changes nothing), one request per port per
  // cycle at most (a port stays busy for its transfer time).
  const auto n = static_cast<unsigned>(input_.size());
  const auto first = static_cast<unsigned>(now % n);
  for (unsigned k = 0; k < n; ++k) {
    const unsigned i = (first + k) % n;
    if (input_[i].empty()) continue;
    tlm::tlm_generic_payload* gp = input_[i].front();
    const auto addr = static_cast<uint32_t>(gp->get_address());
    const unsigned o = slice_of(addr);
    L2Slice& slice = *slices_[o];
    if ((!network_ports_ && (!requests_.input_free(i, now) || !requests_.output_free(o, now))) ||
        !slice.can_accept()) {
      ++port_stall_cycles_;
      continue;
    }
    const auto* ext = gp->get_extension<sim::MemExt>();
    uint64_t arrival = now;  // behind a network: delivered at the slice's node
    if (!network_ports_) {
      const unsigned bytes = request_bytes(*gp);
      request_bytes_ += bytes;
      arrival = requests_.send(i, o, bytes, now);
    }
    L2Request r;
    r.handle = reinterpret_cast<uintptr_t>(gp);
    r.line = addr & ~(sm::kLineBytes - 1);
    r.sectors = ext->sectors ? ext->sectors : static_cast<uint8_t>(0xf);
    r.op = ext->op;
    r.atomic_ops = ext->atomic_ops;
    slice.push(r, arrival);
    input_[i].pop_front();
  }
}

void L2System::collect_answers(uint64_t now) {
  for (unsigned s = 0; s < slices_.size(); ++s) {
    auto& answers = slices_[s]->answers();
    while (!answers.empty() && answers.front().cycle <= now) {
      auto* gp = reinterpret_cast<tlm::tlm_generic_payload*>(answers.front().handle);
      answers.pop_front();
      if (network_ports_) {
        deliveries_.push(Delivery{now, seq_++, gp});
        continue;
      }
      const auto sm = static_cast<unsigned>(origin_.at(gp));
      const unsigned bytes = answer_bytes(*gp);
      answer_bytes_ += bytes;
      deliveries_.push(Delivery{answers_.send(s, sm, bytes, now), seq_++, gp});
    }
  }
}

void L2System::deliver(uint64_t now) {
  while (!deliveries_.empty() && deliveries_.top().cycle <= now) {
    tlm::tlm_generic_payload* gp = deliveries_.top().gp;
    deliveries_.pop();
    const int sm = origin_.at(gp);
    origin_.erase(gp);
    gp->set_response_status(tlm::TLM_OK_RESPONSE);
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    sm_socket[static_cast<unsigned>(sm)]->nb_transport_bw(*gp, phase, delay);
    gp->release();
  }
}

void L2System::send_to_memory(uint64_t now) {
  // One BEGIN_REQ per slice port at a time; the next goes out the cycle after
  // its END_REQ.
  for (unsigned s = 0; s < mem_ports_.size(); ++s) {
    MemoryPort& port = mem_ports_[s];
    if (port.queue->empty() || port.awaiting_end_req || (port.ever_sent && now <= port.end_req_cycle)) continue;
    const MemoryRequest m = port.queue->front();
    port.queue->pop_front();
    // Timing only: the SMs executed the accesses at issue.
    tlm::tlm_generic_payload* gp = nullptr;
    pool_.request(gp, m.addr, sm::kSectorBytes, m.write ? sim::MemOp::kWrite : sim::MemOp::kRead).source =
        static_cast<uint16_t>(s);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    port.ever_sent = true;
    port.end_req_cycle = now;
    port.awaiting_end_req = true;
    port.awaiting = gp;
    const tlm::tlm_sync_enum status = (*mem_sockets_[s])->nb_transport_fw(*gp, phase, delay);
    if (status == tlm::TLM_UPDATED && phase == tlm::END_REQ) {
      port.awaiting_end_req = false;
    } else if (status == tlm::TLM_COMPLETED) {
      port.awaiting_end_req = false;
      if (gp->is_read()) fills_.push_back(Fill{s, m.addr, now});
      gp->release();
    }
  }
}

uint64_t L2System::next_cycle(uint64_t now) const {
  uint64_t next = kNever;
  const uint64_t soon = now + 1;
  if (!inbox_.empty() || !fills_.empty()) next = soon;
  for (const auto& q : input_)
    if (!q.empty()) next = soon;
  for (const auto& s : slices_) next = std::min(next, s->next_work(now));
  if (!deliveries_.empty()) next = std::min(next, std::max(soon, deliveries_.top().cycle));
  for (const MemoryPort& p : mem_ports_)
    if (!p.queue->empty() && !p.awaiting_end_req) next = soon;
  if (!skip_idle_ && !idle()) next = soon;
  return next;
}

}  // namespace tessera::gpu
