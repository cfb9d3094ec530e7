// The shared TLM-2.0 AT ports and the clocked-method helper, each against a
// scripted peer written with the plain TLM sockets (so the port is checked by
// code independent of it). Every test elaborates its own modules and runs
// sc_start once: CTest runs each test in its own process (gtest_discover_tests),
// which gives each a fresh SystemC context.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <utility>
#include <vector>

#include "sim/at_initiator_port.h"
#include "sim/at_target_port.h"
#include "sim/clock.h"
#include "sim/clocked_method.h"
#include "tlm_test_util.h"

namespace tessera::sim {
namespace {

using test::keep_all;
using test::ns;

using sc_core::SC_NS;
using sc_core::sc_time;

// ------------------------------------------------------------ target port

// A raw initiator: sends one BEGIN_REQ at a given time and records END_REQ
// and BEGIN_RESP; answers BEGIN_RESP as scripted.
class RawInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<RawInitiator> socket;
  tlm::tlm_generic_payload gp;
  sc_time start;
  tlm::tlm_sync_enum resp_answer = tlm::TLM_COMPLETED;  // TLM_ACCEPTED: END_RESP at end_resp_at
  sc_time end_resp_at;
  sc_time end_req_time = sc_core::sc_max_time(), begin_resp_time = sc_core::sc_max_time();
  tlm::tlm_sync_enum end_resp_status = tlm::TLM_ACCEPTED;
  tlm::tlm_sync_enum begin_req_status = tlm::TLM_ACCEPTED;
  tlm::tlm_phase begin_req_phase = tlm::BEGIN_REQ;
  sc_time begin_req_delay = ns(0);

  RawInitiator(const sc_core::sc_module_name& name, sc_time at) : sc_module(name), socket("socket"), start(at) {
    socket.register_nb_transport_bw(this, &RawInitiator::bw);
    gp.set_mm(&keep_all);
    SC_HAS_PROCESS(RawInitiator);
    SC_THREAD(run);
  }

 private:
  void run() {
    wait(start);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time delay = begin_req_delay;
    begin_req_status = socket->nb_transport_fw(gp, phase, delay);
    begin_req_phase = phase;
    if (resp_answer == tlm::TLM_ACCEPTED) {
      wait(end_resp_at - sc_core::sc_time_stamp());
      phase = tlm::END_RESP;
      end_resp_status = socket->nb_transport_fw(gp, phase, delay);
    }
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_time&) {
    if (phase == tlm::END_REQ) {
      end_req_time = sc_core::sc_time_stamp();
      return tlm::TLM_ACCEPTED;
    }
    begin_resp_time = sc_core::sc_time_stamp();
    if (resp_answer == tlm::TLM_UPDATED) phase = tlm::END_RESP;
    return resp_answer;
  }
};

// A target owning an AtTargetPort, driven by a script in a thread.
class ScriptedTarget : public sc_core::sc_module {
 public:
  AtTargetPort<ScriptedTarget> port{"socket", *this, &ScriptedTarget::on_arrival, &ScriptedTarget::on_done};
  std::vector<int> admitted;  // sockets, in admission order
  std::vector<int> arrivals;  // sockets, in BEGIN_REQ order
  std::vector<int> done;      // sockets whose END_RESP came on the forward path
  size_t accept_per_call = 1000;
  std::vector<std::pair<int, sc_time>> taken_at_once;  // socket, annotated delay
  int refuse_socket = -1;

  bool take_now(const AtTargetPort<ScriptedTarget>::Request& r, const sc_time& delay) {
    if (r.socket == refuse_socket) return false;
    taken_at_once.emplace_back(r.socket, delay);
    return true;
  }

  explicit ScriptedTarget(const sc_core::sc_module_name& name) : sc_module(name) {}

  size_t admit_now(const sc_time& before = sc_core::sc_max_time()) {
    size_t n = 0;
    return port.admit(
        [&](const AtTargetPort<ScriptedTarget>::Request& r) {
          if (n == accept_per_call) return AtTargetPort<ScriptedTarget>::Admit::kStop;
          ++n;
          admitted.push_back(r.socket);
          return AtTargetPort<ScriptedTarget>::Admit::kAccept;
        },
        before);
  }

 private:
  void on_arrival(const AtTargetPort<ScriptedTarget>::Request& r) { arrivals.push_back(r.socket); }
  void on_done(tlm::tlm_generic_payload&, int socket) { done.push_back(socket); }
};

struct TargetBench {
  std::vector<std::unique_ptr<RawInitiator>> initiators;
  std::unique_ptr<ScriptedTarget> target;
  explicit TargetBench(const std::vector<sc_time>& starts) {
    target = std::make_unique<ScriptedTarget>("target");
    for (size_t i = 0; i < starts.size(); ++i) {
      initiators.push_back(std::make_unique<RawInitiator>(("init" + std::to_string(i)).c_str(), starts[i]));
      initiators.back()->socket.bind(target->port.socket);
    }
  }
};

TEST(AtTargetPort, SameInstantRequestsAreAdmittedOldestFirstThenBySocket) {
  // Socket 2 and socket 1 send at 0 ns, socket 0 at 3 ns; socket 3 at 12 ns,
  // after the admission at 10 ns. Order: (0 ns, 1), (0 ns, 2), (3 ns, 0).
  TargetBench b({ns(3), ns(0), ns(0), ns(12)});
  size_t fresh = 0;
  sc_core::sc_spawn([&] {
    sc_core::wait(ns(10));
    fresh = b.target->admit_now();
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(b.target->admitted, (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(fresh, 3u);
  EXPECT_EQ(b.target->port.waiting(), 1u);  // socket 3
  for (int i : {0, 1, 2}) EXPECT_EQ(b.initiators[static_cast<size_t>(i)]->end_req_time, ns(10)) << i;
  EXPECT_EQ(b.initiators[3]->end_req_time, sc_core::sc_max_time());
}

TEST(AtTargetPort, RequestsOfTheAdmissionInstantWaitWhenAdmittingEarlierOnes) {
  // admit(before = now) leaves this instant's arrivals for the next cycle,
  // whatever order SystemC ran the processes of the instant in.
  TargetBench b({ns(0), ns(5)});
  sc_core::sc_spawn([&] {
    sc_core::wait(ns(5));
    b.target->admit_now(sc_core::sc_time_stamp());
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(b.target->admitted, (std::vector<int>{0}));
  EXPECT_EQ(b.target->port.waiting(), 1u);
}

TEST(AtTargetPort, WithheldEndReqKeepsTheRequestWaitingUntilAdmitted) {
  // A target with room for one request per admission: the second of two
  // same-instant requests gets END_REQ at the second admission only.
  TargetBench b({ns(0), ns(0)});
  b.target->accept_per_call = 1;
  sc_core::sc_spawn([&] {
    sc_core::wait(ns(1));
    b.target->admit_now();
    sc_core::wait(ns(4));
    b.target->admit_now();
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(b.target->admitted, (std::vector<int>{0, 1}));
  EXPECT_EQ(b.initiators[0]->end_req_time, ns(1));
  EXPECT_EQ(b.initiators[1]->end_req_time, ns(5));
}

// The three ways an initiator can answer BEGIN_RESP.
void run_response(tlm::tlm_sync_enum answer, bool expect_done_now, const std::vector<int>& expect_done_later,
                  size_t expect_open) {
  TargetBench b({ns(0)});
  b.initiators[0]->resp_answer = answer;
  b.initiators[0]->end_resp_at = ns(8);
  bool ended = false;
  sc_core::sc_spawn([&] {
    sc_core::wait(ns(1));
    b.target->admit_now();
    sc_core::wait(ns(1));
    ended = b.target->port.respond(0, b.initiators[0]->gp);
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(ended, expect_done_now);
  EXPECT_EQ(b.initiators[0]->begin_resp_time, ns(2));
  EXPECT_EQ(b.target->done, expect_done_later);
  EXPECT_EQ(b.target->port.open_responses(), expect_open);
}

TEST(AtTargetPort, ResponseCompletedOnTheReturnPathEndsAtOnce) { run_response(tlm::TLM_COMPLETED, true, {}, 0); }

TEST(AtTargetPort, ResponseUpdatedToEndRespEndsAtOnce) { run_response(tlm::TLM_UPDATED, true, {}, 0); }

TEST(AtTargetPort, ResponseAcceptedEndsWithEndRespOnTheForwardPath) { run_response(tlm::TLM_ACCEPTED, false, {0}, 0); }

TEST(AtTargetPort, AcceptAtOnceAnswersEndReqOnTheReturnPath) {
  // The owner takes socket 0's request at once (its annotated delay of 7 ns
  // is handed over) and refuses socket 1's, which waits for admit().
  TargetBench b({ns(0), ns(0)});
  b.target->port.accept_at_once(&ScriptedTarget::take_now);
  b.target->refuse_socket = 1;
  b.initiators[0]->begin_req_delay = ns(7);
  sc_core::sc_spawn([&] {
    sc_core::wait(ns(2));
    b.target->admit_now();
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(b.initiators[0]->begin_req_status, tlm::TLM_UPDATED);
  EXPECT_EQ(b.initiators[0]->begin_req_phase, tlm::END_REQ);
  ASSERT_EQ(b.target->taken_at_once.size(), 1u);
  EXPECT_EQ(b.target->taken_at_once[0], std::make_pair(0, ns(7)));
  EXPECT_EQ(b.initiators[1]->begin_req_status, tlm::TLM_ACCEPTED);
  EXPECT_EQ(b.initiators[1]->end_req_time, ns(2));
  EXPECT_EQ(b.target->admitted, (std::vector<int>{1}));
}

TEST(AtTargetPort, BeginRespBeforeEndReqImpliesIt) {
  // The target answers a request it never admitted: the request leaves the
  // waiting list and no END_REQ is sent.
  TargetBench b({ns(0)});
  sc_core::sc_spawn([&] {
    sc_core::wait(ns(1));
    b.target->port.respond(0, b.initiators[0]->gp);
    b.target->admit_now();
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(b.target->port.waiting(), 0u);
  EXPECT_TRUE(b.target->admitted.empty());
  EXPECT_EQ(b.initiators[0]->end_req_time, sc_core::sc_max_time());
  EXPECT_EQ(b.initiators[0]->begin_resp_time, ns(1));
}

// ------------------------------------------------------------ initiator port

// A raw target: answers each BEGIN_REQ as scripted (one script entry per
// request), and can send END_REQ / BEGIN_RESP on the backward path later.
class RawTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<RawTarget> socket;
  struct Script {
    tlm::tlm_sync_enum status;
    tlm::tlm_phase phase;  // for TLM_UPDATED
  };
  std::vector<Script> script;
  std::vector<tlm::tlm_generic_payload*> received;
  std::vector<sc_time> begin_req_times;
  int end_resps = 0;

  explicit RawTarget(const sc_core::sc_module_name& name) : sc_module(name), socket("socket") {
    socket.register_nb_transport_fw(this, &RawTarget::fw);
  }
  void backward(tlm::tlm_generic_payload& gp, tlm::tlm_phase phase, tlm::tlm_sync_enum expect) {
    sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(socket->nb_transport_bw(gp, phase, delay), expect);
  }

 private:
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time&) {
    if (phase == tlm::END_RESP) {
      ++end_resps;
      return tlm::TLM_COMPLETED;
    }
    const Script s = script.at(received.size());
    received.push_back(&gp);
    begin_req_times.push_back(sc_core::sc_time_stamp());
    if (s.status == tlm::TLM_UPDATED) phase = s.phase;
    return s.status;
  }
};

class Requester : public sc_core::sc_module {
 public:
  AtInitiatorPort<Requester> port{"socket", *this, 1, &Requester::on_answer, &Requester::on_end_req};
  std::vector<tlm::tlm_generic_payload*> answers;
  std::vector<sc_time> answer_times;
  int end_reqs = 0;
  explicit Requester(const sc_core::sc_module_name& name) : sc_module(name) {}

 private:
  void on_answer(unsigned, tlm::tlm_generic_payload& gp, const sc_time& at) {
    answers.push_back(&gp);
    answer_times.push_back(at);
  }
  void on_end_req(unsigned) { ++end_reqs; }
};

struct InitiatorBench {
  Requester req{"requester"};
  RawTarget tgt{"target"};
  tlm::tlm_generic_payload a, b;
  InitiatorBench() { req.port.socket.bind(tgt.socket); }
};

TEST(AtInitiatorPort, NextRequestWaitsForEndReqOnTheBackwardPath) {
  // Target accepts at 0 ns and sends END_REQ at 4 ns: the second request may
  // go only after 4 ns (not in END_REQ's own instant).
  InitiatorBench t;
  t.tgt.script = {{tlm::TLM_ACCEPTED, tlm::BEGIN_REQ}, {tlm::TLM_ACCEPTED, tlm::BEGIN_REQ}};
  std::vector<bool> could;
  sc_core::sc_spawn([&] {
    EXPECT_TRUE(t.req.port.can_send(0, sc_core::sc_time_stamp()));
    EXPECT_EQ(t.req.port.send(0, t.a), tlm::TLM_ACCEPTED);
    for (double at : {1.0, 4.0, 5.0}) {
      sc_core::wait(sc_time(at, SC_NS) - sc_core::sc_time_stamp());
      could.push_back(t.req.port.can_send(0, sc_core::sc_time_stamp()));
    }
    t.req.port.send(0, t.b);
  });
  sc_core::sc_spawn([&] {
    sc_core::wait(ns(4));
    t.tgt.backward(t.a, tlm::END_REQ, tlm::TLM_ACCEPTED);
  });
  sc_core::sc_start(ns(20));
  // At 4 ns the order of the two processes decides whether END_REQ came yet;
  // either way the request may not go in END_REQ's instant.
  EXPECT_EQ(could[0], false);
  EXPECT_EQ(could[1], false);
  EXPECT_EQ(could[2], true);
  EXPECT_EQ(t.tgt.begin_req_times, (std::vector<sc_time>{ns(0), ns(5)}));
  EXPECT_EQ(t.req.end_reqs, 1);
}

TEST(AtInitiatorPort, BeginRespOnTheBackwardPathImpliesEndReq) {
  InitiatorBench t;
  t.tgt.script = {{tlm::TLM_ACCEPTED, tlm::BEGIN_REQ}};
  sc_core::sc_spawn([&] {
    t.req.port.send(0, t.a);
    sc_core::wait(ns(3));
    t.tgt.backward(t.a, tlm::BEGIN_RESP, tlm::TLM_COMPLETED);
    EXPECT_FALSE(t.req.port.awaiting_end_req(0));
    EXPECT_FALSE(t.req.port.can_send(0, ns(3)));
    EXPECT_TRUE(t.req.port.can_send(0, ns(4)));
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(t.req.answers, (std::vector<tlm::tlm_generic_payload*>{&t.a}));
  EXPECT_EQ(t.req.answer_times, (std::vector<sc_time>{ns(3)}));
  EXPECT_EQ(t.req.end_reqs, 1);
  EXPECT_EQ(t.tgt.end_resps, 0);  // ended by the TLM_COMPLETED return
}

TEST(AtInitiatorPort, BeginRespForAnOlderRequestDoesNotEndTheNewerOnesRequestPhase) {
  InitiatorBench t;
  t.tgt.script = {{tlm::TLM_UPDATED, tlm::END_REQ}, {tlm::TLM_ACCEPTED, tlm::BEGIN_REQ}};
  sc_core::sc_spawn([&] {
    t.req.port.send(0, t.a);
    sc_core::wait(ns(1));
    t.req.port.send(0, t.b);
    t.tgt.backward(t.a, tlm::BEGIN_RESP, tlm::TLM_COMPLETED);
    EXPECT_TRUE(t.req.port.awaiting_end_req(0));
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(t.req.answers.size(), 1u);
  EXPECT_EQ(t.req.end_reqs, 0);
}

TEST(AtInitiatorPort, UpdatedEndReqLetsTheNextRequestGoTheNextInstant) {
  InitiatorBench t;
  t.tgt.script = {{tlm::TLM_UPDATED, tlm::END_REQ}};
  sc_core::sc_spawn([&] {
    EXPECT_EQ(t.req.port.send(0, t.a), tlm::TLM_UPDATED);
    EXPECT_FALSE(t.req.port.awaiting_end_req(0));
    EXPECT_FALSE(t.req.port.can_send(0, sc_core::sc_time_stamp()));
    EXPECT_TRUE(t.req.port.can_send(0, ns(1)));
  });
  sc_core::sc_start(ns(20));
  EXPECT_TRUE(t.req.answers.empty());
  EXPECT_EQ(t.req.end_reqs, 0);  // seen by the owner through send()'s result
}

TEST(AtInitiatorPort, UpdatedBeginRespIsDeliveredAndEndedWithEndResp) {
  InitiatorBench t;
  t.tgt.script = {{tlm::TLM_UPDATED, tlm::BEGIN_RESP}};
  sc_core::sc_spawn([&] {
    sc_core::wait(ns(2));
    EXPECT_EQ(t.req.port.send(0, t.a), tlm::TLM_UPDATED);
    EXPECT_FALSE(t.req.port.awaiting_end_req(0));
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(t.req.answers, (std::vector<tlm::tlm_generic_payload*>{&t.a}));
  EXPECT_EQ(t.req.answer_times, (std::vector<sc_time>{ns(2)}));
  EXPECT_EQ(t.tgt.end_resps, 1);
}

TEST(AtInitiatorPort, CompletedIsDeliveredWithoutEndResp) {
  InitiatorBench t;
  t.tgt.script = {{tlm::TLM_COMPLETED, tlm::BEGIN_REQ}};
  sc_core::sc_spawn([&] { EXPECT_EQ(t.req.port.send(0, t.a), tlm::TLM_COMPLETED); });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(t.req.answers, (std::vector<tlm::tlm_generic_payload*>{&t.a}));
  EXPECT_EQ(t.tgt.end_resps, 0);
  EXPECT_FALSE(t.req.port.awaiting_end_req(0));
}

// ------------------------------------------------------------ clocked method

// A method on a 1 GHz clock that records the cycles it ran in and plans the
// wake-ups a script gives per cycle.
class Ticker : public sc_core::sc_module {
 public:
  ClockDomain clock{"t", 1000.0};
  ClockedMethod clocked{clock};
  std::vector<uint64_t> ran, skipped;
  std::vector<std::vector<uint64_t>> plan;  // wake-ups requested in cycle index

  explicit Ticker(const sc_core::sc_module_name& name) : sc_module(name) {
    SC_HAS_PROCESS(Ticker);
    SC_METHOD(cycle);
    sensitive << clocked.event();
    dont_initialize();
  }

 private:
  void cycle() {
    if (!clocked.begin_cycle()) return;
    ran.push_back(clocked.cycle());
    skipped.push_back(clocked.skipped());
    if (clocked.cycle() < plan.size())
      for (uint64_t c : plan[clocked.cycle()]) clocked.wake_at(c);
  }
};

TEST(ClockedMethod, KeepsTheEarliestPlannedWakeUp) {
  // Planned at cycle 7, then asked for 9 (later: ignored) by another process
  // in cycle 2, then for 4 (earlier: replaces 7).
  Ticker t("ticker");
  sc_core::sc_spawn([&] {
    t.clocked.wake_at(7);
    sc_core::wait(ns(2.5));
    t.clocked.wake_at(9);
    EXPECT_EQ(t.clocked.planned(), 7u);
    t.clocked.wake_at(4);
    EXPECT_EQ(t.clocked.planned(), 4u);
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(t.ran, (std::vector<uint64_t>{4}));
  EXPECT_EQ(t.skipped, (std::vector<uint64_t>{4}));  // cycles 0..3
}

TEST(ClockedMethod, AWakeUpForAProcessedCycleMeansTheNextCycle) {
  // In cycle 1 the method plans cycle 6; later in cycle 1 another process
  // asks for cycle 1 again (processed): that means cycle 2, earlier than 6,
  // so cycle 2 runs (never cycle 1 twice) and the owner plans again there.
  Ticker t("ticker");
  t.plan = {{}, {6}, {6}};
  sc_core::sc_spawn([&] {
    t.clocked.wake_at(1);
    sc_core::wait(ns(1));
    sc_core::wait(sc_core::SC_ZERO_TIME);  // after the method's activation
    sc_core::wait(sc_core::SC_ZERO_TIME);
    t.clocked.wake_at(1);
    EXPECT_EQ(t.clocked.planned(), 2u);
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(t.ran, (std::vector<uint64_t>{1, 2, 6}));
  EXPECT_EQ(t.skipped, (std::vector<uint64_t>{1, 0, 3}));
}

TEST(ClockedMethod, ARequestInTheInstantOfAnActivationIsKept) {
  // Cycle 3 is planned; at 3 ns another process asks for cycle 4. Whether it
  // runs before the method's activation of cycle 3 (the request waits for
  // that activation to pass) or after it, cycle 4 runs.
  Ticker t("ticker");
  sc_core::sc_spawn([&] {
    t.clocked.wake_at(3);
    sc_core::wait(ns(3));
    t.clocked.wake_at(4);
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(t.ran, (std::vector<uint64_t>{3, 4}));
}

TEST(ClockedMethod, TwoRequestsForTheSameCycleRunItOnce) {
  Ticker t("ticker");
  t.plan = {{3, 3}};
  sc_core::sc_spawn([&] {
    t.clocked.wake_at(0);
    t.clocked.wake_at(0);
  });
  sc_core::sc_start(ns(20));
  EXPECT_EQ(t.ran, (std::vector<uint64_t>{0, 3}));
}

class OffsetTicker : public sc_core::sc_module {
 public:
  ClockDomain clock{"d", 1000.0};
  ClockedMethod clocked{clock, sc_time(1, sc_core::SC_PS)};
  std::vector<sc_time> at;

  explicit OffsetTicker(const sc_core::sc_module_name& name) : sc_module(name) {
    SC_HAS_PROCESS(OffsetTicker);
    SC_METHOD(cycle);
    sensitive << clocked.event();
    dont_initialize();
  }

 private:
  void cycle() {
    if (!clocked.begin_cycle()) return;
    at.push_back(sc_core::sc_time_stamp());
  }
};

TEST(ClockedMethod, OffsetActivationsComeAfterTheEdge) {
  // With a 1 ps offset, cycle 2 runs at 2 ns + 1 ps. A request made at
  // exactly 3 ns (an edge, before that cycle's activation) is for cycle 3;
  // one made at 3.5 ns is for the next edge, cycle 4.
  OffsetTicker t("ticker");
  sc_core::sc_spawn([&] {
    t.clocked.wake_at(2);
    sc_core::wait(ns(3));
    t.clocked.wake_at(t.clocked.current_cycle());
    sc_core::wait(ns(0.5));
    t.clocked.wake_at(t.clocked.current_cycle());
  });
  sc_core::sc_start(ns(20));
  const sc_time ps(1, sc_core::SC_PS);
  EXPECT_EQ(t.at, (std::vector<sc_time>{ns(2) + ps, ns(3) + ps, ns(4) + ps}));
}

}  // namespace
}  // namespace tessera::sim
