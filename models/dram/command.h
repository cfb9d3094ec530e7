// DRAM commands as they appear on a channel's buses. HBM has separate row
// (ACT, PRE, REF) and column (RD, WR) command buses per channel, so one row
// and one column command may issue in the same cycle (JESD235 §6, JESD238).
#pragma once

#include <cstdint>
#include <limits>

namespace tessera::dram {

inline constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

enum class CommandKind : uint8_t { kAct, kPre, kRd, kWr, kRefAb, kRefSb };
inline constexpr unsigned kCommandKinds = 6;

inline const char* to_string(CommandKind k) {
  switch (k) {
    case CommandKind::kAct:
      return "ACT";
    case CommandKind::kPre:
      return "PRE";
    case CommandKind::kRd:
      return "RD";
    case CommandKind::kWr:
      return "WR";
    case CommandKind::kRefAb:
      return "REFab";
    case CommandKind::kRefSb:
      return "REFsb";
  }
  return "?";
}

inline bool is_column_command(CommandKind k) { return k == CommandKind::kRd || k == CommandKind::kWr; }

struct Command {
  uint64_t cycle = 0;
  CommandKind kind = CommandKind::kAct;
  uint16_t channel = 0;
  uint8_t pc = 0;
  uint8_t bank_group = 0;  // unused by REFab
  uint8_t bank = 0;        // within its group; unused by REFab
  uint32_t row = 0;        // ACT (and, for tracing, RD/WR)
  uint32_t column = 0;     // RD/WR
};

// Anything that watches the command buses: the protocol checker, the
// energy model, command traces.
class CommandObserver {
 public:
  virtual ~CommandObserver() = default;
  virtual void on_command(const Command& cmd) = 0;
};

}  // namespace tessera::dram
