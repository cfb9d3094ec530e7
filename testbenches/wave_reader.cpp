#include "wave_reader.h"

#include <fnmatch.h>
#include <unistd.h>

#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "tessera_run.h"

namespace tessera::test {

namespace {

uint64_t parse_bits(const std::string& bits) {
  uint64_t v = 0;
  for (char c : bits) v = (v << 1) | (c == '1' ? 1u : 0u);
  return v;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

WaveFile WaveFile::read(const std::string& path) {
  if (::access(path.c_str(), R_OK) != 0) throw std::runtime_error("waveform " + path + " does not exist");
  if (!ends_with(path, ".fst")) return parse_vcd(read_file(path));
  if (::access(FST2VCD, X_OK) != 0)
    throw std::runtime_error(std::string("reading ") + path + " needs fst2vcd (" + FST2VCD +
                             "): install the Debian package gtkwave");
  const std::string text = command_output(std::string(FST2VCD) + " '" + path + "' 2>&1");
  if (text.find("$enddefinitions") == std::string::npos)
    throw std::runtime_error("fst2vcd could not read " + path + ":\n" + text.substr(0, 2000));
  return parse_vcd(text);
}

WaveFile WaveFile::parse_vcd(const std::string& text) {
  WaveFile w;
  std::unordered_map<std::string, std::vector<std::string>> by_code;  // one code may name several signals
  std::vector<std::string> scope;
  std::istringstream in(text);
  std::string tok;
  uint64_t now = 0;
  auto set = [&](const std::string& code, uint64_t v) {
    const auto it = by_code.find(code);
    if (it == by_code.end()) throw std::runtime_error("VCD: value for unknown identifier code '" + code + "'");
    for (const std::string& p : it->second) {
      auto& ch = w.signals_[p].changes;
      if (!ch.empty() && ch.back().time_ps == now)
        ch.back().value = v;
      else
        ch.push_back({now, v});
    }
  };
  bool defs = true;
  while (in >> tok) {
    if (defs) {
      if (tok == "$scope") {
        std::string kind, name;
        in >> kind >> name;
        scope.push_back(name);
      } else if (tok == "$upscope") {
        if (!scope.empty()) scope.pop_back();
      } else if (tok == "$var") {
        std::string type, code, name;
        unsigned width = 0;
        in >> type >> width >> code >> name;
        // A bit range joined to the name ("pc[31:0]") is dropped; an array
        // index ("mem[5]", the RTL's elements) is part of it.
        const auto bracket = name.rfind('[');
        if (bracket != std::string::npos && name.find(':', bracket) != std::string::npos) name.resize(bracket);
        std::string path;
        for (const auto& s : scope) path += s + ".";
        path += name;
        w.signals_[path].width = width;
        by_code[code].push_back(path);
      } else if (tok == "$enddefinitions") {
        defs = false;
      }
      // Skip to the end of any other directive.
      if (tok[0] == '$' && tok != "$end" && tok != "$enddefinitions")
        while (tok != "$end" && in >> tok) {
        }
      continue;
    }
    if (tok[0] == '$') continue;  // $dumpvars, $end, ...
    if (tok[0] == '#') {
      now = std::stoull(tok.substr(1));
      w.end_time_ = now;
    } else if (tok[0] == 'b' || tok[0] == 'B') {
      std::string code;
      in >> code;
      set(code, parse_bits(tok.substr(1)));
    } else if (tok[0] == 'r' || tok[0] == 'R' || tok[0] == 's' || tok[0] == 'S') {
      std::string code;
      in >> code;  // real and string values: not used by Tessera
    } else {
      set(tok.substr(1), tok[0] == '1' ? 1 : 0);
    }
  }
  return w;
}

const WaveFile::Signal& WaveFile::get(const std::string& path) const {
  const auto it = signals_.find(path);
  if (it == signals_.end()) throw std::out_of_range("the waveform has no signal " + path);
  return it->second;
}

unsigned WaveFile::width(const std::string& path) const { return get(path).width; }

const std::vector<WaveChange>& WaveFile::changes(const std::string& path) const { return get(path).changes; }

uint64_t WaveFile::value_at(const std::string& path, uint64_t time_ps) const {
  uint64_t v = 0;
  for (const WaveChange& c : get(path).changes) {
    if (c.time_ps > time_ps) break;
    v = c.value;
  }
  return v;
}

std::vector<uint64_t> WaveFile::times_of(const std::string& path, uint64_t value) const {
  std::vector<uint64_t> times;
  for (const WaveChange& c : get(path).changes)
    if (c.value == value) times.push_back(c.time_ps);
  return times;
}

std::vector<std::string> WaveFile::paths() const {
  std::vector<std::string> all;
  for (const auto& [p, s] : signals_) all.push_back(p);
  return all;
}

std::vector<std::string> WaveFile::paths_matching(const std::string& glob) const {
  std::vector<std::string> all;
  for (const auto& [p, s] : signals_)
    if (fnmatch(glob.c_str(), p.c_str(), 0) == 0) all.push_back(p);
  return all;
}

}  // namespace tessera::test
