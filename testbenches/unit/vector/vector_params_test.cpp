// vector.* parameters: defaults are the chapter's machine, every key is read,
// and a bad value is an error naming the key.
#include <gtest/gtest.h>

#include <string>

#include "sim/config.h"
#include "vector/vector_params.h"

namespace tessera::vector {
namespace {

std::string error_of(const std::string& yaml) {
  sim::Config cfg;
  cfg.load_yaml_string(yaml, "p.yaml");
  try {
    load_vector_params(cfg);
  } catch (const sim::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(VectorParams, DefaultsAreTheChaptersMachine) {
  sim::Config cfg;
  const VectorParams v = load_vector_params(cfg);
  EXPECT_EQ(v.vlen, 2048u);
  EXPECT_EQ(v.timing.lanes, 1u);
  EXPECT_EQ(v.timing.chaining, Chaining::kFlexible);
  EXPECT_EQ(v.timing.load_latency, 12u);
  EXPECT_EQ(v.timing.mul_latency, 7u);
  EXPECT_EQ(v.timing.add_latency, 6u);
  EXPECT_EQ(v.timing.store_latency, 12u);
  EXPECT_EQ(v.timing.div_latency, 20u);
  EXPECT_TRUE(cfg.specs().count("vector.latency.load"));
  EXPECT_TRUE(cfg.specs().count("vector.queue_depth"));
}

TEST(VectorParams, YamlSetsEveryKey) {
  sim::Config cfg;
  cfg.load_yaml_string(
      "vector:\n  vlen: 512\n  lanes: 4\n  chaining: fixed\n  latency: {add: 2, mul: 3, div: 9, load: 30, store: 31}\n"
      "  memory_units: 2\n  read_ports: 8\n  write_ports: 4\n  banks: 32\n  bank_busy: 20\n  bank_word_bytes: 8\n"
      "  queue_depth: 16\n",
      "p.yaml");
  const VectorParams v = load_vector_params(cfg);
  EXPECT_EQ(v.vlen, 512u);
  EXPECT_EQ(v.timing.lanes, 4u);
  EXPECT_EQ(v.timing.chaining, Chaining::kFixed);
  EXPECT_EQ(v.timing.add_latency, 2u);
  EXPECT_EQ(v.timing.mul_latency, 3u);
  EXPECT_EQ(v.timing.div_latency, 9u);
  EXPECT_EQ(v.timing.load_latency, 30u);
  EXPECT_EQ(v.timing.store_latency, 31u);
  EXPECT_EQ(v.timing.memory_units, 2u);
  EXPECT_EQ(v.timing.read_ports, 8u);
  EXPECT_EQ(v.timing.write_ports, 4u);
  EXPECT_EQ(v.timing.banks, 32u);
  EXPECT_EQ(v.timing.bank_busy, 20u);
  EXPECT_EQ(v.timing.bank_word_bytes, 8u);
  EXPECT_EQ(v.timing.queue_depth, 16u);
  EXPECT_NO_THROW(cfg.check_all_used());
}

TEST(VectorParams, BadValuesNameTheKey) {
  EXPECT_NE(error_of("vector:\n  vlen: 1000\n").find("vector.vlen = 1000 must be a power of two"), std::string::npos);
  EXPECT_NE(error_of("vector:\n  lanes: 0\n").find("vector.lanes"), std::string::npos);
  EXPECT_NE(error_of("vector:\n  chaining: sometimes\n").find("vector.chaining"), std::string::npos);
  EXPECT_NE(error_of("vector:\n  bank_word_bytes: 6\n").find("vector.bank_word_bytes = 6"), std::string::npos);
}

}  // namespace
}  // namespace tessera::vector
