// The state machine of one bank as the controller sees it: precharged
// (idle) or active with one open row. Refresh keeps a bank idle; its
// duration (tRFC/tRFCSB) is a timing rule, not a state. An illegal
// transition is a controller bug and throws.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "dram/command.h"

namespace tessera::dram {

class BankState {
 public:
  enum class State : uint8_t { kIdle, kActive };

  State state() const { return state_; }
  bool open() const { return state_ == State::kActive; }
  uint32_t row() const { return row_; }
  bool hit(uint32_t row) const { return open() && row_ == row; }
  uint64_t last_access() const { return last_access_; }

  void apply(CommandKind kind, uint32_t row, uint64_t cycle) {
    switch (kind) {
      case CommandKind::kAct:
        if (open()) throw std::logic_error("BankState: ACT to an active bank");
        state_ = State::kActive;
        row_ = row;
        last_access_ = cycle;
        break;
      case CommandKind::kPre:
        state_ = State::kIdle;
        break;
      case CommandKind::kRd:
      case CommandKind::kWr:
        if (!hit(row)) throw std::logic_error("BankState: column command to a row that is not open");
        last_access_ = cycle;
        break;
      case CommandKind::kRefAb:
      case CommandKind::kRefSb:
        if (open()) throw std::logic_error("BankState: refresh of an active bank");
        break;
    }
  }

 private:
  State state_ = State::kIdle;
  uint32_t row_ = 0;
  uint64_t last_access_ = 0;
};

}  // namespace tessera::dram
