// The `l2` component type: the address-interleaved L2 slices.
#include <fmt/format.h>

#include "platforms/components/common.h"
#include "platforms/components/l2.h"

namespace tessera::platform {

namespace {

using Kind = SocketSpec::Kind;
using sim::ConfigError;

unsigned l2_slices(const NetlistInstance& inst, const sim::Config& cfg) {
  return peek(cfg, inst, [](sim::Config& c) {
    return static_cast<unsigned>(c.get_int("l2.slices", 4, 1, 64, "L2 slices (address-interleaved)"));
  });
}

ComponentType describe() {
  ComponentType t;
  t.name = "l2";
  t.description = "address-interleaved L2 slices (l2.*), reached through a crossbar or a network bound to sm";
  t.sockets = {{"sm", Kind::kTarget, 1, true, false, "the interconnect in front (one binding per slice)"},
               {"mem", Kind::kInitiator, 1, true, false, "each slice's memory port"}};
  t.sockets[0].built_first = true;  // the crossbar and a network take its slices and interleaving
  t.attributes = {{"nodes", "network nodes of the slices"}};
  t.report_order = 50;
  t.endpoints = l2_slices;
  t.memory = [](const NetlistInstance& inst, const sim::Config& cfg) {
    // Tags and line state: an eighth of the capacity (measured to 1 GiB).
    return peek(cfg, inst, [](sim::Config& c) {
      const uint64_t bytes =
          static_cast<uint64_t>(c.get_int("l2.size_kb", 2048, 1, 1 << 20, "L2 capacity, KiB (all slices)")) << 10;
      return MemoryEstimate{bytes / 8, "l2.size_kb"};
    });
  };
  t.factory = make<L2>();
  return t;
}

const ComponentRegistration kRegistration(describe);

}  // namespace

}  // namespace tessera::platform
