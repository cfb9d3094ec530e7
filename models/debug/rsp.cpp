#include "debug/rsp.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace tessera::debug {

namespace rsp {

namespace {
int digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
constexpr char kDigits[] = "0123456789abcdef";
}  // namespace

uint8_t checksum(std::string_view payload) {
  uint8_t sum = 0;
  for (char c : payload) sum = static_cast<uint8_t>(sum + static_cast<uint8_t>(c));
  return sum;
}

std::string frame(std::string_view payload) {
  std::string body;
  body.reserve(payload.size() + 4);
  for (char c : payload) {
    if (c == '#' || c == '$' || c == '}' || c == '*') {
      body += '}';
      body += static_cast<char>(c ^ 0x20);
    } else {
      body += c;
    }
  }
  const uint8_t sum = checksum(body);
  std::string out = "$" + body + "#";
  out += kDigits[sum >> 4];
  out += kDigits[sum & 15];
  return out;
}

std::string unescape(std::string_view data) {
  std::string out;
  out.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '}' && i + 1 < data.size()) {
      out += static_cast<char>(data[++i] ^ 0x20);
    } else {
      out += data[i];
    }
  }
  return out;
}

std::string hex(const uint8_t* bytes, size_t n) {
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

std::string hex_le(uint64_t value, unsigned bytes) {
  uint8_t b[8];
  for (unsigned i = 0; i < bytes; ++i) b[i] = static_cast<uint8_t>(value >> (8 * i));
  return hex(b, bytes);
}

std::optional<std::vector<uint8_t>> unhex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out(text.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = digit(text[2 * i]), lo = digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

std::optional<uint64_t> parse_hex(std::string_view text) {
  if (text.empty() || text.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    const int d = digit(c);
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

Reader::Event Reader::feed(char c) {
  switch (state_) {
    case State::kIdle:
      if (c == '$') {
        body_.clear();
        sum_ = 0;
        state_ = State::kBody;
      } else if (c == '\x03') {
        return Event::kInterrupt;
      } else if (c == '+') {
        return Event::kAck;
      } else if (c == '-') {
        return Event::kNack;
      }
      return Event::kNone;  // noise between packets
    case State::kBody:
      if (c == '#') {
        state_ = State::kSum1;
      } else {
        body_ += c;
        sum_ = static_cast<uint8_t>(sum_ + static_cast<uint8_t>(c));
      }
      return Event::kNone;
    case State::kSum1:
      sum_hi_ = digit(c);
      state_ = State::kSum2;
      return Event::kNone;
    case State::kSum2: {
      state_ = State::kIdle;
      const int lo = digit(c);
      if (sum_hi_ < 0 || lo < 0 || static_cast<uint8_t>(sum_hi_ << 4 | lo) != sum_) return Event::kBadChecksum;
      packet_ = body_;
      return Event::kPacket;
    }
  }
  return Event::kNone;
}

}  // namespace rsp

namespace {

class SocketConnection final : public Connection {
 public:
  explicit SocketConnection(int fd) : fd_(fd) {}
  ~SocketConnection() override { ::close(fd_); }

  int read_byte() override {
    if (pos_ == len_) {
      ssize_t n;
      do {
        n = ::recv(fd_, buffer_, sizeof buffer_, 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) return -1;
      pos_ = 0;
      len_ = static_cast<size_t>(n);
    }
    return static_cast<unsigned char>(buffer_[pos_++]);
  }

  bool readable() override {
    if (pos_ != len_) return true;
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
  }

  bool write(std::string_view bytes) override {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

 private:
  int fd_;
  char buffer_[4096];
  size_t pos_ = 0, len_ = 0;
};

}  // namespace

TcpListener::TcpListener(uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error(fmt::format("--gdb {}: cannot open a socket: {}", port, std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_, 1) != 0) {
    const int e = errno;
    ::close(fd_);
    throw std::runtime_error(fmt::format("--gdb {}: cannot listen on 127.0.0.1:{}: {}", port, port, std::strerror(e)));
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

TcpListener::~TcpListener() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<Connection> TcpListener::accept() {
  int fd;
  do {
    fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw std::runtime_error(fmt::format("--gdb {}: accept failed: {}", port_, std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return std::make_unique<SocketConnection>(fd);
}

}  // namespace tessera::debug
