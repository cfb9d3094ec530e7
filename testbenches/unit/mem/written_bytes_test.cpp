// The record of bytes the control cores wrote, line by line, that limits a
// write-back to them (docs/coherence.md, "Write-backs write only written
// bytes").
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "mem/written_bytes.h"

namespace tessera::mem::test {
namespace {

TEST(WrittenBytes, MarksExactlyTheStoredBytes) {
  WrittenBytes w(64);
  w.mark(0x1002, 2);
  w.mark(0x103f, 1);
  for (uint32_t b = 0; b < 64; ++b) EXPECT_EQ(w.written(0x1000, b), b == 2 || b == 3 || b == 63) << "byte " << b;
  EXPECT_FALSE(w.written(0x1040, 0));
  EXPECT_EQ(w.lines(), 1u);
}

TEST(WrittenBytes, MergeCopiesWrittenBytesOnlyAndForgetsThem) {
  WrittenBytes w(64);
  w.mark(0x40 + 8, 4);
  std::vector<uint8_t> data(64, 0xaa), memory(64, 0x11);
  WrittenBytes::Mask mask{};
  ASSERT_TRUE(w.take(0x40, mask));
  EXPECT_EQ(WrittenBytes::count(mask), 4u);
  EXPECT_FALSE(w.whole_line(mask));
  w.merge(mask, data.data(), memory.data());
  for (uint32_t b = 0; b < 64; ++b) EXPECT_EQ(memory[b], b >= 8 && b < 12 ? 0xaa : 0x11) << "byte " << b;
  EXPECT_EQ(w.lines(), 0u);
  EXPECT_FALSE(w.written(0x40, 8));
  EXPECT_FALSE(w.take(0x40, mask));  // taken: nothing left to write
}

TEST(WrittenBytes, LinesLongerThanAMaskWord) {
  WrittenBytes w(256);
  w.mark(0x100 + 200, 4);
  w.mark(0x100, 4);
  std::vector<uint8_t> data(256), memory(256, 0);
  for (uint32_t b = 0; b < 256; ++b) data[b] = static_cast<uint8_t>(b);
  WrittenBytes::Mask mask{};
  ASSERT_TRUE(w.take(0x100, mask));
  EXPECT_EQ(WrittenBytes::count(mask), 8u);
  w.merge(mask, data.data(), memory.data());
  EXPECT_EQ(memory[201], 201);
  EXPECT_EQ(memory[3], 3);
  EXPECT_EQ(memory[4], 0);
  EXPECT_EQ(memory[199], 0);
}

// Stores that alternate between lines, and a line stored again after it was
// taken, each land in their own line's mask.
TEST(WrittenBytes, StoresAfterATakeAndAcrossLinesKeepTheirLines) {
  WrittenBytes w(64);
  w.mark(0x00, 4);
  w.mark(0x40, 4);
  w.mark(0x04, 4);
  WrittenBytes::Mask mask{};
  ASSERT_TRUE(w.take(0x00, mask));
  EXPECT_EQ(WrittenBytes::count(mask), 8u);
  w.mark(0x08, 4);
  EXPECT_TRUE(w.written(0x00, 8));
  EXPECT_FALSE(w.written(0x00, 0));
  EXPECT_TRUE(w.written(0x40, 0));
  EXPECT_EQ(w.lines(), 2u);
  for (uint32_t b = 0; b < 64; b += 4) w.mark(0x40 + b, 4);
  ASSERT_TRUE(w.take(0x40, mask));
  EXPECT_TRUE(w.whole_line(mask));
}

TEST(WrittenBytes, AStoreAcrossItsLineIsAnError) {
  WrittenBytes w(64);
  EXPECT_THROW(w.mark(0x3e, 4), std::logic_error);
  EXPECT_THROW(WrittenBytes(48), std::invalid_argument);
  EXPECT_THROW(WrittenBytes(2048), std::invalid_argument);
}

}  // namespace
}  // namespace tessera::mem::test
