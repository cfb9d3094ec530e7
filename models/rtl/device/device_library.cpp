#include "rtl/device/device_library.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "rtl/device/device_ports.h"
#include "sim/config.h"
#include "sim/source_tree.h"
#include "sim/subprocess.h"

namespace tessera::rtl {

namespace fs = std::filesystem;
using sim::ConfigError;

namespace {

// Bumped when the glue, the flags or the ABI change: every cached library
// is then built again.
constexpr const char* kBuildRecipe = "tessera-rtl-device-4";
constexpr const char* kPrefix = "Vdevice";

std::string read_file(const std::string& path, bool* ok = nullptr) {
  std::ifstream in(path, std::ios::binary);
  if (ok) *ok = static_cast<bool>(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// FNV-1a over the key's parts; two lanes of 64 bits.
struct Hasher {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  void add(const std::string& s) {
    for (unsigned char c : s) {
      a = (a ^ c) * 0x100000001b3ull;
      b = (b ^ c) * 0x100000001b3ull + 1;
    }
    // A separator no text holds, so ("ab","c") and ("a","bc") differ.
    a = (a ^ 0x1ff) * 0x100000001b3ull;
    b = (b ^ 0x1ff) * 0x100000001b3ull + 1;
  }
  std::string hex() const { return fmt::format("{:016x}{:016x}", a, b); }
};

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// A program's output (stdout and stderr) as text; "" when it cannot run.
std::string output_of(const std::vector<std::string>& argv, const std::string& scratch) {
  const sim::SubprocessResult r = sim::run_subprocess(argv, scratch);
  if (!r.started || r.status != 0) return "";
  return read_file(scratch);
}

std::string tool(const std::string& name, const std::string& package, const std::string& who) {
  const std::string path = sim::find_in_path(name);
  if (path.empty())
    throw ConfigError(
        fmt::format("{}: building the RTL device needs '{}', which is not in PATH (Debian package {}; "
                    "tools/tessera-setup installs it)",
                    who, name, package));
  return path;
}

// The first lines of a build log that say what went wrong.
std::string log_errors(const std::string& log_path) {
  std::istringstream in(read_file(log_path));
  std::string out;
  unsigned lines = 0;
  for (std::string line; std::getline(in, line) && lines < 12;)
    if (line.find("%Error") != std::string::npos || line.find("error:") != std::string::npos ||
        line.find("%Warning") != std::string::npos) {
      out += "\n  " + line;
      ++lines;
    }
  return out;
}

// An exclusive POSIX record lock (fcntl) on the whole file: NFS serves these
// between machines (through its lock manager), where flock() may lock only
// on the client that takes it (the local_lock mount option). Per process:
// the threads of one process take turns on libraries_mutex() as well.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) return;  // unlocked: a build still renames its library into place whole
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    while (fcntl(fd_, F_SETLKW, &whole) != 0 && errno == EINTR) {
    }
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

std::mutex& libraries_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, std::weak_ptr<DeviceLibrary>>& libraries() {
  static std::map<std::string, std::weak_ptr<DeviceLibrary>> m;
  return m;
}

}  // namespace

std::string default_device_cache() {
  if (const char* dir = std::getenv("TESSERA_RTL_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tessera/rtl-devices";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tessera/rtl-devices";
  return (fs::temp_directory_path() / "tessera-rtl-devices").string();
}

std::string DeviceLibrary::key_of(const DeviceSource& source, const std::string& tool_versions) {
  Hasher h;
  h.add(kBuildRecipe);
  h.add(read_file(std::string(sim::source_tree()) + "/models/rtl/device/rtl_device_abi.h"));
  h.add(tool_versions);
  h.add(source.top);
  for (const auto& [name, value] : source.parameters) h.add(name + "=" + value);
  for (const std::string& src : source.sources) {
    h.add(fs::path(src).filename().string());
    h.add(read_file(src));
  }
  return h.hex();
}

DeviceLibrary::~DeviceLibrary() {
  if (handle_) dlclose(handle_);
}

std::shared_ptr<DeviceLibrary> DeviceLibrary::load(const DeviceSource& source, const DeviceBuildOptions& options,
                                                   const std::string& who) {
  for (const std::string& src : source.sources) {
    bool ok = false;
    read_file(src, &ok);
    if (!ok || !fs::is_regular_file(src)) throw ConfigError(fmt::format("{}: sources: cannot read '{}'", who, src));
  }
  const std::string verilator = tool("verilator", "verilator", who);
  const std::string cxx = tool("g++", "g++", who);
  tool("make", "make", who);
  const std::string cache = options.cache_dir.empty() ? default_device_cache() : options.cache_dir;
  std::error_code ec;
  fs::create_directories(cache, ec);
  if (ec || access(cache.c_str(), W_OK) != 0)
    throw ConfigError(
        fmt::format("{}: the RTL device cache '{}' is not a writable directory (rtl.device_cache, or "
                    "TESSERA_RTL_CACHE)",
                    who, cache));
  const std::string scratch = fs::path(cache) / fmt::format("versions.{}.txt", getpid());
  const std::string versions = first_line(output_of({verilator, "--version"}, scratch)) + "\n" +
                               first_line(output_of({cxx, "--version"}, scratch));
  fs::remove(scratch, ec);
  const std::string key = key_of(source, versions);

  std::lock_guard<std::mutex> guard(libraries_mutex());
  if (auto existing = libraries()[key].lock()) return existing;

  std::shared_ptr<DeviceLibrary> lib(new DeviceLibrary);
  lib->key_ = key;
  const fs::path entry = fs::path(cache) / fmt::format("{}-{}", source.top, key);
  lib->path_ = (entry / "device.so").string();
  {
    // Processes building the same device (a sweep's points) take turns; the
    // second finds the first's library.
    FileLock lock((fs::path(cache) / fmt::format("{}-{}.lock", source.top, key)).string());
    if (!fs::exists(lib->path_)) {
      const auto t0 = std::chrono::steady_clock::now();
      if (!options.quiet)
        fmt::print(stderr, "tessera: {}: building RTL device '{}' with Verilator (first use; cached in {})\n", who,
                   source.top, entry.string());
      // A failed build keeps its directory for its log until the next try.
      const std::string stem = fmt::format("{}-{}.build.", source.top, key);
      for (const auto& e : fs::directory_iterator(cache, ec))
        if (e.path().filename().string().rfind(stem, 0) == 0) fs::remove_all(e.path(), ec);
      const fs::path work = fs::path(cache) / (stem + std::to_string(getpid()));
      fs::create_directories(work / "obj");
      const std::string log = (work / "build.log").string();
      // Warnings are not fatal (a parameter given as a plain number warns
      // about its width): the log keeps them and the build line counts them.
      std::vector<std::string> args = {
          verilator,        "--cc",        "-Wno-fatal", "--prefix", kPrefix,
          "--top-module",   source.top,    "--x-assign", "fast",     "--x-initial",
          "fast",           "--trace-fst", "-O3",        "-Mdir",    (work / "obj").string(),
          "--coverage-user"};
      for (const auto& [name, value] : source.parameters) args.push_back("-G" + name + "=" + value);
      const auto fail = [&](const std::string& what) {
        return ConfigError(fmt::format("{}: {} (log: {}){}", who, what, log, log_errors(log)));
      };
      // Pass 1: the model's class, whose header lists the pins.
      std::vector<std::string> pass1 = args;
      pass1.insert(pass1.end(), source.sources.begin(), source.sources.end());
      sim::SubprocessResult r = sim::run_subprocess(pass1, log);
      if (!r.started || r.status != 0) throw fail(fmt::format("Verilator refused top '{}'", source.top));
      const std::vector<DevicePort> ports =
          parse_verilated_ports(read_file((work / "obj" / (std::string(kPrefix) + ".h")).string()));
      DeviceShape shape;
      try {
        shape = check_device_ports(ports, source.top);
      } catch (const DevicePortError& e) {
        throw ConfigError(fmt::format("{}: {}", who, e.what()));
      }
      {
        std::ofstream glue(work / "glue.cpp");
        glue << device_glue_source(ports, shape, kPrefix, source.top);
        std::ofstream map(work / "exports.map");
        map << "{ global: tessera_rtl_device_api_v1; local: *; };\n";
      }
      // Pass 2: the model, its glue and Verilator's runtime as one shared
      // library that exports only the API (its own copy of the runtime).
      std::vector<std::string> pass2 = args;
      const std::string abi_dir = std::string(sim::source_tree()) + "/models/rtl/device";
      pass2.insert(pass2.end(), {"--exe", "--build", "-j", std::to_string(std::max(1u, options.jobs)), "-o",
                                 "device.so", "-CFLAGS", "-fPIC -fvisibility=hidden -I" + abi_dir, "-LDFLAGS",
                                 "-shared -Wl,--version-script=" + (work / "exports.map").string(), "-MAKEFLAGS",
                                 "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2"});
      pass2.insert(pass2.end(), source.sources.begin(), source.sources.end());
      pass2.push_back((work / "glue.cpp").string());
      r = sim::run_subprocess(pass2, log);
      if (!r.started || r.status != 0)
        throw fail(fmt::format("building the Verilated model of '{}' failed", source.top));
      fs::create_directories(entry);
      fs::copy_file(work / "obj" / "device.so", entry / "device.so.tmp", fs::copy_options::overwrite_existing);
      fs::copy_file(log, entry / "build.log", fs::copy_options::overwrite_existing);
      fs::rename(entry / "device.so.tmp", lib->path_);  // atomic: a library is whole or absent
      fs::remove_all(work, ec);
      lib->built_now_ = true;
      lib->build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!options.quiet) {
        std::istringstream text(read_file((entry / "build.log").string()));
        unsigned warnings = 0;
        for (std::string line; std::getline(text, line);) warnings += line.rfind("%Warning-", 0) == 0;
        fmt::print(
            stderr, "tessera: {}: built RTL device '{}' in {:.1f} s{}\n", who, source.top, lib->build_seconds_,
            warnings ? fmt::format(" ({} Verilator warnings: {})", warnings, (entry / "build.log").string()) : "");
      }
    }
  }
  lib->handle_ = dlopen(lib->path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_) throw ConfigError(fmt::format("{}: cannot load {}: {}", who, lib->path_, dlerror()));
  auto fn = reinterpret_cast<tessera_rtl_device_api_fn>(dlsym(lib->handle_, "tessera_rtl_device_api_v1"));
  if (!fn)
    throw ConfigError(
        fmt::format("{}: {} is not an RTL device library (no tessera_rtl_device_api_v1); remove it", who, lib->path_));
  lib->api_ = fn();
  if (!lib->api_ || lib->api_->abi_version != TESSERA_RTL_DEVICE_ABI_VERSION ||
      std::string(lib->api_->top) != source.top)
    throw ConfigError(fmt::format("{}: {} was built for another interface version or top; remove it", who, lib->path_));
  libraries()[key] = lib;
  return lib;
}

}  // namespace tessera::rtl
