// Kernel record: reads the linked ELF with libelf, decodes each kernel's
// call graph with the ISA decoder and follows the link-time relocations
// (--emit-relocs) to the __shared__ variables it references.
#include "isa/kernel_record.h"

#include <cxxabi.h>

#include <cstdlib>

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <bitset>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "isa/isa.h"

namespace tessera::isa {

namespace {
// A C++ kernel's name as the programmer wrote it ("scale(float*, int)",
// "void add<float, 64>(float*, float, int)"); C names unchanged.
std::string demangle(const std::string& symbol) {
  if (symbol.rfind("_Z", 0) != 0) return symbol;
  int status = 0;
  char* text = abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return symbol;
  std::string name(text);
  std::free(text);
  return name;
}
}  // namespace

unsigned launch_bounds_register_limit(unsigned max_threads, unsigned min_blocks, unsigned sm_registers) {
  if (max_threads == 0) return 0;
  const uint64_t threads = (uint64_t{max_threads} + 31) / 32 * 32;
  const uint64_t blocks = min_blocks == 0 ? 1 : min_blocks;
  return static_cast<unsigned>(std::min<uint64_t>(kRegistersPerThread, sm_registers / (blocks * threads)));
}

namespace {

constexpr uint32_t kNop = 0x00000013;  // addi x0, x0, 0
constexpr unsigned kSp = 2, kRa = 1;
// RISC-V relocation types (psABI) that name code, not data.
constexpr unsigned kRelBranch = 16, kRelJal = 17, kRelCall = 18, kRelCallPlt = 19, kRelPcrelLo12I = 24,
                   kRelPcrelLo12S = 25, kRelRelax = 51, kRelAlign = 43;

struct Section {
  std::string name;
  uint32_t addr = 0, size = 0;
  uint64_t flags = 0;
  unsigned type = 0;
  const uint8_t* bytes = nullptr;  // nullptr for NOBITS
};

struct Symbol {
  std::string name;
  uint32_t value = 0, size = 0;
  unsigned type = 0, bind = 0, shndx = 0;
};

struct Reloc {
  uint32_t offset = 0;  // address of the instruction
  uint32_t target = 0;  // S + A
  unsigned type = 0;
};

// Owns the file and the libelf handle; fail() names the file.
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {
    if (elf_version(EV_CURRENT) == EV_NONE) fail(std::string("libelf initialisation failed: ") + elf_errmsg(-1));
    handle_.fd = ::open(path.c_str(), O_RDONLY);
    if (handle_.fd < 0) fail(std::string("cannot open: ") + std::strerror(errno));
    handle_.elf = elf_begin(handle_.fd, ELF_C_READ, nullptr);
    if (handle_.elf == nullptr || elf_kind(handle_.elf) != ELF_K_ELF) fail("is not an ELF file");
    GElf_Ehdr eh;
    if (gelf_getehdr(handle_.elf, &eh) == nullptr || gelf_getclass(handle_.elf) != ELFCLASS32 ||
        eh.e_machine != EM_RISCV || eh.e_type != ET_EXEC)
      fail("is not a 32-bit RISC-V executable");
    size_t shstrndx = 0;
    if (elf_getshdrstrndx(handle_.elf, &shstrndx) != 0) fail("has no section name table");
    size_t count = 0;
    elf_getshdrnum(handle_.elf, &count);
    sections_.resize(count);
    for (Elf_Scn* scn = elf_nextscn(handle_.elf, nullptr); scn != nullptr; scn = elf_nextscn(handle_.elf, scn)) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr) continue;
      const size_t index = elf_ndxscn(scn);
      Section& s = sections_[index];
      const char* name = elf_strptr(handle_.elf, shstrndx, sh.sh_name);
      s.name = name ? name : "";
      s.addr = static_cast<uint32_t>(sh.sh_addr);
      s.size = static_cast<uint32_t>(sh.sh_size);
      s.flags = sh.sh_flags;
      s.type = sh.sh_type;
      Elf_Data* data = sh.sh_type == SHT_NOBITS ? nullptr : elf_getdata(scn, nullptr);
      if (data != nullptr && data->d_size >= sh.sh_size) s.bytes = static_cast<const uint8_t*>(data->d_buf);
      if (sh.sh_type == SHT_SYMTAB) read_symbols(scn, sh);
    }
    for (Elf_Scn* scn = elf_nextscn(handle_.elf, nullptr); scn != nullptr; scn = elf_nextscn(handle_.elf, scn)) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_RELA) continue;
      if (sh.sh_info >= sections_.size() || !(sections_[sh.sh_info].flags & SHF_ALLOC)) continue;
      const bool code = (sections_[sh.sh_info].flags & SHF_EXECINSTR) != 0;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (data == nullptr || sh.sh_entsize == 0) continue;
      for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; ++k) {
        GElf_Rela r;
        if (gelf_getrela(data, static_cast<int>(k), &r) == nullptr) continue;
        const size_t sym = GELF_R_SYM(r.r_info);
        Reloc rel;
        rel.offset = static_cast<uint32_t>(r.r_offset);
        rel.type = static_cast<unsigned>(GELF_R_TYPE(r.r_info));
        rel.target = static_cast<uint32_t>((sym < symbols_.size() ? symbols_[sym].value : 0) + r.r_addend);
        if (code)
          relocs_.push_back(rel);
        else
          data_refs_.push_back(rel.target);  // a jump table's entries, function pointers
      }
    }
    std::sort(relocs_.begin(), relocs_.end(), [](const Reloc& a, const Reloc& b) { return a.offset < b.offset; });
    std::sort(data_refs_.begin(), data_refs_.end());
  }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    throw KernelRecordError("kernel record of '" + path_ + "': " + what);
  }

  const std::vector<Section>& sections() const { return sections_; }
  const std::vector<Symbol>& symbols() const { return symbols_; }
  const std::vector<Reloc>& relocs() const { return relocs_; }
  // Does data (a switch's jump table) hold an address strictly inside (lo, lo + size)?
  bool data_points_into(uint32_t lo, uint32_t size) const {
    auto it = std::upper_bound(data_refs_.begin(), data_refs_.end(), lo);
    return it != data_refs_.end() && *it - lo < size;
  }

  const Section* section(const std::string& name) const {
    for (const Section& s : sections_)
      if (s.name == name) return &s;
    return nullptr;
  }
  // The executable section holding addr, or nullptr.
  const Section* code_at(uint32_t addr) const {
    for (const Section& s : sections_)
      if ((s.flags & SHF_EXECINSTR) && s.bytes && addr - s.addr < s.size) return &s;
    return nullptr;
  }
  std::optional<uint32_t> word(uint32_t addr) const {
    const Section* s = code_at(addr);
    if (s == nullptr || addr - s->addr + 4 > s->size) return std::nullopt;
    uint32_t w = 0;
    std::memcpy(&w, s->bytes + (addr - s->addr), 4);
    return w;
  }

 private:
  void read_symbols(Elf_Scn* scn, const GElf_Shdr& sh) {
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || sh.sh_entsize == 0) return;
    const size_t count = sh.sh_size / sh.sh_entsize;
    symbols_.resize(count);
    for (size_t k = 0; k < count; ++k) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(k), &sym) == nullptr) continue;
      Symbol& s = symbols_[k];
      const char* name = elf_strptr(handle_.elf, sh.sh_link, sym.st_name);
      s.name = name ? name : "";
      s.value = static_cast<uint32_t>(sym.st_value);
      s.size = static_cast<uint32_t>(sym.st_size);
      s.type = GELF_ST_TYPE(sym.st_info);
      s.bind = GELF_ST_BIND(sym.st_info);
      s.shndx = sym.st_shndx;
    }
  }

  std::string path_;
  // Closed by its destructor, which runs also when the constructor throws
  // (a destructor of Reader itself would not).
  struct Handle {
    int fd = -1;
    Elf* elf = nullptr;
    ~Handle() {
      if (elf != nullptr) elf_end(elf);
      if (fd >= 0) ::close(fd);
    }
  } handle_;
  std::vector<Section> sections_;
  std::vector<Symbol> symbols_;
  std::vector<Reloc> relocs_;
  std::vector<uint32_t> data_refs_;
};

struct Function {
  std::string name;
  uint32_t start = 0, size = 0;
};

// What one function uses by itself.
struct Local {
  std::bitset<kRegistersPerThread> regs;
  std::set<uint32_t> callees;  // function starts
  std::vector<std::string> notes;
  bool indirect = false, dynamic_stack = false, recursive = false;
  uint32_t frame = 0;
  unsigned fp64 = 0;                               // D-extension instructions
  std::set<std::pair<uint32_t, uint32_t>> shared;  // [lo, hi) of referenced variables
};

// Whether an instruction is the D extension's: a double operand, or the FP64 unit.
bool is_fp64(const Inst& i) {
  const OpInfo& o = info(i.op);
  return o.unit == Unit::kDp || o.rd == Reg::kD || o.rs1 == Reg::kD || o.rs2 == Reg::kD;
}

// The registers of an instruction: each register field with a role in the
// opcode table, all `group` registers of a group (dst, src[1], src[2]);
// bit 64 + k for f register k holding a double (its upper half).
void add_registers(const Inst& i, std::bitset<kRegistersPerThread>& r) {
  if (i.op == Op::kIllegal) return;
  const OpInfo& o = info(i.op);
  const std::pair<Reg, uint8_t> fields[4] = {{o.rd, i.rd}, {o.rs1, i.rs1}, {o.rs2, i.rs2}, {o.rs3, i.rs3}};
  for (const auto& [role, field] : fields)
    if (role == Reg::kD) r.set(64 + field);
  if (i.op == Op::kAtomCas) {
    // atom.cas shares custom-1 funct3 7 with atom.cas64 and has always been
    // charged rd, rs2 and rs3 as pairs like it (x0's pair as x1); kept so
    // that register counts, and with them occupancy, do not change.
    if (i.src[0] != kNoReg) r.set(i.src[0]);
    for (const unsigned first : {i.rd, i.rs2, i.rs3})
      for (unsigned k = 0; k < 2; ++k)
        if (first + k != 0 && first + k < 32) r.set(first + k);
    return;
  }
  const uint8_t data[3] = {i.dst, i.src[1], i.src[2]};
  for (const uint8_t first : data) {
    if (first == kNoReg) continue;
    for (unsigned k = 0; k < i.group && first % kFpRegBase + k < 32; ++k) r.set(first + k);
  }
  if (i.src[0] != kNoReg) r.set(i.src[0]);
}

class Analyser {
 public:
  Analyser(const Reader& elf, const Section* shared) : elf_(elf), shared_(shared) {
    for (const Symbol& s : elf.symbols()) {
      if (s.type == STT_FUNC && s.size > 0 && elf.code_at(s.value)) {
        auto [it, fresh] = functions_.emplace(s.value, Function{s.name, s.value, s.size});
        if (!fresh && it->second.name.empty()) it->second.name = s.name;
        // A global name is the one to show for an address with aliases.
        if (!fresh && s.bind == STB_GLOBAL) it->second.name = s.name;
      }
      if (shared_ && (s.type == STT_OBJECT || s.type == STT_NOTYPE) && s.size > 0 &&
          s.value - shared_->addr < shared_->size)
        shared_vars_.push_back(s);
    }
  }

  const Function* function_at(uint32_t addr) const {
    auto it = functions_.upper_bound(addr);
    if (it == functions_.begin()) return nullptr;
    --it;
    return addr - it->second.start < it->second.size ? &it->second : nullptr;
  }

  const Local& local(const Function& f) {
    auto it = locals_.find(f.start);
    if (it != locals_.end()) return it->second;
    Local& l = locals_[f.start];
    scan(f, l);
    return l;
  }

  // Call-graph closure from `f`: everything reachable, in a fixed order.
  std::vector<const Function*> graph(const Function& f) {
    std::vector<const Function*> order{&f};
    std::set<uint32_t> seen{f.start};
    for (size_t n = 0; n < order.size(); ++n) {
      for (const uint32_t c : local(*order[n]).callees) {
        if (!seen.insert(c).second) continue;
        order.push_back(&functions_.at(c));
      }
    }
    return order;
  }

  // Largest chain of frames from f; notes recursion.
  uint32_t stack(const Function& f, std::vector<std::string>& notes) {
    std::set<uint32_t> active;
    std::map<uint32_t, uint32_t> memo;
    std::function<uint32_t(const Function&)> walk = [&](const Function& g) -> uint32_t {
      if (auto m = memo.find(g.start); m != memo.end()) return m->second;
      if (!active.insert(g.start).second) {
        notes.push_back(fmt::format("'{}' is recursive: its stack is counted once", g.name));
        return 0;
      }
      uint32_t deepest = 0;
      for (const uint32_t c : local(g).callees) deepest = std::max(deepest, walk(functions_.at(c)));
      active.erase(g.start);
      return memo[g.start] = local(g).frame + deepest;
    };
    return walk(f);
  }

  bool relocs() const { return !elf_.relocs().empty(); }

 private:
  void call(Local& l, const Function& f, uint32_t pc, uint32_t target) {
    const Function* g = function_at(target);
    if (g == nullptr) {
      l.indirect = true;
      l.notes.push_back(
          fmt::format("'{}' at 0x{:08x} calls 0x{:08x}, which is in no function symbol", f.name, pc, target));
      return;
    }
    if (g->start != f.start) {
      l.callees.insert(g->start);
    } else if (!l.recursive) {
      l.recursive = true;
      l.notes.push_back(fmt::format("'{}' calls itself: its stack is counted once", f.name));
    }
  }

  void scan(const Function& f, Local& l) {
    std::map<unsigned, uint32_t> known;  // registers holding a known constant or address
    // A jr through an unknown register is a switch's jump table when data
    // points into this function; otherwise an indirect tail call.
    const bool jump_table = elf_.data_points_into(f.start, f.size);
    for (uint32_t pc = f.start; pc < f.start + f.size; pc += 4) {
      const auto raw = elf_.word(pc);
      if (!raw) break;
      const Inst i = decode(*raw);
      add_registers(i, l.regs);
      if (is_fp64(i)) ++l.fp64;
      const auto value = [&](unsigned r) -> std::optional<uint32_t> {
        if (r == 0) return 0u;
        const auto it = known.find(r);
        if (it == known.end()) return std::nullopt;
        return it->second;
      };
      std::optional<uint32_t> result;
      switch (i.op) {
        case Op::kLui:
          result = static_cast<uint32_t>(i.imm);
          break;
        case Op::kAuipc:
          result = pc + static_cast<uint32_t>(i.imm);
          break;
        case Op::kAddi:
          if (const auto v = value(i.rs1)) result = *v + static_cast<uint32_t>(i.imm);
          if (i.rd == kSp && i.rs1 == kSp && i.imm < 0) l.frame += static_cast<uint32_t>(-i.imm);
          break;
        case Op::kAdd:
        case Op::kSub:
          if (i.rd == kSp && (i.rs1 == kSp || i.rs2 == kSp)) {
            const unsigned other = i.rs1 == kSp ? i.rs2 : i.rs1;
            const auto v = value(other);
            const int32_t delta = v ? (i.op == Op::kAdd ? static_cast<int32_t>(*v) : -static_cast<int32_t>(*v)) : 0;
            if (!v) {
              l.dynamic_stack = true;
            } else if (delta < 0) {
              l.frame += static_cast<uint32_t>(-delta);
            }
          }
          break;
        case Op::kJal:
          if (i.rd != 0) {
            call(l, f, pc, pc + static_cast<uint32_t>(i.imm));
          } else {
            const uint32_t target = pc + static_cast<uint32_t>(i.imm);
            if (target - f.start >= f.size) call(l, f, pc, target);  // a tail call
          }
          break;
        case Op::kJalr: {
          const auto base = value(i.rs1);
          if (base) {
            const uint32_t target = (*base + static_cast<uint32_t>(i.imm)) & ~1u;
            if (i.rd != 0 || target - f.start >= f.size) call(l, f, pc, target);
          } else if (i.rd != 0) {
            l.indirect = true;
            l.notes.push_back(fmt::format("'{}' makes an indirect call at 0x{:08x}", f.name, pc));
          } else if (i.rs1 != kRa && !jump_table) {
            l.indirect = true;
            l.notes.push_back(fmt::format("'{}' makes an indirect tail call (jr) at 0x{:08x}", f.name, pc));
          }
          break;
        }
        default:
          break;
      }
      if (i.dst != kNoReg && i.dst < 32) {
        if (result)
          known[i.dst] = *result;
        else
          known.erase(i.dst);
      }
      // After a call the caller-saved registers are unknown.
      if ((i.op == Op::kJal || i.op == Op::kJalr) && i.rd != 0) known.clear();
    }
    if (l.dynamic_stack)
      l.notes.push_back(fmt::format("'{}' moves sp by a run-time amount (alloca or a variable-length array)", f.name));
    // __shared__ variables: relocations of the function's instructions.
    if (shared_ == nullptr) return;
    const auto& rel = elf_.relocs();
    auto it =
        std::lower_bound(rel.begin(), rel.end(), f.start, [](const Reloc& r, uint32_t a) { return r.offset < a; });
    for (; it != rel.end() && it->offset - f.start < f.size; ++it) {
      switch (it->type) {
        case kRelBranch:
        case kRelJal:
        case kRelCall:
        case kRelCallPlt:
        case kRelPcrelLo12I:
        case kRelPcrelLo12S:
        case kRelRelax:
        case kRelAlign:
          continue;
        default:
          break;
      }
      const uint32_t a = it->target;
      if (a - shared_->addr >= shared_->size) continue;
      bool found = false;
      for (const Symbol& v : shared_vars_) {
        if (a - v.value < v.size) {
          l.shared.emplace(v.value, v.value + v.size);
          found = true;
          break;
        }
      }
      // Not inside a sized symbol: all of the section, conservatively.
      if (!found) l.shared.emplace(shared_->addr, shared_->addr + shared_->size);
    }
  }

  const Reader& elf_;
  const Section* shared_;
  std::map<uint32_t, Function> functions_;
  std::map<uint32_t, Local> locals_;
  std::vector<Symbol> shared_vars_;
};

// ".text.tessera.kres.T.B.R" -> overrides; false when the name has the
// prefix but not three numbers.
bool read_overrides(const std::string& section, KernelRecord& k) {
  static const std::string prefix = ".text.tessera.kres.";
  if (section.compare(0, prefix.size(), prefix) != 0) return true;
  unsigned t = 0, b = 0, r = 0;
  char end = 0;
  if (std::sscanf(section.c_str() + prefix.size(), "%u.%u.%u%c", &t, &b, &r, &end) != 3) return false;
  k.max_threads = t;
  k.min_blocks = b;
  k.maxrreg = r;
  return true;
}

}  // namespace

KernelTable analyse_kernels(const std::string& elf_path, unsigned sm_registers) {
  Reader elf(elf_path);
  const Section* shared = elf.section(".shared");
  if (shared != nullptr && shared->size == 0) shared = nullptr;
  Analyser an(elf, shared);
  KernelTable table;
  const Section* marks = elf.section("__patchable_function_entries");
  if (marks == nullptr || marks->bytes == nullptr) return table;
  std::set<uint32_t> entries;
  for (uint32_t off = 0; off + 4 <= marks->size; off += 4) {
    uint32_t nop_at = 0;
    std::memcpy(&nop_at, marks->bytes + off, 4);
    if (nop_at == 0) continue;  // a discarded function
    if (elf.word(nop_at) != kNop)
      elf.fail(fmt::format("kernel mark 0x{:08x} does not point at the nop TESSERA_KERNEL places", nop_at));
    entries.insert(nop_at + 4);
  }
  for (const uint32_t entry : entries) {
    const Function* f = an.function_at(entry);
    if (f == nullptr || f->start != entry)
      elf.fail(fmt::format("kernel entry 0x{:08x} is not the start of a function symbol", entry));
    KernelRecord k;
    k.name = demangle(f->name);
    k.entry = entry;
    if (!read_overrides(elf.code_at(entry)->name, k))
      elf.fail(
          fmt::format("kernel '{}' is in section {}: __launch_bounds__, TESSERA_MAXRREG and "
                      "TESSERA_KERNEL_LIMITS take integer constants",
                      k.name, elf.code_at(entry)->name));
    std::bitset<kRegistersPerThread> regs;
    bool indirect = false;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (const Function* g : an.graph(*f)) {
      const Local& l = an.local(*g);
      regs |= l.regs;
      indirect |= l.indirect;
      k.fp64_instructions += l.fp64;
      for (const std::string& n : l.notes) k.notes.push_back(n);
      for (const auto& [a, b] : l.shared) {
        lo = std::min(lo, a);
        hi = std::max(hi, b);
      }
    }
    k.registers_used = static_cast<unsigned>(regs.count());
    if (indirect) {
      k.registers_used = std::max(k.registers_used, kIndirectCallRegisters);
      k.notes.push_back(fmt::format("an indirect call: at least {} registers are counted (every x and f register)",
                                    kIndirectCallRegisters));
    }
    k.stack_bytes = an.stack(*f, k.notes);
    if (shared != nullptr && !an.relocs()) {
      lo = shared->addr;
      hi = shared->addr + shared->size;
      k.notes.push_back("linked without --emit-relocs: the static shared window is all of .shared");
    }
    if (hi > lo) {
      k.shared_lo = lo / kSharedWindowAlign * kSharedWindowAlign;
      k.shared_bytes = hi - k.shared_lo;
    } else {
      k.shared_lo = shared != nullptr ? shared->addr : kSharedWindowBase;
      k.shared_bytes = 0;
    }
    const unsigned lb = launch_bounds_register_limit(k.max_threads, k.min_blocks, sm_registers);
    k.register_limit = lb;
    if (k.maxrreg != 0) k.register_limit = k.register_limit == 0 ? k.maxrreg : std::min(k.register_limit, k.maxrreg);
    k.registers = k.register_limit != 0 ? std::min(k.registers_used, k.register_limit) : k.registers_used;
    if (k.registers < k.registers_used)
      k.notes.push_back(fmt::format("uses {} registers; its limit is {}: charged {} (hardware would spill)",
                                    k.registers_used, k.register_limit, k.registers));
    table.kernels.push_back(std::move(k));
  }
  std::sort(table.kernels.begin(), table.kernels.end(),
            [](const KernelRecord& a, const KernelRecord& b) { return a.entry < b.entry; });
  return table;
}

std::string kernels_to_json(const KernelTable& table) {
  nlohmann::ordered_json out;
  out["version"] = 1;
  out["kernels"] = nlohmann::ordered_json::array();
  for (const KernelRecord& k : table.kernels) {
    nlohmann::ordered_json j;
    j["name"] = k.name;
    j["entry"] = k.entry;
    j["registers"] = k.registers;
    j["registers_used"] = k.registers_used;
    j["register_limit"] = k.register_limit;
    j["max_threads"] = k.max_threads;
    j["min_blocks"] = k.min_blocks;
    j["maxrreg"] = k.maxrreg;
    j["shared_lo"] = k.shared_lo;
    j["shared_bytes"] = k.shared_bytes;
    j["stack_bytes"] = k.stack_bytes;
    j["fp64_instructions"] = k.fp64_instructions;
    j["notes"] = k.notes;
    out["kernels"].push_back(j);
  }
  return out.dump(1) + "\n";
}

KernelTable kernels_from_json(const std::string& text) {
  KernelTable table;
  try {
    const auto in = nlohmann::json::parse(text);
    if (in.at("version").get<int>() != 1)
      throw KernelRecordError(fmt::format("kernel record version {} is not 1", in.at("version").dump()));
    for (const auto& j : in.at("kernels")) {
      KernelRecord k;
      k.name = j.at("name").get<std::string>();
      k.entry = j.at("entry").get<uint32_t>();
      k.registers = j.at("registers").get<unsigned>();
      k.registers_used = j.at("registers_used").get<unsigned>();
      k.register_limit = j.at("register_limit").get<unsigned>();
      k.max_threads = j.at("max_threads").get<unsigned>();
      k.min_blocks = j.at("min_blocks").get<unsigned>();
      k.maxrreg = j.at("maxrreg").get<unsigned>();
      k.shared_lo = j.at("shared_lo").get<uint32_t>();
      k.shared_bytes = j.at("shared_bytes").get<uint32_t>();
      k.stack_bytes = j.at("stack_bytes").get<uint32_t>();
      // Records written before the D extension have no FP64 instructions.
      k.fp64_instructions = j.value("fp64_instructions", 0u);
      k.notes = j.at("notes").get<std::vector<std::string>>();
      table.kernels.push_back(std::move(k));
    }
  } catch (const nlohmann::json::exception& e) {
    throw KernelRecordError(std::string("bad kernel record (.tessera.kernels): ") + e.what());
  }
  return table;
}

std::string describe(const KernelRecord& k) {
  std::string s = fmt::format("kernel '{}': {} registers, {} bytes static shared, {} bytes stack", k.name, k.registers,
                              k.shared_bytes, k.stack_bytes);
  if (k.max_threads != 0) s += fmt::format(", __launch_bounds__({}, {})", k.max_threads, k.min_blocks);
  if (k.maxrreg != 0) s += fmt::format(", maxrreg {}", k.maxrreg);
  if (k.fp64_instructions != 0) s += fmt::format(", {} FP64 instructions", k.fp64_instructions);
  return s;
}

}  // namespace tessera::isa
