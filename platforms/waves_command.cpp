#include "platforms/waves_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <vector>

#include "isa/elf_loader.h"
#include "platforms/gtkwave_views.h"
#include "platforms/platform.h"
#include "sim/output_file.h"

namespace tessera::platform {

namespace {

struct WavesArgs {
  std::string platform;
  std::vector<std::string> sets;
  bool list = false;
  std::string translate_dir;
  std::string views_dir;
  std::string program;    // --views: PC signals named in this ELF
  std::string pc_filter;  // an ELF: run as gtkwave's translate filter process
};

// gtkwave's "Translate Filter Process": one value per line on stdin, as the
// trace displays it (hex for the views' PC signals; binary or decimal are
// read too), one line back on stdout, flushed, until stdin ends.
int run_pc_filter(const std::string& elf) {
  const isa::ElfImage image = isa::load_elf(elf);
  std::string line;
  while (std::getline(std::cin, line)) {
    std::string v = line;
    v.erase(std::remove_if(v.begin(), v.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
            v.end());
    if (v.rfind("0x", 0) == 0 || v.rfind("0X", 0) == 0) v = v.substr(2);
    const bool binary = v.size() > 8 && v.find_first_not_of("01") == std::string::npos;
    char* end = nullptr;
    const unsigned long long pc = v.empty() ? 0 : std::strtoull(v.c_str(), &end, binary ? 2 : 16);
    if (v.empty() || *end != '\0' || pc > 0xffffffffull) {
      std::cout << line << std::endl;  // x, z or something else: as it was
      continue;
    }
    const std::string name = image.code_names().describe(static_cast<uint32_t>(pc));
    std::cout << (name.empty() ? line : name) << std::endl;
  }
  return 0;
}

int run_waves(const WavesArgs& a, const std::function<std::string(const std::string&)>& resolve) {
  if (!a.pc_filter.empty()) {
    if (a.list || !a.translate_dir.empty() || !a.views_dir.empty() || !a.platform.empty())
      throw sim::ConfigError("tessera waves --pc-filter ELF takes no platform, --list, --translate or --views");
    return run_pc_filter(a.pc_filter);
  }
  if (a.platform.empty()) throw sim::ConfigError("tessera waves: the platform is missing");
  if (int(a.list) + int(!a.translate_dir.empty()) + int(!a.views_dir.empty()) != 1)
    throw sim::ConfigError(
        "tessera waves: give exactly one of --list, --translate DIR, --views DIR and --pc-filter ELF");
  if (!a.program.empty() && a.views_dir.empty())
    throw sim::ConfigError("tessera waves: --program ELF names the PC signals of --views; give --views DIR too");
  if (!a.program.empty()) isa::load_elf(a.program);  // a bad ELF fails now, not inside gtkwave
  sim::Config cfg;
  const std::string file = resolve(a.platform);
  cfg.load_yaml_file(file);
  for (const auto& s : a.sets) cfg.set_override(s);
  // Elaborated with tracing on and no program; the VCD goes nowhere.
  RunOptions options;
  options.trace.path = "/dev/null";
  options.inputs = {file};
  options.echo_console = false;
  Platform platform(cfg, "", options);
  const sim::Waveform& wave = *platform.waveform();

  if (a.list) {
    for (const sim::WaveSignal& s : wave.signals())
      fmt::print("{}.{} {}{}\n", s.scope, s.name, s.width, s.values ? " " + s.values->name : "");
    return 0;
  }
  if (!a.views_dir.empty()) {
    const std::string title = fmt::format("Platform {}", std::filesystem::path(file).stem().string());
    for (const std::string& view : write_unit_views(wave, a.views_dir, title, a.program)) fmt::print("{}\n", view);
    return 0;
  }
  std::map<std::string, const sim::WaveEnum*> by_name;
  for (const sim::WaveEnum* e : wave.enums()) {
    const auto [it, added] = by_name.emplace(e->name, e);
    if (!added && it->second->values != e->values)
      throw sim::ConfigError(fmt::format(
          "tessera waves: two different enum tables are named '{}'; they would share one translate file", e->name));
  }
  std::error_code ec;
  std::filesystem::create_directories(a.translate_dir, ec);
  if (ec)
    throw sim::ConfigError(
        fmt::format("tessera waves --translate: cannot create directory {}: {}", a.translate_dir, ec.message()));
  for (const auto& [name, e] : by_name) {
    sim::OutputFile out("--translate", a.translate_dir + "/" + name + ".txt", options.inputs);
    out.write(gtkwave_translate_file(*e));
    out.close();
    fmt::print("{}/{}.txt\n", a.translate_dir, name);
  }
  return 0;
}

}  // namespace

sim::ToolCommand add_waves_command(CLI::App& app, std::function<std::string(const std::string&)> resolve) {
  auto args = std::make_shared<WavesArgs>();
  CLI::App* cmd = app.add_subcommand(
      "waves", "List a platform's waveform signals; write gtkwave views of its units or translate files for its enums");
  cmd->add_option("platform", args->platform, "Platform netlist (.yaml file or name)");
  cmd->add_option("--set", args->sets, "Override a parameter: key=value (repeatable)");
  cmd->add_flag("--list", args->list, "Print every signal: its path, width and enum name (if any)");
  cmd->add_option("--translate", args->translate_dir,
                  "Write one gtkwave translate filter file per enum to DIR/<enum>.txt (as in waves/translate/)");
  cmd->add_option("--views", args->views_dir,
                  "Write a gtkwave view per unit of the platform to DIR/<unit>.gtkw, with their translate files; "
                  "open one with: gtkwave RUN.fst DIR/sm0.gtkw");
  cmd->add_option("--program", args->program,
                  "With --views: PC signals shown as function+offset (file:line) of this ELF");
  cmd->add_option("--pc-filter", args->pc_filter,
                  "Run as gtkwave's translate filter process for PC signals: each hex value read becomes "
                  "function+offset (file:line) of this ELF (docs/waveforms.md)");
  return {cmd, [args, resolve] { return run_waves(*args, resolve); }};
}

}  // namespace tessera::platform
