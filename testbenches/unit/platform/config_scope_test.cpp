// sim::Config::Scope: an instance's own parameters override the platform's
// for the models built inside the scope, the command line still wins, and a
// scoped value no model reads is an error naming the instance.
#include <gtest/gtest.h>

#include <string>

#include "sim/config.h"

namespace {

using tessera::sim::Config;
using tessera::sim::ConfigError;

using Values = std::map<std::string, std::pair<std::string, std::string>>;

TEST(ConfigScope, InstanceValueOverridesThePlatformsOnlyInsideTheScope) {
  Config cfg;
  cfg.load_yaml_string("l1:\n  size_kb: 48\n", "p.yaml");
  {
    Config::Scope scope(cfg, "big", Values{{"l1.size_kb", {"96", "p.yaml:9: instance 'big'"}}});
    EXPECT_EQ(cfg.get_int("l1.size_kb", 24, 1, 1024, "L1"), 96);
  }
  EXPECT_EQ(cfg.get_int("l1.size_kb", 24, 1, 1024, "L1"), 48);
  // The platform-wide key and the instance's own are declared apart.
  EXPECT_EQ(cfg.specs().at("l1.size_kb").value, "48");
  EXPECT_EQ(cfg.scoped_specs().at("big:l1.size_kb").value, "96");
  EXPECT_EQ(cfg.scoped_specs().at("big:l1.size_kb").source, "p.yaml:9: instance 'big'");
  EXPECT_NO_THROW(cfg.check_all_used());
}

TEST(ConfigScope, KeysTheInstanceDoesNotSetComeFromThePlatform) {
  Config cfg;
  cfg.load_yaml_string("sm:\n  scheduler: lrr\n", "p.yaml");
  Config::Scope scope(cfg, "big", Values{{"l1.size_kb", {"96", "here"}}});
  EXPECT_EQ(cfg.get_enum("sm.scheduler", "gto", {"gto", "lrr"}, "S"), "lrr");
  EXPECT_EQ(cfg.specs().at("sm.scheduler").source, "p.yaml");
}

TEST(ConfigScope, CommandLineWinsOverTheInstance) {
  Config cfg;
  cfg.set_override("l1.size_kb=16");
  Config::Scope scope(cfg, "big", Values{{"l1.size_kb", {"96", "here"}}});
  EXPECT_EQ(cfg.get_int("l1.size_kb", 24, 1, 1024, "L1"), 16);
  EXPECT_EQ(cfg.specs().at("l1.size_kb").source, "--set");
  EXPECT_NO_THROW(cfg.check_all_used());  // the instance's value was read, and overridden
}

TEST(ConfigScope, CommandLineCanSetOneInstancesKey) {
  Config cfg;
  cfg.set_override("big:l1.size_kb=48");
  {
    Config::Scope scope(cfg, "big", Values{{"l1.size_kb", {"96", "here"}}});
    EXPECT_EQ(cfg.get_int("l1.size_kb", 24, 1, 1024, "L1"), 48);
  }
  {
    Config::Scope scope(cfg, "small", Values{});
    EXPECT_EQ(cfg.get_int("l1.size_kb", 24, 1, 1024, "L1"), 24);
  }
  EXPECT_EQ(cfg.scoped_specs().at("big:l1.size_kb").source, "--set");
  EXPECT_NO_THROW(cfg.check_all_used());
  cfg.set_override("huge:l1.size_kb=48");  // no instance 'huge' read it
  EXPECT_THROW(cfg.check_all_used(), ConfigError);
}

TEST(ConfigScope, AnOutOfRangeInstanceValueNamesTheInstance) {
  Config cfg;
  Config::Scope scope(cfg, "big", Values{{"l1.size_kb", {"4096", "p.yaml:9: instance 'big'"}}});
  try {
    cfg.get_int("l1.size_kb", 24, 1, 1024, "L1");
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("p.yaml:9: instance 'big': l1.size_kb: value 4096 is out of range"),
              std::string::npos)
        << e.what();
  }
}

TEST(ConfigScope, AnInstanceValueNoModelReadsIsAnError) {
  Config cfg;
  { Config::Scope scope(cfg, "big", Values{{"l1.size_kbb", {"96", "p.yaml:9: instance 'big'"}}}); }
  cfg.get_int("l1.size_kb", 24, 1, 1024, "L1");
  try {
    cfg.check_all_used();
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "p.yaml:9: instance 'big': parameter 'l1.size_kbb' is not one that instance 'big' reads (did you "
                  "mean 'l1.size_kb'?)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
