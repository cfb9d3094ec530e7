// `tessera trace-query FILE.fst --addr A[:LEN]`: every transaction on an
// address range that a waveform holds, in time order, with the unit that
// made it and that unit's cycle (docs/waveforms.md, "Transactions on an
// address"). Read from the signals that carry addresses:
//   SM requests towards L2   chip.smN.mem.{req, req_addr, req_op, req_warp}
//   L2 slice requests        chip.<l2>.sliceS.{req, req_addr, req_kind, req_sm, hit, miss}
//   DRAM commands            chip.<hbm>.pcP.{cmd, cmd_addr, cmd_bank, cmd_row, cmd2*, bankB.row}
//   coherent bus requests    chip.<cluster>.bus.{req_valid, req_addr, req_cmd, req_core, req_tag}
// The query logic is pure (testable on hand-made signals); the command
// reads the FST.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rtl/common/fst_reader.h"
#include "sim/tool_command.h"

namespace tessera::platform {

struct AddressQuery {
  uint64_t addr = 0, len = 1;
  uint64_t bus_line_bytes = 64;  // the control cluster's line (cluster.line_bytes)
};

struct Transaction {
  uint64_t time_ps = 0;
  uint64_t cycle = 0;    // of the unit's clock
  int order = 0;         // at one instant: bus, SM, L2, DRAM
  std::string unit;      // "sm2.mem", "l2.slice1", "hbm.pc3", "cluster.bus"
  std::string op;        // "read", "BusRdX", "ACT", "RD"
  uint64_t addr = 0;     // the line, sector or burst
  std::string detail;    // "warp 5", "from sm2, miss", "bank 3 row 0x1f"
  bool has_addr = true;  // false: a row command (ACT, PRE), which names bank and row only
};

// The transactions of `signals` (full names as the FST holds them) that
// touch [q.addr, q.addr + q.len), in time order.
std::vector<Transaction> query_transactions(const std::map<std::string, rtl::SignalTrace>& signals,
                                            const AddressQuery& q);

// Whether `name` is a signal query_transactions reads.
bool transaction_signal(const std::string& name);

std::string format_transactions(const std::vector<Transaction>& t, const AddressQuery& q, const std::string& file);

sim::ToolCommand add_trace_query_command(CLI::App& app);

}  // namespace tessera::platform
