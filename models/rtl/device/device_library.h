// A user's RTL device as a loaded library: on first use Tessera verilates
// the block's SystemVerilog, checks its pins (device_ports.h), compiles the
// model with its glue into a shared library in a cache directory and loads
// it (dlopen); later runs with the same sources, top, parameters, Verilator
// and compiler load the cached library. docs/rtl-devices.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rtl/device/rtl_device_abi.h"

namespace tessera::rtl {

struct DeviceSource {
  std::vector<std::string> sources;  // SystemVerilog files, in compile order
  std::string top;
  std::vector<std::pair<std::string, std::string>> parameters;  // -G NAME=VALUE
};

struct DeviceBuildOptions {
  std::string cache_dir;  // "" : default_device_cache()
  unsigned jobs = 2;      // make -j
  bool quiet = false;     // no progress lines on stderr
};

// $TESSERA_RTL_CACHE, else $XDG_CACHE_HOME/tessera/rtl-devices, else
// $HOME/.cache/tessera/rtl-devices.
std::string default_device_cache();

class DeviceLibrary {
 public:
  ~DeviceLibrary();
  DeviceLibrary(const DeviceLibrary&) = delete;
  DeviceLibrary& operator=(const DeviceLibrary&) = delete;

  // The library for `source`, built if the cache has none. `who` names the
  // instance in messages ("platforms/x.yaml:12: instance 'acc0'"). Throws
  // sim::ConfigError when a source cannot be read, the pins do not fit
  // (naming the pin), or Verilator or the compiler fails (with the log's
  // path and its first errors). One library per key and process.
  static std::shared_ptr<DeviceLibrary> load(const DeviceSource& source, const DeviceBuildOptions& options,
                                             const std::string& who);

  const tessera_rtl_device_api& api() const { return *api_; }
  const std::string& path() const { return path_; }
  const std::string& key() const { return key_; }
  bool built_now() const { return built_now_; }
  double build_seconds() const { return build_seconds_; }

  // The cache key of `source` with this Verilator and compiler (hex).
  static std::string key_of(const DeviceSource& source, const std::string& tool_versions);

 private:
  DeviceLibrary() = default;
  void* handle_ = nullptr;
  const tessera_rtl_device_api* api_ = nullptr;
  std::string path_, key_;
  bool built_now_ = false;
  double build_seconds_ = 0;
};

}  // namespace tessera::rtl
