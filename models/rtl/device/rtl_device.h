// A user's RTL block in the chip (netlist type rtl_device,
// docs/rtl-devices.md): the Verilated block of a DeviceLibrary stepped in
// its clock domain, with
// - an AXI4-Lite register slave that the control cores reach through MMIO:
//   an access runs the block from the core's cycle until its B or R
//   handshake, ahead of the chip's time (the core waits those cycles; a
//   block that does not answer within rtl_device.reg_timeout cycles stops
//   the run);
// - an AXI4 memory master bound like an SM to the crossbar or the network:
//   each burst is read or written on the functional memory when its
//   address (reads) or last beat (writes) is accepted, and its timing is
//   one request per 128-byte line it touches (32-byte sectors) through the
//   memory system; its R beats or B response follow the last answer;
// - interrupt lines to the control cores: a rising irq bit wakes them, and
//   a core in wfi sleeps while the block is busy (busy high or a burst in
//   flight).
// The block is stepped only in cycles in which it can act: an AXI valid
// from either side, busy high, or a handshake in the cycle before.
#pragma once

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "rtl/device/device_coverage.h"
#include "rtl/device/device_library.h"
#include "rtl/device/device_reference.h"
#include "sim/at_initiator_port.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/in_flight.h"
#include "sim/payload_pool.h"
#include "sim/run_control.h"
#include "sim/side_band_port.h"
#include "sim/stats.h"
#include "sim/waveform.h"

namespace tessera::rtl {

struct RtlDeviceParams {
  uint32_t max_reads = 8;       // read bursts in flight (m_axi_arready low beyond)
  uint32_t max_writes = 8;      // write bursts in flight
  uint32_t reg_timeout = 1000;  // cycles a register access may take
  std::string fst;              // "" : no FST of the block's own signals
  // The block type its cover points are summed under (--rtl-coverage):
  // "rtl_device:<top>(<parameters>)".
  std::string coverage_block = "rtl_device";
};

class RtlDevice : public sc_core::sc_module, public sim::InFlightReporter {
 public:
  // The control cores' and the SMs' register accesses (one binding each).
  using RegsSocket = tlm_utils::multi_passthrough_target_socket<RtlDevice>;
  using MemPort = sim::AtInitiatorPort<RtlDevice>;

  sim::Port<sim::InterruptIf, 0> irq{"irq", "sim::InterruptIf (a control cluster's irq)"};

  // The sockets exist when the netlist binds them (with_regs, with_mem):
  // SystemC refuses a socket left unbound.
  // `reference`: a C++ reference the block runs in lockstep with
  // (device_reference.h; nullptr: none); its FST then records the whole run
  // (params.fst, or a file it names in the mismatch report).
  RtlDevice(const sc_core::sc_module_name& name, std::shared_ptr<DeviceLibrary> lib, const sim::ClockDomain& clock,
            sim::BackingMemory& global, sim::RunControl& run, sim::StatGroup& stats_parent, RtlDeviceParams params,
            uint16_t source_id, bool with_regs, bool with_mem, std::unique_ptr<DeviceReference> reference = nullptr);
  // Lockstep: the reference's writes and interrupts the block did not make
  // ("" when none, or without a reference).
  std::string unmet_expectations() const;
  // Register accesses (offsets within the window); nullptr without with_regs.
  RegsSocket* regs() { return regs_.get(); }
  // Memory requests; nullptr without with_mem.
  decltype(MemPort::socket)* mem_socket() { return mem_port_ ? &mem_port_->socket : nullptr; }
  ~RtlDevice() override;

  const tessera_rtl_device_shape& shape() const { return lib_->api().shape; }
  // Work an interrupt will end: busy high or a burst in flight.
  bool busy() const;
  void set_waveform(sim::Waveform* wave);
  std::string describe_in_flight() const override;

  uint64_t cycles_stepped() const { return stats_.cycles; }

 private:
  struct Burst {
    uint64_t addr = 0;
    uint32_t id = 0;
    unsigned beats = 0, size_bytes = 0;
    std::vector<uint8_t> data;     // beats * bus bytes, by beat
    std::vector<uint8_t> strobes;  // writes: a byte enable per data byte
    unsigned beats_done = 0;       // R beats given, or W beats taken
    unsigned pieces_left = 0;      // line requests not yet answered
    uint64_t ready_cycle = 0;      // R or B may be given from this cycle
    uint64_t start_cycle = 0;
  };
  struct Piece {
    uint64_t line;
    uint8_t sectors;
    bool write;
    Burst* burst;
  };

  void start_of_simulation() override;
  void b_transport(int initiator, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void tick();
  // One cycle of the block: inputs from the current state, eval, handshakes, edge.
  void step(uint64_t cycle);
  void accept_read(const tessera_rtl_device_outputs& o, uint64_t cycle);
  void accept_write_address(const tessera_rtl_device_outputs& o, uint64_t cycle);
  void accept_write_beat(const tessera_rtl_device_outputs& o, uint64_t cycle);
  // Checks a burst's address, length and type; stops the run and returns
  // false when the block asks for what AXI or the chip forbids.
  bool check_burst(const char* channel, uint64_t addr, unsigned len, unsigned size, unsigned burst, uint64_t cycle);
  void split(Burst& b, bool write, uint64_t cycle);
  void send_pieces(uint64_t cycle);
  void on_answer(unsigned socket, tlm::tlm_generic_payload& gp, const sc_core::sc_time& at);
  void on_end_req(unsigned socket);
  void fault(const std::string& what, uint64_t cycle);
  // Lockstep: stops the run with a report of the cycle's difference.
  struct Row {
    std::string name, reference, rtl;
  };
  void mismatch(uint64_t cycle, const std::vector<std::pair<std::string, std::string>>& inputs,
                const std::vector<Row>& outputs);
  void record_waves(uint64_t cycle);
  void wake_at(uint64_t cycle);
  // Coverage (when collected): the table of the AXI points and the block's
  // own, and the block's counts read from Verilator into it.
  void track_coverage();
  std::vector<VerilatorCoverPoint> user_coverage() const;
  void refresh_user_coverage(CoverTable& table) const;
  void cover_cycle(const tessera_rtl_device_inputs& in, const tessera_rtl_device_outputs& o, bool r_valid, bool w_valid,
                   bool b_valid, uint32_t rising);

  std::unique_ptr<RegsSocket> regs_;
  std::unique_ptr<MemPort> mem_port_;
  std::shared_ptr<DeviceLibrary> lib_;
  const tessera_rtl_device_api& api_;
  void* dev_ = nullptr;
  const sim::ClockDomain& clock_;
  sim::BackingMemory& global_;
  sim::RunControl& run_;
  RtlDeviceParams params_;
  uint16_t source_id_;
  unsigned bus_bytes_;

  sc_core::sc_event wake_;
  uint64_t next_cycle_ = 0;  // every cycle before it has been stepped or skipped
  bool active_ = true;       // step the block in next_cycle_ (cycle 0: it may start by itself)
  tessera_rtl_device_inputs in_{};
  tessera_rtl_device_outputs out_{};
  uint32_t irq_level_ = 0;

  // The register access in progress (b_transport).
  struct RegAccess {
    bool pending = false, write = false;
    bool addr_sent = false, data_sent = false, done = false;
    uint32_t offset = 0, wdata = 0;
    uint8_t wstrb = 0;
    uint32_t rdata = 0;
    uint8_t resp = 0;
  } reg_;

  std::deque<std::unique_ptr<Burst>> reads_;   // in AR order; R beats in that order
  std::deque<std::unique_ptr<Burst>> writes_;  // in AW order; W beats and B in that order
  std::deque<Piece> to_send_;
  std::unordered_map<const tlm::tlm_generic_payload*, Burst*> answers_;  // line requests in flight
  uint64_t send_from_ = 0;                                               // pieces made in a cycle go out from the next
  sim::PayloadPool pool_;

  struct Stats {
    uint64_t cycles = 0, reg_reads = 0, reg_writes = 0, reg_errors = 0;
    uint64_t read_bursts = 0, read_beats = 0, read_bytes = 0, read_requests = 0;
    uint64_t write_bursts = 0, write_beats = 0, write_bytes = 0, write_requests = 0;
    uint64_t interrupts = 0, read_latency = 0, write_latency = 0;
  } stats_;
  sim::StatGroup stat_group_;

  // Waveform: the AXI channels' valid/ready, the interrupt lines and busy,
  // recorded when SystemC time reaches them (a register access runs ahead).
  sim::Waveform* wave_ = nullptr;
  struct WaveIds {
    int awvalid, awready, wvalid, wready, bvalid, arvalid, arready, rvalid, rdata;
    int m_arvalid, m_arready, m_araddr, m_rvalid, m_rready, m_awvalid, m_awready, m_awaddr, m_wvalid, m_wready,
        m_bvalid, irq, busy;
  } ids_{};
  struct PendingChange {
    uint64_t ps;
    int id;
    uint64_t value;
  };
  std::deque<PendingChange> wave_queue_;
  void flush_wave(uint64_t up_to_ps);
  bool fst_open_ = false;

  // Lockstep against a C++ reference.
  class Host : public DeviceReferenceHost {
   public:
    explicit Host(RtlDevice& d) : d_(d) {}
    bool read_memory(uint64_t addr, void* dst, size_t bytes) override;
    void expect_write(uint64_t addr, const void* data, size_t bytes) override;
    void expect_interrupt(unsigned line) override;

   private:
    RtlDevice& d_;
  };
  std::unique_ptr<DeviceAxiCoverage> cover_;               // when coverage is collected
  std::vector<std::string> user_points_;                   // the block's own, after the AXI points
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // the collection's refresh checks it

  std::unique_ptr<DeviceReference> reference_;
  Host host_{*this};
  std::map<uint64_t, std::deque<uint8_t>> expected_writes_;  // by address, in the reference's order
  std::vector<uint64_t> expected_irqs_;                      // rising edges still expected, per line
};

}  // namespace tessera::rtl
