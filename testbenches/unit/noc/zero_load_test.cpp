// Zero-load latency of single packets, derived by hand from the router model
// (docs/noc.md, "Timing"): a packet created in cycle t is read out of its
// interface's source queue from t + source_queue, its head flit takes
// `injection` cycles on the channel from the interface into the first
// router, spends rc + va + sa + st
// cycles in each router it passes, `link` cycles on each router-to-router
// channel and `ejection` cycles on the channel into the destination's
// interface; flits follow the head one per cycle. A packet crossing H
// router-to-router links passes H + 1 routers:
//   wormhole / VCT:     source_queue + injection + (H + 1) (rc + va + sa + st) + H link + ejection + (F - 1)
//   store-and-forward:  the same + (H + 1) (F - 1)
// (store-and-forward pays the packet's serialization on every channel: the
// injection channel, H links and the ejection channel). Injection and
// ejection default to the link delay, so with every delay 1 the head takes
// 1 + (H + 1) 5 + 1 cycles.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "noc/topology.h"
#include "noc_test_util.h"

namespace {

using namespace tessera::noc;
using tessera::noc::test::params;
using tessera::noc::test::single_packet;

struct Case {
  const char* topology;
  const char* k;
  int src, dst;
  int hops;  // minimal router-to-router links, counted by hand below
};

// ring of 8: 1 -> 5 is 4 hops either way (the tie goes +x); 6 -> 1 wraps: 3 hops.
// 4x4 mesh: 0 (0,0) -> 15 (3,3) is 3 + 3 = 6 hops; 5 (1,1) -> 6 (2,1) is 1.
// 4x4 torus: 0 (0,0) -> 15 (3,3) wraps in both dimensions: 1 + 1 = 2 hops;
//            1 (1,0) -> 11 (3,2): x +2 (tie), y +2 (tie) = 4 hops.
const Case kCases[] = {
    {"ring", "8", 1, 5, 4}, {"ring", "8", 6, 1, 3},   {"mesh", "4", 0, 15, 6},
    {"mesh", "4", 5, 6, 1}, {"torus", "4", 0, 15, 2}, {"torus", "4", 1, 11, 4},
};

TEST(ZeroLoad, DefaultPipelineEveryTopology) {
  for (const Case& c : kCases) {
    const NocParams p = params({{"noc.topology", c.topology}, {"noc.k", c.k}, {"noc.vcs", "2"}});
    for (int flits : {1, 5}) {
      const Delivery d = single_packet(p, c.src, c.dst, flits);
      // Default delays are 1 cycle each: 1 (source queue) + 1 (injection) +
      // 4 per router + 1 per link + 1 (ejection) = (H + 1) 5 + 2.
      const uint64_t expected = static_cast<uint64_t>((c.hops + 1) * 5 + 2 + (flits - 1));
      EXPECT_EQ(d.latency(), expected) << c.topology << " " << c.src << "->" << c.dst << " " << flits << " flits";
      EXPECT_EQ(d.hops, c.hops) << c.topology << " " << c.src << "->" << c.dst;
      EXPECT_EQ(GridTopology(p).distance(c.src, c.dst), c.hops);
    }
  }
}

TEST(ZeroLoad, EachStageDelayCounts) {
  // rc 2, va 3, sa 1, st 2, link 4: 8 cycles in each router, 4 on each
  // link; injection and ejection follow the link (4 each), the source
  // queue keeps its 1:
  // 1 + 4 + 8 (H + 1) + 4 H + 4 + (F - 1) = 12 (H + 1) + 1 + 4 + 2 for 3 flits.
  for (const Case& c : kCases) {
    const NocParams p = params({{"noc.topology", c.topology},
                                {"noc.k", c.k},
                                {"noc.vcs", "2"},
                                {"noc.delay.rc", "2"},
                                {"noc.delay.va", "3"},
                                {"noc.delay.sa", "1"},
                                {"noc.delay.st", "2"},
                                {"noc.delay.link", "4"},
                                {"noc.delay.credit", "2"}});
    const Delivery d = single_packet(p, c.src, c.dst, 3);
    EXPECT_EQ(d.latency(), static_cast<uint64_t>((c.hops + 1) * 12 + 1 + 4 + 2)) << c.topology << " " << c.src;
  }
}

TEST(ZeroLoad, ZeroCycleStagesCollapse) {
  // rc 0, va 0, st 0, sa 1, link 1: 1 cycle in each router and 1 on each
  // channel; mesh 0 -> 15 is 6 hops: 1 (source queue) + 1 + 7 + 6 + 1 + 3 = 19.
  const NocParams p = params({{"noc.delay.rc", "0"}, {"noc.delay.va", "0"}, {"noc.delay.st", "0"}});
  EXPECT_EQ(single_packet(p, 0, 15, 4).latency(), 1u + 1 + 7 + 6 + 1 + 3);
}

TEST(ZeroLoad, LocalPacketPassesOneRouter) {
  // Source is destination: source queue 1, injection 1, one router 4,
  // ejection 1, + (F - 1) = 8.
  const NocParams p = params({});
  const Delivery d = single_packet(p, 6, 6, 2);
  EXPECT_EQ(d.latency(), 8u);
  EXPECT_EQ(d.hops, 0);
}

TEST(FlowControl, StoreAndForwardPaysSerializationPerHopCutThroughOnce) {
  // The textbook case: a 4-flit packet over 3 hops (router-to-router links) on
  // a mesh row, 0 -> 3, one-cycle stages: 4 routers, 5 cycles each, and the
  // source queue's and the injection channel's cycles.
  //   cut-through (wormhole, VCT): 1 + 1 + 4 * 5 + 3           = 25 (header pipelining)
  //   store-and-forward:           1 + 1 + 4 * 5 + (3 + 2) * 3 = 37 (whole packet copied at every hop)
  // The difference, 4 * 3 = 12, is one packet serialization per router.
  const int flits = 4;
  const uint64_t wormhole = single_packet(params({{"noc.flow_control", "wormhole"}}), 0, 3, flits).latency();
  const uint64_t vct = single_packet(params({{"noc.flow_control", "vct"}}), 0, 3, flits).latency();
  const uint64_t saf = single_packet(params({{"noc.flow_control", "saf"}}), 0, 3, flits).latency();
  EXPECT_EQ(wormhole, 25u);
  EXPECT_EQ(vct, 25u);
  EXPECT_EQ(saf, 37u);
  EXPECT_EQ(saf - wormhole, 4u * (flits - 1));
}

TEST(FlowControl, WormholePacketLongerThanBuffersIsThrottledByCredits) {
  // 2-flit VC buffers, an 8-flit packet from router 0 to router 1 (1 hop).
  // A credit leaves with its flit through the switch, sa = 1 cycle after
  // the grant, and is usable upstream credit = 1 cycle later.
  // The packet is created at 0 and leaves the source queue from 1.
  // Interface: flits 0, 1 sent at 1, 2 (in router 0 at 2, 3), then it waits
  // for credits from router 0. Router 0: head RC 2, VA 3, SA 4; flit 1 SA 5;
  // no more credits for router 1's VC. Router 1: head in at 4 + 3 = 7 (sa,
  // st, link), RC 7, VA 8, SA 9, its credit usable at router 0 at 11; flit 1
  // in at 8, SA 10, credit at 12. Router 0 switches flits 2, 3 at 11, 12
  // (they came from the interface at 7, 8: credits at 6, 7). From then each
  // pair of slots turns round in 5 cycles (grant, 3 cycles to router 1,
  // switched on at once, 1 + 1 cycles for the credit): flits 4, 5 at 16, 17,
  // 6, 7 at 21, 22. Flit 7 reaches router 1 at 25, is switched at 25 and
  // arrives at 25 + 3 (sa, st, ejection) = 28.
  const NocParams p = params({{"noc.vc_buf", "2"}});
  const Delivery d = single_packet(p, 0, 1, 8);
  EXPECT_EQ(d.latency(), 28u);
  // With 8-flit buffers nothing throttles it: 1 + 1 + 2 * 5 + 7 = 19.
  EXPECT_EQ(single_packet(params({{"noc.vc_buf", "8"}}), 0, 1, 8).latency(), 19u);
}

TEST(CreditLoop, OneVcStreamMovesBufferDepthFlitsPerCreditRoundTrip) {
  // One VC with a B-flit buffer carrying one long stream (a single packet)
  // between two routers: a credit used at grant t comes back usable at
  // t + sa (the flit leaves through the switch) + st + link (reaches the
  // next router) + sa (switched on at once, leaves its buffer) + credit
  // = t + 5 with unit delays, so the link carries B flits per 5 cycles.
  // From the derivation above (B = 2), an F-flit packet (F even, F >= 4)
  // has its last pair switched by router 0 at 5 (F - 2) / 2 + 6 and 7 and
  // arrives at 5 (F - 2) / 2 + 13: 108 for 40 flits, 113 for 42 - two more
  // flits cost one round trip of 5 cycles (0.4 flits/cycle).
  const NocParams p = params({{"noc.vcs", "1"}, {"noc.vc_buf", "2"}});
  const uint64_t forty = single_packet(p, 0, 1, 40).latency();
  const uint64_t forty_two = single_packet(p, 0, 1, 42).latency();
  EXPECT_EQ(forty, 108u);
  EXPECT_EQ(forty_two - forty, 5u);
  // Four slots per round trip: four more flits per 5 cycles (0.8 flits per
  // cycle), still below the one flit a cycle a link carries.
  const NocParams deep = params({{"noc.vcs", "1"}, {"noc.vc_buf", "4"}});
  EXPECT_EQ(single_packet(deep, 0, 1, 44).latency() - single_packet(deep, 0, 1, 40).latency(), 5u);
  // A longer credit path: credit = 3 makes the round trip 7 cycles.
  const NocParams slow = params({{"noc.vcs", "1"}, {"noc.vc_buf", "2"}, {"noc.delay.credit", "3"}});
  EXPECT_EQ(single_packet(slow, 0, 1, 42).latency() - single_packet(slow, 0, 1, 40).latency(), 7u);
}

TEST(ChannelDelay, SourceQueueTakesItsOwnDelay) {
  // Mesh 0 -> 15, 6 hops, 1 flit: source queue + 1 (injection) + 7 * 4 + 6
  // + 1 (ejection).
  EXPECT_EQ(single_packet(params({}), 0, 15, 1).latency(), 1u + 1 + 28 + 6 + 1);
  EXPECT_EQ(single_packet(params({{"noc.delay.source_queue", "3"}}), 0, 15, 1).latency(), 3u + 1 + 28 + 6 + 1);
  // 0: a packet created in cycle t enters the injection channel in t.
  EXPECT_EQ(single_packet(params({{"noc.delay.source_queue", "0"}}), 0, 15, 1).latency(), 0u + 1 + 28 + 6 + 1);
  // It does not follow the link delay: link 2 gives 1 + 2 + 28 + 12 + 2.
  EXPECT_EQ(single_packet(params({{"noc.delay.link", "2"}}), 0, 15, 1).latency(), 1u + 2 + 28 + 12 + 2);
}

TEST(ChannelDelay, SourceQueueDelaysOnlyAPacketThatWasNotWaiting) {
  // Two 1-flit packets created at 0 from node 0 to node 1 (1 hop): the
  // first leaves the source queue at 1 and arrives at 1 + 1 + 2 * 4 + 1 + 1
  // = 12; the second, as long in the queue, leaves right behind it at 2
  // (one flit a cycle), on the other VC (round robin), arriving at 13. With
  // source_queue 3 the first leaves at 3 (arrival 14), the second at 4 (15):
  // the queue's delay is paid once, not once per packet.
  for (const auto& [delay, first] : {std::pair{"1", 12u}, std::pair{"3", 14u}}) {
    Network net(params({{"noc.delay.source_queue", delay}}));
    for (int i = 0; i < 2; ++i) {
      Packet p;
      p.src = 0;
      p.dst = 1;
      p.flits = 1;
      net.enqueue(p);
    }
    std::vector<uint64_t> arrivals;
    for (int cycle = 0; cycle < 100 && arrivals.size() < 2; ++cycle) {
      net.step();
      for (const Delivery& d : net.delivered()) arrivals.push_back(d.arrival_cycle);
    }
    ASSERT_EQ(arrivals.size(), 2u) << delay;
    EXPECT_EQ(arrivals[0], first) << delay;
    EXPECT_EQ(arrivals[1], first + 1) << delay;
  }
}

TEST(ChannelDelay, InjectionChannelTakesItsOwnDelay) {
  // Mesh 0 -> 15, 6 hops, 1 flit: 1 (source queue) + injection + 7 * 4 + 6
  // + 1 (ejection).
  EXPECT_EQ(single_packet(params({}), 0, 15, 1).latency(), 1u + 1 + 28 + 6 + 1);
  EXPECT_EQ(single_packet(params({{"noc.delay.injection", "3"}}), 0, 15, 1).latency(), 1u + 3 + 28 + 6 + 1);
  // 0: the interface writes straight into the router's buffer.
  EXPECT_EQ(single_packet(params({{"noc.delay.injection", "0"}}), 0, 15, 1).latency(), 1u + 0 + 28 + 6 + 1);
  // The default follows noc.delay.link: link 2 gives 1 + 2 + 28 + 12 + 2.
  EXPECT_EQ(single_packet(params({{"noc.delay.link", "2"}}), 0, 15, 1).latency(), 1u + 2 + 28 + 12 + 2);
}

TEST(ChannelDelay, EjectionChannelTakesItsOwnDelay) {
  // Mesh 0 -> 15, 1 flit: 1 + 1 + 28 + 6 + ejection.
  EXPECT_EQ(single_packet(params({{"noc.delay.ejection", "4"}}), 0, 15, 1).latency(), 1u + 1 + 28 + 6 + 4);
  // Only the last channel: a local packet (no link) pays it once, 1 + 1 + 4 + 4.
  EXPECT_EQ(single_packet(params({{"noc.delay.ejection", "4"}}), 5, 5, 1).latency(), 1u + 1 + 4 + 4);
  // Link 3 with injection and ejection pinned to 1: 1 + 1 + 28 + 18 + 1.
  EXPECT_EQ(single_packet(params({{"noc.delay.link", "3"}, {"noc.delay.injection", "1"}, {"noc.delay.ejection", "1"}}),
                          0, 15, 1)
                .latency(),
            1u + 1 + 28 + 18 + 1);
}

TEST(FlowControl, VctWaitsForRoomForTheWholePacketWormholeDoesNot) {
  // Two 4-flit packets back to back from router 0 to router 2 over one VC
  // of 4 flits, with VCs reused as soon as a tail has left (noc.atomic_vc
  // false). Wormhole lets the second head follow the first tail into a
  // buffer that still holds part of the first packet; virtual cut-through
  // holds it until the buffer has room for all 4 flits, so the second
  // packet arrives later. With atomic VC allocation (one packet per buffer)
  // the two coincide.
  auto second_arrival = [](const char* flow, const char* atomic) {
    Network net(params({{"noc.vcs", "1"}, {"noc.vc_buf", "4"}, {"noc.flow_control", flow}, {"noc.atomic_vc", atomic}}));
    for (int i = 0; i < 2; ++i) {
      Packet p;
      p.src = 0;
      p.dst = 2;
      p.flits = 4;
      net.enqueue(p);
    }
    uint64_t last = 0;
    for (int cycle = 0; cycle < 200; ++cycle) {
      net.step();
      for (const Delivery& d : net.delivered()) last = d.arrival_cycle;
    }
    return last;
  };
  EXPECT_LT(second_arrival("wormhole", "false"), second_arrival("vct", "false"));
  EXPECT_EQ(second_arrival("wormhole", "true"), second_arrival("vct", "true"));
  EXPECT_LT(second_arrival("wormhole", "false"), second_arrival("wormhole", "true"));
}

}  // namespace
