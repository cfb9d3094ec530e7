// Dispatcher::resolve: how a launch written to the dispatcher's registers
// becomes the block's shared-memory segments and registers per thread, with
// and without the program's kernel record (docs/firmware-abi.md, "Memory
// map" and "Kernel record"). Pure logic: no simulation.
#include <gtest/gtest.h>

#include "gpu/dispatcher.h"

namespace tessera::gpu {
namespace {

// An image whose __shared__ variables span [0x20000000, 0x20000A10) (2576
// bytes), the dynamic area at 0x20000A80, and a record for one kernel.
isa::ElfImage image(bool with_record) {
  isa::ElfImage im;
  im.symbols["__tessera_shared_start"] = 0x20000000;
  im.symbols["__tessera_shared_end"] = 0x20000A10;
  im.symbols["__tessera_dynamic_shared"] = 0x20000A80;
  if (with_record) {
    isa::KernelRecord k;
    k.name = "k";
    k.entry = 0x80000100;
    k.registers = 23;
    k.shared_lo = 0x20000800;
    k.shared_bytes = 0x210;  // 528
    im.kernels.kernels.push_back(k);
    im.has_kernel_record = true;
  }
  return im;
}

sm::KernelLaunch written(uint32_t kernel, uint32_t dynamic, uint32_t regs = 0) {
  sm::KernelLaunch k;
  k.kernel = kernel;
  k.shared_bytes = dynamic;  // DISP_SHARED_BYTES: the dynamic bytes
  k.regs_per_thread = regs;
  return k;
}

TEST(LaunchResolve, WithoutARecordTheStaticWindowIsAllOfShared) {
  const isa::ElfImage im = image(false);
  const sm::KernelLaunch k = Dispatcher::resolve(written(0x80000100, 256), &im, 64);
  EXPECT_EQ(k.record, nullptr);
  EXPECT_EQ(k.regs_per_thread, 64u);
  EXPECT_EQ(k.static_lo, 0x20000000u);
  EXPECT_EQ(k.static_bytes, 2576u);
  EXPECT_EQ(k.dynamic_at, 0x20000A80u);
  EXPECT_EQ(k.dynamic_offset, 2688u);  // 2576 rounded up to 128
  EXPECT_EQ(k.shared_bytes, 2688u + 256u);
  // Without a dynamic area the block takes just the static bytes.
  EXPECT_EQ(Dispatcher::resolve(written(0x80000100, 0), &im, 64).shared_bytes, 2576u);
}

TEST(LaunchResolve, TheRecordGivesRegistersAndTheStaticWindow) {
  const isa::ElfImage im = image(true);
  const sm::KernelLaunch k = Dispatcher::resolve(written(0x80000100, 100), &im, 64);
  ASSERT_NE(k.record, nullptr);
  EXPECT_EQ(k.regs_per_thread, 23u);
  EXPECT_EQ(k.static_lo, 0x20000800u);
  EXPECT_EQ(k.static_bytes, 528u);
  EXPECT_EQ(k.dynamic_offset, 640u);  // 528 rounded up to 128
  EXPECT_EQ(k.shared_bytes, 740u);
  // DISP_REGS, when written, wins.
  EXPECT_EQ(Dispatcher::resolve(written(0x80000100, 0, 40), &im, 64).regs_per_thread, 40u);
  // A kernel missing from the record: defaults.
  const sm::KernelLaunch other = Dispatcher::resolve(written(0x80000200, 0), &im, 64);
  EXPECT_EQ(other.record, nullptr);
  EXPECT_EQ(other.regs_per_thread, 64u);
  EXPECT_EQ(other.static_bytes, 2576u);
}

TEST(LaunchResolve, SharedOffsetsMapBothSegments) {
  const isa::ElfImage im = image(true);
  const sm::KernelLaunch k = Dispatcher::resolve(written(0x80000100, 100), &im, 64);
  uint32_t off = 0;
  EXPECT_TRUE(k.shared_offset(0x20000800, 4, &off));
  EXPECT_EQ(off, 0u);
  EXPECT_TRUE(k.shared_offset(0x20000A0C, 4, &off));  // the static window's last word
  EXPECT_EQ(off, 524u);
  EXPECT_FALSE(k.shared_offset(0x20000A0E, 4, &off));  // runs past it
  EXPECT_FALSE(k.shared_offset(0x200007FC, 4, &off));  // below it: another kernel's variables
  EXPECT_TRUE(k.shared_offset(0x20000A80, 4, &off));
  EXPECT_EQ(off, 640u);
  EXPECT_TRUE(k.shared_offset(0x20000A80 + 96, 4, &off));
  EXPECT_EQ(off, 736u);
  EXPECT_FALSE(k.shared_offset(0x20000A80 + 100, 1, &off));  // past the dynamic area
}

TEST(LaunchResolve, HugeDynamicSizeSaturates) {
  const isa::ElfImage im = image(true);
  EXPECT_EQ(Dispatcher::resolve(written(0x80000100, 0xFFFFFFFF), &im, 64).shared_bytes, 0xFFFFFFFFu);
}

TEST(LaunchResolve, NoImage) {
  const sm::KernelLaunch k = Dispatcher::resolve(written(0x80000100, 64), nullptr, 32);
  EXPECT_EQ(k.regs_per_thread, 32u);
  EXPECT_EQ(k.static_bytes, 0u);
  EXPECT_EQ(k.dynamic_at, 0x20000000u);
  EXPECT_EQ(k.shared_bytes, 64u);
}

}  // namespace
}  // namespace tessera::gpu
