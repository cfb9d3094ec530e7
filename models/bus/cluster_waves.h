// The control-core cluster's waveform signals (docs/waveforms.md), under
// chip.<cluster>: the snooping bus (`bus.`), and per core its PC, retired
// instructions and stall state (`coreC.`), the L1D line that changed
// state last (`coreC.l1d.`) and its vector unit's issues and convoys
// (`coreC.vector.`).
//
// The cluster runs ahead of SystemC time (cpu.quantum), so its changes are
// kept here with their cycles and released to the sim::Waveform, in cycle
// order, when SystemC time reaches them (release()): every model reports
// times that never go backwards.
//
// Value names of the signals (docs/waveforms.md): the
// bus command of a granted request (`bus_cmd`) and the coherence state of
// an L1D line (`coh_state`): the stable states of every protocol, then the
// transient states of a request in flight (bus/transient.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bus/cluster.h"
#include "bus/transient.h"
#include "mem/coherence_protocol.h"
#include "sim/waveform.h"

namespace tessera::bus {

// Values are mem::BusOp's (0: no request on the bus).
inline const sim::WaveEnum kBusCmdWave{
    "bus_cmd", {{0, "None"}, {1, "BusRd"}, {2, "BusRdX"}, {3, "BusUpgr"}, {4, "BusUpd"}, {5, "WriteBack"}}};

// mem::State values 0-7, then Transient t as 7 + t (IS_AD = 8 ... SmI_D = 22).
inline const sim::WaveEnum kCohStateWave{
    "coh_state",
    {{0, "I"},      {1, "S"},     {2, "E"},      {3, "M"},     {4, "O"},     {5, "F"},      {6, "Sc"},    {7, "Sm"},
     {8, "IS_AD"},  {9, "IS_D"},  {10, "IM_AD"}, {11, "IM_D"}, {12, "SM_A"}, {13, "FM_A"},  {14, "OM_A"}, {15, "ScM_A"},
     {16, "SmM_A"}, {17, "MI_A"}, {18, "MI_D"},  {19, "OI_A"}, {20, "OI_D"}, {21, "SmI_A"}, {22, "SmI_D"}}};
inline constexpr unsigned kCohStateBits = 5;

inline uint8_t coh_code(mem::State s) { return static_cast<uint8_t>(s); }
inline uint8_t coh_code(Transient t) {
  return static_cast<uint8_t>(static_cast<uint8_t>(mem::State::kCount) - 1 + static_cast<uint8_t>(t));
}

inline const sim::WaveEnum kCoreStallWave{"core_stall", {{0, "running"}, {1, "memory"}, {2, "wait"}, {3, "halted"}}};

class ClusterWaves {
 public:
  static constexpr uint64_t kNever = ~uint64_t{0};

  // Registers the signals of `cores` cores under `scope` ("chip.cluster"),
  // the first `vector_cores` of them with a vector unit.
  ClusterWaves(sim::Waveform& wave, const std::string& scope, unsigned cores, unsigned vector_cores);
  // Whether --trace-scope kept any of the signals.
  bool any() const { return any_; }

  void pc(unsigned core, uint32_t pc, uint64_t cycle);
  // One instruction retired by `core` in `cycle` (retire counts them in the cycle).
  void retire(unsigned core, uint64_t cycle);
  // 0 running, 1 waiting for memory, 2 asleep in wfi, 3 parked (kCoreStallWave).
  void stall(unsigned core, unsigned code, uint64_t cycle);
  // A vector instruction of `core`: the issue queue took it in `accepted`,
  // and its convoy (chime) number shows from `start`.
  void vector(unsigned core, uint64_t convoy, uint64_t start, uint64_t accepted);
  void bus(const BusEvent& e);
  void line(unsigned core, uint64_t line, uint8_t coh_state, uint64_t cycle);

  // Writes every change at a cycle up to `cycle` at time `ps` (now).
  void release(uint64_t cycle, uint64_t ps);
  // The cycle of the earliest change not yet released (kNever: none).
  uint64_t next_cycle() const;

 private:
  struct Change {
    int id;
    uint64_t value;
  };
  // Changes wait in a ring of per-cycle buckets covering cycles [next_,
  // next_ + ring size), each in the order it was made (a later change in a
  // cycle wins); the ring doubles when a change lies beyond. A change for a
  // cycle already released goes out with the next release.
  void at(int id, uint64_t value, uint64_t cycle) {
    if (id < 0) return;
    if (cycle < next_) {
      late_.push_back(Change{id, value});
      return;
    }
    while (cycle - next_ >= ring_.size()) grow();
    ring_[cycle & (ring_.size() - 1)].push_back(Change{id, value});
    ++pending_;
  }
  void grow();
  // 1 in `cycle`, 0 from `until` (a later change in that cycle wins).
  void pulse(int id, uint64_t cycle, uint64_t until) {
    at(id, 1, cycle);
    at(id, 0, until);
  }

  struct Core {
    int pc = -1, retire = -1, stall = -1, line_addr = -1, line_state = -1, vector_issue = -1, vector_convoy = -1;
    uint32_t last_pc = 0;
    bool pc_known = false;
    unsigned last_stall = 4;
    uint64_t retire_cycle = kNever, retired = 0;  // instructions retired in retire_cycle
  };
  int req_valid_ = -1, req_cmd_ = -1, req_addr_ = -1, req_core_ = -1, req_tag_ = -1;
  int resp_valid_ = -1, resp_core_ = -1, resp_tag_ = -1, shared_ = -1, dirty_ = -1, nack_ = -1;
  std::vector<Core> cores_;
  sim::Waveform& wave_;
  bool any_ = false;
  std::vector<std::vector<Change>> ring_ = std::vector<std::vector<Change>>(1024);  // a power of two
  uint64_t next_ = 0;                                                               // the first cycle not yet released
  size_t pending_ = 0;                                                              // changes in the ring
  std::vector<Change> late_;
};

}  // namespace tessera::bus
