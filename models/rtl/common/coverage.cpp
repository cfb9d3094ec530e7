#include "rtl/common/coverage.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <utility>

namespace tessera::rtl {

CoverTable::CoverTable(std::vector<std::string> names) : names_(std::move(names)), hits_(names_.size(), 0) {}

uint64_t CoverTable::hits(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) throw std::out_of_range("not a declared cover point: " + name);
  return hits_[static_cast<size_t>(it - names_.begin())];
}

void CoverTable::merge(const CoverTable& other) {
  if (other.names_ != names_) throw std::invalid_argument("the cover points differ");
  for (size_t i = 0; i < hits_.size(); ++i) hits_[i] += other.hits_[i];
}

size_t CoverTable::reached() const {
  return static_cast<size_t>(std::count_if(hits_.begin(), hits_.end(), [](uint64_t h) { return h > 0; }));
}

std::vector<std::string> CoverTable::unreached() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < hits_.size(); ++i)
    if (hits_[i] == 0) out.push_back(names_[i]);
  return out;
}

// ------------------------------------------------------------ the report

void CoverageReport::add(const std::string& block, const CoverTable& table, uint64_t instances) {
  auto [it, fresh] = blocks_.try_emplace(block, Block{table, instances});
  if (fresh) return;
  it->second.table.merge(table);  // std::invalid_argument when the points differ
  it->second.instances += instances;
}

void CoverageReport::merge(const CoverageReport& other, const std::string& source) {
  for (const auto& [name, b] : other.blocks_) {
    try {
      add(name, b.table, b.instances);
    } catch (const std::invalid_argument&) {
      throw CoverageFileError(fmt::format(
          "{}: block {} declares other cover points than the files before it (another configuration or version of "
          "the block); coverage of different point sets is not summed",
          source, name));
    }
  }
  runs_ += other.runs_;
}

nlohmann::ordered_json CoverageReport::to_json() const {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["runs"] = runs_;
  nlohmann::ordered_json blocks = nlohmann::ordered_json::object();
  for (const auto& [name, b] : blocks_) {
    nlohmann::ordered_json e;
    e["instances"] = b.instances;
    e["declared"] = b.table.size();
    e["reached"] = b.table.reached();
    nlohmann::ordered_json points = nlohmann::ordered_json::object();
    for (size_t i = 0; i < b.table.size(); ++i) points[b.table.name(i)] = b.table.hits(i);
    e["points"] = std::move(points);
    blocks[name] = std::move(e);
  }
  j["blocks"] = std::move(blocks);
  return j;
}

CoverageReport CoverageReport::from_json(const nlohmann::ordered_json& j, const std::string& source) {
  const auto bad = [&source](const std::string& why) {
    return CoverageFileError(fmt::format("{}: not an RTL coverage file of this version: {}", source, why));
  };
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
    throw bad(fmt::format("\"format\" is not \"{}\"", kFormat));
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kVersion)
    throw bad(fmt::format("\"version\" is {}, this tessera reads {}",
                          j.value("version", nlohmann::ordered_json()).dump(), kVersion));
  if (!j.contains("blocks") || !j["blocks"].is_object()) throw bad("no \"blocks\" object");
  CoverageReport r;
  r.runs_ = j.contains("runs") && j["runs"].is_number_unsigned() ? j["runs"].get<uint64_t>() : 1;
  for (const auto& [name, b] : j["blocks"].items()) {
    if (!b.is_object() || !b.contains("points") || !b["points"].is_object())
      throw bad(fmt::format("block {} has no \"points\" object", name));
    std::vector<std::string> names;
    std::vector<uint64_t> hits;
    for (const auto& [point, h] : b["points"].items()) {
      if (!h.is_number_unsigned())
        throw bad(fmt::format("point {} of block {}: {} is not a count", point, name, h.dump()));
      names.push_back(point);
      hits.push_back(h.get<uint64_t>());
    }
    CoverTable t(std::move(names));
    for (size_t i = 0; i < hits.size(); ++i) t.set(i, hits[i]);
    const uint64_t instances =
        b.contains("instances") && b["instances"].is_number_unsigned() ? b["instances"].get<uint64_t>() : 1;
    r.blocks_.emplace(name, Block{std::move(t), instances});
  }
  return r;
}

CoverageReport CoverageReport::read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CoverageFileError(fmt::format("{}: cannot be read", path));
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw CoverageFileError(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  return from_json(j, path);
}

std::string CoverageReport::summary() const {
  std::string s;
  for (const auto& [name, b] : blocks_) {
    const auto missing = b.table.unreached();
    s += fmt::format("{}: {} of {} cover points reached ({} instance{}{})\n", name, b.table.reached(), b.table.size(),
                     b.instances, b.instances == 1 ? "" : "s", runs_ > 1 ? fmt::format(", {} runs", runs_) : "");
    if (!missing.empty()) {
      s += fmt::format("  unreached ({}):\n", missing.size());
      for (const auto& m : missing) s += fmt::format("    {}\n", m);
    }
  }
  return s;
}

// ----------------------------------------------------------- collection

namespace {

struct Tracked {
  std::string block, instance;
  std::shared_ptr<CoverTable> table;
  std::function<void(CoverTable&)> refresh;
};

struct Collection {
  bool enabled = false;
  std::vector<Tracked> tracked;
};

Collection& collection() {
  static Collection c;
  return c;
}

}  // namespace

void CoverageCollection::enable() { collection().enabled = true; }
bool CoverageCollection::enabled() { return collection().enabled; }

std::shared_ptr<CoverTable> CoverageCollection::track(const std::string& block, const std::string& instance,
                                                      const std::vector<std::string>& names,
                                                      std::function<void(CoverTable&)> refresh) {
  Collection& c = collection();
  if (!c.enabled) return nullptr;
  auto t = std::make_shared<CoverTable>(names);
  c.tracked.push_back(Tracked{block, instance, t, std::move(refresh)});
  return t;
}

size_t CoverageCollection::instances() { return collection().tracked.size(); }

CoverageReport CoverageCollection::report() {
  CoverageReport r;
  for (const Tracked& t : collection().tracked) {
    if (t.refresh) t.refresh(*t.table);
    r.add(t.block, *t.table);
  }
  return r;
}

void CoverageCollection::reset() {
  collection().enabled = false;
  collection().tracked.clear();
}

}  // namespace tessera::rtl
