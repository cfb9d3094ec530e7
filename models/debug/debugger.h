// gdb on the chip (`tessera run ... --gdb PORT`, docs/debugging.md): a GDB
// remote-serial-protocol server that shows every control core and every
// resident SM warp as a thread. Pure C++, no SystemC.
//
// All-stop by construction: the models call before() ahead of each
// instruction while gdb is connected,
// and a stop serves gdb right there, inside the simulation's callback, so
// the whole chip's simulated time stands still until gdb resumes it.
//
// Threads: the models register ThreadSources (the control cluster's cores,
// each SM's warp slots). gdb thread ids are given in order of first sight
// and never reused; a warp is the warp a slot holds (a new block in the
// slot is a new thread). A warp's registers are those of one lane:
// `monitor lane N` selects it (by default the lowest lane at the warp's pc).
//
// Breakpoints (Z0, Z1) stop the thread that is about to run the instruction
// at their pc, before it runs. Watchpoints (Z2 write, Z3 read, Z4 access)
// stop the thread whose load or store overlaps them, before the access (a
// RISC-V trigger's timing; gdb then steps over it and compares the value).
// Steps stop the thread at its next instruction. gdb resumes either every
// thread or only some (vCont;c:TID: its step over a breakpoint, and its
// software single-step on RISC-V): a thread it did not resume is held at
// its next instruction (a core stalls a cycle at a time, a warp is not
// issued) until gdb resumes it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "debug/rsp.h"
#include "isa/isa.h"

namespace tessera::debug {

// Threads as one model holds them.
class ThreadSource {
 public:
  struct Thread {
    uint64_t key;      // the source's name for it, stable while it lives
    std::string name;  // "chip.cluster.core1", "chip.sm2 warp 5 block (1,0,0)"
  };
  virtual ~ThreadSource() = default;
  // The live threads, in a fixed order.
  virtual void threads(std::vector<Thread>& out) = 0;
  // Lanes of the thread that exist (one bit for a core); 0 when it is gone.
  virtual uint32_t lanes(uint64_t key) = 0;
  // The lane shown when none is selected.
  virtual unsigned default_lane(uint64_t key) = 0;
  // The registers of one lane (null when the thread or lane is gone).
  virtual isa::ThreadState* state(uint64_t key, unsigned lane) = 0;
  // Reads or writes memory as the thread sees it (an SM thread's shared and
  // local windows); false when a byte is outside every mapping.
  virtual bool access_memory(uint64_t key, unsigned lane, uint32_t addr, uint8_t* data, uint32_t len, bool write) = 0;
  // What the thread does now, in words ("at the barrier", "waiting on memory").
  virtual std::string activity(uint64_t key) = 0;
};

class Debugger {
 public:
  // The signals gdb is told of (its own numbering, the protocol's).
  enum Signal : int { kSigInt = 2, kSigIll = 4, kSigTrap = 5, kSigAbrt = 6, kSigBus = 7, kSigSegv = 11 };

  // What the platform answers to `monitor CMD ARGS` (nullopt: unknown).
  using Monitor = std::function<std::optional<std::string>(const std::string& cmd, const std::string& args)>;

  Debugger();
  ~Debugger();
  Debugger(const Debugger&) = delete;
  Debugger& operator=(const Debugger&) = delete;

  unsigned add_source(ThreadSource& source);
  void set_monitor(Monitor m, std::string help) {
    monitor_ = std::move(m);
    monitor_help_ = std::move(help);
  }
  // gdb's `kill`: the platform stops the run.
  void set_kill(std::function<void()> kill) { kill_ = std::move(kill); }
  // --trigger store:ADDR[:LEN]: the first store (or atomic) that changes
  // a byte of [addr, addr + len) calls `fire` with the thread's name, the
  // pc and the address, once (before the store); with or without gdb.
  using StoreTrigger = std::function<void(const std::string& thread, uint32_t pc, uint32_t addr)>;
  void set_store_trigger(uint32_t addr, uint32_t len, StoreTrigger fire) {
    trigger_ = Watch{addr, len, '2'};
    fire_ = std::move(fire);
    update_armed();
  }

  // Listens on 127.0.0.1:port (0: a free port), says so on `notice`, and
  // waits for gdb. std::runtime_error when it cannot listen.
  void listen(uint16_t port, std::FILE* notice);
  // Tests: a connection already made.
  void connect(std::unique_ptr<Connection> c) {
    conn_ = std::move(c);
    update_armed();
  }
  // The first stop, before any instruction: serves gdb until it resumes.
  void start();

  bool connected() const { return conn_ != nullptr; }
  // Whether any instruction may stop: the models' test before before().
  bool armed() const { return armed_; }

  // Thread `key` of `source` is about to run `inst` at `pc` for the lanes in
  // `mask` (their states at lanes[lane]; a core: mask 1, its state at
  // lanes[0]). `progress` changes whenever the thread completes an
  // instruction (a core's instret), so a core's access that waits and runs
  // again does not stop twice. Returns after gdb resumes: true when the
  // thread may run the instruction now, false when it is held (it tries
  // again in a later cycle).
  bool before(unsigned source, uint64_t key, uint32_t pc, uint64_t progress, const isa::Inst& inst,
              const isa::ThreadState* lanes, uint32_t mask);

  // A thread faulted (the run is about to stop): finish() reports it.
  void fault(unsigned source, uint64_t key, unsigned lane, Signal signal);
  // The signal a trap is reported as (an assert's ebreak: SIGTRAP).
  static Signal signal_of(isa::Trap trap);
  // The run is over: a program exit is reported as such; a failure (fault,
  // deadlock, livelock, a limit) stops the faulting thread (or the first)
  // with its signal and `message`, for gdb to look at the state, then ends.
  void finish(bool failed, int status, const std::string& message);

  // For tests: one packet's reply (no framing), as the server gives it.
  std::string handle_for_test(const std::string& packet) {
    resume_ = false;
    return handle(packet);
  }

 private:
  struct Ref {
    unsigned source;
    uint64_t key;
    bool operator<(const Ref& o) const { return source != o.source ? source < o.source : key < o.key; }
    bool operator==(const Ref& o) const { return source == o.source && key == o.key; }
  };
  struct Watch {
    uint32_t addr, len;
    char type;  // '2' write, '3' read, '4' access
  };
  struct Live {
    int64_t tid;
    Ref ref;
    std::string name;
  };

  // Serves packets until one resumes the run (or gdb detaches).
  void serve();
  std::string handle(const std::string& packet);
  // Stops `ref` (a T packet with `signal` and `why`), then serves.
  void stop(Ref ref, unsigned lane, const std::string& why, int signal);
  void send(std::string_view payload);
  void output(const std::string& text);  // an 'O' packet: text on gdb's console
  void disconnect();
  // While gdb is connected (or a store trigger waits) every instruction
  // comes to before(): a
  // breakpoint, a watchpoint, a step or a hold may stop it, and gdb's
  // interrupt (Ctrl-C) is looked for every kPollEvery instructions.
  void update_armed() { armed_ = conn_ != nullptr || trigger_.has_value(); }
  // The lane of `mask` whose access of `inst` overlaps `w`, and where.
  static std::optional<std::pair<unsigned, uint32_t>> overlap(const Watch& w, const isa::Inst& inst,
                                                              const isa::ThreadState* lanes, uint32_t mask);
  // The first address of `w` a lane's store changes (a different value).
  std::optional<uint32_t> store_changes(const Watch& w, unsigned source, uint64_t key, const isa::Inst& inst,
                                        const isa::ThreadState* lanes, uint32_t mask);
  std::optional<Watch> trigger_;
  StoreTrigger fire_;
  static constexpr uint32_t kPollEvery = 4096;
  uint32_t until_poll_ = kPollEvery;

  int64_t tid_of(Ref ref);
  std::vector<Live> live_threads();
  std::optional<Ref> ref_of(int64_t tid);
  // The thread 'g', 'm' and friends act on (Hg), and its lane.
  std::optional<Ref> general();
  unsigned lane_of(int64_t tid, Ref ref);
  std::string stop_reply(int signal, int64_t tid, const std::string& why) const;

  std::string read_registers();
  bool write_registers(std::string_view hex);
  std::optional<std::string> read_register(unsigned n);
  bool write_register(unsigned n, std::string_view hex);
  std::string read_memory(std::string_view args);
  std::string write_memory(std::string_view args, bool binary);
  std::string breakpoint(const std::string& packet);
  std::string resume(std::string_view actions);
  std::string xfer(const std::string& packet);
  std::string monitor(const std::string& hex_command);
  std::string thread_list_xml();

  std::vector<ThreadSource*> sources_;
  std::unique_ptr<TcpListener> listener_;
  std::unique_ptr<Connection> conn_;
  rsp::Reader reader_;
  bool ack_ = true, ack_off_ = false;
  bool armed_ = false;
  bool resume_ = false;
  Monitor monitor_;
  std::string monitor_help_;
  std::function<void()> kill_;

  std::set<uint32_t> breakpoints_;
  std::vector<Watch> watches_;
  struct Step {
    Ref ref;
    std::optional<uint64_t> progress;  // stop once it differs (any: unknown)
  };
  std::optional<Step> step_;
  // Threads gdb resumed when not all: the others are held.
  bool all_resumed_ = true;
  std::set<Ref> resumed_;
  struct LastStop {
    Ref ref{~0u, 0};
    uint32_t pc = 0;
    uint64_t progress = 0;
  } last_stop_;

  std::map<Ref, int64_t> tids_;
  std::map<int64_t, Ref> refs_;
  std::map<int64_t, unsigned> lanes_;  // monitor lane N, by thread
  int64_t next_tid_ = 1;
  int64_t general_tid_ = 0, continue_tid_ = 0;  // Hg, Hc (0: any)
  std::string last_reply_ = "S05";              // '?'
  std::string threads_xml_;                     // qXfer:threads:read's snapshot
  std::optional<std::pair<Ref, unsigned>> fault_;
  int fault_signal_ = kSigSegv;
};

}  // namespace tessera::debug
