#include "rtl/device/rtl_device.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rtl/common/lockstep.h"
#include "sim/config.h"
#include "sim/mem_ext.h"
#include "sim/output_file.h"

namespace tessera::rtl {

namespace {

constexpr uint64_t kLineBytes = 128, kSectorBytes = 32;
constexpr uint8_t kOkay = 0;

uint64_t picoseconds(const sc_core::sc_time& t) {
  static const uint64_t ps = static_cast<uint64_t>(sc_core::sc_time(1, sc_core::SC_PS).value());
  return static_cast<uint64_t>(t.value()) / ps;
}

const char* const kBurstNames[] = {"FIXED", "INCR", "WRAP", "reserved"};

}  // namespace

RtlDevice::RtlDevice(const sc_core::sc_module_name& name, std::shared_ptr<DeviceLibrary> lib,
                     const sim::ClockDomain& clock, sim::BackingMemory& global, sim::RunControl& run,
                     sim::StatGroup& stats_parent, RtlDeviceParams params, uint16_t source_id, bool with_regs,
                     bool with_mem, std::unique_ptr<DeviceReference> reference)
    : sc_module(name),
      lib_(std::move(lib)),
      api_(lib_->api()),
      clock_(clock),
      global_(global),
      run_(run),
      params_(std::move(params)),
      source_id_(source_id),
      bus_bytes_(std::max(1u, lib_->api().shape.m_data_bits / 8)),
      stat_group_(basename(), &stats_parent),
      reference_(std::move(reference)),
      expected_irqs_(32, 0) {
  if (with_regs) {
    regs_ = std::make_unique<RegsSocket>("regs");
    regs_->register_b_transport(this, &RtlDevice::b_transport);
  }
  if (with_mem)
    mem_port_ = std::make_unique<MemPort>("mem_socket", *this, 1, &RtlDevice::on_answer, &RtlDevice::on_end_req);
  dev_ = api_.create(basename());
  if (CoverageCollection::enabled()) track_coverage();
  if (!params_.fst.empty()) {
    if (api_.trace_open(dev_, params_.fst.c_str()) != 0)
      throw sim::ConfigError(fmt::format("{}: fst: cannot write {}", this->name(), params_.fst));
    fst_open_ = true;
  }
  const auto counter = [&](const char* key, const uint64_t* v, const char* desc) {
    stat_group_.add_counter(key, v, desc);
  };
  counter("cycles", &stats_.cycles, "cycles the block was stepped (it is not in idle cycles)");
  counter("reg_reads", &stats_.reg_reads, "register reads (AXI4-Lite AR/R) from the control cores");
  counter("reg_writes", &stats_.reg_writes, "register writes (AXI4-Lite AW/W/B) from the control cores");
  counter("reg_errors", &stats_.reg_errors, "register accesses answered SLVERR or DECERR");
  counter("read_bursts", &stats_.read_bursts, "AXI4 read bursts (AR handshakes)");
  counter("read_beats", &stats_.read_beats, "AXI4 read beats (R handshakes)");
  counter("read_bytes", &stats_.read_bytes, "bytes the read bursts cover");
  counter("read_requests", &stats_.read_requests, "line requests of the read bursts into the memory system");
  counter("write_bursts", &stats_.write_bursts, "AXI4 write bursts (AW handshakes)");
  counter("write_beats", &stats_.write_beats, "AXI4 write beats (W handshakes)");
  counter("write_bytes", &stats_.write_bytes, "bytes written (W strobes set)");
  counter("write_requests", &stats_.write_requests, "line requests of the write bursts into the memory system");
  counter("interrupts", &stats_.interrupts, "rising edges of the interrupt lines");
  counter("read_latency_cycles", &stats_.read_latency, "sum over read bursts of AR handshake to last R beat");
  counter("write_latency_cycles", &stats_.write_latency, "sum over write bursts of AW handshake to B handshake");
  SC_HAS_PROCESS(RtlDevice);
  SC_METHOD(tick);
  sensitive << wake_;
  dont_initialize();
}

RtlDevice::~RtlDevice() {
  alive_.reset();
  if (dev_) api_.destroy(dev_);
}

// ------------------------------------------------------------------ coverage

void RtlDevice::track_coverage() {
  std::vector<std::string> names = DeviceAxiCoverage::point_names(shape());
  for (VerilatorCoverPoint& p : user_coverage()) {
    user_points_.push_back(p.name);
    names.push_back(std::move(p.name));
  }
  const std::weak_ptr<int> alive = alive_;
  // The collection outlives the device: after it the table keeps the last
  // counts read (the destructor's are not needed: the report is written
  // while the platform lives).
  auto table = CoverageCollection::track(params_.coverage_block, name(), names, [this, alive](CoverTable& t) {
    if (alive.lock()) refresh_user_coverage(t);
  });
  cover_ = std::make_unique<DeviceAxiCoverage>(std::move(table), shape());
}

std::vector<VerilatorCoverPoint> RtlDevice::user_coverage() const {
  std::string path = (std::filesystem::temp_directory_path() / "tessera-coverage-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0)
    throw sim::OutputError(fmt::format("{}: cannot make a file for Verilator's coverage in {}", name(), path));
  close(fd);
  const int status = api_.coverage_write(dev_, path.c_str());
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (status != 0 || !in) throw sim::OutputError(fmt::format("{}: Verilator's coverage could not be read", name()));
  try {
    return parse_verilator_coverage(text.str(), basename());
  } catch (const std::runtime_error& e) {
    throw sim::OutputError(fmt::format("{}: Verilator's coverage: {}", name(), e.what()));
  }
}

void RtlDevice::refresh_user_coverage(CoverTable& table) const {
  const std::vector<VerilatorCoverPoint> points = user_coverage();
  const size_t first = table.size() - user_points_.size();
  if (points.size() != user_points_.size())
    throw sim::OutputError(fmt::format("{}: Verilator's coverage lists {} points, not the {} it began with", name(),
                                       points.size(), user_points_.size()));
  for (size_t i = 0; i < points.size(); ++i) table.set(first + i, points[i].count);
}

// A cycle's AXI cover points, from the pins before the handshakes act on
// the bursts in flight.
void RtlDevice::cover_cycle(const tessera_rtl_device_inputs& in, const tessera_rtl_device_outputs& o, bool r_valid,
                            bool w_valid, bool b_valid, uint32_t rising) {
  using C = DeviceAxiCoverage;
  if (o.s_bvalid) cover_->hit(C::kRegWrite);
  if (o.s_rvalid) cover_->hit(C::kRegRead);
  if ((o.s_bvalid && o.s_bresp != 0) || (o.s_rvalid && o.s_rresp != 0)) cover_->hit(C::kRegError);
  if (o.m_arvalid && in.m_arready) {
    cover_->hit(C::burst_point(false, o.m_arlen + 1u));
    if ((1u << o.m_arsize) < bus_bytes_) cover_->hit(C::kReadNarrow);
    if (!reads_.empty()) cover_->hit(C::kReadOverlap);
  }
  if (o.m_arvalid && !in.m_arready) cover_->hit(C::kArStall);
  if (r_valid && !o.m_rready) cover_->hit(C::kRBackpressure);
  if (o.m_awvalid && in.m_awready) {
    cover_->hit(C::burst_point(true, o.m_awlen + 1u));
    if ((1u << o.m_awsize) < bus_bytes_) cover_->hit(C::kWriteNarrow);
    if (!writes_.empty()) cover_->hit(C::kWriteOverlap);
  }
  if (o.m_awvalid && !in.m_awready) cover_->hit(C::kAwStall);
  const uint64_t all_lanes = bus_bytes_ >= 64 ? ~uint64_t{0} : (uint64_t{1} << bus_bytes_) - 1;
  if (w_valid && o.m_wvalid && (o.m_wstrb & all_lanes) != all_lanes) cover_->hit(C::kWritePartialStrobe);
  if (b_valid && !o.m_bready) cover_->hit(C::kBBackpressure);
  if (!reads_.empty() && !writes_.empty()) cover_->hit(C::kReadWriteTogether);
  const bool traffic = in.s_awvalid || in.s_wvalid || in.s_arvalid || in.m_rvalid || in.m_bvalid || o.s_bvalid ||
                       o.s_rvalid || o.m_arvalid || o.m_awvalid || o.m_wvalid;
  if (o.busy && !traffic && reads_.empty() && writes_.empty()) cover_->hit(C::kBusyAlone);
  cover_->irq_rises(rising);
}

void RtlDevice::start_of_simulation() { wake_at(0); }

bool RtlDevice::busy() const {
  return out_.busy || !reads_.empty() || !writes_.empty() || !to_send_.empty() || reg_.pending;
}

void RtlDevice::wake_at(uint64_t cycle) { wake_.notify(clock_.delay_until(cycle)); }

void RtlDevice::fault(const std::string& what, uint64_t cycle) {
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{} (RTL device '{}'): cycle {}: {}", name(), api_.top, cycle, what));
}

// ------------------------------------------------------------------ stepping

void RtlDevice::tick() {
  const uint64_t now = clock_.now_cycle();
  flush_wave(picoseconds(sc_core::sc_time_stamp()));
  if (run_.stopped()) return;
  if (next_cycle_ > now) {  // a register access ran the block ahead
    wake_at(next_cycle_);
    return;
  }
  const auto answer_ready = [&](uint64_t c) {
    const bool r = !reads_.empty() && reads_.front()->pieces_left == 0 && reads_.front()->ready_cycle <= c;
    const bool b = !writes_.empty() && writes_.front()->beats_done == writes_.front()->beats &&
                   writes_.front()->pieces_left == 0 && writes_.front()->ready_cycle <= c;
    return r || b;
  };
  if (active_ || answer_ready(now)) {
    step(now);
    next_cycle_ = now + 1;
  } else {
    next_cycle_ = now;  // idle cycles are skipped
  }
  send_pieces(now);
  if (active_ || !to_send_.empty() || answer_ready(now + 1)) wake_at(now + 1);
}

void RtlDevice::step(uint64_t c) {
  tessera_rtl_device_inputs& in = in_;
  in = tessera_rtl_device_inputs{};
  if (reg_.pending && !reg_.done) {
    if (reg_.write) {
      in.s_awvalid = !reg_.addr_sent;
      in.s_wvalid = !reg_.data_sent;
      in.s_awaddr = reg_.offset;
      in.s_wdata = reg_.wdata;
      in.s_wstrb = reg_.wstrb;
    } else {
      in.s_arvalid = !reg_.addr_sent;
      in.s_araddr = reg_.offset;
    }
  }
  in.s_bready = 1;
  in.s_rready = 1;

  Burst* r = reads_.empty() ? nullptr : reads_.front().get();
  const bool r_valid = r && r->pieces_left == 0 && r->ready_cycle <= c;
  in.m_arready = reads_.size() < params_.max_reads;
  if (r_valid) {
    in.m_rvalid = 1;
    in.m_rresp = kOkay;
    in.m_rid = r->id;
    in.m_rlast = r->beats_done + 1 == r->beats;
    std::memcpy(in.m_rdata, &r->data[static_cast<size_t>(r->beats_done) * bus_bytes_], bus_bytes_);
  }
  Burst* w_data =
      !writes_.empty() && writes_.back()->beats_done < writes_.back()->beats ? writes_.back().get() : nullptr;
  in.m_awready = !w_data && writes_.size() < params_.max_writes;
  in.m_wready = w_data != nullptr;
  Burst* b = writes_.empty() ? nullptr : writes_.front().get();
  const bool b_valid = b && b->beats_done == b->beats && b->pieces_left == 0 && b->ready_cycle <= c;
  if (b_valid) {
    in.m_bvalid = 1;
    in.m_bresp = kOkay;
    in.m_bid = b->id;
  }

  api_.eval(dev_, &in, &out_);
  const tessera_rtl_device_outputs& o = out_;
  if (wave_ || fst_open_) record_waves(c);
  if (cover_) cover_cycle(in, o, r_valid, w_data != nullptr, b_valid, o.irq & ~irq_level_);

  bool handshake = false;
  // Register slave.
  if (in.s_awvalid && o.s_awready) reg_.addr_sent = handshake = true;
  if (in.s_wvalid && o.s_wready) reg_.data_sent = handshake = true;
  if (in.s_arvalid && o.s_arready) reg_.addr_sent = handshake = true;
  if (o.s_bvalid) {
    handshake = true;
    if (!(reg_.pending && reg_.write && reg_.addr_sent && reg_.data_sent && !reg_.done))
      return fault("s_axil_bvalid without a register write whose address and data it took", c);
    reg_.done = true;
    reg_.resp = o.s_bresp;
  }
  if (o.s_rvalid) {
    handshake = true;
    if (!(reg_.pending && !reg_.write && reg_.addr_sent && !reg_.done))
      return fault("s_axil_rvalid without a register read whose address it took", c);
    reg_.done = true;
    reg_.resp = o.s_rresp;
    reg_.rdata = o.s_rdata;
  }
  // Memory master.
  if (o.m_arvalid && in.m_arready) {
    handshake = true;
    accept_read(o, c);
  }
  if (r_valid && o.m_rready) {
    handshake = true;
    ++stats_.read_beats;
    if (++r->beats_done == r->beats) {
      stats_.read_latency += c - r->start_cycle;
      reads_.pop_front();
    }
  }
  if (o.m_awvalid && in.m_awready) {
    handshake = true;
    accept_write_address(o, c);
  }
  if (w_data && o.m_wvalid) {
    handshake = true;
    accept_write_beat(o, c);
  }
  if (b_valid && o.m_bready) {
    handshake = true;
    stats_.write_latency += c - b->start_cycle;
    writes_.pop_front();
  }
  if (run_.stopped()) return;
  // Interrupts: a rising bit wakes the cores.
  if (const uint32_t rising = o.irq & ~irq_level_) {
    stats_.interrupts += static_cast<uint64_t>(__builtin_popcount(rising));
    for (unsigned line = 0; reference_ && line < 32; ++line) {
      if (!((rising >> line) & 1)) continue;
      if (expected_irqs_[line] == 0) return mismatch(c, {}, {{fmt::format("irq[{}] rises", line), "no", "yes"}});
      --expected_irqs_[line];
    }
    for (sim::InterruptIf* line : irq.bound()) line->raise();
  }
  irq_level_ = o.irq;

  api_.edge(dev_);
  if (fst_open_) api_.trace_dump(dev_, picoseconds(clock_.time_of(c)) + picoseconds(clock_.period()) / 2);
  ++stats_.cycles;
  const bool valid = in.s_awvalid || in.s_wvalid || in.s_arvalid || in.m_rvalid || in.m_bvalid || o.s_bvalid ||
                     o.s_rvalid || o.m_arvalid || o.m_awvalid || o.m_wvalid;
  active_ = valid || handshake || o.busy;
  run_.note_change();
}

bool RtlDevice::check_burst(const char* channel, uint64_t addr, unsigned len, unsigned size, unsigned burst,
                            uint64_t c) {
  const unsigned bytes = 1u << size;
  if (burst != 1) {
    fault(
        fmt::format("{} burst at 0x{:x} is {} (only INCR bursts are modelled)", channel, addr, kBurstNames[burst & 3]),
        c);
    return false;
  }
  if (bytes > bus_bytes_) {
    fault(fmt::format("{} size {} ({} bytes) is wider than the {}-bit data bus", channel, size, bytes, bus_bytes_ * 8),
          c);
    return false;
  }
  const uint64_t aligned = addr & ~uint64_t{bytes - 1};
  const uint64_t last = aligned + uint64_t{len + 1} * bytes - 1;
  if ((addr >> 12) != (last >> 12)) {
    fault(
        fmt::format("{} burst [0x{:x}, 0x{:x}] crosses a 4 KiB boundary (AXI forbids it, A3.4.1)", channel, addr, last),
        c);
    return false;
  }
  if (addr > UINT32_MAX || !global_.contains(static_cast<uint32_t>(addr), last - addr + 1)) {
    fault(fmt::format("{} burst [0x{:x}, 0x{:x}] is outside global memory [0x{:x}, 0x{:x})", channel, addr, last,
                      global_.base(), global_.base() + global_.size()),
          c);
    return false;
  }
  return true;
}

// The byte lanes of beat i of an INCR burst (A3.4): the first transfer
// starts at the address, the others at size-aligned addresses.
namespace {
struct Lanes {
  uint64_t addr;  // of the first byte moved
  unsigned lane, bytes;
};
Lanes beat_lanes(uint64_t start, unsigned size_bytes, unsigned bus_bytes, unsigned i) {
  const uint64_t aligned = start & ~uint64_t{size_bytes - 1};
  const uint64_t addr = i == 0 ? start : aligned + uint64_t{i} * size_bytes;
  const uint64_t end = (i == 0 ? aligned : addr) + size_bytes;
  return {addr, static_cast<unsigned>(addr % bus_bytes), static_cast<unsigned>(end - addr)};
}
}  // namespace

void RtlDevice::accept_read(const tessera_rtl_device_outputs& o, uint64_t c) {
  if (!check_burst("read (m_axi_ar*)", o.m_araddr, o.m_arlen, o.m_arsize, o.m_arburst, c)) return;
  auto b = std::make_unique<Burst>();
  b->addr = o.m_araddr;
  b->id = o.m_arid;
  b->beats = o.m_arlen + 1u;
  b->size_bytes = 1u << o.m_arsize;
  b->start_cycle = c;
  b->data.assign(static_cast<size_t>(b->beats) * bus_bytes_, 0);
  for (unsigned i = 0; i < b->beats; ++i) {
    const Lanes l = beat_lanes(b->addr, b->size_bytes, bus_bytes_, i);
    global_.read(static_cast<uint32_t>(l.addr), &b->data[static_cast<size_t>(i) * bus_bytes_ + l.lane], l.bytes);
    stats_.read_bytes += l.bytes;
  }
  ++stats_.read_bursts;
  split(*b, false, c);
  reads_.push_back(std::move(b));
}

void RtlDevice::accept_write_address(const tessera_rtl_device_outputs& o, uint64_t c) {
  if (!check_burst("write (m_axi_aw*)", o.m_awaddr, o.m_awlen, o.m_awsize, o.m_awburst, c)) return;
  auto b = std::make_unique<Burst>();
  b->addr = o.m_awaddr;
  b->id = o.m_awid;
  b->beats = o.m_awlen + 1u;
  b->size_bytes = 1u << o.m_awsize;
  b->start_cycle = c;
  b->data.assign(static_cast<size_t>(b->beats) * bus_bytes_, 0);
  b->strobes.assign(b->data.size(), 0);
  ++stats_.write_bursts;
  writes_.push_back(std::move(b));
}

void RtlDevice::accept_write_beat(const tessera_rtl_device_outputs& o, uint64_t c) {
  Burst& b = *writes_.back();
  const unsigned i = b.beats_done++;
  ++stats_.write_beats;
  if (static_cast<bool>(o.m_wlast) != (b.beats_done == b.beats))
    return fault(fmt::format("m_axi_wlast is {} on beat {} of a {}-beat write burst to 0x{:x}", o.m_wlast, i + 1,
                             b.beats, b.addr),
                 c);
  const Lanes l = beat_lanes(b.addr, b.size_bytes, bus_bytes_, i);
  const auto* data = reinterpret_cast<const uint8_t*>(o.m_wdata);
  for (unsigned k = 0; k < l.bytes; ++k) {
    const unsigned lane = l.lane + k;
    if (!((o.m_wstrb >> lane) & 1)) continue;  // strobes outside the beat's lanes are ignored
    const uint64_t addr = l.addr + k;
    if (reference_) {
      auto it = expected_writes_.find(addr);
      const bool expected = it != expected_writes_.end();
      if (!expected || it->second.front() != data[lane]) {
        return mismatch(c,
                        {{"burst", fmt::format("write of {} beats to 0x{:x}", b.beats, b.addr)},
                         {"beat", fmt::format("{} (m_axi_wdata byte lane {})", i, lane)}},
                        {{fmt::format("byte at 0x{:x}", addr),
                          expected ? fmt::format("0x{:02x}", it->second.front()) : "(not written)",
                          fmt::format("0x{:02x}", data[lane])}});
      }
      it->second.pop_front();
      if (it->second.empty()) expected_writes_.erase(it);
    }
    global_.write(static_cast<uint32_t>(addr), &data[lane], 1);
    b.data[static_cast<size_t>(i) * bus_bytes_ + lane] = data[lane];
    b.strobes[static_cast<size_t>(i) * bus_bytes_ + lane] = 1;
    ++stats_.write_bytes;
  }
  if (b.beats_done == b.beats) split(b, true, c);
}

void RtlDevice::split(Burst& b, bool write, uint64_t c) {
  // The lines the burst touches, and in each the sectors its bytes fall in
  // (a write: the bytes its strobes enabled).
  const uint64_t aligned = b.addr & ~uint64_t{b.size_bytes - 1};
  const uint64_t end = aligned + uint64_t{b.beats} * b.size_bytes;
  uint64_t line = b.addr & ~(kLineBytes - 1);
  unsigned pieces = 0;
  for (; line < end; line += kLineBytes) {
    uint8_t sectors = 0;
    for (unsigned s = 0; s < kLineBytes / kSectorBytes; ++s) {
      const uint64_t lo = std::max(line + s * kSectorBytes, b.addr), hi = std::min(line + (s + 1) * kSectorBytes, end);
      if (lo >= hi) continue;
      bool touched = !write;
      for (uint64_t a = lo; a < hi && !touched; ++a) {
        // The beat and lane of byte a.
        const uint64_t beat = a < aligned + b.size_bytes ? 0 : (a - aligned) / b.size_bytes;
        touched = b.strobes[static_cast<size_t>(beat) * bus_bytes_ + a % bus_bytes_] != 0;
      }
      if (touched) sectors = static_cast<uint8_t>(sectors | (1u << s));
    }
    if (!sectors) continue;
    to_send_.push_back(Piece{line, sectors, write, &b});
    ++pieces;
  }
  b.pieces_left = pieces;
  b.ready_cycle = c + 1;  // a write of no bytes answers at once
  (write ? stats_.write_requests : stats_.read_requests) += pieces;
  send_from_ = std::max(send_from_, c + 1);
}

void RtlDevice::send_pieces(uint64_t c) {
  if (to_send_.empty() || c < send_from_ || !mem_port_->can_send(0, clock_.time_of(c))) return;
  const Piece p = to_send_.front();
  to_send_.pop_front();
  tlm::tlm_generic_payload* gp = nullptr;
  sim::MemExt& ext = pool_.request(gp, p.line, static_cast<unsigned>(kSectorBytes * __builtin_popcount(p.sectors)),
                                   p.write ? sim::MemOp::kWrite : sim::MemOp::kRead);
  ext.source = source_id_;
  ext.sectors = p.sectors;
  ext.tag = static_cast<uint32_t>(stats_.read_requests + stats_.write_requests + to_send_.size());
  answers_[gp] = p.burst;
  mem_port_->send(0, *gp);
}

void RtlDevice::on_answer(unsigned, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at) {
  const auto it = answers_.find(&gp);
  Burst* b = it->second;
  answers_.erase(it);
  gp.release();
  if (--b->pieces_left == 0) {
    b->ready_cycle = clock_.cycle_at(at) + 1;
    wake_at(b->ready_cycle);
  }
}

void RtlDevice::on_end_req(unsigned) {
  if (!to_send_.empty()) wake_at(clock_.now_cycle() + 1);
}

// ------------------------------------------------------- register accesses

void RtlDevice::b_transport(int /*initiator*/, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t now = clock_.cycle_at(sc_core::sc_time_stamp() + delay);
  const unsigned len = gp.get_data_length();
  const auto offset = static_cast<uint32_t>(gp.get_address());
  // Offsets beyond what the block's address pins reach fault in the core
  // rather than alias.
  if (shape().s_addr_bits == 0 || (shape().s_addr_bits < 32 && offset >> shape().s_addr_bits != 0)) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (len != 4 || (offset & 3) != 0) {  // AXI4-Lite registers are whole 32-bit words here
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  reg_ = RegAccess{};
  reg_.pending = true;
  reg_.write = gp.is_write();
  reg_.offset = offset;
  if (reg_.write) {
    std::memcpy(&reg_.wdata, gp.get_data_ptr(), 4);
    reg_.wstrb = 0xf;
  }
  uint64_t c = std::max(next_cycle_, now);
  const uint64_t start = c;
  while (!reg_.done && !run_.stopped()) {
    if (c - start >= params_.reg_timeout) {
      fault(fmt::format("a register {} at offset 0x{:x} got no {} in {} cycles (rtl_device.reg_timeout)",
                        reg_.write ? "write" : "read", offset, reg_.write ? "B response" : "R response",
                        params_.reg_timeout),
            c);
      break;
    }
    step(c++);
  }
  next_cycle_ = c;
  (reg_.write ? stats_.reg_writes : stats_.reg_reads)++;
  if (!reg_.done) {
    gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
  } else if (reg_.resp != kOkay) {
    ++stats_.reg_errors;
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  } else {
    if (!reg_.write) std::memcpy(gp.get_data_ptr(), &reg_.rdata, 4);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (reference_ && reg_.write) {
      reference_->write_register(offset, reg_.wdata, host_);
    } else if (reference_) {
      const std::optional<uint32_t> want = reference_->read_register(offset, host_);
      if (want && *want != reg_.rdata)
        mismatch(c - 1, {{"s_axil_araddr", fmt::format("0x{:x}", offset)}},
                 {{"s_axil_rdata", fmt::format("0x{:08x}", *want), fmt::format("0x{:08x}", reg_.rdata)}});
    }
  }
  reg_.pending = false;
  delay += clock_.time_of(c) - clock_.time_of(now);
  wake_at(c);
}

// ----------------------------------------------------------------- lockstep

bool RtlDevice::Host::read_memory(uint64_t addr, void* dst, size_t bytes) {
  return addr <= UINT32_MAX && d_.global_.read(static_cast<uint32_t>(addr), dst, bytes);
}

void RtlDevice::Host::expect_write(uint64_t addr, const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < bytes; ++i) d_.expected_writes_[addr + i].push_back(p[i]);
}

void RtlDevice::Host::expect_interrupt(unsigned line) {
  if (line < d_.expected_irqs_.size()) ++d_.expected_irqs_[line];
}

void RtlDevice::mismatch(uint64_t cycle, const std::vector<std::pair<std::string, std::string>>& inputs,
                         const std::vector<Row>& outputs) {
  MismatchReport report(api_.top, name(), cycle);
  for (const auto& [n, v] : inputs) report.input(n, v);
  for (const Row& r : outputs) report.output(r.name, r.reference, r.rtl);
  if (fst_open_) {
    api_.trace_dump(dev_, picoseconds(clock_.time_of(cycle)) + picoseconds(clock_.period()) / 2);
    api_.trace_close(dev_);
    fst_open_ = false;
    report.set_wave(params_.fst);
  }
  run_.stop(sim::ExitKind::kLockstepMismatch, sim::kStatusLockstepMismatch,
            report.text() + "\n  (model: the C++ reference of the rtl_device)");
}

std::string RtlDevice::unmet_expectations() const {
  if (!reference_) return "";
  std::string s;
  if (!expected_writes_.empty()) {
    size_t bytes = 0;
    for (const auto& [addr, q] : expected_writes_) bytes += q.size();
    s += fmt::format("; {} bytes the reference wrote were never written by the block, the first at 0x{:x}", bytes,
                     expected_writes_.begin()->first);
  }
  for (size_t line = 0; line < expected_irqs_.size(); ++line)
    if (expected_irqs_[line])
      s += fmt::format("; the reference raised irq[{}] {} more times than the block", line, expected_irqs_[line]);
  if (s.empty()) return "";
  return fmt::format("lockstep mismatch in {} ({}) at the end of the run: {}", name(), api_.top, s.substr(2));
}

// ------------------------------------------------------------------ reports

std::string RtlDevice::describe_in_flight() const {
  std::string s = fmt::format("RTL device '{}': {} read and {} write bursts in flight, {} line requests to send{}",
                              api_.top, reads_.size(), writes_.size(), to_send_.size(), out_.busy ? ", busy" : "");
  if (!reads_.empty())
    s += fmt::format("; oldest read 0x{:x} ({} beats, {} line requests unanswered)", reads_.front()->addr,
                     reads_.front()->beats, reads_.front()->pieces_left);
  if (!writes_.empty())
    s += fmt::format("; oldest write 0x{:x} ({} of {} beats taken)", writes_.front()->addr, writes_.front()->beats_done,
                     writes_.front()->beats);
  return s;
}

// ----------------------------------------------------------------- waveform

void RtlDevice::set_waveform(sim::Waveform* wave) {
  wave_ = wave;
  if (!wave_) return;
  const std::string scope = sim::wave_scope(name());
  const std::string s = scope + ".s_axil", m = scope + ".m_axi";
  ids_.awvalid = wave_->add_signal(s, "awvalid", 1);
  ids_.awready = wave_->add_signal(s, "awready", 1);
  ids_.wvalid = wave_->add_signal(s, "wvalid", 1);
  ids_.wready = wave_->add_signal(s, "wready", 1);
  ids_.bvalid = wave_->add_signal(s, "bvalid", 1);
  ids_.arvalid = wave_->add_signal(s, "arvalid", 1);
  ids_.arready = wave_->add_signal(s, "arready", 1);
  ids_.rvalid = wave_->add_signal(s, "rvalid", 1);
  ids_.rdata = wave_->add_signal(s, "rdata", 32);
  ids_.m_arvalid = wave_->add_signal(m, "arvalid", 1);
  ids_.m_arready = wave_->add_signal(m, "arready", 1);
  ids_.m_araddr = wave_->add_signal(m, "araddr", 32);
  ids_.m_rvalid = wave_->add_signal(m, "rvalid", 1);
  ids_.m_rready = wave_->add_signal(m, "rready", 1);
  ids_.m_awvalid = wave_->add_signal(m, "awvalid", 1);
  ids_.m_awready = wave_->add_signal(m, "awready", 1);
  ids_.m_awaddr = wave_->add_signal(m, "awaddr", 32);
  ids_.m_wvalid = wave_->add_signal(m, "wvalid", 1);
  ids_.m_wready = wave_->add_signal(m, "wready", 1);
  ids_.m_bvalid = wave_->add_signal(m, "bvalid", 1);
  ids_.irq = wave_->add_signal(scope, "irq", std::max(1u, shape().irq_bits));
  ids_.busy = wave_->add_signal(scope, "busy", 1);
}

void RtlDevice::record_waves(uint64_t c) {
  const uint64_t ps = picoseconds(clock_.time_of(c));
  if (fst_open_) api_.trace_dump(dev_, ps);
  if (!wave_) return;
  const tessera_rtl_device_inputs& i = in_;
  const tessera_rtl_device_outputs& o = out_;
  const std::pair<int, uint64_t> values[] = {{ids_.awvalid, i.s_awvalid},
                                             {ids_.awready, o.s_awready},
                                             {ids_.wvalid, i.s_wvalid},
                                             {ids_.wready, o.s_wready},
                                             {ids_.bvalid, o.s_bvalid},
                                             {ids_.arvalid, i.s_arvalid},
                                             {ids_.arready, o.s_arready},
                                             {ids_.rvalid, o.s_rvalid},
                                             {ids_.rdata, o.s_rdata},
                                             {ids_.m_arvalid, o.m_arvalid},
                                             {ids_.m_arready, i.m_arready},
                                             {ids_.m_araddr, o.m_araddr},
                                             {ids_.m_rvalid, i.m_rvalid},
                                             {ids_.m_rready, o.m_rready},
                                             {ids_.m_awvalid, o.m_awvalid},
                                             {ids_.m_awready, i.m_awready},
                                             {ids_.m_awaddr, o.m_awaddr},
                                             {ids_.m_wvalid, o.m_wvalid},
                                             {ids_.m_wready, i.m_wready},
                                             {ids_.m_bvalid, i.m_bvalid},
                                             {ids_.irq, o.irq},
                                             {ids_.busy, o.busy}};
  // Each cycle's values hold for that cycle only: the next cycle the block
  // is not stepped in, they read as idle (0).
  const uint64_t next = picoseconds(clock_.time_of(c + 1));
  for (const auto& [id, v] : values)
    if (id >= 0) wave_queue_.push_back({ps, id, v});
  for (const auto& [id, v] : values)
    if (id >= 0 && id != ids_.irq && id != ids_.m_araddr && id != ids_.m_awaddr && id != ids_.rdata)
      wave_queue_.push_back({next, id, 0});
  if (ps <= picoseconds(sc_core::sc_time_stamp())) flush_wave(ps);
}

void RtlDevice::flush_wave(uint64_t up_to_ps) {
  while (!wave_queue_.empty() && wave_queue_.front().ps <= up_to_ps) {
    const PendingChange& p = wave_queue_.front();
    // A value set for the same instant later in the queue wins.
    wave_->change(p.id, p.value, p.ps);
    wave_queue_.pop_front();
  }
}

}  // namespace tessera::rtl
