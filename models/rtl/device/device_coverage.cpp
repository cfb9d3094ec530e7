#include "rtl/device/device_coverage.h"

#include <fmt/format.h>

#include <map>
#include <sstream>
#include <stdexcept>

namespace tessera::rtl {

namespace {

constexpr const char* kFixedNames[DeviceAxiCoverage::kFixedPoints] = {
    "regs.read",         "regs.write",           "regs.error",
    "read.burst.1",      "read.burst.2-4",       "read.burst.5-16",
    "read.burst.17-256", "read.narrow",          "read.overlap",
    "read.ar_stall",     "read.r_backpressure",  "write.burst.1",
    "write.burst.2-4",   "write.burst.5-16",     "write.burst.17-256",
    "write.narrow",      "write.partial_strobe", "write.overlap",
    "write.aw_stall",    "write.b_backpressure", "read_write.together",
    "busy.alone"};

bool has_point(const tessera_rtl_device_shape& shape, unsigned p) {
  using C = DeviceAxiCoverage;
  if (p <= C::kRegError) return shape.s_addr_bits > 0;
  if (p <= C::kReadWriteTogether) return shape.m_data_bits > 0;
  return shape.has_busy != 0;  // kBusyAlone
}

}  // namespace

std::vector<std::string> DeviceAxiCoverage::point_names(const tessera_rtl_device_shape& shape) {
  std::vector<std::string> names;
  for (unsigned p = 0; p < kFixedPoints; ++p) {
    if (has_point(shape, p)) names.emplace_back(kFixedNames[p]);
  }
  for (unsigned line = 0; line < shape.irq_bits; ++line) names.push_back(fmt::format("irq[{}].rise", line));
  return names;
}

DeviceAxiCoverage::Point DeviceAxiCoverage::burst_point(bool write, unsigned beats) {
  const unsigned bucket = beats <= 1 ? 0 : beats <= 4 ? 1 : beats <= 16 ? 2 : 3;
  return static_cast<Point>((write ? kWriteBurst1 : kReadBurst1) + bucket);
}

DeviceAxiCoverage::DeviceAxiCoverage(std::shared_ptr<CoverTable> table, const tessera_rtl_device_shape& shape)
    : table_(std::move(table)) {
  int next = 0;
  for (unsigned p = 0; p < kFixedPoints; ++p) index_[p] = has_point(shape, p) ? next++ : -1;
  irq_first_ = static_cast<size_t>(next);
  irq_lines_ = shape.irq_bits;
}

void DeviceAxiCoverage::irq_rises(uint32_t lines) {
  for (size_t line = 0; line < irq_lines_ && line < 32; ++line) {
    if ((lines >> line) & 1) table_->hit(irq_first_ + line);
  }
}

std::vector<VerilatorCoverPoint> parse_verilator_coverage(const std::string& text, const std::string& root) {
  std::vector<VerilatorCoverPoint> points;
  std::map<std::string, unsigned> seen;
  std::istringstream in(text);
  unsigned number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const size_t open = line.find('\'');
    const size_t close = line.rfind('\'');
    if (line.rfind("C '", 0) != 0 || close == open)
      throw std::runtime_error(fmt::format("line {}: not a coverage record: {}", number, line));
    const std::string keys = line.substr(open + 1, close - open - 1);
    uint64_t count = 0;
    try {
      size_t used = 0;
      const std::string tail = line.substr(close + 1);
      count = std::stoull(tail, &used);
      if (tail.find_first_not_of(' ', used) != std::string::npos) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      throw std::runtime_error(fmt::format("line {}: no count after the keys: {}", number, line));
    }
    std::map<std::string, std::string> kv;
    for (size_t at = 0; at < keys.size();) {
      if (keys[at] != '\1') throw std::runtime_error(fmt::format("line {}: malformed keys", number));
      const size_t sep = keys.find('\2', at);
      const size_t end = std::min(keys.find('\1', at + 1), keys.size());
      if (sep == std::string::npos || sep > end)
        throw std::runtime_error(fmt::format("line {}: malformed keys", number));
      kv[keys.substr(at + 1, sep - at - 1)] = keys.substr(sep + 1, end - sep - 1);
      at = end;
    }
    if (kv["page"].rfind("v_user/", 0) != 0) continue;  // line or toggle coverage
    std::string hier = kv["h"];
    if (hier.rfind(root + ".", 0) == 0) hier = hier.substr(root.size() + 1);
    std::string name = "cover." + hier;
    if (kv["o"] == "cover") {  // an unlabelled `cover property`
      const std::string& file = kv["f"];
      name += fmt::format("@{}:{}", file.substr(file.find_last_of('/') + 1), kv["l"]);
    }
    if (const unsigned n = seen[name]++; n > 0) name += fmt::format("#{}", n + 1);
    points.push_back({name, count});
  }
  return points;
}

}  // namespace tessera::rtl
