#include "rtl/common/lockstep.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "rtl/common/wave_options.h"
#include "sim/config.h"

namespace tessera::rtl {

const std::vector<std::string>& impl_names() {
  static const std::vector<std::string> names{"model", "rtl", "lockstep"};
  return names;
}

Impl impl_from_name(const std::string& name) {
  const auto& n = impl_names();
  const auto it = std::find(n.begin(), n.end(), name);
  if (it == n.end()) throw std::invalid_argument("not a co-simulation mode: " + name);
  return static_cast<Impl>(it - n.begin());
}

const char* impl_name(Impl impl) { return impl_names()[static_cast<size_t>(impl)].c_str(); }

RtlOptions RtlOptions::from_config(sim::Config& cfg) {
  RtlOptions o;
  o.waves.cycles = static_cast<unsigned>(cfg.get_int(
      "rtl.wave_cycles", 64, 1, 1000000, "Lockstep mismatch: cycles of RTL waveform written before the mismatch"));
  o.waves.dir =
      cfg.get_string("rtl.wave_dir", "waves", "Lockstep mismatch: directory the RTL waveform (.fst) is written to");
  return o;
}

void check_wave_dir(const std::string& dir) {
  if (dir.empty()) throw sim::ConfigError("rtl.wave_dir: the directory name is empty");
  // The deepest part of the path that exists must be a directory we may
  // write in; what is below it is made when a waveform is written.
  std::filesystem::path existing = std::filesystem::absolute(dir);
  std::error_code ec;
  while (!std::filesystem::exists(existing, ec) && existing.has_parent_path() && existing != existing.parent_path())
    existing = existing.parent_path();
  if (!std::filesystem::is_directory(existing, ec))
    throw sim::ConfigError(fmt::format("rtl.wave_dir '{}': {} is not a directory", dir, existing.string()));
  if (::access(existing.c_str(), W_OK) != 0)
    throw sim::ConfigError(
        fmt::format("rtl.wave_dir '{}': cannot write in {}: {}", dir, existing.string(), std::strerror(errno)));
}

size_t MismatchReport::differences() const {
  return static_cast<size_t>(
      std::count_if(outputs_.begin(), outputs_.end(), [](const Output& o) { return o.model != o.rtl; }));
}

std::string MismatchReport::text() const {
  std::string s = fmt::format(
      "lockstep mismatch in {} ({}) at cycle {}: {} of {} outputs differ between the C++ "
      "model and the RTL",
      instance_, block_, cycle_, differences(), outputs_.size());
  size_t width = 6;
  for (const auto& i : inputs_) width = std::max(width, i.name.size());
  for (const auto& o : outputs_) width = std::max(width, o.name.size());
  size_t model_width = 5;
  for (const auto& o : outputs_) model_width = std::max(model_width, o.model.size());
  if (!inputs_.empty()) {
    s += "\n  inputs of the cycle:";
    for (const auto& i : inputs_) s += fmt::format("\n    {:<{}}  {}", i.name, width, i.value);
  }
  s += fmt::format("\n  outputs:\n    {:<{}}  {:<{}}  {}", "", width, "model", model_width, "rtl");
  for (const auto& o : outputs_)
    s += fmt::format("\n  {} {:<{}}  {:<{}}  {}", o.model != o.rtl ? "!" : " ", o.name, width, o.model, model_width,
                     o.rtl);
  if (!wave_.empty()) s += fmt::format("\n  RTL waveform of the last cycles: {} (gtkwave {})", wave_, wave_);
  return s;
}

}  // namespace tessera::rtl
