#include "sim/vcd.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "sim/config.h"

namespace tessera::sim {

namespace {
// VCD identifier codes: printable ASCII 33..126, base 94.
std::string make_code(size_t n) {
  std::string code;
  do {
    code += static_cast<char>(33 + n % 94);
    n /= 94;
  } while (n);
  return code;
}
}  // namespace

VcdWriter::VcdWriter(const std::string& path, std::vector<std::string> patterns, const std::vector<std::string>& inputs)
    : out_("--vcd", path, inputs), file_(out_.get()), path_(path), patterns_(std::move(patterns)) {}

VcdWriter::~VcdWriter() = default;

bool VcdWriter::scope_enabled(const std::string& scope) const {
  if (patterns_.empty()) return true;
  const auto dot = scope.find('.');
  const std::string relative = dot == std::string::npos ? scope : scope.substr(dot + 1);
  for (const auto& p : patterns_) {
    const std::string below = p + ".*";
    for (const std::string* s : {&scope, &relative}) {
      if (fnmatch(p.c_str(), s->c_str(), 0) == 0 || fnmatch(below.c_str(), s->c_str(), 0) == 0) return true;
    }
  }
  return false;
}

int VcdWriter::add_signal(const std::string& scope, const std::string& name, unsigned width) {
  if (header_done_) throw std::logic_error("VCD signal added after the first value change: " + scope + "." + name);
  if (!scope_enabled(scope)) return -1;
  signals_.push_back(Signal{scope, name, make_code(signals_.size()), width, 0, false});
  return static_cast<int>(signals_.size() - 1);
}

void VcdWriter::write_header() {
  std::fputs("$date Tessera simulation $end\n$version Tessera $end\n$timescale 1ps $end\n", file_);
  // Nested scopes in first-seen order.
  struct Node {
    std::map<std::string, size_t> index;
    std::vector<std::pair<std::string, Node>> children;
    std::vector<const Signal*> signals;
  };
  Node root;
  for (const Signal& s : signals_) {
    Node* node = &root;
    size_t start = 0;
    while (start <= s.scope.size()) {
      const size_t dot = s.scope.find('.', start);
      const std::string part = s.scope.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      auto it = node->index.find(part);
      if (it == node->index.end()) {
        node->children.emplace_back(part, Node{});
        it = node->index.emplace(part, node->children.size() - 1).first;
      }
      node = &node->children[it->second].second;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    node->signals.push_back(&s);
  }
  std::function<void(const Node&)> emit = [&](const Node& n) {
    for (const Signal* s : n.signals) {
      if (s->width == 1) {
        std::fprintf(file_, "$var wire 1 %s %s $end\n", s->code.c_str(), s->name.c_str());
      } else {
        std::fprintf(file_, "$var wire %u %s %s [%u:0] $end\n", s->width, s->code.c_str(), s->name.c_str(),
                     s->width - 1);
      }
    }
    for (const auto& [name, child] : n.children) {
      std::fprintf(file_, "$scope module %s $end\n", name.c_str());
      emit(child);
      std::fputs("$upscope $end\n", file_);
    }
  };
  emit(root);
  std::fputs("$enddefinitions $end\n#0\n$dumpvars\n", file_);
  for (Signal& s : signals_) {
    write_value(s);
    s.written = true;
  }
  std::fputs("$end\n", file_);
  header_done_ = true;
  time_written_ = true;
}

void VcdWriter::write_value(const Signal& s) {
  if (s.width == 1) {
    std::fprintf(file_, "%c%s\n", (s.value & 1) ? '1' : '0', s.code.c_str());
    return;
  }
  char bits[65];
  unsigned n = 0;
  for (int b = static_cast<int>(s.width) - 1; b >= 0; --b) bits[n++] = ((s.value >> b) & 1) ? '1' : '0';
  bits[n] = 0;
  std::fprintf(file_, "b%s %s\n", bits, s.code.c_str());
}

void VcdWriter::change(int id, uint64_t value, uint64_t time_ps) {
  if (id < 0) return;
  if (!header_done_) write_header();
  if (!pending_.empty() && time_ps != pending_time_) flush();
  Signal& s = signals_[static_cast<size_t>(id)];
  if (s.value == value) return;
  s.value = value;
  pending_time_ = time_ps;
  if (!s.pending) {
    s.pending = true;
    pending_.push_back(id);
  }
}

void VcdWriter::flush() {
  if (pending_.empty()) return;
  if (pending_time_ != current_time_ || !time_written_) {
    current_time_ = pending_time_;
    std::fprintf(file_, "#%llu\n", static_cast<unsigned long long>(pending_time_));
    time_written_ = true;
  }
  std::sort(pending_.begin(), pending_.end());
  for (int id : pending_) {
    Signal& s = signals_[static_cast<size_t>(id)];
    write_value(s);
    s.pending = false;
  }
  pending_.clear();
}

void VcdWriter::close(uint64_t end_time_ps) {
  if (!file_) return;
  if (!header_done_) write_header();
  flush();
  if (end_time_ps > current_time_) std::fprintf(file_, "#%llu\n", static_cast<unsigned long long>(end_time_ps));
  file_ = nullptr;
  out_.close();
}

}  // namespace tessera::sim
