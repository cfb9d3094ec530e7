#include "gpu/dispatcher.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::gpu {

Dispatcher::Dispatcher(const sc_core::sc_module_name& name, const sim::ClockDomain& clock, sim::RunControl& run,
                       sim::StatGroup& stats_parent)
    : sc_module(name),
      regs_socket("regs_socket"),
      sms_port("sms_port", "sm::BlockLaunchIf (an SM's launch port)"),
      irq_port("irq_port", "sim::InterruptIf (an interrupt line)"),
      clock_(clock),
      run_(run),
      log_(std::string(this->name())),
      stats_("dispatcher", &stats_parent) {
  regs_socket.register_b_transport(this, &Dispatcher::b_transport);
  SC_HAS_PROCESS(Dispatcher);
  SC_METHOD(place_blocks);
  sensitive << place_;
  dont_initialize();
  sms_port.on_bind([this](sm::BlockLaunchIf& s) {
    p_ = sms_.empty() ? s.launch_limits()
                      : combine(p_, s.launch_limits(), sms_.front()->sm_name(), s.sm_name(), this->name());
    s.set_listener(this);
    sms_.push_back(&s);
  });
  irq_port.on_bind([this](sim::InterruptIf& irq) { irq.sleep_while([this] { return busy(); }); });
  stats_.add_counter("kernels", &kernels_, "Kernels completed");
  stats_.add_counter("blocks", &blocks_, "Thread blocks completed");
  stats_.add_counter("kernel_cycles", &kernel_cycles_, "SM cycles from each launch to its last block's end, summed");
}

sm::LaunchLimits Dispatcher::combine(const sm::LaunchLimits& a, const sm::LaunchLimits& b, const std::string& a_name,
                                     const std::string& b_name, const std::string& dispatcher) {
  const auto differs = [&](const char* key, unsigned x, unsigned y) {
    if (x != y)
      throw sim::ConfigError(
          fmt::format("{}: the SMs it launches on count registers differently ({}={} on {}, {} on {}); a "
                      "dispatcher's SMs must agree on it",
                      dispatcher, key, x, a_name, y, b_name));
  };
  differs("sm.register_granule", a.register_granule, b.register_granule);
  differs("sm.regs_per_thread_default", a.regs_per_thread_default, b.regs_per_thread_default);
  sm::LaunchLimits p = a;
  p.max_threads_per_block = std::min(a.max_threads_per_block, b.max_threads_per_block);
  p.max_threads = std::min(a.max_threads, b.max_threads);
  p.max_warps = std::min(a.max_warps, b.max_warps);
  p.registers = std::min(a.registers, b.registers);
  p.shared_bytes = std::min(a.shared_bytes, b.shared_bytes);
  return p;
}

void Dispatcher::set_waveform(sim::Waveform* wave) {
  wave_ = wave;
  if (!wave_) return;
  const std::string scope = sim::wave_scope(name());
  kernel_running_id_ = wave_->add_signal(scope, "kernel_running", 1);
  blocks_pending_id_ = wave_->add_signal(scope, "blocks_pending", 32);
  sm_blocks_.assign(sms_.size(), 0);
  sm_blocks_id_.clear();
  for (const sm::BlockLaunchIf* s : sms_)
    sm_blocks_id_.push_back(wave_->add_signal(fmt::format("{}.sm{}", scope, s->id()), "blocks", 8));
}

void Dispatcher::set_program(const isa::ElfImage* image) { image_ = image; }

sm::KernelLaunch Dispatcher::resolve(const sm::KernelLaunch& written, const isa::ElfImage* image,
                                     unsigned regs_per_thread_default) {
  sm::KernelLaunch k = written;
  k.dynamic_bytes = written.shared_bytes;
  k.record = image != nullptr && image->has_kernel_record ? image->kernels.find(k.kernel) : nullptr;
  // The static window: the kernel's, else every __shared__ variable.
  uint32_t start = isa::kSharedWindowBase, end = isa::kSharedWindowBase;
  if (image != nullptr) {
    start = image->symbol("__tessera_shared_start").value_or(start);
    end = std::max(start, image->symbol("__tessera_shared_end").value_or(start));
  }
  if (k.record != nullptr) {
    k.static_lo = k.record->shared_lo;
    k.static_bytes = k.record->shared_bytes;
  } else {
    k.static_lo = start;
    k.static_bytes = end - start;
  }
  const auto align128 = [](uint64_t v) { return (v + 127) & ~uint64_t{127}; };
  k.dynamic_at = static_cast<uint32_t>(align128(end));
  if (image != nullptr) k.dynamic_at = image->symbol("__tessera_dynamic_shared").value_or(k.dynamic_at);
  const uint64_t offset = k.dynamic_bytes != 0 ? align128(k.static_bytes) : k.static_bytes;
  k.dynamic_offset = static_cast<uint32_t>(offset);
  k.shared_bytes = static_cast<uint32_t>(std::min<uint64_t>(offset + k.dynamic_bytes, UINT32_MAX));
  if (k.regs_per_thread == 0) k.regs_per_thread = k.record != nullptr ? k.record->registers : regs_per_thread_default;
  return k;
}

void Dispatcher::trace_waves() {
  static const uint64_t ticks_per_ps = sc_core::sc_time(1, sc_core::SC_PS).value();
  const uint64_t t = sc_core::sc_time_stamp().value() / ticks_per_ps;
  wave_->change(kernel_running_id_, running_ ? 1 : 0, t);
  wave_->change(blocks_pending_id_, running_ ? std::min<uint64_t>(total_blocks_ - next_block_, 0xFFFFFFFFu) : 0, t);
  for (size_t i = 0; i < sm_blocks_.size(); ++i)
    wave_->change(sm_blocks_id_[i], std::min<uint64_t>(sm_blocks_[i], 0xFF), t);
}

void Dispatcher::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
  const auto offset = static_cast<uint32_t>(gp.get_address());
  if (gp.get_data_length() != 4 || (offset & 3)) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  uint32_t value = 0;
  uint32_t* fields[] = {&next_.start_pc, &next_.kernel,       &next_.args,           &next_.grid.x,
                        &next_.grid.y,   &next_.grid.z,       &next_.block.x,        &next_.block.y,
                        &next_.block.z,  &next_.shared_bytes, &next_.regs_per_thread};
  const bool is_field = offset >= reg::kStart && offset <= reg::kRegs;
  if (gp.is_read()) {
    if (is_field) {
      value = *fields[(offset - reg::kStart) / 4];
    } else if (offset == reg::kStatus) {
      value = busy() ? 1 : 0;
    } else if (offset == reg::kDoneCount) {
      value = static_cast<uint32_t>(kernels_);
    } else if (offset >= reg::kDoneQuery && offset <= reg::kNowHi) {
      value = read_time(offset);
    } else if (offset == reg::kLaunched) {
      value = static_cast<uint32_t>(kernels_ + queue_.size() + (running_ ? 1 : 0));
    } else if (offset >= reg::kDevSms && offset <= reg::kDevLocalBytes) {
      value = device_register(offset);
    } else if (offset != reg::kLaunch) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    std::memcpy(gp.get_data_ptr(), &value, 4);
  } else {
    std::memcpy(&value, gp.get_data_ptr(), 4);
    if (is_field) {
      *fields[(offset - reg::kStart) / 4] = value;
    } else if (offset == reg::kLaunch) {
      sm::KernelLaunch k = resolve(next_, image_, p_.regs_per_thread_default);
      k.id = static_cast<uint32_t>(kernels_ + queue_.size() + (running_ ? 1 : 0));
      if (!validate(k)) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);  // the run stops; the report says why
        return;
      }
      if (running_) {
        queue_.push_back(k);
      } else {
        launch(k);
      }
    } else if (offset == reg::kDoneQuery) {
      done_query_ = value;
    } else {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint32_t Dispatcher::read_time(uint32_t offset) {
  static const uint64_t ticks_per_ps = sc_core::sc_time(1, sc_core::SC_PS).value();
  switch (offset) {
    case reg::kDoneQuery:
      return done_query_;
    case reg::kDoneTimeLo: {
      // Kernel n (1-based) made DONE_COUNT reach n; unknown when it has not
      // ended or ended more than kKernelEndsKept kernels ago.
      const uint64_t n = done_query_;
      const bool known = n >= 1 && n <= kernels_ && kernels_ - n < kKernelEndsKept;
      const uint64_t t = known ? kernel_end_ps_[(n - 1) % kKernelEndsKept] : ~uint64_t{0};
      done_time_hi_ = static_cast<uint32_t>(t >> 32);
      return static_cast<uint32_t>(t);
    }
    case reg::kDoneTimeHi:
      return done_time_hi_;
    case reg::kNowLo: {
      const uint64_t t = sc_core::sc_time_stamp().value() / ticks_per_ps;
      now_hi_ = static_cast<uint32_t>(t >> 32);
      return static_cast<uint32_t>(t);
    }
    default:
      return now_hi_;
  }
}

uint32_t Dispatcher::device_register(uint32_t offset) const {
  switch (offset) {
    case reg::kDevSms:
      return static_cast<uint32_t>(sms_.size());
    case reg::kDevWarpSize:
      return p_.warp_size;
    case reg::kDevMaxThreadsPerBlock:
      return p_.max_threads_per_block;
    case reg::kDevMaxThreadsPerSm:
      return p_.max_threads;
    case reg::kDevMaxBlocksPerSm:
      return p_.max_blocks;
    case reg::kDevSharedPerSm:
      return p_.shared_bytes;
    case reg::kDevRegsPerSm:
      return p_.registers;
    case reg::kDevSmClockKhz:
      return static_cast<uint32_t>(clock_.mhz() * 1000.0 + 0.5);
    case reg::kDevL2Bytes:
      return device_.l2_bytes;
    case reg::kDevMemClockKhz:
      return device_.mem_clock_khz;
    case reg::kDevMemBusBits:
      return device_.mem_bus_bits;
    case reg::kDevGlobalMib:
      return device_.global_mib;
    case reg::kDevLocalBytes:
      return p_.local_bytes;
    default:
      return 0;  // a hole in the block (word aligned): reads as 0
  }
}

bool Dispatcher::validate(const sm::KernelLaunch& k) {
  std::string why;
  const uint64_t threads = k.block.count();
  const sm::BlockFootprint f = sm::footprint(k, p_.warp_size, p_.register_granule);
  if (k.grid.x == 0 || k.grid.y == 0 || k.grid.z == 0) {
    why = fmt::format("grid ({},{},{}) has a zero dimension", k.grid.x, k.grid.y, k.grid.z);
  } else if (k.grid.x > sm::kMaxGridX || k.grid.y > sm::kMaxGridYZ || k.grid.z > sm::kMaxGridYZ) {
    why = fmt::format("grid ({},{},{}) is larger than ({},{},{}) blocks", k.grid.x, k.grid.y, k.grid.z, sm::kMaxGridX,
                      sm::kMaxGridYZ, sm::kMaxGridYZ);
  } else if (k.block.x == 0 || k.block.y == 0 || k.block.z == 0) {
    why = fmt::format("block ({},{},{}) has a zero dimension", k.block.x, k.block.y, k.block.z);
  } else if (threads > p_.max_threads_per_block || threads > p_.max_threads) {
    // A block must fit both limits: name the smaller, with its own value.
    const bool per_block = p_.max_threads_per_block <= p_.max_threads;
    why = fmt::format("block ({},{},{}) has {} threads; the limit is {}={}", k.block.x, k.block.y, k.block.z,
                      threads == UINT64_MAX ? std::string("more than 2^64") : std::to_string(threads),
                      per_block ? "sm.max_threads_per_block" : "sm.max_threads",
                      per_block ? p_.max_threads_per_block : p_.max_threads);
  } else if (k.record != nullptr && k.record->max_threads != 0 && threads > k.record->max_threads) {
    why = fmt::format("block ({},{},{}) has {} threads; the kernel's __launch_bounds__ allows {}", k.block.x, k.block.y,
                      k.block.z, threads, k.record->max_threads);
  } else if (k.shared_bytes > p_.shared_bytes) {
    why = fmt::format(
        "{} bytes of shared memory per block ({} of static __shared__ variables, {} dynamic); an SM has "
        "sm.shared_bytes={}",
        k.shared_bytes, k.static_bytes, k.dynamic_bytes, p_.shared_bytes);
  } else if (k.record != nullptr && f.registers > p_.registers) {
    why = fmt::format(
        "its record charges {} registers per thread; x {} threads that is {} registers; an SM has sm.registers={}",
        k.regs_per_thread, threads, f.registers, p_.registers);
  } else if (f.registers > p_.registers) {
    why = fmt::format("{} registers per thread x {} threads need {} registers; an SM has sm.registers={}",
                      k.regs_per_thread, threads, f.registers, p_.registers);
  } else if (f.warps > p_.max_warps) {
    why = fmt::format("{} warps per block; an SM holds sm.max_warps={}", f.warps, p_.max_warps);
  } else if (k.start_pc & 3) {
    why = fmt::format("start pc 0x{:08x} is not aligned", k.start_pc);
  }
  if (why.empty()) return true;
  run_.stop(sim::ExitKind::kBadLaunch, sim::kStatusBadLaunch,
            k.record != nullptr ? fmt::format("{}: bad kernel launch (kernel '{}' at 0x{:08x}): {}", name(),
                                              k.record->name, k.kernel, why)
                                : fmt::format("{}: bad kernel launch (kernel 0x{:08x}): {}", name(), k.kernel, why));
  return false;
}

double Dispatcher::kernel_host_seconds() const {
  if (!running_) return kernel_host_seconds_;
  return kernel_host_seconds_ +
         std::chrono::duration<double>(std::chrono::steady_clock::now() - kernel_host_start_).count();
}

void Dispatcher::launch(const sm::KernelLaunch& k) {
  current_ = k;
  running_ = true;
  kernel_host_start_ = std::chrono::steady_clock::now();
  next_block_ = 0;
  finished_blocks_ = 0;
  total_blocks_ = k.grid.count();
  if (wave_) trace_waves();
  kernel_start_cycle_ = clock_.now_cycle();
  if (observer_) observer_(true, kernel_name(k), k);
  if (inst_trace_) inst_trace_->set_kernel(kernel_name(k));
  if (timeline_)
    for (const int t : kernel_tracks_)
      timeline_->begin(t, fmt::format("kernel {} {}", k.id, kernel_name(k)),
                       sim::Timeline::cycle_ps(clock_, kernel_start_cycle_),
                       fmt::format(R"({{"pc":"0x{:08x}","grid":[{},{},{}],"block":[{},{},{}]}})", k.kernel, k.grid.x,
                                   k.grid.y, k.grid.z, k.block.x, k.block.y, k.block.z));
  log_.info("kernel {} '{}' at 0x{:08x}: grid ({},{},{}) block ({},{},{}) shared {} B, {} registers per thread", k.id,
            k.record != nullptr ? k.record->name : std::string("?"), k.kernel, k.grid.x, k.grid.y, k.grid.z, k.block.x,
            k.block.y, k.block.z, k.shared_bytes, k.regs_per_thread);
  request_placement();
}

void Dispatcher::request_placement() { place_.notify(sc_core::sc_time(1, sc_core::SC_PS)); }

void Dispatcher::place_blocks() {
  if (!running_) return;
  // Round robin over SMs, one block per SM per round, so a grid spreads
  // across the chip before any SM fills up.
  bool placed = true;
  while (placed && next_block_ < total_blocks_) {
    placed = false;
    for (size_t n = 0; n < sms_.size() && next_block_ < total_blocks_; ++n) {
      const unsigned at = rr_;
      sm::BlockLaunchIf* s = sms_[at];
      rr_ = static_cast<unsigned>((rr_ + 1) % sms_.size());
      if (!s->can_accept(current_)) continue;
      s->start_block(current_, next_block_++);
      if (wave_) ++sm_blocks_[at];
      placed = true;
    }
  }
  if (wave_) trace_waves();
}

void Dispatcher::block_finished(sm::BlockLaunchIf& sm) {
  count_finished();
  if (!wave_) return;
  const auto at = static_cast<size_t>(std::find(sms_.begin(), sms_.end(), &sm) - sms_.begin());
  if (at < sm_blocks_.size() && sm_blocks_[at] > 0) --sm_blocks_[at];
  trace_waves();
}

void Dispatcher::count_finished() {
  ++blocks_;
  if (!running_) return;
  ++finished_blocks_;
  if (finished_blocks_ < total_blocks_) {
    request_placement();
    return;
  }
  running_ = false;
  static const uint64_t ticks_per_ps = sc_core::sc_time(1, sc_core::SC_PS).value();
  kernel_end_ps_[kernels_ % kKernelEndsKept] = sc_core::sc_time_stamp().value() / ticks_per_ps;
  ++kernels_;
  kernel_cycles_ += clock_.now_cycle() - kernel_start_cycle_;
  kernel_host_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - kernel_host_start_).count();
  if (timeline_)
    for (const int t : kernel_tracks_) timeline_->end(t, sim::Timeline::cycle_ps(clock_, clock_.now_cycle()));
  log_.info("kernel {} done after {} cycles", current_.id, clock_.now_cycle() - kernel_start_cycle_);
  if (observer_) observer_(false, kernel_name(current_), current_);
  if (!queue_.empty()) {
    const sm::KernelLaunch k = queue_.front();
    queue_.pop_front();
    launch(k);
  }
  for (sim::InterruptIf* irq : irq_port.bound()) irq->raise();
}

void Dispatcher::set_timeline(sim::Timeline* t) {
  timeline_ = t;
  if (!t) return;
  kernel_tracks_.push_back(t->track(name(), "kernels"));
  for (const sm::BlockLaunchIf* s : sms_) kernel_tracks_.push_back(t->track(s->sm_name(), "kernel"));
}

std::string Dispatcher::kernel_name(const sm::KernelLaunch& k) const {
  if (k.record != nullptr) return k.record->name;
  if (image_ != nullptr) {
    const isa::FunctionSymbol* f = image_->code_names().function_at(k.kernel);
    if (f != nullptr && f->addr == k.kernel) return f->name;
  }
  return fmt::format("at 0x{:08x}", k.kernel);
}

std::string Dispatcher::describe() const {
  if (!running_) return "  no kernel is running\n";
  return fmt::format("  kernel '{}' (launch {}, at {}): {} of {} blocks finished, {} placed\n", kernel_name(current_),
                     current_.id,
                     image_ != nullptr ? image_->format_pc(current_.kernel) : fmt::format("0x{:08x}", current_.kernel),
                     finished_blocks_, total_blocks_, next_block_);
}

}  // namespace tessera::gpu
