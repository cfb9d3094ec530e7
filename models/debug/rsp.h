// The GDB remote serial protocol's framing (the GDB manual, "Remote
// Protocol": "Overview", "Packets", "Binary Data"): "$payload#cs" with a
// modulo-256 checksum, "}" escapes, "+"/"-" acknowledgements and the 0x03
// interrupt byte; hex helpers; and the TCP endpoint gdb connects to. Pure
// C++, no SystemC.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::debug {

namespace rsp {
uint8_t checksum(std::string_view payload);
// "$payload#cs", escaping '#', '$', '}' and '*' in the payload.
std::string frame(std::string_view payload);
// "}"-escaped binary data (X packets) back to bytes.
std::string unescape(std::string_view data);

std::string hex(const uint8_t* bytes, size_t n);
inline std::string hex(std::string_view s) { return hex(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
// `bytes` little-endian bytes of `value` as hex (a register in a 'g' reply).
std::string hex_le(uint64_t value, unsigned bytes);
// Pairs of hex digits to bytes; nullopt on an odd length or a bad digit.
std::optional<std::vector<uint8_t>> unhex(std::string_view text);
// A hex number ("1f"); nullopt when empty or not hex.
std::optional<uint64_t> parse_hex(std::string_view text);

// Splits the byte stream from gdb into packets. feed() takes one byte and
// returns what it completed.
class Reader {
 public:
  enum class Event : uint8_t { kNone, kPacket, kBadChecksum, kInterrupt, kAck, kNack };
  Event feed(char c);
  // The payload of the last kPacket (unescaped run-length is not used by gdb
  // towards a stub).
  const std::string& packet() const { return packet_; }

 private:
  enum class State : uint8_t { kIdle, kBody, kSum1, kSum2 };
  State state_ = State::kIdle;
  std::string body_, packet_;
  uint8_t sum_ = 0;
  int sum_hi_ = 0;
};
}  // namespace rsp

// A byte stream to gdb.
class Connection {
 public:
  virtual ~Connection() = default;
  // The next byte, waiting for it; -1 when the peer closed the connection.
  virtual int read_byte() = 0;
  // Whether a byte can be read without waiting (an interrupt while running).
  virtual bool readable() = 0;
  virtual bool write(std::string_view bytes) = 0;
};

// A TCP socket listening on 127.0.0.1 only: the simulated chip's debugger
// is reachable from this host, never from the network.
class TcpListener {
 public:
  // Binds and listens (port 0: one the kernel chooses); std::runtime_error
  // naming the port and the reason when it cannot.
  explicit TcpListener(uint16_t port);
  ~TcpListener();
  TcpListener(const TcpListener&) = delete;
  TcpListener& operator=(const TcpListener&) = delete;
  uint16_t port() const { return port_; }
  // Waits for gdb to connect.
  std::unique_ptr<Connection> accept();

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

}  // namespace tessera::debug
