#include "dram/spec.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <map>

#include "sim/config.h"

namespace tessera::dram {

// Preset documents, compiled in from presets/*.yaml (presets_generated.cpp).
const std::map<std::string, std::string>& preset_documents();

const std::vector<std::string>& timing_names() {
  static const std::vector<std::string> names{"CL",     "CWL",    "tRCDRD",  "tRCDWR", "tRP",     "tRAS",
                                              "tRC",    "tCCD_S", "tCCD_L",  "tRRD_S", "tRRD_L",  "tFAW",
                                              "tWTR_S", "tWTR_L", "tRTP",    "tWR",    "tRTRS",   "tRFC",
                                              "tREFI",  "tRFCSB", "tREFISB", "tRREFD", "tACT_BUS"};
  return names;
}

unsigned& timing_field(Timing& t, const std::string& name) {
  static const std::map<std::string, unsigned Timing::*> fields{
      {"CL", &Timing::CL},         {"CWL", &Timing::CWL},          {"tRCDRD", &Timing::tRCDRD},
      {"tRCDWR", &Timing::tRCDWR}, {"tRP", &Timing::tRP},          {"tRAS", &Timing::tRAS},
      {"tRC", &Timing::tRC},       {"tCCD_S", &Timing::tCCD_S},    {"tCCD_L", &Timing::tCCD_L},
      {"tRRD_S", &Timing::tRRD_S}, {"tRRD_L", &Timing::tRRD_L},    {"tFAW", &Timing::tFAW},
      {"tWTR_S", &Timing::tWTR_S}, {"tWTR_L", &Timing::tWTR_L},    {"tRTP", &Timing::tRTP},
      {"tWR", &Timing::tWR},       {"tRTRS", &Timing::tRTRS},      {"tRFC", &Timing::tRFC},
      {"tREFI", &Timing::tREFI},   {"tRFCSB", &Timing::tRFCSB},    {"tREFISB", &Timing::tREFISB},
      {"tRREFD", &Timing::tRREFD}, {"tACT_BUS", &Timing::tACT_BUS}};
  const auto it = fields.find(name);
  if (it == fields.end()) throw sim::ConfigError(fmt::format("unknown DRAM timing parameter '{}'", name));
  return t.*(it->second);
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : preset_documents()) names.push_back(name);
  return names;
}

DramSpec load_preset(const std::string& name) {
  const auto& docs = preset_documents();
  const auto it = docs.find(name);
  if (it == docs.end()) {
    std::string valid;
    for (const auto& n : preset_names()) valid += (valid.empty() ? "" : ", ") + n;
    throw sim::ConfigError(fmt::format("unknown DRAM spec '{}' (valid specs: {})", name, valid));
  }
  return parse_spec_yaml(it->second, "preset " + name);
}

namespace {

template <typename T>
T required(const YAML::Node& node, const char* key, const std::string& where) {
  const YAML::Node v = node[key];
  if (!v) throw sim::ConfigError(fmt::format("{}: missing '{}'", where, key));
  try {
    return v.as<T>();
  } catch (const YAML::Exception&) {
    throw sim::ConfigError(fmt::format("{}: '{}' has a bad value '{}'", where, key, v.as<std::string>("?")));
  }
}

}  // namespace

DramSpec parse_spec_yaml(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw sim::ConfigError(fmt::format("{}: {}", origin, e.what()));
  }
  DramSpec s;
  s.name = required<std::string>(root, "name", origin);
  s.standard = required<std::string>(root, "standard", origin);
  s.data_rate_gbps = required<double>(root, "data_rate_gbps", origin);
  s.tck_ps = required<unsigned>(root, "tck_ps", origin);
  const std::string org_where = origin + " organisation";
  const YAML::Node org = root["organisation"];
  if (!org) throw sim::ConfigError(fmt::format("{}: missing 'organisation'", origin));
  s.org.channels_per_stack = required<unsigned>(org, "channels_per_stack", org_where);
  s.org.dies = required<unsigned>(org, "dies", org_where);
  s.org.pseudo_channels = required<unsigned>(org, "pseudo_channels", org_where);
  s.org.bank_groups = required<unsigned>(org, "bank_groups", org_where);
  s.org.banks_per_group = required<unsigned>(org, "banks_per_group", org_where);
  s.org.rows = required<unsigned>(org, "rows", org_where);
  s.org.columns = required<unsigned>(org, "columns", org_where);
  s.org.pc_width_bits = required<unsigned>(org, "pc_width_bits", org_where);
  s.org.burst_length = required<unsigned>(org, "burst_length", org_where);
  s.org.beats_per_clock = required<unsigned>(org, "beats_per_clock", org_where);
  const YAML::Node timing = root["timing"];
  if (!timing) throw sim::ConfigError(fmt::format("{}: missing 'timing'", origin));
  for (const auto& name : timing_names())
    timing_field(s.timing, name) = required<unsigned>(timing, name.c_str(), origin + " timing");
  const YAML::Node power = root["power"];
  if (!power) throw sim::ConfigError(fmt::format("{}: missing 'power'", origin));
  const std::string pw = origin + " power";
  s.power.VDD = required<double>(power, "VDD", pw);
  s.power.IDD0 = required<double>(power, "IDD0", pw);
  s.power.IDD2N = required<double>(power, "IDD2N", pw);
  s.power.IDD3N = required<double>(power, "IDD3N", pw);
  s.power.IDD4R = required<double>(power, "IDD4R", pw);
  s.power.IDD4W = required<double>(power, "IDD4W", pw);
  s.power.IDD5AB = required<double>(power, "IDD5AB", pw);
  return s;
}

namespace {

bool is_power_of_two(unsigned v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

void validate(const DramSpec& s) {
  const Timing& t = s.timing;
  const Organisation& o = s.org;
  const auto fail = [&](const std::string& what) {
    throw sim::ConfigError(fmt::format("DRAM spec '{}': {}", s.name, what));
  };
  const auto need_ge = [&](const char* a, unsigned va, const char* b, unsigned vb, const char* why) {
    if (va < vb) fail(fmt::format("{} ({}) < {} ({}): {}", a, va, b, vb, why));
  };
  // Organisation: the address map slices power-of-two fields.
  const std::pair<const char*, unsigned> pow2[] = {{"channels_per_stack", o.channels_per_stack},
                                                   {"pseudo_channels", o.pseudo_channels},
                                                   {"bank_groups", o.bank_groups},
                                                   {"banks_per_group", o.banks_per_group},
                                                   {"rows", o.rows},
                                                   {"columns", o.columns},
                                                   {"stacks", s.stacks}};
  for (const auto& [name, v] : pow2)
    if (!is_power_of_two(v)) fail(fmt::format("{} = {} must be a power of two", name, v));
  if (o.beats_per_clock == 0 || o.burst_length % o.beats_per_clock != 0)
    fail(
        fmt::format("burst_length ({}) must be a multiple of beats_per_clock ({})", o.burst_length, o.beats_per_clock));
  if (o.pc_width_bits == 0 || o.burst_bytes() == 0 || !is_power_of_two(o.burst_bytes()))
    fail(fmt::format("pc_width_bits ({}) x burst_length ({}) / 8 must be a power-of-two number of bytes",
                     o.pc_width_bits, o.burst_length));
  if (s.tck_ps == 0) fail("tck_ps must be positive");
  // Timing: each relation is what makes the per-command rules consistent.
  if (t.CL == 0) fail("CL must be at least 1");
  need_ge("tRAS", t.tRAS, "tRCDRD", t.tRCDRD, "a row must stay open until it can be read");
  need_ge("tRAS", t.tRAS, "tRCDWR", t.tRCDWR, "a row must stay open until it can be written");
  if (t.tRC < t.tRAS + t.tRP)
    fail(fmt::format("tRC ({}) < tRAS ({}) + tRP ({}): an ACT-to-ACT cycle of one bank contains tRAS and tRP", t.tRC,
                     t.tRAS, t.tRP));
  need_ge("tRRD_L", t.tRRD_L, "tRRD_S", t.tRRD_S, "the same-bank-group spacing is the longer one");
  need_ge("tCCD_L", t.tCCD_L, "tCCD_S", t.tCCD_S, "the same-bank-group spacing is the longer one");
  need_ge("tWTR_L", t.tWTR_L, "tWTR_S", t.tWTR_S, "the same-bank-group spacing is the longer one");
  need_ge("tFAW", t.tFAW, "tRRD_S", t.tRRD_S, "the four-activate window spans at least one ACT spacing");
  if (t.tREFI <= t.tRFC) fail(fmt::format("tREFI ({}) <= tRFC ({}): refresh would never end", t.tREFI, t.tRFC));
  if (t.tREFISB <= t.tRFCSB)
    fail(fmt::format("tREFISB ({}) <= tRFCSB ({}): per-bank refresh would never end", t.tREFISB, t.tRFCSB));
  need_ge("tRFC", t.tRFC, "tRC", t.tRC, "a refresh activates and precharges rows");
  if (t.tACT_BUS == 0) fail("tACT_BUS must be at least 1");
}

}  // namespace tessera::dram
