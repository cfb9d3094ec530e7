#include "cpu/checkpoint.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unordered_set>

#include "sim/config.h"

namespace tessera::cpu {

namespace {

constexpr char kMagic[8] = {'T', 'E', 'S', 'S', 'C', 'K', 'P', 'T'};
constexpr char kEndMagic[4] = {'E', 'N', 'D', '.'};

class Writer {
 public:
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  void raw(const void* p, size_t n) { out.append(static_cast<const char*>(p), n); }
  std::string out;
};

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& path) : b_(bytes), path_(path) {}
  // Throws unless `n` more bytes are left.
  void need(size_t n, const char* what) const {
    if (b_.size() - pos_ < n)
      throw sim::ConfigError(fmt::format("{}: the checkpoint is truncated (it ends in {}, at byte {} of {})", path_,
                                         what, pos_, b_.size()));
  }
  void raw(void* p, size_t n, const char* what) {
    need(n, what);
    if (n) std::memcpy(p, b_.data() + pos_, n);  // p may be null for n == 0 (an empty page)
    pos_ += n;
  }
  uint32_t u32(const char* what) {
    uint32_t v = 0;
    raw(&v, 4, what);
    return v;
  }
  uint64_t u64(const char* what) {
    uint64_t v = 0;
    raw(&v, 8, what);
    return v;
  }
  std::string str(const char* what) {
    const uint32_t n = u32(what);
    need(n, what);
    std::string s(b_.data() + pos_, n);
    pos_ += n;
    return s;
  }
  size_t pos() const { return pos_; }

 private:
  const std::string& b_;
  const std::string& path_;
  size_t pos_ = 0;
};

}  // namespace

namespace {

uint64_t fnv1a(const char* bytes, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<uint8_t>(bytes[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

uint64_t bytes_hash(const std::string& bytes) { return fnv1a(bytes.data(), bytes.size()); }

static std::string read_all(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw sim::ConfigError(fmt::format("{}: cannot read the {}", path, what));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

uint64_t file_hash(const std::string& path) { return bytes_hash(read_all(path, "program")); }

std::string encode_checkpoint(const Checkpoint& c) {
  Writer w;
  w.raw(kMagic, sizeof kMagic);
  w.u32(c.version);
  w.str(c.program);
  w.u64(c.elf_hash);
  w.str(c.platform);
  w.u32(c.memory_base);
  w.u64(c.memory_size);
  w.str(c.reason);
  w.u32(c.switch_pc);
  w.u32(static_cast<uint32_t>(c.cluster.harts.size()));
  for (const HartSnapshot& h : c.cluster.harts) {
    w.u32(h.mode);
    w.raw(h.state.x, sizeof h.state.x);
    for (unsigned r = 0; r < 32; ++r) w.u64(h.state.fd(r));
    w.u32(h.state.pc);
    w.u32(h.state.fcsr);
    w.u32(h.tx_log_base);
    w.u32(h.tx_log_size);
  }
  w.u32(c.cluster.start_pc);
  w.u32(c.cluster.start_arg);
  w.u32(c.cluster.start_fn);
  w.u32(c.cluster.start_sp);
  w.u32(static_cast<uint32_t>(c.cluster.device_writes.size()));
  for (const auto& [offset, value] : c.cluster.device_writes) {
    w.u32(offset);
    w.u32(value);
  }
  w.u32(static_cast<uint32_t>(c.pages.size()));
  std::vector<uint8_t> z(compressBound(Checkpoint::kPageBytes));
  for (const Checkpoint::Page& p : c.pages) {
    uLongf n = static_cast<uLongf>(z.size());
    compress2(z.data(), &n, p.bytes.data(), Checkpoint::kPageBytes, 1);
    w.u32(p.addr);
    w.u32(static_cast<uint32_t>(n));
    w.raw(z.data(), n);
  }
  w.raw(kEndMagic, sizeof kEndMagic);
  w.u64(bytes_hash(w.out));
  return std::move(w.out);
}

Checkpoint decode_checkpoint(const std::string& bytes, const std::string& path, uint64_t memory_limit) {
  Reader r(bytes, path);
  char magic[8];
  if (bytes.size() < sizeof magic || std::memcmp(bytes.data(), kMagic, sizeof magic) != 0)
    throw sim::ConfigError(fmt::format("{}: not a Tessera checkpoint (written by tessera run --checkpoint-out)", path));
  r.raw(magic, sizeof magic, "the header");
  Checkpoint c;
  c.version = r.u32("the header");
  if (c.version != Checkpoint::kVersion)
    throw sim::ConfigError(fmt::format("{}: checkpoint format version {}; this tessera reads version {}", path,
                                       c.version, Checkpoint::kVersion));
  // Any bit changed since the file was written (a header field, a register,
  // a core's mode, a page) is refused here, before anything is decoded.
  constexpr size_t kChecksumBytes = 8;
  r.need(kChecksumBytes, "the checksum");
  const size_t body = bytes.size() - kChecksumBytes;
  uint64_t checksum = 0;
  std::memcpy(&checksum, bytes.data() + body, kChecksumBytes);
  if (fnv1a(bytes.data(), body) != checksum)
    throw sim::ConfigError(
        fmt::format("{}: the checkpoint is corrupt (its checksum does not match: the file was cut short or changed "
                    "after it was written)",
                    path));
  c.program = r.str("the header");
  c.elf_hash = r.u64("the header");
  c.platform = r.str("the header");
  c.memory_base = r.u32("the header");
  c.memory_size = r.u64("the header");
  if (c.memory_size > memory_limit)
    throw sim::ConfigError(
        fmt::format("{}: the checkpoint's memory ({} MiB) is larger than the platform's ({} MiB; "
                    "memory.size_mb)",
                    path, c.memory_size >> 20, memory_limit >> 20));
  c.reason = r.str("the header");
  c.switch_pc = r.u32("the header");
  const uint32_t harts = r.u32("the core count");
  if (harts == 0 || harts > 1024)
    throw sim::ConfigError(fmt::format("{}: the checkpoint is corrupt ({} control cores)", path, harts));
  c.cluster.harts.resize(harts);
  for (HartSnapshot& h : c.cluster.harts) {
    h.mode = r.u32("a core's registers");
    r.raw(h.state.x, sizeof h.state.x, "a core's registers");
    for (unsigned f = 0; f < 32; ++f) h.state.set_fd(f, r.u64("a core's registers"));
    h.state.pc = r.u32("a core's registers");
    h.state.fcsr = r.u32("a core's registers");
    h.tx_log_base = r.u32("a core's registers");
    h.tx_log_size = r.u32("a core's registers");
    if (h.mode > 3 || h.state.x[0] != 0)
      throw sim::ConfigError(fmt::format("{}: the checkpoint is corrupt (a core's state is impossible)", path));
  }
  c.cluster.start_pc = r.u32("the cluster registers");
  c.cluster.start_arg = r.u32("the cluster registers");
  c.cluster.start_fn = r.u32("the cluster registers");
  c.cluster.start_sp = r.u32("the cluster registers");
  const uint32_t writes = r.u32("the device registers");
  if (writes > 4096)
    throw sim::ConfigError(fmt::format("{}: the checkpoint is corrupt ({} device registers)", path, writes));
  for (uint32_t k = 0; k < writes; ++k) {
    const uint32_t offset = r.u32("the device registers");
    // Only the devices' registers are replayed, never the console, EXIT,
    // the ROI or the cycle counter below them.
    if (offset < ClusterSnapshot::kFirstDeviceRegister || offset % 4 != 0)
      throw sim::ConfigError(
          fmt::format("{}: the checkpoint is corrupt (a device register at MMIO offset 0x{:x})", path, offset));
    if (offset >= ClusterSnapshot::kDeviceWindows)
      throw sim::ConfigError(fmt::format(
          "{}: the checkpoint holds a write to an rtl_device's register at MMIO offset 0x{:x}, whose device state "
          "no checkpoint keeps (written before fast-forward switched at a device's first access); write it again "
          "with --checkpoint-out",
          path, offset));
    c.cluster.device_writes.emplace_back(offset, r.u32("the device registers"));
  }
  const uint32_t pages = r.u32("the page count");
  const uint64_t max_pages = c.memory_size / Checkpoint::kPageBytes;
  if (pages > max_pages)
    throw sim::ConfigError(
        fmt::format("{}: the checkpoint is corrupt ({} pages in {} bytes of memory)", path, pages, c.memory_size));
  std::vector<uint8_t> z;
  std::unordered_set<uint32_t> seen;
  for (uint32_t k = 0; k < pages; ++k) {
    Checkpoint::Page p;
    p.addr = r.u32("a memory page");
    if (!seen.insert(p.addr).second)
      throw sim::ConfigError(
          fmt::format("{}: the checkpoint is corrupt (the page at 0x{:08x} appears twice)", path, p.addr));
    const uint32_t n = r.u32("a memory page");
    r.need(n, "a memory page");  // before the buffer is sized from an untrusted count
    z.resize(n);
    r.raw(z.data(), n, "a memory page");
    p.bytes.resize(Checkpoint::kPageBytes);
    uLongf out = Checkpoint::kPageBytes;
    if (uncompress(p.bytes.data(), &out, z.data(), n) != Z_OK || out != Checkpoint::kPageBytes)
      throw sim::ConfigError(
          fmt::format("{}: the checkpoint is corrupt (the page at 0x{:08x} does not decompress)", path, p.addr));
    if (p.addr < c.memory_base || p.addr - c.memory_base > c.memory_size - Checkpoint::kPageBytes ||
        (p.addr - c.memory_base) % Checkpoint::kPageBytes != 0)
      throw sim::ConfigError(
          fmt::format("{}: the checkpoint is corrupt (a page at 0x{:08x} outside its memory)", path, p.addr));
    c.pages.push_back(std::move(p));
  }
  char end[4];
  r.raw(end, sizeof end, "the end marker");
  if (std::memcmp(end, kEndMagic, sizeof end) != 0 || r.pos() != body)
    throw sim::ConfigError(fmt::format("{}: the checkpoint is corrupt (no end marker where expected)", path));
  return c;
}

Checkpoint read_checkpoint(const std::string& path, uint64_t memory_limit) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || status.type() != std::filesystem::file_type::regular)
    throw sim::ConfigError(fmt::format("{}: cannot read the checkpoint (--restore): {}", path,
                                       ec ? ec.message()
                                       : status.type() == std::filesystem::file_type::not_found
                                           ? "no such file"
                                           : "not a regular file"));
  return decode_checkpoint(read_all(path, "checkpoint (--restore)"), path, memory_limit);
}

}  // namespace tessera::cpu
