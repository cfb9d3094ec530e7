// tessera-kinfo: the kernel record of a linked firmware ELF
// (docs/firmware-abi.md, "Kernel record"). tessera-cc runs it after linking
// and stores its JSON output in the section .tessera.kernels.
//
//   tessera-kinfo [-v] [--sm-registers N] PROGRAM.elf [-o RECORD.json]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "isa/kernel_record.h"

namespace {

int usage(std::FILE* out, int status) {
  std::fputs(
      "usage: tessera-kinfo [-v] [--sm-registers N] PROGRAM.elf [-o RECORD.json]\n"
      "Writes the kernel record (JSON) of a firmware ELF linked by tessera-cc: per kernel its\n"
      "registers per thread, static shared window and stack. -v prints one line per kernel.\n",
      out);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  std::string elf, out;
  bool verbose = false;
  unsigned sm_registers = 65536;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "-h" || arg == "--help") return usage(stdout, 0);
    if (arg == "-v") {
      verbose = true;
    } else if (arg == "-o" && a + 1 < argc) {
      out = argv[++a];
    } else if (arg == "--sm-registers" && a + 1 < argc) {
      char* end = nullptr;
      const unsigned long v = std::strtoul(argv[++a], &end, 0);
      if (*end != '\0' || v == 0 || v > (1u << 20)) {
        std::fprintf(stderr, "tessera-kinfo: --sm-registers %s is not a number in 1..1048576\n", argv[a]);
        return 2;
      }
      sm_registers = static_cast<unsigned>(v);
    } else if (!arg.empty() && arg[0] != '-' && elf.empty()) {
      elf = arg;
    } else {
      std::fprintf(stderr, "tessera-kinfo: unexpected argument '%s'\n", arg.c_str());
      return usage(stderr, 2);
    }
  }
  if (elf.empty()) return usage(stderr, 2);
  try {
    const tessera::isa::KernelTable table = tessera::isa::analyse_kernels(elf, sm_registers);
    const std::string json = tessera::isa::kernels_to_json(table);
    if (out.empty()) {
      std::cout << json;
    } else {
      std::ofstream f(out, std::ios::binary);
      f << json;
      if (!f) {
        std::fprintf(stderr, "tessera-kinfo: cannot write %s\n", out.c_str());
        return 1;
      }
    }
    if (verbose) {
      for (const auto& k : table.kernels) {
        std::cerr << describe(k) << "\n";
        for (const auto& n : k.notes) std::cerr << "  note: " << n << "\n";
      }
    }
  } catch (const tessera::isa::KernelRecordError& e) {
    std::fprintf(stderr, "tessera-kinfo: %s\n", e.what());
    return 1;
  }
  return 0;
}
