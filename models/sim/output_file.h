// A file the user asked for (--stats, --json, --csv, --vcd, --timeline,
// --checkpoint-out, ...). It is checked and opened before the run, so a bad
// path costs no simulation; it may not be one of the run's inputs (the ELF,
// the netlist, a trace, a checkpoint) nor another output of the same run.
// The bytes go to a staging file beside it (.NAME.XXXXXX, with the
// permissions a new file would get), which replaces the file only when
// close() succeeds: a run refused or stopped before then leaves an existing
// file as it was. A path that exists and is not a regular file (/dev/null,
// /dev/stdout, a FIFO) is written in place. Every write error (a full disk,
// /dev/full) is reported when the file is closed, never ignored.
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
  // Checks the path (not an input, not another open output, a directory
  // that takes a new file) and opens its staging file; ConfigError when any
  // of that fails.
  OutputFile(std::string option, std::string path, const std::vector<std::string>& inputs = {});
  // Without close(): the staging file is removed and the path left alone.
  ~OutputFile();
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The checks of the constructor, touching nothing: for a file another
  // program will write.
  static void check(const std::string& option, const std::string& path, const std::vector<std::string>& inputs = {});

  bool is_open() const { return file_ != nullptr; }
  // For fprintf-style writers; their errors are seen by close() too.
  std::FILE* get() const { return file_; }
  const std::string& path() const { return path_; }
  // Where the bytes go until close(): the staging file, or path() itself
  // when that is written in place. For a writer that opens files by name
  // (fstapi), which leaves get() unused.
  const std::string& writing_path() const { return writing_path_; }
  void write(std::string_view text);
  // Flushes and closes, then puts the staging file in place of path();
  // OutputError naming the option and path when any of that failed.
  void close();

 private:
  void discard() noexcept;

  std::string option_, path_, writing_path_;
  std::string claimed_;  // path_'s entry among the open outputs
  std::FILE* file_ = nullptr;
  int error_ = 0;  // errno of the first failed write
};

}  // namespace tessera::sim
