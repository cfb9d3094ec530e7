// The control cores' vector units (docs/vector.md, "On the control cores"):
// a vector word goes to the core's VectorUnit, which executes it with the
// ISA library and times it; the core goes on once the unit's issue queue
// takes it, or once the result is ready for the few instructions that write
// a scalar register. Loads and stores take their data either element by
// element through the core's coherent L1D (vector.memory: cluster) or from
// the banked vector memory, a coherent port beside the bus timed by its
// banks (vector.memory: banked).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cpu/control_cluster.h"

namespace tessera::cpu {

namespace {

using isa::vec::VInst;
using isa::vec::VOp;

// Reads zeros and fails the accesses `why` refuses (the plan of a load or
// store, and the banked path's checks). `why` judges a whole byte range, so
// a 4 KiB page (or, in a page that holds code or a guard, a 64-byte block)
// found clear once clears every element inside it: a call or two per
// instruction instead of one per element.
class CheckedMemory : public isa::vec::VectorMemory {
 public:
  explicit CheckedMemory(std::function<std::string(uint32_t, unsigned, bool)> why) : why_(std::move(why)) {}
  isa::MemStatus read(uint32_t addr, unsigned bytes, uint8_t*) override { return check(addr, bytes, false); }
  isa::MemStatus write(uint32_t addr, unsigned bytes, const uint8_t*) override { return check(addr, bytes, true); }
  const std::string& refusal() const { return refusal_; }

 protected:
  isa::MemStatus check(uint32_t addr, unsigned bytes, bool store) {
    for (const Clear& c : clear_[store])
      if ((addr & ~(c.bytes - 1)) == c.base && ((addr + bytes - 1) & ~(c.bytes - 1)) == c.base)
        return isa::MemStatus::kOk;
    refusal_ = why_(addr, bytes, store);
    if (!refusal_.empty()) return isa::MemStatus::kAccessFault;
    for (Clear& c : clear_[store]) {
      const uint32_t base = addr & ~(c.bytes - 1);
      if (why_(base, c.bytes, store).empty()) {
        c.base = base;
        break;
      }
    }
    return isa::MemStatus::kOk;
  }

 private:
  struct Clear {
    uint32_t bytes, base;  // base 1 (never a multiple of bytes): none yet
  };
  std::function<std::string(uint32_t, unsigned, bool)> why_;
  std::string refusal_;
  Clear clear_[2][2] = {{{4096, 1}, {64, 1}}, {{4096, 1}, {64, 1}}};  // loads, stores: page, block
};

// The second pass of a load or store made through the L1D: the accesses
// already happened in the engine; reads return what they read, in order.
class ReplayMemory final : public CheckedMemory {
 public:
  ReplayMemory(std::function<std::string(uint32_t, unsigned, bool)> why, const std::vector<uint32_t>& loaded)
      : CheckedMemory(std::move(why)), loaded_(loaded) {}
  isa::MemStatus read(uint32_t addr, unsigned bytes, uint8_t* data) override {
    const isa::MemStatus s = check(addr, bytes, false);
    if (s != isa::MemStatus::kOk) return s;
    const uint32_t v = loaded_.at(next_++);
    for (unsigned b = 0; b < bytes; ++b) data[b] = static_cast<uint8_t>(v >> (8 * b));
    return s;
  }
  isa::MemStatus write(uint32_t addr, unsigned bytes, const uint8_t*) override {
    const isa::MemStatus s = check(addr, bytes, true);
    if (s == isa::MemStatus::kOk) ++next_;
    return s;
  }

 private:
  const std::vector<uint32_t>& loaded_;
  size_t next_ = 0;
};

// The banked path: the newest copy of each byte, wherever it is, and writes
// to memory and every cached copy (bus::Cluster's coherent debug port; the
// caller waits until no bus transaction is in flight). The port moves whole
// lines: a load reads each line it touches once, and a store's consecutive
// elements in one line are written together by flush() (the instruction
// neither reads what it writes nor writes what it reads).
class BankedMemory final : public CheckedMemory {
 public:
  BankedMemory(std::function<std::string(uint32_t, unsigned, bool)> why, bus::Cluster& engine)
      : CheckedMemory(std::move(why)),
        engine_(engine),
        line_bytes_(engine.line_bytes()),
        line_mask_(~(engine.line_bytes() - 1)),
        line_(engine.line_bytes()) {}
  isa::MemStatus read(uint32_t addr, unsigned bytes, uint8_t* data) override {
    const isa::MemStatus s = check(addr, bytes, false);
    if (s == isa::MemStatus::kOk) copy_out(addr, bytes, data);
    return s;
  }
  isa::MemStatus write(uint32_t addr, unsigned bytes, const uint8_t* data) override {
    const isa::MemStatus s = check(addr, bytes, true);
    if (s == isa::MemStatus::kOk) put(addr, bytes, data);
    return s;
  }
  // A span is checked line by line first (the page or block found clear
  // clears the rest at once), then moved a line (loads) or an element
  // (stores) at a time, as the element accesses would be.
  bool read_span(uint32_t addr, uint32_t bytes, unsigned, uint8_t* data) override {
    if (!clear(addr, bytes, false)) return false;
    for (uint32_t done = 0; done < bytes;) {
      const uint32_t a = addr + done;
      const uint32_t n = std::min(bytes - done, line_bytes_ - (a & (line_bytes_ - 1)));
      copy_out(a, n, data + done);
      done += n;
    }
    return true;
  }
  bool write_span(uint32_t addr, uint32_t bytes, unsigned element_bytes, const uint8_t* data) override {
    if (!clear(addr, bytes, true)) return false;
    for (uint32_t done = 0; done < bytes; done += element_bytes) put(addr + done, element_bytes, data + done);
    return true;
  }
  // Writes the pieces gathered for the current line (after the instruction).
  void flush() {
    if (!pieces_.empty()) engine_.debug_write_line(write_line_, pieces_.data(), pieces_.size());
    pieces_.clear();
  }
  uint64_t bytes_read = 0, bytes_written = 0;

 private:
  // Whether every byte of [addr, addr + bytes) may be accessed.
  bool clear(uint32_t addr, uint32_t bytes, bool store) {
    for (uint32_t done = 0; done < bytes;) {
      const uint32_t a = addr + done;
      const uint32_t n = std::min(bytes - done, line_bytes_ - (a & (line_bytes_ - 1)));
      if (check(a, n, store) != isa::MemStatus::kOk) return false;
      done += n;
    }
    return true;
  }
  // Bytes of one line to `data`.
  void copy_out(uint32_t addr, unsigned bytes, uint8_t* data) {
    const uint32_t line = addr & line_mask_;
    if (line != read_line_) {
      engine_.debug_read_line(line, line_.data());
      read_line_ = line;
    }
    std::memcpy(data, &line_[addr - line], bytes);
    bytes_read += bytes;
  }
  // One element of a store, written with its line's others by flush().
  void put(uint32_t addr, unsigned bytes, const uint8_t* data) {
    const uint32_t line = addr & line_mask_;
    if (line != write_line_) flush();
    write_line_ = line;
    uint32_t v = 0;
    for (unsigned b = 0; b < bytes; ++b) v |= uint32_t{data[b]} << (8 * b);
    pieces_.push_back({addr - line, bytes, v});
    bytes_written += bytes;
  }

  static constexpr uint32_t kNoLine = 1;  // not line-aligned: never a line
  bus::Cluster& engine_;
  const uint32_t line_bytes_;
  const uint32_t line_mask_;
  std::vector<uint8_t> line_;
  uint32_t read_line_ = kNoLine, write_line_ = kNoLine;
  std::vector<bus::Cluster::DebugPiece> pieces_;
};

// Instructions whose result goes to a scalar register: the core waits for it.
bool writes_scalar(VOp op) {
  return op == VOp::kVmvXS || op == VOp::kVfmvFS || op == VOp::kVcpop || op == VOp::kVfirst;
}

}  // namespace

ControlCluster::Step ControlCluster::on_vector(Pass& p) {
  if (p.inst.op != isa::Op::kIllegal) return Step::kNext;
  // Not a scalar instruction: a vector one, or illegal (the executor traps later).
  const isa::vec::VInst& v = vector_inst(p.h.state.pc, p.inst.raw);
  if (v.op == isa::vec::VOp::kIllegal) return Step::kNext;
  return run_vector(p.h, v, p.t, p.now) ? Step::kWait : Step::kAgain;
}

const isa::vec::VInst& ControlCluster::vector_inst(uint32_t pc, uint32_t raw) {
  auto it = vector_decoded_.find(pc);
  if (it == vector_decoded_.end()) it = vector_decoded_.emplace(pc, isa::vec::decode_vector(raw)).first;
  return it->second;
}

std::string ControlCluster::vector_refusal(uint32_t addr, unsigned bytes, bool store) const {
  const uint64_t end = uint64_t{addr} + bytes;  // the range [addr, end); at most a page
  if (is_mmio(addr) || is_mmio(static_cast<uint32_t>(end - 1)))
    return "an MMIO register (vector loads and stores address memory only)";
  if (!global_.contains(addr, bytes)) return "outside memory";
  for (const StackGuard& g : stack_guards_)
    if (addr < uint64_t{g.base} + g.bytes && g.base < end)
      return fmt::format("stack overflow into the {}-byte guard of {}", g.bytes, g.stack);
  if (store && program_.overlaps(addr, bytes)) return "the program's code (the executable segment is read-only)";
  return "";
}

void ControlCluster::vector_fault(Hart& h, const isa::vec::VInst& v, const isa::vec::VResult& r) {
  const uint32_t pc = h.state.pc;
  const isa::vec::VectorState& vs = *h.vector;
  const std::string text = isa::vec::disassemble(v);
  std::string what;
  switch (r.trap) {
    case isa::Trap::kIllegalInstruction:
      if (vs.vtype & isa::vec::kVtypeVill)
        what = fmt::format(
            "illegal instruction 0x{:08x} ({}): vtype is not valid (vill is set: no vsetvli yet, or "
            "the last one asked for an unsupported SEW/LMUL)",
            v.raw, text);
      else
        what = fmt::format(
            "illegal instruction 0x{:08x} ({}): its register groups, element widths or vstart "
            "break an RVV 1.0 rule under vtype 0x{:x} (SEW {}, LMUL {}/8), vl {}",
            v.raw, text, vs.vtype, vs.type().sew, vs.type().lmul8, vs.vl);
      break;
    case isa::Trap::kLoadMisaligned:
    case isa::Trap::kStoreMisaligned:
      what = fmt::format("misaligned vector {} of element {} at address 0x{:08x} ({}); vstart = {}",
                         r.trap == isa::Trap::kLoadMisaligned ? "load" : "store", r.element, r.fault_addr, text,
                         vs.vstart);
      break;
    case isa::Trap::kLoadAccessFault:
    case isa::Trap::kStoreAccessFault:
      what = fmt::format("vector {} access fault at element {}, address 0x{:08x}: {} ({}); vstart = {}",
                         r.trap == isa::Trap::kLoadAccessFault ? "load" : "store", r.element, r.fault_addr,
                         vector_refusal(r.fault_addr, 1, r.trap == isa::Trap::kStoreAccessFault), text, vs.vstart);
      break;
    default:
      what = fmt::format("{} ({})", isa::trap_name(r.trap), text);
      break;
  }
  run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
            fmt::format("{}.core{}: {} at pc {}", name(), h.id(), what, pc_text(pc)));
}

bool ControlCluster::run_vector(Hart& h, const isa::vec::VInst& v, uint64_t t, uint64_t now) {
  const unsigned id = h.id();
  const uint32_t pc = h.state.pc;
  vector::VectorUnit* unit = core_vector_unit_[id];
  if (!unit) {
    run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
              fmt::format("{}.core{}: illegal instruction 0x{:08x} ({}) at pc {}: a vector instruction, and "
                          "core {} has no vector unit ({})",
                          name(), id, v.raw, isa::vec::disassemble(v), pc_text(pc), id, vector_unit_settings()));
    return true;
  }
  const unsigned context = vector_context(id);
  if (h.tx_depth > 0) {
    run_.stop(sim::ExitKind::kGuestFault, sim::kStatusGuestFault,
              fmt::format("{}.core{}: {} at pc {} inside a transaction: the vector registers are not part "
                          "of a transaction's checkpoint, so vector instructions cannot run in one",
                          name(), id, isa::vec::disassemble(v), pc_text(pc)));
    return true;
  }
  // A shared unit takes its cores' instructions in the order they reach it:
  // each core hands one over when the engine reaches the core's cycle.
  if (cores_per_vector_unit_ > 1 && t != now) return true;
  const auto why = [this](uint32_t addr, unsigned bytes, bool store) { return vector_refusal(addr, bytes, store); };
  VectorCounters& counters = vector_counters_[id];
  const bool memory = v.is_load() || v.is_store();
  vector::VectorUnit::Step step;
  uint64_t start = t;
  if (memory && vector_params_.memory == vector::MemoryPath::kCluster) {
    VectorAccesses& acc = vector_accesses_[id];
    if (!acc.active) {
      if (t != now) return true;  // accesses issue when the engine reaches the core
      if (draining_) {
        h.ready_at = t + 1;
        return true;
      }
      CheckedMemory check(why);
      unit->plan(v, h.state, check, context);
      acc = VectorAccesses{true, 0, {}, {}, t};
    }
    const vector::VectorUnit::Plan& plan = unit->last_plan(context);
    if (acc.issued < plan.accesses.size()) {
      if (t != now) return true;
      if (draining_) {
        h.ready_at = t + 1;
        return true;
      }
      // The core's L1D port takes one element access at a time.
      const auto& a = plan.accesses[acc.issued++];
      bus::Op op;
      op.kind = a.store ? bus::OpKind::kStore : bus::OpKind::kLoad;
      op.addr = a.addr;
      op.size = a.bytes;
      op.value = a.value;
      (a.store ? counters.bytes_stored : counters.bytes_loaded) += a.bytes;
      issued_at_[id] = t;
      set_mode(h, Hart::Mode::kWaitMemory, t);
      engine_->issue(id, op, [this, &h](uint32_t value) {
        VectorAccesses& p = vector_accesses_[h.id()];
        p.loaded.push_back(value);
        p.arrivals.push_back(engine_->now());
        resume(h);
      });
      return true;
    }
    acc.active = false;
    ReplayMemory replay(why, acc.loaded);
    start = acc.start;
    step = unit->execute(v, h.state, replay, start, &acc.arrivals, context);
  } else if (memory) {
    // Banked: a coherent port beside the bus, used when no bus transaction
    // is in flight (the cluster drains first, as at a coherence point).
    if (t != now) return true;
    if (!engine_->idle()) {
      if (!draining_) ++counters.engine_drains;
      draining_ = true;
      h.ready_at = t + 1;
      return true;
    }
    draining_ = false;
    BankedMemory banked(why, *engine_);
    step = unit->execute(v, h.state, banked, t, nullptr, context);
    banked.flush();  // the elements before a faulting one are written too
    counters.bytes_loaded += banked.bytes_read;
    counters.bytes_stored += banked.bytes_written;
    // Progress for the livelock watchdog, as the engine's stores are: a
    // vector-only loop writes memory through this port alone.
    if (banked.bytes_written) run_.note_change();
  } else {
    CheckedMemory none([](uint32_t, unsigned, bool) { return std::string("not a memory instruction"); });
    step = unit->execute(v, h.state, none, t, nullptr, context);
  }
  if (step.result.trap != isa::Trap::kNone) {
    vector_fault(h, v, step.result);
    return true;
  }
  h.state.pc = pc + 4;
  retired(h, t);
  // Every vector instruction is progress for the watchdog (the cores'
  // register changes, ControlCluster::step_cores): comparing register groups
  // would cost more than the rare vector-only spin it could catch.
  ++register_changes_;
  uint64_t next = t + 1;
  if (step.timed) {
    next = std::max(next, step.timing.accepted + 1);
    if (writes_scalar(v.op)) next = std::max(next, step.timing.complete);
    if (waves_) waves_->vector(id, step.timing.convoy, step.timing.start, step.timing.accepted);
  }
  counters.scalar_wait_cycles += next - (t + 1);
  h.ready_at = next;
  return false;
}

std::string ControlCluster::vector_unit_settings() const {
  if (cores_per_vector_unit_ == 1) return fmt::format("cluster.vector_units = {}", vector_units_.size());
  return fmt::format("cluster.vector_units = {}, cluster.cores_per_vector_unit = {}", vector_units_.size(),
                     cores_per_vector_unit_);
}

void ControlCluster::add_vector_stats(unsigned core) {
  auto g = std::make_unique<sim::StatGroup>("vector", &engine_->core_stats(core));
  // A unit's own counters are in the group of the first core it serves
  // (of every core when units are not shared).
  if (vector_context(core) == 0) add_vector_unit_stats(*g, *core_vector_unit_[core]);
  const VectorCounters& c = vector_counters_[core];
  g->add_counter("bytes_loaded", &c.bytes_loaded, "Bytes read by vector loads");
  g->add_counter("bytes_stored", &c.bytes_stored, "Bytes written by vector stores");
  g->add_counter("scalar_wait_cycles", &c.scalar_wait_cycles,
                 "Cycles the core waited for the issue queue or for a scalar result");
  g->add_counter("engine_drains", &c.engine_drains,
                 "Banked accesses that first waited for the cluster's bus to go idle");
  vector_stats_.push_back(std::move(g));
}

void ControlCluster::add_vector_unit_stats(sim::StatGroup& g, const vector::VectorUnit& unit) {
  const vector::TimingStats& s = unit.stats();
  g.add_counter("instructions", &s.instructions, "Vector instructions timed (vset* not included)");
  g.add_counter("element_ops", &s.element_ops, "Elements processed, masked-off ones included");
  g.add_counter("chimes", &s.convoys, "Convoys executed: one chime each");
  g.add_counter("chained_operands", &s.chained_operands, "Operand reads served by chaining");
  g.add_counter("memory_elements", &s.memory_elements, "Elements loaded or stored");
  g.add_counter("bank_conflict_stalls", &s.bank_conflict_stalls,
                "Cycles elements waited for a busy bank (vector.memory: banked)");
  g.add_counter("busy_cycles", &s.busy_cycles, "Cycles some convoy was executing");
  g.add_counter("element_slots", &s.element_slots, "Lane-cycles in which elements entered pipelines");
  const unsigned lanes = unit.timing().params().lanes;
  g.add_formula(
      "lane_utilisation",
      [&s, lanes] {
        return s.busy_cycles ? static_cast<double>(s.element_ops) / static_cast<double>(s.busy_cycles * lanes) : 0.0;
      },
      "Element operations per lane per busy cycle");
  const unsigned contexts = unit.contexts();
  if (contexts > 1)
    g.add_formula(
        "cores_served", [contexts] { return static_cast<double>(contexts); },
        "Cores sharing this unit, each with its own vector registers (cluster.cores_per_vector_unit)");
}

}  // namespace tessera::cpu
