// DRAM trace harness: the input is a trace file for `tessera dram --pattern
// trace`. parse_trace either refuses it with a ConfigError that names the
// file and line, or returns requests that match an independent reading of
// the documented grammar ("<cycle> <R|W> <hex address>", '#' comments and
// blank lines) line by line, in non-decreasing cycle order.
#include <limits>
#include <sstream>
#include <string>

#include "dram/traffic.h"
#include "fuzz_util.h"
#include "sim/config.h"
#include "trace_oracle.h"

namespace {

using namespace tessera;
using fuzz::check;

void check_entry(const dram::TraceEntry& e, const std::string& line) {
  const auto where = [&](const char* what) { return "line " + std::to_string(e.line) + " '" + line + "': " + what; };
  const auto t = fuzz::tokens(line);
  check(t.size() == 3, [&] { return where("accepted without exactly 3 fields"); });
  const auto cycle = fuzz::digits(t[0], 10, std::numeric_limits<uint64_t>::max());
  check(cycle.has_value() && *cycle == e.cycle, [&] { return where("cycle is not the decimal number written"); });
  check(t[1] == "R" || t[1] == "r" || t[1] == "W" || t[1] == "w", [&] { return where("operation is not R or W"); });
  check(e.is_write == (t[1] == "W" || t[1] == "w"), [&] { return where("read/write swapped"); });
  const std::string hex = fuzz::has_hex_prefix(t[2]) ? t[2].substr(2) : t[2];
  const auto address = fuzz::digits(hex, 16, std::numeric_limits<uint64_t>::max());
  check(address.has_value() && *address == e.address, [&] { return where("address is not the hex number written"); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  std::vector<dram::TraceEntry> entries;
  try {
    entries = dram::parse_trace(in, "fuzz.trace");
  } catch (const sim::ConfigError& e) {
    check(std::string(e.what()).rfind("fuzz.trace:", 0) == 0, "ConfigError does not start with file:line");
    return 0;
  }
  const auto lines = fuzz::split_lines(text);
  unsigned previous_line = 0;
  uint64_t previous_cycle = 0;
  for (const dram::TraceEntry& e : entries) {
    check(e.line > previous_line && e.line <= lines.size(), "line numbers out of order or past the end");
    check(e.cycle >= previous_cycle, "cycles decrease");
    check_entry(e, lines[e.line - 1]);
    previous_line = e.line;
    previous_cycle = e.cycle;
  }
  // Every non-blank, non-comment line became a request.
  size_t requests = 0;
  for (const std::string& line : lines) {
    const auto t = fuzz::tokens(line);
    if (!t.empty() && t[0][0] != '#') ++requests;
  }
  check(requests == entries.size(), "a request line was skipped");
  return 0;
}
