// Parses the instruction lines of `objdump -d` output:
//   "  1c:\t000000ef          \tjal\tra,1c <back>"
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace tessera::isa::test {

struct ObjdumpLine {
  uint32_t addr = 0;
  uint32_t word = 0;
  std::string mnemonic;
  std::string operands;  // without "<symbol>" annotations and "# comments"
  std::string source;    // the original line, for failure messages
};

inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

inline std::vector<ObjdumpLine> read_objdump(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  static const std::regex kLine(R"(^\s*([0-9a-f]+):\t([0-9a-f]{8})\s+\t(\S+)\t?(.*)$)");
  std::vector<ObjdumpLine> lines;
  std::string text;
  while (std::getline(in, text)) {
    std::smatch m;
    if (!std::regex_match(text, m, kLine)) continue;
    ObjdumpLine l;
    l.addr = static_cast<uint32_t>(std::stoul(m[1].str(), nullptr, 16));
    l.word = static_cast<uint32_t>(std::stoul(m[2].str(), nullptr, 16));
    l.mnemonic = m[3].str();
    std::string ops = m[4].str();
    if (const auto hash = ops.find(" #"); hash != std::string::npos) ops.erase(hash);
    if (const auto sym = ops.find(" <"); sym != std::string::npos) ops.erase(sym);
    l.operands = trim(ops);
    l.source = text;
    lines.push_back(l);
  }
  return lines;
}

}  // namespace tessera::isa::test
