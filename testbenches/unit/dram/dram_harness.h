// Test harness for the DRAM engine: builds a MemorySystem through the real
// parameter path (sim::Config, dram.* keys), records every command, places
// single-burst requests at chosen (pc, bank group, bank, row, column), and
// on destruction ends the run and requires a clean protocol check.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dram/dram_params.h"
#include "dram/memory_system.h"

namespace tessera::dram::test {

struct CommandLog : CommandObserver {
  std::vector<Command> commands;
  void on_command(const Command& c) override { commands.push_back(c); }
  // Cycles of every `kind` command on channel `channel` (and `pc` if >= 0).
  std::vector<uint64_t> cycles(CommandKind kind, unsigned channel = 0, int pc = -1) const {
    std::vector<uint64_t> out;
    for (const auto& c : commands)
      if (c.kind == kind && c.channel == channel && (pc < 0 || c.pc == pc)) out.push_back(c.cycle);
    return out;
  }
  uint64_t count(CommandKind kind, unsigned channel, unsigned pc) const {
    uint64_t n = 0;
    for (const auto& c : commands) n += c.kind == kind && c.channel == channel && c.pc == pc;
    return n;
  }
};

using Settings = std::vector<std::pair<std::string, std::string>>;

inline DramConfig make_config(const Settings& settings, const std::string& spec = "hbm2") {
  sim::Config cfg;
  cfg.set("dram.spec", spec, "test");
  for (const auto& [key, value] : settings) cfg.set("dram." + key, value, "test");
  DramConfig c = load_dram_config(cfg);
  cfg.check_all_used();
  return c;
}

class Harness {
 public:
  struct Prebuilt {};
  explicit Harness(const Settings& settings = {}, const std::string& spec = "hbm2")
      : Harness(make_config(settings, spec), Prebuilt{}) {}
  Harness(const DramConfig& config, Prebuilt)
      : ms(std::make_unique<MemorySystem>(config, [this](uint64_t id, uint64_t done) { done_at[id] = done; })) {
    ms->add_observer(&log);
  }
  ~Harness() {
    if (!finished_) finish();
  }
  void finish() {
    finished_ = true;
    ms->finish(std::max(ms->now(), ms->stats().last_done) + 1);
    EXPECT_EQ(ms->checker().violation_count(), 0u) << first_violation();
  }
  std::string first_violation() const {
    if (ms->checker().violations().empty()) return "";
    const auto& v = ms->checker().violations().front();
    return "cycle " + std::to_string(v.cycle) + ": " + v.rule + ": " + v.detail;
  }

  uint64_t address(unsigned pc, unsigned bg, unsigned bank, unsigned row, unsigned column, unsigned channel = 0) const {
    DramAddress a;
    a.channel = channel;
    a.pc = pc;
    a.bank_group = bg;
    a.bank = bank;
    a.row = row;
    a.column = column;
    return ms->address_map().encode(a);
  }
  // A one-burst request entering at `cycle`; returns its id.
  uint64_t request(uint64_t cycle, bool is_write, unsigned pc, unsigned bg, unsigned bank, unsigned row,
                   unsigned column) {
    const uint64_t id = next_id_++;
    MemRequest r{id, address(pc, bg, bank, row, column), ms->spec().org.burst_bytes(), is_write};
    EXPECT_TRUE(ms->enqueue(r, cycle)) << "queue full";
    return id;
  }
  uint64_t read(uint64_t cycle, unsigned pc, unsigned bg, unsigned bank, unsigned row, unsigned column = 0) {
    return request(cycle, false, pc, bg, bank, row, column);
  }
  uint64_t write(uint64_t cycle, unsigned pc, unsigned bg, unsigned bank, unsigned row, unsigned column = 0) {
    return request(cycle, true, pc, bg, bank, row, column);
  }
  void run_until(uint64_t cycle) { ms->advance_to(cycle); }

  std::unique_ptr<MemorySystem> ms;
  CommandLog log;
  std::map<uint64_t, uint64_t> done_at;

 private:
  uint64_t next_id_ = 0;
  bool finished_ = false;
};

// Whether two runs issued the same commands at the same cycles (every
// field of each command).
inline bool same_commands(const std::vector<Command>& a, const std::vector<Command>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Command &x = a[i], &y = b[i];
    if (x.cycle != y.cycle || x.kind != y.kind || x.channel != y.channel || x.pc != y.pc ||
        x.bank_group != y.bank_group || x.bank != y.bank || x.row != y.row || x.column != y.column)
      return false;
  }
  return true;
}

}  // namespace tessera::dram::test
