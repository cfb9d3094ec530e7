// The initiator side of the TLM-2.0 AT base protocol, once for every model:
// a multi_passthrough_initiator_socket (bound to one or more targets, socket
// index = binding order) plus the per-binding request-phase state.
//
// Request phase: one request per binding in its request phase at a time.
// send(i, gp) sends BEGIN_REQ on binding i; the next may go once END_REQ has
// come, and not in the same instant (can_send(i, t): END_REQ came before t;
// a clocked owner passes the start of its current cycle, so the next request
// goes out the cycle after END_REQ). END_REQ arrives as
//     the return TLM_UPDATED with END_REQ,                      or
//     a later END_REQ on the backward path,                     or
//     implied by BEGIN_RESP of that same request (return TLM_UPDATED with
//     BEGIN_RESP, return TLM_COMPLETED, or BEGIN_RESP on the backward path).
//
// Response phase: every answer is handed to the owner's
// on_answer(i, gp, time) with the time it took effect (now + annotated
// delay), whichever path it came by:
//     BEGIN_RESP on the backward path: answered TLM_COMPLETED (END_RESP);
//     TLM_UPDATED with BEGIN_RESP from send(): the port sends END_RESP;
//     TLM_COMPLETED from send().
// on_answer may thus run inside send() (return path) as well as from the
// target's process (backward path); on_end_req(i), if given, runs only for
// END_REQ or an implied END_REQ on the backward path (from send(), the
// owner sees the result in awaiting_end_req()). The owner manages its
// payloads (the port neither acquires nor releases).
//
// Adopting it: replace the initiator socket, the "waiting for END_REQ" flag,
// the last-END_REQ cycle and the nb_transport_bw function with a port member
//     sim::AtInitiatorPort<Sm> mem_port_{"mem_socket", *this, 1, &Sm::on_answer, &Sm::on_end_req};
//     decltype(mem_port_.socket)& mem_socket = mem_port_.socket;  // netlists keep binding mem_socket
// where on_answer(0, gp, at) does what the BEGIN_RESP branch did (the answer
// takes effect from the cycle after cycle_at(at)) and on_end_req(0) plans the
// next cycle; send with
//     if (mem_port_.can_send(0, clock.time_of(cycle))) mem_port_.send(0, *gp);
// ("the cycle after END_REQ", as before). A binding that never sent may send
// in cycle 0.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>

#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace tessera::sim {

template <typename Owner>
class AtInitiatorPort {
 public:
  using AnswerFn = void (Owner::*)(unsigned socket, tlm::tlm_generic_payload&, const sc_core::sc_time& at);
  using EndReqFn = void (Owner::*)(unsigned socket);

  tlm_utils::multi_passthrough_initiator_socket<AtInitiatorPort> socket;

  // `bindings`: how many targets will be bound (the state is sized now,
  // before binding). on_end_req may be null.
  AtInitiatorPort(const char* socket_name, Owner& owner, unsigned bindings, AnswerFn on_answer,
                  EndReqFn on_end_req = nullptr)
      : socket(socket_name), owner_(owner), on_answer_(on_answer), on_end_req_(on_end_req), state_(bindings) {
    socket.register_nb_transport_bw(this, &AtInitiatorPort::nb_transport_bw);
  }
  AtInitiatorPort(const AtInitiatorPort&) = delete;
  AtInitiatorPort& operator=(const AtInitiatorPort&) = delete;

  unsigned bindings() const { return static_cast<unsigned>(state_.size()); }
  // A request on binding i waits for its END_REQ.
  bool awaiting_end_req(unsigned i) const { return state_[i].awaiting != nullptr; }
  const tlm::tlm_generic_payload* awaiting(unsigned i) const { return state_[i].awaiting; }
  // Binding i may send: nothing waits for END_REQ, and the last END_REQ (or
  // BEGIN_REQ answered at once) came before `not_before`.
  bool can_send(unsigned i, const sc_core::sc_time& not_before) const {
    const State& s = state_[i];
    return s.awaiting == nullptr && (!s.ever_sent || s.end_req < not_before);
  }
  bool ever_sent(unsigned i) const { return state_[i].ever_sent; }
  // When binding i's last END_REQ (or implied END_REQ) came.
  const sc_core::sc_time& end_req_time(unsigned i) const { return state_[i].end_req; }

  // BEGIN_REQ on binding i. Returns the target's answer; an answer that came
  // on the return path has been handed to on_answer already.
  // `delay`: the BEGIN_REQ's annotated delay (when the request takes effect
  // at the target).
  tlm::tlm_sync_enum send(unsigned i, tlm::tlm_generic_payload& gp,
                          const sc_core::sc_time& annotated = sc_core::SC_ZERO_TIME) {
    State& s = state_[i];
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    s.ever_sent = true;
    s.end_req = now;
    s.awaiting = &gp;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = annotated;
    const tlm::tlm_sync_enum status = socket[static_cast<int>(i)]->nb_transport_fw(gp, phase, delay);
    if (status == tlm::TLM_ACCEPTED || (status == tlm::TLM_UPDATED && phase == tlm::BEGIN_REQ)) return status;
    s.awaiting = nullptr;  // END_REQ, stated or implied by the response
    s.end_req = now;
    if (status == tlm::TLM_COMPLETED) {
      (owner_.*on_answer_)(i, gp, now + delay);
    } else if (phase == tlm::BEGIN_RESP) {
      (owner_.*on_answer_)(i, gp, now + delay);
      phase = tlm::END_RESP;
      sc_core::sc_time end_delay = sc_core::SC_ZERO_TIME;
      socket[static_cast<int>(i)]->nb_transport_fw(gp, phase, end_delay);
    } else if (phase != tlm::END_REQ) {
      SC_REPORT_ERROR("tessera/at_initiator_port",
                      (std::string(socket.name()) + ": a target answered BEGIN_REQ with an unexpected phase").c_str());
    }
    return status;
  }

 private:
  struct State {
    const tlm::tlm_generic_payload* awaiting = nullptr;  // in its request phase
    sc_core::sc_time end_req = sc_core::SC_ZERO_TIME;
    bool ever_sent = false;
  };

  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    State& s = state_[static_cast<unsigned>(id)];
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (phase == tlm::END_REQ) {
      s.awaiting = nullptr;
      s.end_req = now;
      if (on_end_req_) (owner_.*on_end_req_)(static_cast<unsigned>(id));
      return tlm::TLM_ACCEPTED;
    }
    if (phase == tlm::BEGIN_RESP) {
      if (s.awaiting == &gp) {  // its BEGIN_RESP implies its END_REQ
        s.awaiting = nullptr;
        s.end_req = now;
        if (on_end_req_) (owner_.*on_end_req_)(static_cast<unsigned>(id));
      }
      (owner_.*on_answer_)(static_cast<unsigned>(id), gp, now + delay);
      phase = tlm::END_RESP;
      return tlm::TLM_COMPLETED;
    }
    SC_REPORT_ERROR("tessera/at_initiator_port",
                    (std::string(socket.name()) + ": unexpected phase on the backward path").c_str());
    return tlm::TLM_ACCEPTED;
  }

  Owner& owner_;
  AnswerFn on_answer_;
  EndReqFn on_end_req_;
  std::vector<State> state_;
};

}  // namespace tessera::sim
