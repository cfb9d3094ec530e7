// gtkwave files Tessera writes: translate filter files, the views of a
// platform's units and the views beside flight-recorder dumps
// (docs/waveforms.md, "Views").
#include "platforms/gtkwave_views.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <utility>

#include "sim/output_file.h"

namespace tessera::platform {

namespace fs = std::filesystem;

namespace {

struct Shown {
  const sim::WaveSignal* signal;
  std::string label;  // the name gtkwave shows (an alias)
};

std::string full_name(const sim::WaveSignal& s) {
  return s.width > 1 ? fmt::format("{}.{}[{}:0]", s.scope, s.name, s.width - 1) : fmt::format("{}.{}", s.scope, s.name);
}

// The signal's path below `prefix` ("chip.sm0."), with its range, as a
// label: '/' between the scopes, since gtkwave shows only what follows the
// last '.' of a name ("sched0/pc[31:0]", not "pc[31:0]").
std::string label_below(const sim::WaveSignal& s, const std::string& prefix) {
  std::string path = s.scope + "." + s.name;
  if (path.rfind(prefix, 0) == 0) path = path.substr(prefix.size());
  std::replace(path.begin(), path.end(), '.', '/');
  return s.width > 1 ? fmt::format("{}[{}:0]", path, s.width - 1) : path;
}

void write_file(const fs::path& path, const std::string& text, const char* option) {
  sim::OutputFile out(option, path.string(), {});
  out.write(text);
  out.close();
}

void create_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw sim::OutputError(fmt::format("{}: cannot create directory: {}", dir.string(), ec.message()));
}

// The files a view refers to, in one directory: translate files (written
// once each) and the PC filter script.
class ViewAux {
 public:
  ViewAux(fs::path dir, const char* option) : dir_(std::move(dir)), option_(option) { create_dir(dir_); }

  std::string translate(const sim::WaveEnum& e) {
    const fs::path file = dir_ / (e.name + ".txt");
    if (written_.insert(e.name).second) write_file(file, gtkwave_translate_file(e), option_);
    return file.string();
  }

  // gtkwave runs a filter process by its path alone: a script holds the arguments.
  std::string pc_filter(const std::string& elf) {
    if (elf.empty()) return "";
    const fs::path script = dir_ / "pc-filter.sh";
    if (!pc_filter_) {
      std::error_code ec;
      std::string self = fs::read_symlink("/proc/self/exe", ec).string();
      if (ec) self = "tessera";
      write_file(script,
                 fmt::format("#!/bin/sh\n# gtkwave's translate filter process for PC signals: names them in {}\n"
                             "exec '{}' waves --pc-filter '{}'\n",
                             fs::absolute(elf).string(), self, fs::absolute(elf).string()),
                 option_);
      fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                      fs::perm_options::add, ec);
      pc_filter_ = true;
    }
    return script.string();
  }

 private:
  fs::path dir_;
  const char* option_;
  std::set<std::string> written_;
  bool pc_filter_ = false;
};

// A save file: `dump` ("" when gtkwave is given the dump on its command
// line), the primary marker (when given), the signals grouped by scope.
std::string view_text(const std::string& title, const std::string& dump, const fs::path& view,
                      std::optional<uint64_t> marker_ps, const std::vector<Shown>& shown, ViewAux& aux,
                      const std::string& pc_filter) {
  std::string text = fmt::format("[*] {}\n", title);
  if (!dump.empty()) text += fmt::format("[dumpfile] \"{}\"\n", dump);
  text += fmt::format("[savefile] \"{}\"\n", view.string());
  if (marker_ps) {
    // The primary marker, then the 26 named markers (unset).
    text += fmt::format("*-12.000000 {}", *marker_ps);
    for (int i = 0; i < 26; ++i) text += " -1";
    text += "\n";
  }
  std::string group;
  for (const Shown& s : shown) {
    const sim::WaveSignal& w = *s.signal;
    if (w.scope != group) text += fmt::format("@200\n-{}\n", group = w.scope);
    const std::string name = fmt::format("+{{{}}} {}", s.label, full_name(w));
    if (w.values) {
      text += fmt::format("@2024\n^1 {}\n{}\n", aux.translate(*w.values), name);
    } else if (!pc_filter.empty() && w.name == "pc") {
      text += fmt::format("@4022\n^>1 {}\n{}\n", pc_filter, name);
    } else {
      text += fmt::format("{}\n{}\n", w.width == 1 ? "@28" : "@24", name);
    }
  }
  return text;
}

// "sm3" for chip.sm3.sched0.
std::string unit_of(const std::string& scope) {
  const std::string below = scope.rfind("chip.", 0) == 0 ? scope.substr(5) : scope;
  return below.substr(0, below.find('.'));
}

bool names_unit(const std::string& scope, const std::string& unit) {
  size_t from = 0;
  while (from <= scope.size()) {
    const size_t dot = scope.find('.', from);
    const size_t end = dot == std::string::npos ? scope.size() : dot;
    if (scope.compare(from, end - from, unit) == 0 && end - from == unit.size()) return true;
    from = end + 1;
  }
  return false;
}

}  // namespace

std::string gtkwave_translate_file(const sim::WaveEnum& e) {
  std::string text =
      fmt::format("# {}: written by `tessera waves PLATFORM --translate DIR` (docs/waveforms.md)\n", e.name);
  for (const auto& [value, name] : e.values) text += fmt::format("{} {}\n", value, name);
  return text;
}

std::vector<std::string> write_unit_views(const sim::Waveform& wave, const std::string& dir, const std::string& title,
                                          const std::string& elf) {
  const fs::path out = fs::absolute(dir);
  ViewAux aux(out / "translate", "--views");
  const std::string pc_filter = aux.pc_filter(elf);
  std::vector<std::string> units;
  for (const sim::WaveSignal& s : wave.signals()) {
    const std::string u = unit_of(s.scope);
    if (std::find(units.begin(), units.end(), u) == units.end()) units.push_back(u);
  }
  std::vector<std::string> written;
  for (const std::string& unit : units) {
    const std::string own = "chip." + unit;
    std::vector<Shown> about, mine;  // other units' signals about this one first, as the dispatcher's
    for (const sim::WaveSignal& s : wave.signals()) {
      if (unit_of(s.scope) == unit)
        mine.push_back({&s, label_below(s, own + ".")});
      else if (names_unit(s.scope, unit))
        about.push_back({&s, label_below(s, "chip.")});
    }
    about.insert(about.end(), mine.begin(), mine.end());
    const fs::path view = out / (unit + ".gtkw");
    write_file(view,
               view_text(fmt::format("{}: {} (tessera waves --views)", title, own), "", view, std::nullopt, about, aux,
                         pc_filter),
               "--views");
    written.push_back(view.string());
  }
  return written;
}

std::string write_flight_view(const sim::Waveform& wave, const std::string& fst, uint64_t marker_ps,
                              const std::string& scope, const std::string& elf, const std::string& title) {
  const fs::path dump = fs::absolute(fst);
  fs::path view = dump;
  view.replace_extension(".gtkw");
  ViewAux aux(view.string() + ".d", "--flight-recorder");

  std::vector<Shown> shown;
  for (const sim::WaveSignal& s : wave.signals())
    if ((s.scope + ".").rfind(scope + ".", 0) == 0) shown.push_back({&s, label_below(s, scope + ".")});
  if (shown.empty())
    for (const sim::WaveSignal& s : wave.signals()) shown.push_back({&s, label_below(s, "chip.")});

  write_file(view, view_text(title, dump.string(), view, marker_ps, shown, aux, aux.pc_filter(elf)),
             "--flight-recorder");
  return view.string();
}

}  // namespace tessera::platform
