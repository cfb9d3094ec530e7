// The instruction trace (inst_trace.h).
#include "isa/inst_trace.h"

#include <fnmatch.h>

#include <fmt/format.h>

#include <stdexcept>

namespace tessera::isa {
namespace {

// "A:B" with either side optional; `what` names the option in errors.
std::pair<std::string, std::string> split_range(const std::string& text, const char* what) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos)
    throw std::invalid_argument(
        fmt::format("{}: '{}' is not a range FIRST:LAST (either side may be empty)", what, text));
  return {text.substr(0, colon), text.substr(colon + 1)};
}

// A whole unsigned number in `base`; throws on anything else.
uint64_t parse_number(const std::string& text, int base) {
  if (text.empty() || text[0] == '-' || text[0] == '+') throw std::invalid_argument(text);
  size_t used = 0;
  const unsigned long long v = std::stoull(text, &used, base);
  if (used != text.size()) throw std::invalid_argument(text);
  return v;
}

}  // namespace

void InstTraceFilter::set_cycles(const std::string& text) {
  const auto [a, b] = split_range(text, "--trace-insts-cycles");
  try {
    if (!a.empty()) first_cycle = parse_number(a, 10);
    if (!b.empty()) last_cycle = parse_number(b, 10);
  } catch (const std::exception&) {
    throw std::invalid_argument(
        fmt::format("--trace-insts-cycles: '{}' is not a cycle window FIRST:LAST of decimal cycles", text));
  }
  if (first_cycle > last_cycle)
    throw std::invalid_argument(fmt::format("--trace-insts-cycles: '{}' ends before it starts", text));
}

void InstTraceFilter::set_pcs(const std::string& text, const Symbolizer& names) {
  // A function's name: its whole extent.
  if (text.find(':') == std::string::npos) {
    const auto at = names.address_of(text);
    const FunctionSymbol* f = at ? names.function_at(*at) : nullptr;
    if (f == nullptr || f->size == 0)
      throw std::invalid_argument(fmt::format(
          "--trace-insts-pc: '{}' is neither a range LO:HI of hex addresses nor a function of the program", text));
    pc_lo = f->addr;
    pc_hi = f->addr + f->size - 1;
    return;
  }
  const auto [a, b] = split_range(text, "--trace-insts-pc");
  try {
    if (!a.empty()) pc_lo = static_cast<uint32_t>(parse_number(a, 16));
    if (!b.empty()) pc_hi = static_cast<uint32_t>(parse_number(b, 16));
  } catch (const std::exception&) {
    throw std::invalid_argument(fmt::format(
        "--trace-insts-pc: '{}' is not a range LO:HI of hex addresses (0x80000000:0x80000fff), nor a function", text));
  }
  if (pc_lo > pc_hi) throw std::invalid_argument(fmt::format("--trace-insts-pc: '{}' ends before it starts", text));
}

InstTrace::InstTrace(std::FILE* out, InstTraceFilter filter, const ElfImage& image)
    : filter_(std::move(filter)), image_(image), out_(out), kernel_on_(filter_.kernel.empty()) {
  std::setvbuf(out_, nullptr, _IOFBF, 1 << 20);
  fmt::print(out_,
             "# tessera instruction trace: cycle (of the unit's clock), unit, pc, function+offset (file:line), "
             "[active lanes,] disassembly, register written, memory address\n");
}

int InstTrace::add_unit(const std::string& name, bool sm) {
  if (!sm && !filter_.kernel.empty()) return kOff;
  bool on = filter_.units.empty();
  for (const std::string& glob : filter_.units) on = on || fnmatch(glob.c_str(), name.c_str(), 0) == 0;
  if (!on) return kOff;
  units_.push_back(Unit{name, sm});
  return static_cast<int>(units_.size() - 1);
}

bool InstTraceFilter::kernel_matches(const std::string& name) const {
  if (name == kernel) return true;
  const std::string full = demangle(name);
  return full == kernel || full.rfind(kernel + "(", 0) == 0;  // "bad" for "bad(int*)"
}

void InstTrace::set_kernel(const std::string& name) {
  kernel_on_ = filter_.kernel.empty() || filter_.kernel_matches(name);
}

const std::string& InstTrace::text_of(uint32_t pc, const Inst& inst, const std::string* disassembly) {
  auto it = text_.find(pc);
  if (it == text_.end()) {
    const std::string name = image_.code_names().describe(pc);
    it = text_
             .emplace(pc, fmt::format("0x{:08x} {} | {}", pc, name.empty() ? "?" : name,
                                      disassembly ? *disassembly : disassemble(inst, pc)))
             .first;
  }
  return it->second;
}

void InstTrace::record(int unit, uint64_t cycle, uint32_t pc, const Inst& inst, uint64_t reg, uint32_t addr,
                       uint32_t mask, const std::string* disassembly) {
  fmt::memory_buffer line;
  const Unit& u = units_[static_cast<size_t>(unit)];
  fmt::format_to(std::back_inserter(line), "{:>10} {} ", cycle, u.name);
  if (u.sm) fmt::format_to(std::back_inserter(line), "[0x{:08x}] ", mask);
  const std::string& text = text_of(pc, inst, disassembly);
  line.append(text.data(), text.data() + text.size());
  if (inst.dst != kNoReg) {
    // A double in full; a float NaN-boxed in an f register as its 32 bits.
    if (inst.dst >= kFpRegBase && (reg >> 32) != 0 && (reg >> 32) != 0xFFFFFFFFu)
      fmt::format_to(std::back_inserter(line), " | {}=0x{:016x}", reg_name(inst.dst), reg);
    else
      fmt::format_to(std::back_inserter(line), " | {}=0x{:08x}", reg_name(inst.dst), static_cast<uint32_t>(reg));
  }
  if (inst.mem_bytes != 0 && (inst.exec & kExecFence) == 0)
    fmt::format_to(std::back_inserter(line), " | addr=0x{:08x}", addr);
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), out_);
  ++lines_;
}

}  // namespace tessera::isa
