// Zero-load latency of single packets, derived by hand from the router model
// (docs/noc.md, "Timing"): a head flit spends rc + va + sa + st cycles in
// each router it passes and `link` cycles on the channel after it (the last
// channel leads to the destination's interface); flits follow the head one
// per cycle. A packet crossing H router-to-router links passes H + 1 routers:
//   wormhole / VCT:     (H + 1) * (rc + va + sa + st + link) + (F - 1)
//   store-and-forward:  (H + 1) * (rc + va + sa + st + link) + (H + 2) * (F - 1)
// (store-and-forward pays the packet's serialization on every channel: the
// injection channel, H links and the ejection channel).
#include <gtest/gtest.h>

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
      // Default delays are 1 cycle each: 5 cycles per router.
      const uint64_t expected = static_cast<uint64_t>((c.hops + 1) * 5 + (flits - 1));
      EXPECT_EQ(d.latency(), expected) << c.topology << " " << c.src << "->" << c.dst << " " << flits << " flits";
      EXPECT_EQ(d.hops, c.hops) << c.topology << " " << c.src << "->" << c.dst;
      EXPECT_EQ(Topology(p).distance(c.src, c.dst), c.hops);
    }
  }
}

TEST(ZeroLoad, EachStageDelayCounts) {
  // rc 2, va 3, sa 1, st 2, link 4: 12 cycles per router.
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
    EXPECT_EQ(d.latency(), static_cast<uint64_t>((c.hops + 1) * 12 + 2)) << c.topology << " " << c.src;
  }
}

TEST(ZeroLoad, ZeroCycleStagesCollapse) {
  // rc 0, va 0, st 0, sa 1, link 1: 2 cycles per router; mesh 0 -> 15 is 6 hops.
  const NocParams p = params({{"noc.delay.rc", "0"}, {"noc.delay.va", "0"}, {"noc.delay.st", "0"}});
  EXPECT_EQ(single_packet(p, 0, 15, 4).latency(), 7u * 2 + 3);
}

TEST(ZeroLoad, LocalPacketPassesOneRouter) {
  // Source is destination: one router, no link hop: 5 + (F - 1).
  const NocParams p = params({});
  const Delivery d = single_packet(p, 6, 6, 2);
  EXPECT_EQ(d.latency(), 6u);
  EXPECT_EQ(d.hops, 0);
}

TEST(FlowControl, StoreAndForwardPaysSerializationPerHopCutThroughOnce) {
  // The textbook case: a 4-flit packet over 3 hops (router-to-router links) on
  // a mesh row, 0 -> 3, one-cycle stages: 4 routers, 5 cycles each.
  //   cut-through (wormhole, VCT): 4 * 5 + 3           = 23 (header pipelining)
  //   store-and-forward:           4 * 5 + (3 + 2) * 3 = 35 (whole packet copied at every hop)
  // The difference, 4 * 3 = 12, is one packet serialization per router.
  const int flits = 4;
  const uint64_t wormhole = single_packet(params({{"noc.flow_control", "wormhole"}}), 0, 3, flits).latency();
  const uint64_t vct = single_packet(params({{"noc.flow_control", "vct"}}), 0, 3, flits).latency();
  const uint64_t saf = single_packet(params({{"noc.flow_control", "saf"}}), 0, 3, flits).latency();
  EXPECT_EQ(wormhole, 23u);
  EXPECT_EQ(vct, 23u);
  EXPECT_EQ(saf, 35u);
  EXPECT_EQ(saf - wormhole, 4u * (flits - 1));
}

TEST(FlowControl, WormholePacketLongerThanBuffersIsThrottledByCredits) {
  // 2-flit VC buffers, an 8-flit packet from router 0 to router 1 (1 hop).
  // Router 0 switches flits 0 and 1 at cycles 2 and 3 (head: RC 0, VA 1,
  // SA 2) and then has no credit for router 1's VC. Router 1 gets the head at
  // 2 + 3 = 5 and switches it at 7 (RC 5, VA 6), flit 1 at 8; each slot's
  // credit is back at router 0 one cycle later (8, 9), and every later pair
  // of slots turns round in 4 cycles (switch, 3 cycles to router 1, switched
  // on to the interface at once, credit 1 cycle). So router 0 switches flits
  // 2,3 at 8,9; 4,5 at 12,13; 6,7 at 16,17. Flit 7 reaches router 1 at 20, is
  // switched to the interface at 20 and arrives at 20 + 3 = 23.
  const NocParams p = params({{"noc.vc_buf", "2"}});
  const Delivery d = single_packet(p, 0, 1, 8);
  EXPECT_EQ(d.latency(), 23u);
  // With 8-flit buffers nothing throttles it: 2 * 5 + 7 = 17.
  EXPECT_EQ(single_packet(params({{"noc.vc_buf", "8"}}), 0, 1, 8).latency(), 17u);
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
