// gtkwave files Tessera writes: translate filter files and the views
// beside flight-recorder dumps (docs/waveforms.md, "Views").
#include "platforms/gtkwave_views.h"

#include <fmt/format.h>

#include <filesystem>
#include <vector>

#include "sim/output_file.h"

namespace tessera::platform {

std::string gtkwave_translate_file(const sim::WaveEnum& e) {
  std::string text =
      fmt::format("# {}: written by `tessera waves PLATFORM --translate DIR` (docs/waveforms.md)\n", e.name);
  for (const auto& [value, name] : e.values) text += fmt::format("{} {}\n", value, name);
  return text;
}

std::string write_flight_view(const sim::Waveform& wave, const std::string& fst, uint64_t marker_ps,
                              const std::string& scope, const std::string& elf, const std::string& title) {
  namespace fs = std::filesystem;
  const fs::path dump = fs::absolute(fst);
  fs::path view = dump;
  view.replace_extension(".gtkw");
  const fs::path aux = view.string() + ".d";
  std::error_code ec;
  fs::create_directories(aux, ec);
  if (ec) throw sim::OutputError(fmt::format("{}: cannot create directory: {}", aux.string(), ec.message()));

  std::vector<const sim::WaveSignal*> shown;
  for (const sim::WaveSignal& s : wave.signals())
    if ((s.scope + ".").rfind(scope + ".", 0) == 0) shown.push_back(&s);
  if (shown.empty())
    for (const sim::WaveSignal& s : wave.signals()) shown.push_back(&s);

  std::string pc_filter;
  if (!elf.empty()) {
    // gtkwave runs a filter process by its path alone: a script holds the arguments.
    const fs::path script = aux / "pc-filter.sh";
    std::string self = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec) self = "tessera";
    sim::OutputFile out("--flight-recorder", script.string(), {});
    out.write(
        fmt::format("#!/bin/sh\n# gtkwave's translate filter process for the PC signals of {}\nexec '{}' "
                    "waves --pc-filter '{}'\n",
                    view.filename().string(), self, fs::absolute(elf).string()));
    out.close();
    fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
    pc_filter = script.string();
  }

  std::string text = fmt::format("[*] {}\n[dumpfile] \"{}\"\n[savefile] \"{}\"\n", title, dump.string(), view.string());
  // The primary marker, then the 26 named markers (unset).
  text += fmt::format("*-12.000000 {}", marker_ps);
  for (int i = 0; i < 26; ++i) text += " -1";
  text += "\n";
  std::string group;
  for (const sim::WaveSignal* s : shown) {
    if (s->scope != group) text += fmt::format("@200\n-{}\n", group = s->scope);
    const std::string name = s->width > 1 ? fmt::format("{}.{}[{}:0]", s->scope, s->name, s->width - 1)
                                          : fmt::format("{}.{}", s->scope, s->name);
    if (s->values) {
      const fs::path file = aux / (s->values->name + ".txt");
      if (!fs::exists(file)) {
        sim::OutputFile out("--flight-recorder", file.string(), {});
        out.write(gtkwave_translate_file(*s->values));
        out.close();
      }
      text += fmt::format("@2024\n^1 {}\n{}\n", file.string(), name);
    } else if (!pc_filter.empty() && s->name == "pc") {
      text += fmt::format("@4022\n^>1 {}\n{}\n", pc_filter, name);
    } else {
      text += fmt::format("{}\n{}\n", s->width == 1 ? "@28" : "@24", name);
    }
  }
  sim::OutputFile out("--flight-recorder", view.string(), {});
  out.write(text);
  out.close();
  return view.string();
}

}  // namespace tessera::platform
