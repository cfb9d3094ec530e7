// Config: YAML flattening, --set overrides, typed getters with range checks,
// unknown keys with suggestions, YAML syntax errors with file:line.
#include "sim/config.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

namespace {

using tessera::sim::Config;
using tessera::sim::ConfigError;
using tessera::sim::edit_distance;

// Runs fn, expects a ConfigError and returns its message.
template <class Fn>
std::string config_error(Fn&& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError thrown";
  return "";
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = std::string(SIM_TEST_TMP_DIR) + "/" + name;
  std::ofstream out(path);
  out << text;
  return path;
}

// ------------------------------------------------------------ edit_distance

TEST(EditDistance, KnownValues) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "abcd"), 4u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);
  EXPECT_EQ(edit_distance("sm.fma_latncy", "sm.fma_latency"), 1u);
  EXPECT_EQ(edit_distance("sm.fma_latncy", "sm.alu_latency"), 4u);
}

TEST(EditDistance, Symmetric) {
  const char* words[] = {"", "a", "gto", "lrr", "two_level", "sm.scheduler", "sm.schedular", "memory.latency"};
  for (const char* a : words)
    for (const char* b : words) EXPECT_EQ(edit_distance(a, b), edit_distance(b, a)) << a << " / " << b;
}

// ------------------------------------------------------------ YAML loading

TEST(Config, NestedMapsFlattenWithDots) {
  Config cfg;
  cfg.load_yaml_string(
      "sm:\n"
      "  scheduler: lrr\n"
      "  alu:\n"
      "    latency: 7\n"
      "gpu:\n"
      "  num_sms: 3\n"
      "top: 5\n",
      "test.yaml");
  EXPECT_EQ(cfg.get_enum("sm.scheduler", "gto", {"lrr", "gto", "two_level"}, "policy"), "lrr");
  EXPECT_EQ(cfg.get_int("sm.alu.latency", 6, 1, 64, "latency"), 7);
  EXPECT_EQ(cfg.get_int("gpu.num_sms", 1, 1, 256, "SMs"), 3);
  EXPECT_EQ(cfg.get_int("top", 1, 0, 10, "top-level key"), 5);
  EXPECT_NO_THROW(cfg.check_all_used());
  EXPECT_EQ(cfg.specs().at("sm.alu.latency").source, "test.yaml");
}

TEST(Config, FileSetsPlatformNameAndDescriptionWhichAreNotParameters) {
  const std::string path = write_file("cfg_platform.yaml",
                                      "platform: testchip\n"
                                      "description: A chip for tests.\n"
                                      "gpu:\n"
                                      "  num_sms: 2\n");
  Config cfg;
  cfg.load_yaml_file(path);
  EXPECT_EQ(cfg.platform_name(), "testchip");
  EXPECT_EQ(cfg.platform_description(), "A chip for tests.");
  EXPECT_EQ(cfg.get_int("gpu.num_sms", 1, 1, 256, "SMs"), 2);
  EXPECT_EQ(cfg.specs().at("gpu.num_sms").source, path);
  EXPECT_NO_THROW(cfg.check_all_used());
  EXPECT_EQ(cfg.specs().count("platform"), 0u);
  EXPECT_EQ(cfg.specs().count("description"), 0u);
}

TEST(Config, SetOverridesNetlistValue) {
  Config cfg;
  cfg.load_yaml_string("sm:\n  alu_latency: 6\n  scheduler: gto\n", "net.yaml");
  cfg.set_override("sm.alu_latency=9");
  cfg.set_override("sm.scheduler=two_level");
  EXPECT_EQ(cfg.get_int("sm.alu_latency", 4, 1, 64, "ALU latency"), 9);
  EXPECT_EQ(cfg.get_enum("sm.scheduler", "gto", {"lrr", "gto", "two_level"}, "policy"), "two_level");
  const auto& spec = cfg.specs().at("sm.alu_latency");
  EXPECT_EQ(spec.source, "--set");
  EXPECT_EQ(spec.value, "9");
  EXPECT_EQ(spec.default_value, "4");
}

TEST(Config, SetOverrideValueMayContainEquals) {
  Config cfg;
  cfg.set_override("name=a=b");
  EXPECT_EQ(cfg.get_string("name", "", "a name"), "a=b");
}

TEST(Config, MalformedSetOverrideRejected) {
  Config cfg;
  EXPECT_NE(config_error([&] { cfg.set_override("sm.alu_latency"); }).find("key=value"), std::string::npos);
  EXPECT_NE(config_error([&] { cfg.set_override("=3"); }).find("key=value"), std::string::npos);
}

TEST(Config, MalformedYamlFileReportsFileAndLine) {
  const std::string path = write_file("cfg_bad.yaml",
                                      "platform: bad\n"
                                      "sm:\n"
                                      "  scheduler: gto\n"
                                      "  partitions: [1, 2\n"
                                      "gpu:\n"
                                      "  num_sms: 1\n");
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_file(path); });
  EXPECT_NE(msg.find(path + ":"), std::string::npos) << msg;
  EXPECT_NE(msg.find("YAML syntax error"), std::string::npos) << msg;
  // "path:LINE:COL:" with a plausible line (the error is on or after line 4).
  const auto after = msg.substr(msg.find(path + ":") + path.size() + 1);
  const int line = std::stoi(after);
  EXPECT_GE(line, 4) << msg;
  EXPECT_LE(line, 7) << msg;
}

TEST(Config, MalformedYamlFileReportsExactLineOfBadIndentation) {
  const std::string path = write_file("cfg_bad_indent.yaml",
                                      "sm:\n"
                                      "  scheduler: gto\n"
                                      " partitions: 2\n");
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_file(path); });
  EXPECT_NE(msg.find(path + ":3:"), std::string::npos) << msg;
}

TEST(Config, MissingFileNamed) {
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_file("/nonexistent/dir/plat.yaml"); });
  EXPECT_NE(msg.find("/nonexistent/dir/plat.yaml"), std::string::npos) << msg;
}

TEST(Config, RootMustBeAMapping) {
  Config cfg;
  const std::string path = write_file("cfg_list.yaml", "- a\n- b\n");
  EXPECT_NE(config_error([&] { cfg.load_yaml_file(path); }).find(path), std::string::npos);
  EXPECT_NE(config_error([&] { cfg.load_yaml_string("- a\n- b\n", "inline"); }).find("inline"), std::string::npos);
}

TEST(Config, SequenceOrEmptyValueRejectedWithKey) {
  {
    Config cfg;
    const std::string msg = config_error([&] { cfg.load_yaml_string("sm:\n  lanes: [1, 2]\n", "seq.yaml"); });
    EXPECT_NE(msg.find("sm.lanes"), std::string::npos) << msg;
    EXPECT_NE(msg.find("seq.yaml"), std::string::npos) << msg;
  }
  {
    Config cfg;
    const std::string msg = config_error([&] { cfg.load_yaml_string("sm:\n  scheduler:\n", "null.yaml"); });
    EXPECT_NE(msg.find("sm.scheduler"), std::string::npos) << msg;
  }
}

TEST(Config, MalformedYamlStringNamesOrigin) {
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_string("a: [1, 2\n", "inline-origin"); });
  EXPECT_NE(msg.find("inline-origin"), std::string::npos) << msg;
}

// ------------------------------------------------------------ get_int

TEST(Config, GetIntDefaultWhenUnset) {
  Config cfg;
  EXPECT_EQ(cfg.get_int("sm.partitions", 4, 1, 8, "Partitions"), 4);
  const auto& spec = cfg.specs().at("sm.partitions");
  EXPECT_EQ(spec.type, "int");
  EXPECT_EQ(spec.default_value, "4");
  EXPECT_EQ(spec.value, "4");
  EXPECT_EQ(spec.range, "[1, 8]");
  EXPECT_EQ(spec.description, "Partitions");
  EXPECT_EQ(spec.source, "default");
}

TEST(Config, GetIntParsesDecimalNegativeAndHex) {
  Config cfg;
  cfg.set("a", "42", "--set");
  cfg.set("b", "-7", "--set");
  cfg.set("c", "0x10", "--set");
  EXPECT_EQ(cfg.get_int("a", 0, -100, 100, "a"), 42);
  EXPECT_EQ(cfg.get_int("b", 0, -100, 100, "b"), -7);
  EXPECT_EQ(cfg.get_int("c", 0, -100, 100, "c"), 16);
}

TEST(Config, GetIntAcceptsRangeBounds) {
  Config cfg;
  cfg.set("lo", "1", "--set");
  cfg.set("hi", "8", "--set");
  EXPECT_EQ(cfg.get_int("lo", 4, 1, 8, "lo"), 1);
  EXPECT_EQ(cfg.get_int("hi", 4, 1, 8, "hi"), 8);
}

TEST(Config, GetIntOutOfRangeNamesKeyAndRange) {
  for (const char* text : {"99", "0", "-1"}) {
    Config cfg;
    cfg.set_override(std::string("sm.partitions=") + text);
    const std::string msg = config_error([&] { cfg.get_int("sm.partitions", 4, 1, 8, "Partitions"); });
    EXPECT_NE(msg.find("sm.partitions"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[1, 8]"), std::string::npos) << msg;
    EXPECT_NE(msg.find(text), std::string::npos) << msg;
  }
}

TEST(Config, GetIntOutOfRangeFromNetlistNamesFile) {
  Config cfg;
  cfg.load_yaml_string("sm:\n  partitions: 99\n", "plat.yaml");
  const std::string msg = config_error([&] { cfg.get_int("sm.partitions", 4, 1, 8, "Partitions"); });
  EXPECT_NE(msg.find("plat.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sm.partitions"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1, 8]"), std::string::npos) << msg;
}

TEST(Config, GetIntRejectsNonIntegerText) {
  for (const char* text : {"abc", "12abc", "1.5", "", " ", "4 ", "0x", "99999999999999999999999"}) {
    Config cfg;
    cfg.set("sm.partitions", text, "--set");
    const std::string msg = config_error([&] { cfg.get_int("sm.partitions", 4, 1, 8, "Partitions"); });
    EXPECT_NE(msg.find("sm.partitions"), std::string::npos) << "'" << text << "': " << msg;
    EXPECT_NE(msg.find("not an integer"), std::string::npos) << "'" << text << "': " << msg;
  }
}

// ------------------------------------------------------------ get_float

TEST(Config, GetFloat) {
  Config cfg;
  cfg.set("clock.sm_mhz", "1500.5", "--set");
  EXPECT_DOUBLE_EQ(cfg.get_float("clock.sm_mhz", 1000.0, 1.0, 100000.0, "SM clock"), 1500.5);
  EXPECT_DOUBLE_EQ(cfg.get_float("clock.cpu_mhz", 1000.0, 1.0, 100000.0, "CPU clock"), 1000.0);
  EXPECT_EQ(cfg.specs().at("clock.sm_mhz").type, "float");
}

TEST(Config, GetFloatRejectsTextAndNonFinite) {
  for (const char* text : {"fast", "1.5x", "", "inf", "nan", "1e999"}) {
    Config cfg;
    cfg.set("clock.sm_mhz", text, "--set");
    const std::string msg = config_error([&] { cfg.get_float("clock.sm_mhz", 1000.0, 1.0, 100000.0, "SM clock"); });
    EXPECT_NE(msg.find("clock.sm_mhz"), std::string::npos) << "'" << text << "': " << msg;
  }
}

TEST(Config, GetFloatOutOfRange) {
  Config cfg;
  cfg.set("memory.bytes_per_cycle", "0.01", "--set");
  const std::string msg = config_error([&] { cfg.get_float("memory.bytes_per_cycle", 64, 0.125, 65536, "BW"); });
  EXPECT_NE(msg.find("memory.bytes_per_cycle"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[0.125, 65536]"), std::string::npos) << msg;
}

// ------------------------------------------------------------ get_bool

TEST(Config, GetBoolAcceptedSpellings) {
  const std::pair<const char*, bool> cases[] = {{"true", true},   {"1", true},  {"on", true},   {"yes", true},
                                                {"false", false}, {"0", false}, {"off", false}, {"no", false}};
  for (const auto& [text, want] : cases) {
    Config cfg;
    cfg.set("sm.dual_issue", text, "--set");
    EXPECT_EQ(cfg.get_bool("sm.dual_issue", !want, "Dual issue"), want) << text;
  }
}

TEST(Config, GetBoolRejectsOtherText) {
  Config cfg;
  cfg.set("sm.dual_issue", "maybe", "--set");
  const std::string msg = config_error([&] { cfg.get_bool("sm.dual_issue", true, "Dual issue"); });
  EXPECT_NE(msg.find("sm.dual_issue"), std::string::npos) << msg;
  EXPECT_NE(msg.find("maybe"), std::string::npos) << msg;
}

TEST(Config, GetBoolDefault) {
  Config cfg;
  EXPECT_TRUE(cfg.get_bool("sm.dual_issue", true, "Dual issue"));
  EXPECT_EQ(cfg.specs().at("sm.dual_issue").range, "true|false");
  EXPECT_EQ(cfg.specs().at("sm.dual_issue").default_value, "true");
}

// ------------------------------------------------------------ get_enum / get_string

TEST(Config, GetEnumValid) {
  Config cfg;
  cfg.set_override("sm.scheduler=lrr");
  EXPECT_EQ(cfg.get_enum("sm.scheduler", "gto", {"lrr", "gto", "two_level"}, "Warp scheduling policy"), "lrr");
  EXPECT_EQ(cfg.specs().at("sm.scheduler").range, "lrr|gto|two_level");
  EXPECT_EQ(cfg.specs().at("sm.scheduler").type, "enum");
}

TEST(Config, GetEnumInvalidListsChoices) {
  Config cfg;
  cfg.set_override("sm.scheduler=fifo");
  const std::string msg = config_error([&] {
    cfg.get_enum("sm.scheduler", "gto", {"lrr", "gto", "two_level"}, "policy");
  });
  EXPECT_NE(msg.find("sm.scheduler"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fifo"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lrr|gto|two_level"), std::string::npos) << msg;
}

TEST(Config, GetEnumIsCaseSensitive) {
  Config cfg;
  cfg.set_override("sm.scheduler=GTO");
  EXPECT_THROW(cfg.get_enum("sm.scheduler", "gto", {"lrr", "gto", "two_level"}, "policy"), ConfigError);
}

TEST(Config, GetString) {
  Config cfg;
  EXPECT_EQ(cfg.get_string("trace.file", "out.vcd", "Trace file"), "out.vcd");
  cfg.set_override("trace.name=hello world");
  EXPECT_EQ(cfg.get_string("trace.name", "", "Name"), "hello world");
}

// ------------------------------------------------------------ declarations

TEST(Config, RedeclarationMustAgree) {
  Config cfg;
  EXPECT_EQ(cfg.get_int("sm.partitions", 4, 1, 8, "Partitions"), 4);
  EXPECT_EQ(cfg.get_int("sm.partitions", 4, 1, 8, "Partitions"), 4);  // another SM: fine
  EXPECT_EQ(cfg.specs().size(), 1u);
  EXPECT_THROW(cfg.get_int("sm.partitions", 2, 1, 8, "Partitions"), std::logic_error);
  EXPECT_THROW(cfg.get_float("sm.partitions", 4, 1, 8, "Partitions"), std::logic_error);
}

// ------------------------------------------------------------ unknown keys

TEST(Config, UnknownKeySuggestsNearestDeclared) {
  Config cfg;
  cfg.set_override("sm.fma_latncy=3");
  cfg.get_int("sm.alu_latency", 6, 1, 64, "ALU latency");
  cfg.get_int("gpu.num_sms", 1, 1, 256, "SMs");
  cfg.get_enum("sm.scheduler", "gto", {"lrr", "gto", "two_level"}, "policy");
  const std::string msg = config_error([&] { cfg.check_all_used(); });
  EXPECT_NE(msg.find("sm.fma_latncy"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'sm.alu_latency'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--set"), std::string::npos) << msg;
}

TEST(Config, UnknownKeyFromNetlistNamesFile) {
  Config cfg;
  cfg.load_yaml_string("sm:\n  schedulr: lrr\n", "plat.yaml");
  cfg.get_enum("sm.scheduler", "gto", {"lrr", "gto", "two_level"}, "policy");
  const std::string msg = config_error([&] { cfg.check_all_used(); });
  EXPECT_NE(msg.find("plat.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sm.schedulr"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'sm.scheduler'"), std::string::npos) << msg;
}

TEST(Config, UnknownKeyWithNothingCloseHasNoSuggestion) {
  Config cfg;
  cfg.set_override("completely.unrelated_thing=1");
  cfg.get_int("gpu.num_sms", 1, 1, 256, "SMs");
  const std::string msg = config_error([&] { cfg.check_all_used(); });
  EXPECT_NE(msg.find("completely.unrelated_thing"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("did you mean"), std::string::npos) << msg;
  EXPECT_EQ(cfg.nearest_key("completely.unrelated_thing"), "");
}

TEST(Config, NearestKeyMatchesLeafUnderAnotherPrefix) {
  Config cfg;
  cfg.get_int("sm.register_granule", 256, 1, 4096, "Granule");
  cfg.get_int("gpu.num_sms", 1, 1, 256, "SMs");
  EXPECT_EQ(cfg.nearest_key("sm.register_granul"), "sm.register_granule");
  EXPECT_EQ(cfg.nearest_key("memory.controller.register_granule"), "sm.register_granule");
}

TEST(Config, AllUsedPasses) {
  Config cfg;
  cfg.set_override("gpu.num_sms=2");
  cfg.get_int("gpu.num_sms", 1, 1, 256, "SMs");
  EXPECT_NO_THROW(cfg.check_all_used());
}

}  // namespace

// ------------------------------------------------------------ hostile netlists

// "Billion laughs": each level names the previous one twice, so 30 levels of
// a 1 KiB file would flatten to 2^30 values. The walk stops at its bound.
TEST(ConfigHostile, AliasExpansionIsBoundedAndNamesTheFileAndLimit) {
  std::string yaml = "l0: &l0 {a: 1, b: 2}\n";
  for (int i = 1; i <= 30; ++i) yaml += fmt::format("l{}: &l{} {{x: *l{}, y: *l{}}}\n", i, i, i - 1, i - 1);
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_string(yaml, "laughs.yaml"); });
  EXPECT_NE(msg.find("laughs.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("100000 nodes"), std::string::npos) << msg;
}

TEST(ConfigHostile, SelfReferentialAnchorIsRefused) {
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_string("sm: &a {x: *a}\n", "loop.yaml"); });
  EXPECT_NE(msg.find("loop.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("levels"), std::string::npos) << msg;
}

TEST(ConfigHostile, NonScalarPlatformOrDescriptionNamesFileAndLine) {
  const std::string path = write_file("cfg_platform_map.yaml", "gpu:\n  num_sms: 2\nplatform: {a: 1}\n");
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_file(path); });
  EXPECT_NE(msg.find(path + ":3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'platform'"), std::string::npos) << msg;
  const std::string path2 = write_file("cfg_description_seq.yaml", "description:\n  - a\n  - b\n");
  Config cfg2;
  EXPECT_NE(config_error([&] { cfg2.load_yaml_file(path2); }).find("'description'"), std::string::npos);
}

TEST(ConfigHostile, NonScalarKeyNamesFileAndLine) {
  const std::string path = write_file("cfg_map_key.yaml", "gpu:\n  ? [a, b]\n  : 3\n");
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_file(path); });
  EXPECT_NE(msg.find(path + ":2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("key"), std::string::npos) << msg;
}

TEST(ConfigHostile, DuplicateKeysAreErrors) {
  {
    Config cfg;
    const std::string msg =
        config_error([&] { cfg.load_yaml_string("gpu:\n  num_sms: 2\n  num_sms: 4\n", "dup.yaml"); });
    EXPECT_NE(msg.find("dup.yaml:3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("duplicate key 'num_sms'"), std::string::npos) << msg;
  }
  {
    // The same parameter through a nested map and a dotted key.
    Config cfg;
    const std::string msg =
        config_error([&] { cfg.load_yaml_string("gpu:\n  num_sms: 2\ngpu.num_sms: 4\n", "d.yaml"); });
    EXPECT_NE(msg.find("'gpu.num_sms' is set twice"), std::string::npos) << msg;
  }
}

TEST(ConfigHostile, ExtraDocumentsAreErrors) {
  const std::string path = write_file("cfg_two_docs.yaml", "gpu:\n  num_sms: 2\n---\ngpu:\n  num_sms: 8\n");
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_file(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find(path + ":3: a second YAML document"), std::string::npos) << msg;
}

// yaml-cpp's LoadAll never returns on these (an endless run of empty
// documents): found by fuzz_config.
TEST(ConfigHostile, StrayCommaIsAnErrorNotAHang) {
  for (const char* text : {",", ",o=m: s1\n\x1flgp?lmmpatt"}) {
    Config cfg;
    const std::string msg = config_error([&] { cfg.load_yaml_string(text, "comma.yaml"); });
    EXPECT_NE(msg.find("comma.yaml"), std::string::npos) << msg;
  }
}

TEST(ConfigHostile, OversizedFileIsRefused) {
  const std::string path = write_file("cfg_huge.yaml", "a: 1\n" + std::string(2 << 20, '#'));
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_file(path); });
  EXPECT_NE(msg.find("larger than 1048576 bytes"), std::string::npos) << msg;
}

TEST(ConfigHostile, DirectoryIsNotAPlatformFile) {
  Config cfg;
  const std::string msg = config_error([&] { cfg.load_yaml_file(SIM_TEST_TMP_DIR); });
  EXPECT_NE(msg.find("cannot read platform file"), std::string::npos) << msg;
}

TEST(ConfigIntegers, DecimalAndHexOnly) {
  using tessera::sim::parse_integer;
  EXPECT_EQ(parse_integer("10"), 10);
  EXPECT_EQ(parse_integer("0"), 0);
  EXPECT_EQ(parse_integer("-7"), -7);
  EXPECT_EQ(parse_integer("0x10"), 16);
  EXPECT_EQ(parse_integer("0XfF"), 255);
  EXPECT_EQ(parse_integer("-0x10"), -16);
  EXPECT_EQ(parse_integer("9223372036854775807"), INT64_MAX);
  for (const char* bad : {"010", "00", "-010", "", "-", "0x", "1e3", "12abc", " 12", "12 ", "+5", "0b101",
                          "9223372036854775808", "0x8000000000000000", "1.5"})
    EXPECT_EQ(parse_integer(bad), std::nullopt) << bad;
}

TEST(ConfigIntegers, LeadingZeroIsAnErrorNotOctal) {
  Config cfg;
  cfg.load_yaml_string("gpu:\n  num_sms: 010\n", "oct.yaml");
  const std::string msg = config_error([&] { cfg.get_int("gpu.num_sms", 1, 1, 256, "SMs"); });
  EXPECT_NE(msg.find("oct.yaml: gpu.num_sms: '010' is not an integer"), std::string::npos) << msg;
}
