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

void StatGroup::add_maximum(const std::string& name, const uint64_t* value, const std::string& desc) {
  entries_.push_back(Entry{name, desc, value, {}, nullptr, true});
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

size_t StatCounts::find(size_t at, const Slot& slot) const {
  if (at < slots_.size() && slots_[at] == slot) return at;
  for (size_t i = 0; i < slots_.size(); ++i)  // the tree changed shape: rare
    if (slots_[i] == slot) return i;
  return slots_.size();
}

uint64_t StatCounts::get(size_t at, const Slot& slot) const {
  const size_t i = find(at, slot);
  return i < values_.size() ? values_[i] : 0;
}

uint64_t& StatCounts::at(size_t at, const Slot& slot) {
  // Filled in the tree's order: the next slot goes at the end.
  const size_t i = at == slots_.size() ? at : find(at, slot);
  if (i < values_.size()) return values_[i];
  push(slot, 0);
  return values_.back();
}

void StatGroup::sync() const {
  for (const auto& fn : syncs_) fn();
  for (const StatGroup* child : children_) child->sync();
}

void StatGroup::snapshot(StatCounts& out) const {
  out.clear();
  snapshot_into(out);
}

void StatGroup::snapshot_into(StatCounts& out) const {
  for (const Entry& e : entries_) {
    if (e.counter && !e.maximum) {
      out.push({e.counter, 0}, *e.counter);
    } else if (e.histogram) {
      for (size_t b = 0; b < e.histogram->size(); ++b) out.push({e.histogram, b}, (*e.histogram)[b]);
    }
  }
  for (const StatGroup* child : children_) child->snapshot_into(out);
}

void StatGroup::slot_paths(std::vector<std::string>& out) const { slot_paths(out, ""); }

void StatGroup::slot_paths(std::vector<std::string>& out, const std::string& prefix) const {
  for (const Entry& e : entries_) {
    if (e.counter && !e.maximum) {
      out.push_back(prefix + e.name);
    } else if (e.histogram) {
      for (size_t b = 0; b < e.histogram->size(); ++b) out.push_back(fmt::format("{}{}[{}]", prefix, e.name, b));
    }
  }
  for (const StatGroup* child : children_) child->slot_paths(out, prefix + child->name_ + ".");
}

void StatGroup::accumulate(const StatCounts& since, StatCounts& into) const {
  size_t pos = 0;
  accumulate(since, into, pos);
}

void StatGroup::accumulate(const StatCounts& since, StatCounts& into, size_t& pos) const {
  const auto add = [&](const StatCounts::Slot& slot, uint64_t now) {
    const uint64_t from = since.get(pos, slot);
    uint64_t& acc = into.at(pos, slot);
    // A value that went down is no count (a level, not a total): its share
    // is unknown, and stays so.
    acc = now < from || acc == kNoShare ? kNoShare : acc + (now - from);
    ++pos;
  };
  for (const Entry& e : entries_) {
    if (e.counter && !e.maximum) {
      add({e.counter, 0}, *e.counter);
    } else if (e.histogram) {
      for (size_t b = 0; b < e.histogram->size(); ++b) add({e.histogram, b}, (*e.histogram)[b]);
    }
  }
  for (const StatGroup* child : children_) child->accumulate(since, into, pos);
}

nlohmann::json StatGroup::to_json(const StatCounts& counts) const {
  size_t pos = 0;
  return to_json(counts, pos);
}

nlohmann::json StatGroup::to_json(const StatCounts& counts, size_t& pos) const {
  const auto share = [&](const StatCounts::Slot& slot) {
    const uint64_t v = counts.get(pos++, slot);
    return v == kNoShare ? nlohmann::json(nullptr) : nlohmann::json(v);
  };
  nlohmann::json j = nlohmann::json::object();
  for (const Entry& e : entries_) {
    if (e.counter && !e.maximum) {
      j[e.name] = share({e.counter, 0});
    } else if (e.histogram) {
      nlohmann::json a = nlohmann::json::array();
      for (size_t b = 0; b < e.histogram->size(); ++b) a.push_back(share({e.histogram, b}));
      j[e.name] = a;
    }
  }
  for (const StatGroup* child : children_) j[child->name_] = child->to_json(counts, pos);
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

void StatGroup::describe(nlohmann::json& out) const {
  const std::string prefix = path();
  for (const Entry& e : entries_) out[prefix + "." + e.name] = e.desc;
  for (const StatGroup* child : children_) child->describe(out);
}

}  // namespace tessera::sim
