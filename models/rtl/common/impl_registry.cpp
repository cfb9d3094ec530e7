#include "rtl/common/impl_registry.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::rtl {

namespace {

struct Registry {
  std::vector<ImplEntry> entries;
  // A configuration registered twice: "kind/name", and both classes.
  std::vector<std::pair<std::string, std::string>> duplicates;
};

Registry& registry() {
  static Registry r;
  return r;
}

std::string show_value(const ParamWant& w, const std::string& v) { return w.show ? w.show(v) : v; }

// A configuration in the keys' terms: "noc.vcs=2 noc.classes=1".
std::string describe(const ImplEntry& e, const std::vector<ParamWant>& want) {
  std::string s;
  for (const ParamWant& w : want) {
    const std::string* v = e.param(w.param);
    s += fmt::format("{}{}={}", s.empty() ? "" : " ", w.key, v ? show_value(w, *v) : "?");
  }
  return s;
}

}  // namespace

const std::string* ImplEntry::param(const std::string& p) const {
  for (const auto& [n, v] : params)
    if (n == p) return &v;
  return nullptr;
}

void register_impl(ImplEntry e) {
  Registry& r = registry();
  for (const ImplEntry& x : r.entries) {
    if (x.kind == e.kind && x.name == e.name && x.params == e.params) {
      r.duplicates.emplace_back(e.kind + "/" + e.name, fmt::format("{} and {}", x.prefix, e.prefix));
      return;
    }
  }
  r.entries.push_back(std::move(e));
}

std::vector<const ImplEntry*> impls_of(const std::string& kind) {
  std::vector<const ImplEntry*> v;
  for (const ImplEntry& e : registry().entries)
    if (e.kind == kind) v.push_back(&e);
  return v;
}

std::vector<std::string> impl_names_of(const std::string& kind) {
  std::vector<std::string> names;
  for (const ImplEntry* e : impls_of(kind))
    if (std::find(names.begin(), names.end(), e->name) == names.end()) names.push_back(e->name);
  return names;
}

std::string ImplChoice::text() const {
  if (mode == Impl::kModel || name == kShippedImpl) return impl_name(mode);
  return fmt::format("{}:{}", impl_name(mode), name);
}

ImplChoice read_impl_choice(sim::Config& cfg, const std::string& key, const std::string& help) {
  const std::string text = cfg.get_string(key, "model",
                                          help +
                                              " (model, rtl, lockstep; rtl:NAME or lockstep:NAME "
                                              "selects a registered implementation)");
  const size_t colon = text.find(':');
  const std::string mode = text.substr(0, colon);
  const auto& modes = impl_names();
  if (std::find(modes.begin(), modes.end(), mode) == modes.end())
    throw sim::ConfigError(
        fmt::format("{}: '{}' is not one of model|rtl|lockstep (rtl:NAME and lockstep:NAME "
                    "select an RTL implementation by name)",
                    key, text));
  ImplChoice c;
  c.mode = impl_from_name(mode);
  if (colon == std::string::npos) return c;
  c.name = text.substr(colon + 1);
  if (c.mode == Impl::kModel)
    throw sim::ConfigError(
        fmt::format("{}: '{}': the C++ model has no implementations to choose from; rtl:{} or lockstep:{} selects "
                    "the RTL implementation '{}'",
                    key, text, c.name, c.name, c.name));
  if (c.name.empty()) throw sim::ConfigError(fmt::format("{}: '{}' names no implementation after the ':'", key, text));
  return c;
}

const ImplEntry& select_impl(const std::string& kind, const std::string& impl_key, const ImplChoice& choice,
                             const std::vector<ParamWant>& want) {
  const std::string setting = fmt::format("{}={}", impl_key, choice.text());
  for (const auto& [what, classes] : registry().duplicates)
    if (what == kind + "/" + choice.name)
      throw sim::ConfigError(fmt::format(
          "{}: the {} implementation '{}' is registered twice with the same parameters ({}): load one of them", setting,
          kind, choice.name, classes));
  std::vector<const ImplEntry*> named;
  for (const ImplEntry* e : impls_of(kind))
    if (e->name == choice.name) named.push_back(e);
  if (named.empty()) {
    std::string names;
    for (const std::string& n : impl_names_of(kind)) names += (names.empty() ? "" : ", ") + n;
    throw sim::ConfigError(
        fmt::format("{}: no {} implementation is named '{}'; registered: {} (a plugin adds implementations: "
                    "--plugin LIB, docs/cosim.md)",
                    impl_key, kind, choice.name, names.empty() ? "none" : names));
  }
  for (const ImplEntry* e : named) {
    if (std::all_of(want.begin(), want.end(), [&](const ParamWant& w) {
          const std::string* v = e->param(w.param);
          return v && *v == w.value;
        }))
      return *e;
  }
  // The first parameter no configuration has, given the ones before it.
  size_t bad = want.size() - 1;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool some = std::any_of(named.begin(), named.end(), [&](const ImplEntry* e) {
      for (size_t j = 0; j <= i; ++j) {
        const std::string* v = e->param(want[j].param);
        if (!v || *v != want[j].value) return false;
      }
      return true;
    });
    if (!some) {
      bad = i;
      break;
    }
  }
  std::string built;
  for (const ImplEntry* e : named) built += fmt::format("{}{}", built.empty() ? "" : "; ", describe(*e, want));
  const ParamWant& w = want[bad];
  throw sim::ConfigError(
      fmt::format("{}: {} is not supported with {}: the {} implementation '{}' is built for {} (tessera_add_rtl_block "
                  "adds configurations, docs/cosim.md)",
                  w.key, show_value(w, w.value), setting, kind, choice.name, built));
}

}  // namespace tessera::rtl
