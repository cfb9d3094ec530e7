#include "platforms/waves_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include "platforms/platform.h"
#include "sim/output_file.h"

namespace tessera::platform {

namespace {

struct WavesArgs {
  std::string platform;
  std::vector<std::string> sets;
  bool list = false;
  std::string translate_dir;
};

// A gtkwave "Translate Filter File": one line per value, the value as the
// views display it (decimal), a space, its name.
std::string translate_file(const sim::WaveEnum& e) {
  std::string text =
      fmt::format("# {}: written by `tessera waves PLATFORM --translate DIR` (docs/waveforms.md)\n", e.name);
  for (const auto& [value, name] : e.values) text += fmt::format("{} {}\n", value, name);
  return text;
}

int run_waves(const WavesArgs& a, const std::function<std::string(const std::string&)>& resolve) {
  if (a.list == !a.translate_dir.empty())
    throw sim::ConfigError("tessera waves: give exactly one of --list and --translate DIR");
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
    out.write(translate_file(*e));
    out.close();
    fmt::print("{}/{}.txt\n", a.translate_dir, name);
  }
  return 0;
}

}  // namespace

sim::ToolCommand add_waves_command(CLI::App& app, std::function<std::string(const std::string&)> resolve) {
  auto args = std::make_shared<WavesArgs>();
  CLI::App* cmd = app.add_subcommand(
      "waves", "List a platform's waveform signals, or write gtkwave translate files for its enum signals");
  cmd->add_option("platform", args->platform, "Platform netlist (.yaml file or name)")->required();
  cmd->add_option("--set", args->sets, "Override a parameter: key=value (repeatable)");
  cmd->add_flag("--list", args->list, "Print every signal: its path, width and enum name (if any)");
  cmd->add_option("--translate", args->translate_dir,
                  "Write one gtkwave translate filter file per enum to DIR/<enum>.txt (as in waves/translate/)");
  return {cmd, [args, resolve] { return run_waves(*args, resolve); }};
}

}  // namespace tessera::platform
