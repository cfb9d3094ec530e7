// Per-protocol transition tests. First the textbook sharing sequence with
// the states every protocol must reach (Culler & Singh §5.3-5.4; MESIF and
// MOESI as in docs/coherence.md), then a set of directed scenarios after which every row of every
// table must have been used at least once.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "cluster_harness.h"

namespace tessera::bus::test {
namespace {

using mem::Protocol;
using mem::State;
constexpr State I = State::kI, S = State::kS, E = State::kE, M = State::kM, O = State::kO, F = State::kF,
                Sc = State::kSc, Sm = State::kSm;

struct Expect {
  Protocol protocol;
  // States of cores 0, 1, 2 after each of the eight steps.
  State after[8][3];
};

// X is read by C0, C1, C2, written by C1, read by C0, written by C0,
// written by C2, read by C1.
const Expect kSharing[] = {
    {Protocol::kMsi, {{S, I, I}, {S, S, I}, {S, S, S}, {I, M, I}, {S, S, I}, {M, I, I}, {I, I, M}, {I, S, S}}},
    {Protocol::kMesi, {{E, I, I}, {S, S, I}, {S, S, S}, {I, M, I}, {S, S, I}, {M, I, I}, {I, I, M}, {I, S, S}}},
    // The newest sharer holds F.
    {Protocol::kMesif, {{E, I, I}, {S, F, I}, {S, S, F}, {I, M, I}, {F, S, I}, {M, I, I}, {I, I, M}, {I, F, S}}},
    // A modified line read by another cache becomes Owned.
    {Protocol::kMoesi, {{E, I, I}, {S, S, I}, {S, S, S}, {I, M, I}, {S, O, I}, {M, I, I}, {I, I, M}, {I, S, O}}},
    // Writes update the sharers; the last writer is Sm.
    {Protocol::kDragon,
     {{E, I, I}, {Sc, Sc, I}, {Sc, Sc, Sc}, {Sc, Sm, Sc}, {Sc, Sm, Sc}, {Sm, Sc, Sc}, {Sc, Sc, Sm}, {Sc, Sc, Sm}}},
};

class Sharing : public ::testing::TestWithParam<Expect> {};

TEST_P(Sharing, TextbookSequenceReachesTheTextbookStates) {
  const Expect& e = GetParam();
  Harness h(small_params(e.protocol));
  constexpr uint64_t X = 0x40;
  const std::function<void()> steps[8] = {
      [&] { EXPECT_EQ(h.load(0, X), 0u); },
      [&] { EXPECT_EQ(h.load(1, X), 0u); },
      [&] { EXPECT_EQ(h.load(2, X), 0u); },
      [&] { h.store(1, X, 5); },
      [&] { EXPECT_EQ(h.load(0, X), 5u); },
      [&] { h.store(0, X, 6); },
      [&] { h.store(2, X, 7); },
      [&] { EXPECT_EQ(h.load(1, X), 7u); },
  };
  for (int i = 0; i < 8; ++i) {
    steps[i]();
    for (uint32_t c = 0; c < 3; ++c)
      EXPECT_EQ(h.d(c, X), e.after[i][c])
          << mem::protocol_name(e.protocol) << " step " << i + 1 << " core " << c << ": " << h.cluster.describe_line(X);
  }
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, Sharing, ::testing::ValuesIn(kSharing),
                         [](const auto& p) { return std::string(mem::protocol_name(p.param.protocol)); });

TEST(Transitions, CacheToCacheTransfersFollowTheProtocol) {
  // C0 reads X alone (E, or S in MSI), then C1 reads it. Who answers:
  // MSI/MESI/Dragon: memory (a clean E/S copy does not supply);
  // MESIF/MOESI: the E copy forwards.
  const std::pair<Protocol, bool> cases[] = {{Protocol::kMsi, false},
                                             {Protocol::kMesi, false},
                                             {Protocol::kMesif, true},
                                             {Protocol::kMoesi, true},
                                             {Protocol::kDragon, false}};
  for (const auto& [p, c2c] : cases) {
    Harness h(small_params(p));
    h.load(0, 0x40);
    const auto before = h.cluster.counters();
    h.load(1, 0x40);
    const auto& after = h.cluster.counters();
    EXPECT_EQ(after.cache_to_cache - before.cache_to_cache, c2c ? 1u : 0u) << mem::protocol_name(p);
    EXPECT_EQ(after.memory_reads - before.memory_reads, c2c ? 0u : 1u) << mem::protocol_name(p);
  }
}

// Directed scenarios that together reach every row of every table.
void run_scenarios(Harness& h) {
  constexpr uint64_t X = 0x40, Y = 0x80, Z = 0xc0, W = 0x100;
  auto v = [](int i) { return 0x1000 + 64 * static_cast<uint64_t>(i); };
  // Sharing sequence, then a core that does not hold X writes it.
  h.load(0, X), h.load(1, X), h.load(2, X), h.store(1, X, 5), h.load(0, X), h.store(0, X, 6), h.store(2, X, 7),
      h.load(1, X), h.store(3, X, 8);
  // Exclusive copy written twice, then read by another core.
  h.load(3, Y), h.store(3, Y, 1), h.store(3, Y, 2), h.load(3, Y), h.load(0, Y), h.load(0, Y);
  // An exclusive copy taken by a writer; an exclusive copy read by another.
  h.load(3, Z), h.store(0, Z, 3);
  h.load(3, W), h.load(2, W);
  // Evictions: E, M, S/F, then O/Sm and its sharer.
  h.load(0, v(1)), h.evict(0, v(1));
  h.store(0, v(2), 1), h.evict(0, v(2));
  h.load(0, v(3)), h.load(1, v(3)), h.evict(0, v(3)), h.evict(1, v(3));
  h.store(0, v(4), 1), h.load(1, v(4)), h.evict(0, v(4)), h.evict(1, v(4));
  // Owned line: read by its owner, read by a third core, upgraded by a
  // sharer, re-owned, taken by a non-sharer, then written by its owner.
  h.store(0, v(5), 1), h.load(1, v(5)), h.load(0, v(5)), h.load(2, v(5)), h.store(1, v(5), 2), h.load(0, v(5)),
      h.store(2, v(5), 3), h.load(0, v(5)), h.store(2, v(5), 4);
  // Forward line: read again, taken by a non-sharer; upgraded by F; upgraded
  // by an S beside F.
  h.load(0, v(6)), h.load(1, v(6)), h.load(1, v(6)), h.store(2, v(6), 1);
  h.load(0, v(7)), h.load(1, v(7)), h.store(1, v(7), 1);
  h.load(0, v(8)), h.load(1, v(8)), h.store(0, v(8), 1);
  // Update protocol: write miss to an unshared line; writes by a lone Sc and
  // a lone Sm; M read (to Sm), Sm read, Sm updated by a sharer, Sm written
  // while shared.
  h.store(3, v(9), 1);
  h.load(0, v(10)), h.load(1, v(10)), h.evict(1, v(10)), h.store(0, v(10), 1);
  h.store(0, v(11), 1), h.load(1, v(11)), h.evict(1, v(11)), h.store(0, v(11), 2);
  h.store(0, v(12), 1), h.load(1, v(12)), h.load(2, v(12)), h.store(1, v(12), 2), h.load(1, v(12)),
      h.store(1, v(12), 3), h.load(0, v(12)), h.load(0, v(12));
  h.settle();
}

class Coverage : public ::testing::TestWithParam<Protocol> {};

TEST_P(Coverage, DirectedScenariosExerciseEveryRow) {
  Harness h(small_params(GetParam()));
  run_scenarios(h);
  ASSERT_FALSE(h.cluster.failed()) << h.cluster.failure();
  const auto& rows = h.cluster.table().rows();
  std::string missing;
  for (size_t i = 0; i < rows.size(); ++i)
    if (h.cluster.row_hits()[i] == 0)
      missing += fmt::format("\n  row {}: ({}, {}{}) -> {} {}", i, mem::state_name(rows[i].state),
                             mem::event_name(rows[i].event), mem::cond_name(rows[i].cond),
                             mem::state_name(rows[i].next), mem::actions_text(rows[i].actions));
  EXPECT_TRUE(missing.empty()) << h.cluster.table().name() << " rows never exercised:" << missing;
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, Coverage, ::testing::ValuesIn(all_protocols()),
                         [](const auto& p) { return std::string(mem::protocol_name(p.param)); });

}  // namespace
}  // namespace tessera::bus::test
