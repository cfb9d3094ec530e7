// A file the user asked for (--stats, --json, --csv, --vcd, --plot). It is
// opened before the run, so a bad path costs no simulation; it may not be
// one of the run's inputs (the ELF, the netlist, a trace); every write error
// (a full disk, /dev/full) is reported when it is closed, never ignored.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::sim {

// Writing an output failed after the run: exit status kStatusOutputError.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ConfigError naming `option` when `path` is one of `inputs` (the
// same file, through any link).
void check_not_an_input(const std::string& option, const std::string& path, const std::vector<std::string>& inputs);

class OutputFile {
 public:
  OutputFile() = default;
  // Checks the path against the inputs and opens it for writing (truncating
  // it); ConfigError when that is not possible.
  OutputFile(std::string option, std::string path, const std::vector<std::string>& inputs = {});
  ~OutputFile();
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool is_open() const { return file_ != nullptr; }
  // For fprintf-style writers; their errors are seen by close() too.
  std::FILE* get() const { return file_; }
  const std::string& path() const { return path_; }
  void write(std::string_view text);
  // Flushes and closes; OutputError naming the option and path when any
  // write failed.
  void close();

 private:
  std::string option_, path_;
  std::FILE* file_ = nullptr;
  int error_ = 0;  // errno of the first failed write
};

}  // namespace tessera::sim
