// The target side of the TLM-2.0 AT base protocol, once for every model:
// a multi_passthrough_target_socket (any number of initiators bind to it,
// socket index = binding order) plus the bookkeeping every target needs.
//
// Request phase. BEGIN_REQ is always answered TLM_ACCEPTED and the request
// waits in the port. The owner admits waiting requests when its clock says
// so, with admit(): they are offered in one fixed order, whatever order
// SystemC ran the initiators in,
//     arrival time (oldest first), then socket index (lowest first),
// and for each the owner decides:
//     kAccept  END_REQ is sent now (the request leaves the port);
//     kWait    the request keeps waiting, END_REQ withheld (back-pressure),
//              and later requests are still offered;
//     kStop    this and every later request keep waiting.
// An initiator sends its next BEGIN_REQ only after END_REQ, so withholding
// END_REQ is how a full target pushes back. An owner that can decide at once
// (its initiator checked for room before sending) registers accept_at_once():
// a request it takes is answered TLM_UPDATED with END_REQ on the return path
// and never waits in the port.
//
// Response phase. respond(socket, gp) sends BEGIN_RESP. The port handles
// every way the initiator can answer:
//     TLM_COMPLETED, or TLM_UPDATED with END_RESP: done now, respond()
//         returns true;
//     TLM_ACCEPTED (or TLM_UPDATED with BEGIN_RESP): END_RESP comes later on
//         the forward path, answered TLM_COMPLETED, and the port calls the
//         owner's on_response_done(gp, socket) then; respond() returns false.
// The port holds a reference to each payload (acquire at BEGIN_REQ, release
// when the response is done), so owners need no memory management.
// BEGIN_RESP for a request still waiting for END_REQ implies its END_REQ: the
// request leaves the waiting list.
//
// The owner is called back (member function pointers, no std::function) when
// a BEGIN_REQ arrives (to plan a wake-up) and when a response ends on the
// forward path; b_transport, if the owner serves it, is forwarded.
#pragma once

#include <fmt/format.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "sim/clock.h"
#include "sim/in_flight.h"
#include "sim/mem_ext.h"

namespace tessera::sim {

template <typename Owner>
class AtTargetPort {
 public:
  struct Request {
    tlm::tlm_generic_payload* gp;
    int socket;                // initiator binding
    sc_core::sc_time arrival;  // time of its BEGIN_REQ
  };
  enum class Admit { kAccept, kWait, kStop };
  using ArrivalFn = void (Owner::*)(const Request&);
  using ResponseDoneFn = void (Owner::*)(tlm::tlm_generic_payload&, int socket);
  using BTransportFn = void (Owner::*)(int socket, tlm::tlm_generic_payload&, sc_core::sc_time&);
  // Takes the request now (true) or leaves it waiting (false); `delay` is the
  // BEGIN_REQ's annotated delay.
  using AcceptNowFn = bool (Owner::*)(const Request&, const sc_core::sc_time& delay);

  tlm_utils::multi_passthrough_target_socket<AtTargetPort> socket;

  // Construct inside the owner's constructor (the socket belongs to the
  // owner's module in the hierarchy). on_done may be null.
  AtTargetPort(const char* socket_name, Owner& owner, ArrivalFn on_arrival, ResponseDoneFn on_done = nullptr)
      : socket(socket_name), owner_(owner), on_arrival_(on_arrival), on_done_(on_done) {
    socket.register_nb_transport_fw(this, &AtTargetPort::nb_transport_fw);
  }
  AtTargetPort(const AtTargetPort&) = delete;
  AtTargetPort& operator=(const AtTargetPort&) = delete;

  void accept_at_once(AcceptNowFn fn) { accept_now_ = fn; }

  void serve_b_transport(BTransportFn fn) {
    b_transport_ = fn;
    socket.register_b_transport(this, &AtTargetPort::b_transport);
  }

  // Offers the waiting requests that arrived before `before` (by default all
  // of them) in admission order to decide(const Request&) -> Admit. Returns
  // how many of them arrived since the previous admit() call.
  template <typename Decide>
  size_t admit(Decide&& decide, const sc_core::sc_time& before = sc_core::sc_max_time()) {
    std::stable_sort(waiting_.begin(), waiting_.end(), [](const Request& a, const Request& b) {
      return a.arrival != b.arrival ? a.arrival < b.arrival : a.socket < b.socket;
    });
    const size_t fresh = fresh_;
    fresh_ = 0;
    // Requests that arrive while the owner admits (an initiator answering
    // END_REQ with its next BEGIN_REQ) go to waiting_ and wait for the next
    // call: `offered_` is a snapshot.
    offered_.swap(waiting_);
    waiting_.clear();
    bool stopped = false;
    for (const Request& r : offered_) {
      if (stopped || r.arrival >= before) {
        waiting_.push_back(r);
        continue;
      }
      switch (decide(r)) {
        case Admit::kAccept: {
          tlm::tlm_phase phase = tlm::END_REQ;
          sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
          const tlm::tlm_sync_enum status = socket[r.socket]->nb_transport_bw(*r.gp, phase, delay);
          if (status != tlm::TLM_ACCEPTED)
            SC_REPORT_ERROR(
                "tessera/at_target_port",
                (std::string(socket.name()) + ": an initiator must answer END_REQ with TLM_ACCEPTED").c_str());
          break;
        }
        case Admit::kStop:
          stopped = true;
          waiting_.push_back(r);
          break;
        case Admit::kWait:
          waiting_.push_back(r);
          break;
      }
    }
    offered_.clear();
    return fresh;
  }

  // BEGIN_RESP to the initiator on `socket_index`; true if the response ended
  // on the return path (the payload is released), false if END_RESP follows.
  bool respond(int socket_index, tlm::tlm_generic_payload& gp) {
    drop_waiting(gp);
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum status = socket[socket_index]->nb_transport_bw(gp, phase, delay);
    if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
      gp.release();
      return true;
    }
    ++open_responses_;
    return false;  // TLM_ACCEPTED or TLM_UPDATED with BEGIN_RESP: END_RESP comes on the forward path
  }

  size_t waiting() const { return waiting_.size(); }
  const std::vector<Request>& waiting_requests() const { return waiting_; }
  // One in-flight line per request waiting for END_REQ, "<who>: read
  // 0x80001200 from <source> 3 waiting for END_REQ since cycle 1234" (no
  // "from" part when `source` is empty), every target model's wording.
  void describe_waiting(InFlightLines& out, const std::string& who, const ClockDomain& clock,
                        const char* source = "") const {
    for (const Request& r : waiting_) {
      const uint64_t cycle = clock.cycle_at(r.arrival);
      const std::string from = *source ? fmt::format(" from {} {}", source, r.socket) : "";
      out.add(cycle, fmt::format("{}: {} 0x{:08x}{} waiting for END_REQ since cycle {}\n", who, op_name(*r.gp),
                                 static_cast<uint64_t>(r.gp->get_address()), from, cycle));
    }
  }
  // Responses sent whose END_RESP has not come yet.
  size_t open_responses() const { return open_responses_; }

 private:
  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    if (phase == tlm::BEGIN_REQ) {
      gp.acquire();
      if (accept_now_ && (owner_.*accept_now_)(Request{&gp, id, sc_core::sc_time_stamp()}, delay)) {
        phase = tlm::END_REQ;
        return tlm::TLM_UPDATED;
      }
      waiting_.push_back(Request{&gp, id, sc_core::sc_time_stamp()});
      ++fresh_;
      (owner_.*on_arrival_)(waiting_.back());
      return tlm::TLM_ACCEPTED;  // END_REQ when the owner admits it
    }
    if (phase == tlm::END_RESP) {
      if (open_responses_) --open_responses_;
      if (on_done_) (owner_.*on_done_)(gp, id);
      gp.release();
      return tlm::TLM_COMPLETED;
    }
    SC_REPORT_ERROR("tessera/at_target_port",
                    (std::string(socket.name()) + ": unexpected phase on the forward path").c_str());
    return tlm::TLM_ACCEPTED;
  }

  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    (owner_.*b_transport_)(id, gp, delay);
  }

  void drop_waiting(const tlm::tlm_generic_payload& gp) {
    // Rare (a response before END_REQ); the list is short.
    for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
      if (it->gp == &gp) {
        waiting_.erase(it);
        return;
      }
    }
  }

  Owner& owner_;
  ArrivalFn on_arrival_;
  ResponseDoneFn on_done_;
  BTransportFn b_transport_ = nullptr;
  AcceptNowFn accept_now_ = nullptr;
  std::vector<Request> waiting_, offered_;
  size_t fresh_ = 0;
  size_t open_responses_ = 0;
};

}  // namespace tessera::sim
