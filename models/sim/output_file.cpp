#include "sim/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <utility>

#include "sim/config.h"

namespace tessera::sim {

namespace {

// The outputs open in this process: weakly canonical path -> option.
std::map<std::string, std::string>& open_outputs() {
  static std::map<std::string, std::string> outputs;
  return outputs;
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  if (ec) return path;
  const auto p = std::filesystem::weakly_canonical(absolute, ec);
  return ec ? absolute.string() : p.string();
}

// A path that exists and is neither a regular file nor a directory: a
// device or a FIFO, which is written in place and never replaced.
bool written_in_place(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

}  // namespace

void check_not_an_input(const std::string& option, const std::string& path, const std::vector<std::string>& inputs) {
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!input.empty() && std::filesystem::equivalent(path, input, ec) && !ec)
      throw ConfigError(fmt::format("{} '{}' is the input file '{}'; it would be overwritten", option, path, input));
  }
}

void OutputFile::check(const std::string& option, const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty()) throw ConfigError(fmt::format("{}: the file name is empty", option));
  check_not_an_input(option, path, inputs);
  if (std::filesystem::is_directory(path)) throw ConfigError(fmt::format("{}: '{}' is a directory", option, path));
  if (written_in_place(path)) return;
  const auto other = open_outputs().find(canonical(path));
  if (other != open_outputs().end())
    throw ConfigError(
        fmt::format("{} '{}' is also the run's {} file; give each output its own path", option, path, other->second));
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0)
    throw ConfigError(fmt::format("{}: cannot write '{}': {}", option, path, std::strerror(errno)));
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (::access(dir.c_str(), W_OK) != 0)
    throw ConfigError(fmt::format("{}: cannot write '{}': {}", option, path, std::strerror(errno)));
}

OutputFile::OutputFile(std::string option, std::string path, const std::vector<std::string>& inputs)
    : option_(std::move(option)), path_(std::move(path)) {
  check(option_, path_, inputs);
  if (written_in_place(path_)) {
    file_ = std::fopen(path_.c_str(), "w");
    if (!file_) throw ConfigError(fmt::format("{}: cannot write '{}': {}", option_, path_, std::strerror(errno)));
    writing_path_ = path_;
    return;
  }
  const std::filesystem::path target(path_);
  const std::filesystem::path dir = target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
  std::string staging = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(staging.data());
  if (fd < 0) throw ConfigError(fmt::format("{}: cannot write '{}': {}", option_, path_, std::strerror(errno)));
  // mkstemp makes the file 0600: give it an existing file's permissions,
  // or those of a new one under the umask.
  struct stat st {};
  mode_t mode;
  if (::stat(path_.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  file_ = ::fchmod(fd, mode) == 0 ? ::fdopen(fd, "w") : nullptr;
  if (!file_) {
    const int error = errno;
    ::close(fd);
    ::unlink(staging.c_str());
    throw ConfigError(fmt::format("{}: cannot write '{}': {}", option_, path_, std::strerror(error)));
  }
  writing_path_ = std::move(staging);
  claimed_ = canonical(path_);
  open_outputs()[claimed_] = option_;
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
  if (file_) std::fclose(std::exchange(file_, nullptr));
  if (!writing_path_.empty() && writing_path_ != path_) ::unlink(writing_path_.c_str());
  writing_path_.clear();
  if (!claimed_.empty()) open_outputs().erase(std::exchange(claimed_, std::string()));
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : option_(std::move(other.option_)),
      path_(std::move(other.path_)),
      writing_path_(std::exchange(other.writing_path_, std::string())),
      claimed_(std::exchange(other.claimed_, std::string())),
      file_(std::exchange(other.file_, nullptr)),
      error_(other.error_) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    discard();
    option_ = std::move(other.option_);
    path_ = std::move(other.path_);
    writing_path_ = std::exchange(other.writing_path_, std::string());
    claimed_ = std::exchange(other.claimed_, std::string());
    file_ = std::exchange(other.file_, nullptr);
    error_ = other.error_;
  }
  return *this;
}

void OutputFile::write(std::string_view text) {
  if (file_ && std::fwrite(text.data(), 1, text.size(), file_) != text.size() && !error_) error_ = errno;
}

void OutputFile::close() {
  if (!file_) return;
  std::FILE* f = std::exchange(file_, nullptr);
  // fflush reports a failed write that buffering hid; ferror one that an
  // earlier flush (inside fwrite or fprintf) saw.
  if ((std::fflush(f) != 0 || std::ferror(f) != 0) && !error_) error_ = errno ? errno : EIO;
  if (std::fclose(f) != 0 && !error_) error_ = errno;
  if (!error_ && writing_path_ != path_ && std::rename(writing_path_.c_str(), path_.c_str()) != 0) error_ = errno;
  if (!error_) writing_path_.clear();  // in place now
  discard();
  if (error_) throw OutputError(fmt::format("{}: writing '{}' failed: {}", option_, path_, std::strerror(error_)));
}

}  // namespace tessera::sim
