#include "sim/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace tessera::sim {

StatGroup::StatGroup(std::string name, StatGroup* parent) : name_(std::move(name)), parent_(parent) {
  if (parent_) parent_->children_.push_back(this);
}

StatGroup::~StatGroup() {
  if (parent_) {
    auto& siblings = parent_->children_;
    siblings.erase(std::remove(siblings.begin(), siblings.end(), this), siblings.end());
  }
  for (StatGroup* child : children_) child->parent_ = nullptr;
}

std::string StatGroup::path() const { return parent_ ? parent_->path() + "." + name_ : name_; }

void StatGroup::add_counter(const std::string& name, const uint64_t* value, const std::string& desc) {
  entries_.push_back(Entry{name, desc, value, {}, nullptr});
}

void StatGroup::add_formula(const std::string& name, std::function<double()> fn, const std::string& desc) {
  entries_.push_back(Entry{name, desc, nullptr, std::move(fn), nullptr});
}

void StatGroup::add_histogram(const std::string& name, const std::vector<uint64_t>* buckets, const std::string& desc) {
  entries_.push_back(Entry{name, desc, nullptr, {}, buckets});
}

nlohmann::json StatGroup::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const Entry& e : entries_) {
    if (e.counter) {
      j[e.name] = *e.counter;
    } else if (e.histogram) {
      j[e.name] = *e.histogram;
    } else {
      const double v = e.formula();
      j[e.name] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
    }
  }
  for (const StatGroup* child : children_) j[child->name_] = child->to_json();
  return j;
}

void StatGroup::dump_text(std::string& out) const {
  const std::string prefix = path();
  for (const Entry& e : entries_) {
    std::string value;
    if (e.counter) {
      value = std::to_string(*e.counter);
    } else if (e.histogram) {
      for (uint64_t b : *e.histogram) value += (value.empty() ? "" : ",") + std::to_string(b);
    } else {
      value = fmt::format("{:.6g}", e.formula());
    }
    out += fmt::format("{}.{} {} # {}\n", prefix, e.name, value, e.desc);
  }
  for (const StatGroup* child : children_) child->dump_text(out);
}

}  // namespace tessera::sim
