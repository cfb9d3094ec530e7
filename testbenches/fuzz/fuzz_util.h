// Helpers shared by the libFuzzer harnesses: reporting a violated property
// (abort, so libFuzzer saves the input) and an in-memory file for code that
// reads from a path.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tessera::fuzz {

// A property the code under test must keep. Failing one is a finding.
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "==fuzz== property violated: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void check(bool ok, const char* what) {
  if (!ok) fail(what);
}

// The message is built only on failure: checks sit in per-word loops.
template <class Describe>
inline void check(bool ok, Describe&& describe) {
  if (!ok) fail(describe());
}

// An anonymous in-memory file (memfd) with a path, /proc/self/fd/N, that
// open() accepts: the input reaches the parser through the same open/read
// path as a file on disk, without touching the disk.
class MemFile {
 public:
  explicit MemFile(const char* name) : fd_(memfd_create(name, 0)) {
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;

  const std::string& path() const { return path_; }

  void assign(const uint8_t* data, size_t size) {
    if (::ftruncate(fd_, 0) != 0) fail("ftruncate of the memfd failed");
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) fail("write to the memfd failed");
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
  std::string path_;
};

}  // namespace tessera::fuzz
