// Reads signals back from an FST file (`tessera trace-query`): the full
// dotted names ("chip.l2.slice0.req_addr"), widths and value changes of the
// signals a caller asks for, through gtkwave's fstapi reader (compiled into
// tessera_rtl with Verilator's runtime). Values x and z read as 0; signals
// wider than 64 bits keep their low 64.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tessera::rtl {

struct SignalTrace {
  unsigned width = 0;
  std::vector<std::pair<uint64_t, uint64_t>> changes;  // (time, value), in time order
};

struct FstContents {
  std::map<std::string, SignalTrace> signals;  // those `want` accepted
  uint64_t end_time = 0;
  int timescale = 0;  // 10^timescale seconds per time unit (-12: ps)
};

// ConfigError naming `path` when it is not a readable FST file.
FstContents read_fst(const std::string& path, const std::function<bool(const std::string&)>& want);

}  // namespace tessera::rtl
