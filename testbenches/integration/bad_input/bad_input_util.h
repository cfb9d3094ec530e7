// Shared by the bad-input suites: run the real `tessera` binary as a
// subprocess and check how it ends (status, no signal, no hang) and what it
// says.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "tessera_run.h"

namespace tessera::test::bad_input {

constexpr double kTimeoutSeconds = 60.0;  // the guard: a hang fails the test
// "finishes quickly"; a sanitizer build runs up to ten times slower.
inline const double kQuickSeconds = 20.0 * tessera::test::timeout_scale();

// The shared runner, with both output streams together.
struct RunResult : tessera::test::RunResult {
  std::string output;  // stdout + stderr
};

inline std::ostream& operator<<(std::ostream& os, const RunResult& r) {
  return os << "status " << r.status << ", signal " << r.signal << (r.timed_out ? ", TIMED OUT" : "") << ", "
            << r.seconds << " s, output:\n"
            << r.output;
}

inline RunResult run_tessera(const std::vector<std::string>& args, double timeout = kTimeoutSeconds) {
  RunResult r;
  static_cast<tessera::test::RunResult&>(r) = tessera::test::run_tessera(args, static_cast<int>(timeout));
  r.output = r.out + r.err;
  return r;
}

inline std::string elf(const std::string& program) {
  return std::string(BAD_INPUT_DIR) + "/bad_input_" + program + ".elf";
}

inline std::string tmp_file(const std::string& name) { return std::string(BAD_INPUT_DIR) + "/" + name; }

inline std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = tmp_file(name);
  std::ofstream(path) << text;
  return path;
}

inline std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string write_bytes(const std::string& name, const std::vector<char>& bytes) {
  const std::string path = tmp_file(name);
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// The result must be a clean exit with `status`, quickly.
inline void expect_clean_exit(const RunResult& r, int status) {
  EXPECT_FALSE(r.timed_out) << r;
  EXPECT_EQ(r.signal, 0) << r;
  EXPECT_EQ(r.status, status) << r;
  EXPECT_LT(r.seconds, kQuickSeconds) << r;
}

inline void expect_contains(const RunResult& r, const std::string& needle) {
  EXPECT_NE(r.output.find(needle), std::string::npos) << "missing \"" << needle << "\" in:\n" << r.output;
}

inline void expect_not_contains(const RunResult& r, const std::string& needle) {
  EXPECT_EQ(r.output.find(needle), std::string::npos) << "unexpected \"" << needle << "\" in:\n" << r.output;
}

// The first capture of re in the output, or "".
inline std::string capture(const RunResult& r, const std::string& re) {
  std::smatch m;
  if (std::regex_search(r.output, m, std::regex(re)) && m.size() > 1) return m[1].str();
  ADD_FAILURE() << "no match for /" << re << "/ in:\n" << r.output;
  return "";
}

}  // namespace tessera::test::bad_input
