// Random instruction streams on the chip, under the watchdogs: the input's
// words replace the code of sm_template.c, which control core 0 either runs
// itself or launches as a kernel on the SM of the sm1 platform. Whatever the
// words, the run must end on its own with one of the documented statuses
// (program exit, guest fault 3, bad launch 4, deadlock or livelock 5, cycle
// limit 6) without a crash, a sanitizer report or a hang.
//
// TESSERA_FUZZ_VERBOSE=1 in the environment prints each run's status.
//
// Input: byte 0 bit 0 (1: kernel on the SM, 0: code on control core 0),
// byte 1 (grid: 1 + b % 2 blocks), byte 2 (block: 1 + b % 64 threads), then
// up to 512 little-endian instruction words (the rest stay `exit`).
//
// SystemC elaborates once per process, so every input runs in a child
// process forked from the harness (child_run.h), which reports the child's
// coverage as the input's.
#include <elf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <systemc>
#include <vector>

#include "child_run.h"
#include "fuzz_util.h"
#include "isa/elf_loader.h"
#include "platforms/platform.h"
#include "sim/config.h"

namespace {

using namespace tessera;
using fuzz::check;

constexpr unsigned kWords = 512;  // FUZZ_WORDS in sm_template.c
// Random code mostly faults within a few instructions; what loops is cut off
// by the progress watchdog (no store, no MMIO write) or, if it keeps storing,
// by the cycle limit. Both are far below the defaults so that a looping
// input costs a quarter second, not minutes.
constexpr uint64_t kWatchdogCycles = 5000;  // watchdog.cycles for the run
constexpr uint64_t kMaxCycles = 50000;      // --max-cycles backstop (status 6)

struct Template {
  std::vector<uint8_t> bytes;
  size_t code = 0, on_sm = 0, grid = 0, block = 0;  // file offsets
};

Template templ;

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// File offset of a symbol's bytes, through the PT_LOAD segment that holds it.
size_t file_offset(const isa::ElfImage& image, const std::vector<uint8_t>& bytes, const char* name, size_t size) {
  const auto addr = image.symbol(name);
  check(addr.has_value(), [&] { return std::string("template lacks symbol ") + name; });
  Elf32_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  for (unsigned n = 0; n < eh.e_phnum; ++n) {
    Elf32_Phdr ph;
    std::memcpy(&ph, bytes.data() + eh.e_phoff + n * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && *addr >= ph.p_vaddr && *addr + size <= ph.p_vaddr + ph.p_filesz)
      return ph.p_offset + (*addr - ph.p_vaddr);
  }
  fuzz::fail(std::string("template symbol not in the file: ") + name);
}

// One run of the platform, as `tessera run sm1 PROGRAM --max-cycles ...`.
void run_platform(const std::string& elf) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sim::Config cfg;
  cfg.load_yaml_file(TESSERA_FUZZ_PLATFORM);
  cfg.set_override("watchdog.cycles=" + std::to_string(kWatchdogCycles));
  cfg.set_override("memory.size_mb=64");
  platform::RunOptions options;
  options.max_cycles = kMaxCycles;
  options.echo_console = false;
  platform::Platform chip(cfg, elf, options);
  const int status = chip.run();
  const sim::ExitKind kind = chip.run_control().kind();
  const auto expect = [&](bool ok, const char* what) {
    check(ok, [&] { return std::string(what) + " (status " + std::to_string(status) + ": " + chip.report() + ")"; });
  };
  switch (kind) {
    case sim::ExitKind::kProgramExit:
      expect(status >= 0 && status <= 255, "program exit status outside 0..255");
      break;
    case sim::ExitKind::kGuestFault:
      expect(status == sim::kStatusGuestFault, "guest fault without status 3");
      break;
    case sim::ExitKind::kBadLaunch:
      expect(status == sim::kStatusBadLaunch, "bad launch without status 4");
      break;
    case sim::ExitKind::kDeadlock:
      expect(status == sim::kStatusDeadlock, "deadlock without status 5");
      break;
    case sim::ExitKind::kCycleLimit:
      expect(status == sim::kStatusCycleLimit && chip.sim_cycles() >= kMaxCycles, "cycle limit without status 6");
      break;
    case sim::ExitKind::kLockstepMismatch:
      expect(status == sim::kStatusLockstepMismatch, "lockstep mismatch without status 8");
      break;
    case sim::ExitKind::kKilled:
      expect(false, "killed from gdb, and no gdb is attached");
      break;
    case sim::ExitKind::kRunning:
      expect(false, "run() returned while the run control says running");
      break;
  }
  if (kind != sim::ExitKind::kProgramExit) expect(!chip.report().empty(), "a stopped run without a report");
  if (std::getenv("TESSERA_FUZZ_VERBOSE") != nullptr)
    std::fprintf(stderr, "fuzz_sm: status %d after %llu cycles: %s\n", status,
                 static_cast<unsigned long long>(chip.sim_cycles()), chip.report().substr(0, 300).c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::init_child_runs();
  templ.bytes = read_file(TESSERA_FUZZ_SM_TEMPLATE);
  const isa::ElfImage image = isa::load_elf(TESSERA_FUZZ_SM_TEMPLATE);
  templ.code = file_offset(image, templ.bytes, "fuzz_code", 4 * kWords);
  templ.on_sm = file_offset(image, templ.bytes, "fuzz_on_sm", 4);
  templ.grid = file_offset(image, templ.bytes, "fuzz_grid", 4);
  templ.block = file_offset(image, templ.bytes, "fuzz_block", 4);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::MemFile file("fuzz_sm.elf");
  // Patched in place: a fresh copy per input would fill ASan's quarantine,
  // and a bigger harness process makes every fork slower.
  static std::vector<uint8_t> elf = templ.bytes;
  std::memcpy(&elf[templ.code], &templ.bytes[templ.code], 4 * kWords);
  uint8_t header[3] = {0, 0, 31};
  std::memcpy(header, data, size < 3 ? size : 3);
  const uint32_t on_sm = header[0] & 1u, grid = 1u + header[1] % 2u, block = 1u + header[2] % 64u;
  std::memcpy(&elf[templ.on_sm], &on_sm, 4);
  std::memcpy(&elf[templ.grid], &grid, 4);
  std::memcpy(&elf[templ.block], &block, 4);
  if (size > 3) std::memcpy(&elf[templ.code], data + 3, std::min<size_t>(size - 3, 4 * kWords));
  file.assign(elf.data(), elf.size());

  fuzz::run_in_child([] { run_platform(file.path()); }, "the run");
  return 0;
}
