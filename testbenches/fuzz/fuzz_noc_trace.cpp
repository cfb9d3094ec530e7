// NoC trace harness: the input is a trace for `tessera noc --traffic trace`
// on a 4x4 mesh with 2 message classes and 4-flit default packets.
// read_trace either refuses it with a ConfigError that names the file and
// line, or returns records that match an independent reading of the
// documented grammar ("cycle src dst [flits [class]]", '#' comments) line by
// line. Short traces are then run through the network exactly as `tessera
// noc` runs them: every packet must arrive and the flit checker must pass.
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>

#include "fuzz_util.h"
#include "noc/measurement.h"
#include "noc/traffic.h"
#include "sim/config.h"
#include "trace_oracle.h"

namespace {

using namespace tessera;
using fuzz::check;

constexpr int kNodes = 16, kClasses = 2, kDefaultFlits = 4;

void check_record(const noc::TraceRecord& r, const std::vector<std::string>& t, const std::string& line) {
  const auto where = [&](const std::string& what) { return "'" + line + "': " + what; };
  check(t.size() >= 3 && t.size() <= 5, [&] { return where("accepted without 3 to 5 fields"); });
  const uint64_t max = std::numeric_limits<int64_t>::max();
  std::optional<uint64_t> v[5];
  for (size_t i = 0; i < t.size(); ++i) {
    v[i] = fuzz::number(t[i], max);
    check(v[i].has_value(), [&] { return where("field '" + t[i] + "' is not a decimal or 0x-hex number"); });
  }
  check(*v[0] == r.cycle, [&] { return where("cycle differs from the number written"); });
  check(*v[1] == static_cast<uint64_t>(r.src) && r.src < kNodes,
        [&] { return where("src differs or does not exist"); });
  check(*v[2] == static_cast<uint64_t>(r.dst) && r.dst < kNodes,
        [&] { return where("dst differs or does not exist"); });
  const uint64_t flits = t.size() > 3 ? *v[3] : kDefaultFlits;
  check(flits == static_cast<uint64_t>(r.flits) && r.flits >= 1 && r.flits <= 65535,
        [&] { return where("packet length differs or is out of range"); });
  const uint64_t cls = t.size() > 4 ? *v[4] : 0;
  check(cls == static_cast<uint64_t>(r.cls) && r.cls < kClasses,
        [&] { return where("class differs or does not exist"); });
}

noc::NocParams mesh_params() {
  sim::Config cfg;
  cfg.set("noc.k", "4", "--set");
  cfg.set("noc.classes", std::to_string(kClasses), "--set");
  return noc::NocParams::from_config(cfg);
}

void run_network(const std::string& path, size_t records) {
  static const noc::NocParams params = mesh_params();
  sim::Config cfg;
  cfg.set("noc.traffic", "trace", "--set");
  cfg.set("noc.trace", path, "--set");
  const noc::MeasureOptions options = noc::MeasureOptions::from_config(cfg);
  const noc::MeasureResult r = noc::run_measurement(params, options);
  check(r.checker_ok, "flit checker failed on a trace run");
  check(r.delivered_measured == records, "a trace packet was not delivered");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream in(text);
  std::vector<noc::TraceRecord> records;
  try {
    records = noc::read_trace(in, "fuzz.trace", kNodes, kClasses, kDefaultFlits);
  } catch (const sim::ConfigError& e) {
    check(std::string(e.what()).rfind("fuzz.trace:", 0) == 0, "ConfigError does not start with file:line");
    return 0;
  }
  size_t n = 0;
  uint64_t flits = 0;
  for (const std::string& raw : fuzz::split_lines(text)) {
    const std::string line = raw.substr(0, raw.find('#'));
    const auto t = fuzz::tokens(line);
    if (t.empty()) continue;
    check(n < records.size(), "fewer records than packet lines");
    check(n == 0 || records[n].cycle >= records[n - 1].cycle, "cycles decrease");
    check_record(records[n], t, line);
    flits += static_cast<uint64_t>(records[n].flits);
    ++n;
  }
  check(n == records.size(), "more records than packet lines");
  // Short traces also run through the network (a few hundred flits at most
  // keeps an execution well under a millisecond).
  if (!records.empty() && records.size() <= 16 && flits <= 256) {
    static fuzz::MemFile file("fuzz.trace");
    file.assign(data, size);
    run_network(file.path(), records.size());
  }
  return 0;
}

// The network's waveform hooks reach SystemC's time, so libsystemc is
// linked, and it references sc_main (its own main calls it); libFuzzer's
// main is this program's entry point instead, so this is never called.
extern "C" int sc_main(int, char**) {
  std::fprintf(stderr, "fuzz_noc_trace: the entry point is libFuzzer's main, not sc_main\n");
  return 2;
}
