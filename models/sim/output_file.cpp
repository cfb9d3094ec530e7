#include "sim/output_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "sim/config.h"

namespace tessera::sim {

void check_not_an_input(const std::string& option, const std::string& path, const std::vector<std::string>& inputs) {
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!input.empty() && std::filesystem::equivalent(path, input, ec) && !ec)
      throw ConfigError(fmt::format("{} '{}' is the input file '{}'; it would be overwritten", option, path, input));
  }
}

OutputFile::OutputFile(std::string option, std::string path, const std::vector<std::string>& inputs)
    : option_(std::move(option)), path_(std::move(path)) {
  check_not_an_input(option_, path_, inputs);
  if (std::filesystem::is_directory(path_)) throw ConfigError(fmt::format("{}: '{}' is a directory", option_, path_));
  file_ = std::fopen(path_.c_str(), "w");
  if (!file_) throw ConfigError(fmt::format("{}: cannot write '{}': {}", option_, path_, std::strerror(errno)));
}

OutputFile::~OutputFile() {
  if (file_) std::fclose(file_);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : option_(std::move(other.option_)),
      path_(std::move(other.path_)),
      file_(std::exchange(other.file_, nullptr)),
      error_(other.error_) {}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    if (file_) std::fclose(file_);
    option_ = std::move(other.option_);
    path_ = std::move(other.path_);
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
  if (error_) throw OutputError(fmt::format("{}: writing '{}' failed: {}", option_, path_, std::strerror(error_)));
}

}  // namespace tessera::sim
