#include "sim/vcd.h"

#include <fmt/format.h>

#include <map>

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

struct ScopeNode {
  std::map<std::string, size_t> index;
  std::vector<std::pair<std::string, ScopeNode>> children;
  std::vector<size_t> signals;
};

void walk(const ScopeNode& node, const ScopeWalker& w) {
  for (size_t s : node.signals) w.signal(s);
  for (const auto& [name, child] : node.children) {
    w.enter(name);
    walk(child, w);
    w.leave();
  }
}
}  // namespace

void walk_scopes(const std::vector<WaveSignal>& signals, const ScopeWalker& walker) {
  ScopeNode root;
  for (size_t i = 0; i < signals.size(); ++i) {
    const std::string& scope = signals[i].scope;
    ScopeNode* node = &root;
    size_t start = 0;
    while (start <= scope.size()) {
      const size_t dot = scope.find('.', start);
      const std::string part = scope.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      auto it = node->index.find(part);
      if (it == node->index.end()) {
        node->children.emplace_back(part, ScopeNode{});
        it = node->index.emplace(part, node->children.size() - 1).first;
      }
      node = &node->children[it->second].second;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    node->signals.push_back(i);
  }
  walk(root, walker);
}

VcdSink::VcdSink(const std::string& option, const std::string& path, const std::vector<std::string>& inputs)
    : out_(option, path, inputs), file_(out_.get()) {}

void VcdSink::declare(const std::vector<WaveSignal>& signals) {
  std::fputs("$date Tessera simulation $end\n$version Tessera $end\n$timescale 1ps $end\n", file_);
  codes_.reserve(signals.size());
  for (size_t i = 0; i < signals.size(); ++i) {
    codes_.push_back(make_code(i));
    widths_.push_back(signals[i].width);
  }
  walk_scopes(
      signals,
      ScopeWalker{[&](const std::string& name) { std::fprintf(file_, "$scope module %s $end\n", name.c_str()); },
                  [&] { std::fputs("$upscope $end\n", file_); },
                  [&](size_t i) {
                    const WaveSignal& s = signals[i];
                    if (s.width == 1)
                      std::fprintf(file_, "$var wire 1 %s %s $end\n", codes_[i].c_str(), s.name.c_str());
                    else
                      std::fprintf(file_, "$var wire %u %s %s [%u:0] $end\n", s.width, codes_[i].c_str(),
                                   s.name.c_str(), s.width - 1);
                  }});
  std::fputs("$enddefinitions $end\n", file_);
}

void VcdSink::time(uint64_t ps) {
  if (time_written_ && ps == time_) return;
  std::fprintf(file_, "#%llu\n", static_cast<unsigned long long>(ps));
  time_ = ps;
  time_written_ = true;
}

void VcdSink::value(size_t signal, uint64_t v) {
  const unsigned width = widths_[signal];
  if (width == 1) {
    std::fprintf(file_, "%c%s\n", (v & 1) ? '1' : '0', codes_[signal].c_str());
    return;
  }
  char bits[66];
  unsigned n = 0;
  bits[n++] = 'b';
  for (int b = static_cast<int>(width) - 1; b >= 0; --b) bits[n++] = ((v >> b) & 1) ? '1' : '0';
  bits[n] = 0;
  std::fprintf(file_, "%s %s\n", bits, codes_[signal].c_str());
}

void VcdSink::close(uint64_t end_ps) {
  if (!file_) return;
  if (!time_written_ || end_ps > time_) time(end_ps);
  file_ = nullptr;
  out_.close();
}

}  // namespace tessera::sim
