// BuildContext is filled in by name; check() refuses one whose required
// members are not all set, naming the first that is missing.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "isa/decoded_program.h"
#include "isa/elf_loader.h"
#include "platforms/component.h"
#include "platforms/component_registry.h"
#include "sim/backing_memory.h"
#include "sim/clock.h"
#include "sim/config.h"
#include "sim/run_control.h"
#include "sim/stats.h"

namespace build_context_test {

using tessera::platform::BuildContext;

std::string check_message(const BuildContext& ctx) {
  try {
    ctx.check();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

TEST(BuildContext, CheckNamesTheFirstUnsetMember) {
  tessera::sim::Config config;
  tessera::platform::Netlist netlist;
  tessera::platform::ComponentRegistry registry;
  const tessera::sim::ClockDomain sm_clock("sm", 1000.0), cpu_clock("cpu", 1000.0);
  tessera::sim::BackingMemory global(0x80000000u, 1u << 20);
  const tessera::isa::ElfImage image;
  const tessera::isa::DecodedProgram program(image);
  tessera::sim::RunControl run;
  tessera::sim::StatGroup stats("chip");
  std::map<std::string, std::shared_ptr<void>> shared;

  BuildContext ctx;
  EXPECT_EQ(check_message(ctx), "BuildContext::config is not set");
  ctx.config = &config;
  ctx.netlist = &netlist;
  ctx.registry = &registry;
  EXPECT_EQ(check_message(ctx), "BuildContext::sm_clock is not set");
  ctx.sm_clock = &sm_clock;
  ctx.cpu_clock = &cpu_clock;
  ctx.global = &global;
  ctx.image = &image;
  ctx.program = &program;
  ctx.run = &run;
  ctx.stats = &stats;
  EXPECT_EQ(check_message(ctx), "BuildContext::shared is not set");
  ctx.shared = &shared;
  EXPECT_EQ(check_message(ctx), "");
}

TEST(BuildContext, OptionalMembersHaveTheirDefaults) {
  const BuildContext ctx;
  EXPECT_EQ(ctx.wave, nullptr);
  EXPECT_TRUE(ctx.echo_console);
  EXPECT_EQ(ctx.timeline, nullptr);
  EXPECT_EQ(ctx.program_argc, 0u);
  EXPECT_EQ(ctx.program_argv, 0u);
  EXPECT_EQ(ctx.find("sms"), nullptr);
}

}  // namespace build_context_test
