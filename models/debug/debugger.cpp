#include "debug/debugger.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <sstream>

namespace tessera::debug {

namespace {

// The target description: RV32 with F and D (the firmware's -march=rv32imafd),
// in the feature names gdb's riscv target expects (gdb/features/riscv).
// Remote register numbers follow the order: x0..x31 0-31, pc 32, f0..f31
// 33-64, fflags 65, frm 66, fcsr 67. Registers go by their ABI names (gdb
// knows x8 as fp and s0).
constexpr unsigned kPc = 32, kF0 = 33, kFflags = 65, kFrm = 66, kFcsr = 67, kRegisters = 68;

std::string target_xml() {
  std::string x =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n<target version=\"1.0\">\n"
      "<architecture>riscv:rv32</architecture>\n<feature name=\"org.gnu.gdb.riscv.cpu\">\n";
  for (unsigned r = 0; r < 32; ++r)
    x += fmt::format("<reg name=\"{}\" bitsize=\"32\" type=\"{}\" regnum=\"{}\"/>\n",
                     isa::reg_name(static_cast<uint8_t>(r)),
                     r == 1               ? "code_ptr"
                     : (r == 2 || r == 8) ? "data_ptr"
                                          : "int",
                     r);
  x += fmt::format("<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\" regnum=\"{}\"/>\n</feature>\n", kPc);
  x += "<feature name=\"org.gnu.gdb.riscv.fpu\">\n<union id=\"riscv_double\"><field name=\"float\" "
       "type=\"ieee_single\"/><field name=\"double\" type=\"ieee_double\"/></union>\n";
  for (unsigned r = 0; r < 32; ++r)
    x += fmt::format("<reg name=\"{}\" bitsize=\"64\" type=\"riscv_double\" regnum=\"{}\"/>\n",
                     isa::reg_name(static_cast<uint8_t>(isa::kFpRegBase + r)), kF0 + r);
  x += fmt::format(
      "<reg name=\"fflags\" bitsize=\"32\" type=\"int\" regnum=\"{}\"/>\n<reg name=\"frm\" bitsize=\"32\" "
      "type=\"int\" regnum=\"{}\"/>\n<reg name=\"fcsr\" bitsize=\"32\" type=\"int\" regnum=\"{}\"/>\n</feature>\n"
      "</target>\n",
      kFflags, kFrm, kFcsr);
  return x;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// qXfer's "offset,length" window of a document: 'm' more, 'l' last.
std::string xfer_window(const std::string& doc, std::string_view range) {
  const size_t comma = range.find(',');
  if (comma == std::string_view::npos) return "E01";
  const auto offset = rsp::parse_hex(range.substr(0, comma)), length = rsp::parse_hex(range.substr(comma + 1));
  if (!offset || !length) return "E01";
  if (*offset >= doc.size()) return "l";
  const std::string part = doc.substr(*offset, *length);
  return (*offset + part.size() >= doc.size() ? "l" : "m") + part;
}

// The memory access of `inst` for one lane: [addr, addr + bytes).
bool access_of(const isa::Inst& inst, const isa::ThreadState& s, uint32_t* addr, uint32_t* bytes) {
  if (inst.mem_bytes == 0 || !(inst.exec & isa::kExecMemory)) return false;
  const bool a_extension = isa::has(inst.op, isa::opflag::kAqRl);
  *addr = s.x[inst.rs1] + (a_extension ? 0u : static_cast<uint32_t>(inst.imm));
  *bytes = inst.mem_bytes * std::max<uint32_t>(inst.group, 1);
  return true;
}

}  // namespace

Debugger::Debugger() = default;
Debugger::~Debugger() = default;

unsigned Debugger::add_source(ThreadSource& source) {
  sources_.push_back(&source);
  return static_cast<unsigned>(sources_.size() - 1);
}

void Debugger::listen(uint16_t port, std::FILE* notice) {
  listener_ = std::make_unique<TcpListener>(port);
  fmt::print(notice, "tessera: waiting for gdb on 127.0.0.1:{} (gdb-multiarch PROGRAM -ex 'target remote :{}')\n",
             listener_->port(), listener_->port());
  std::fflush(notice);
  conn_ = listener_->accept();
  update_armed();
}

void Debugger::start() {
  if (!conn_) return;
  const std::vector<Live> live = live_threads();
  if (!live.empty()) {
    general_tid_ = live.front().tid;
    last_reply_ = stop_reply(kSigTrap, live.front().tid, "");
  }
  serve();
}

int64_t Debugger::tid_of(Ref ref) {
  auto [it, added] = tids_.emplace(ref, next_tid_);
  if (added) refs_.emplace(next_tid_++, ref);
  return it->second;
}

std::vector<Debugger::Live> Debugger::live_threads() {
  std::vector<Live> out;
  std::vector<ThreadSource::Thread> threads;
  for (unsigned s = 0; s < sources_.size(); ++s) {
    threads.clear();
    sources_[s]->threads(threads);
    for (auto& t : threads) out.push_back({tid_of({s, t.key}), {s, t.key}, std::move(t.name)});
  }
  return out;
}

std::optional<Debugger::Ref> Debugger::ref_of(int64_t tid) {
  const auto it = refs_.find(tid);
  if (it == refs_.end() || sources_[it->second.source]->lanes(it->second.key) == 0) return std::nullopt;
  return it->second;
}

std::optional<Debugger::Ref> Debugger::general() {
  if (general_tid_ > 0) return ref_of(general_tid_);
  const std::vector<Live> live = live_threads();
  if (live.empty()) return std::nullopt;
  general_tid_ = live.front().tid;
  return live.front().ref;
}

unsigned Debugger::lane_of(int64_t tid, Ref ref) {
  const auto it = lanes_.find(tid);
  const uint32_t lanes = sources_[ref.source]->lanes(ref.key);
  if (it != lanes_.end() && (lanes >> it->second & 1)) return it->second;
  return sources_[ref.source]->default_lane(ref.key);
}

std::string Debugger::stop_reply(int signal, int64_t tid, const std::string& why) const {
  return fmt::format("T{:02x}thread:{:x};{}", signal, tid, why);
}

void Debugger::send(std::string_view payload) {
  if (!conn_) return;
  const std::string framed = rsp::frame(payload);
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (!conn_->write(framed)) return disconnect();
    if (!ack_) return;
    for (;;) {
      const int c = conn_->read_byte();
      if (c < 0) return disconnect();
      if (c == '+') return;
      if (c == '-') break;  // resend
    }
  }
}

void Debugger::output(const std::string& text) { send("O" + rsp::hex(text)); }

void Debugger::disconnect() {
  conn_.reset();
  all_resumed_ = true;
  resumed_.clear();
  breakpoints_.clear();
  watches_.clear();
  step_.reset();
  update_armed();  // a store trigger still looks at every instruction
  resume_ = true;
}

void Debugger::serve() {
  resume_ = false;
  while (conn_ && !resume_) {
    const int c = conn_->read_byte();
    if (c < 0) {
      std::fprintf(stderr, "tessera: gdb closed the connection; the run goes on without it\n");
      disconnect();
      break;
    }
    switch (reader_.feed(static_cast<char>(c))) {
      case rsp::Reader::Event::kPacket: {
        if (ack_) conn_->write("+");
        const std::string reply = handle(reader_.packet());
        if (conn_ && !resume_) send(reply);
        if (ack_off_) ack_ = ack_off_ = false;
        break;
      }
      case rsp::Reader::Event::kBadChecksum:
        if (ack_) conn_->write("-");
        break;
      case rsp::Reader::Event::kInterrupt:  // already stopped: say so again
        send(last_reply_);
        break;
      default:
        break;
    }
  }
  update_armed();
}

void Debugger::stop(Ref ref, unsigned lane, const std::string& why, int signal) {
  const int64_t tid = tid_of(ref);
  general_tid_ = tid;
  lanes_[tid] = lane;
  step_.reset();
  last_reply_ = stop_reply(signal, tid, why);
  send(last_reply_);
  serve();
}

std::optional<std::pair<unsigned, uint32_t>> Debugger::overlap(const Watch& w, const isa::Inst& inst,
                                                               const isa::ThreadState* lanes, uint32_t mask) {
  const bool kind = w.type == '4' || (w.type == '2' && inst.is_store) || (w.type == '3' && inst.is_load);
  if (!kind) return std::nullopt;
  for (uint32_t m = mask; m; m &= m - 1) {
    const auto l = static_cast<unsigned>(__builtin_ctz(m));
    const unsigned lane = mask == 1 ? 0 : l;
    uint32_t addr = 0, bytes = 0;
    if (!access_of(inst, lanes[lane], &addr, &bytes)) return std::nullopt;
    if (addr < w.addr + w.len && w.addr < addr + bytes) return std::make_pair(lane, std::max(addr, w.addr));
  }
  return std::nullopt;
}

std::optional<uint32_t> Debugger::store_changes(const Watch& w, unsigned source, uint64_t key, const isa::Inst& inst,
                                                const isa::ThreadState* lanes, uint32_t mask) {
  // A plain integer store of the value memory already holds changes
  // nothing (crt0 zeroing .bss); atomics and FP stores always count.
  const bool plain = !inst.is_load && inst.group == 1 && !(inst.exec & isa::kExecFpData) && inst.mem_bytes <= 4;
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned lane = mask == 1 ? 0 : static_cast<unsigned>(__builtin_ctz(m));
    uint32_t addr = 0, bytes = 0;
    if (!access_of(inst, lanes[lane], &addr, &bytes)) return std::nullopt;
    if (addr >= w.addr + w.len || w.addr >= addr + bytes) continue;
    if (plain) {
      uint8_t old[4] = {0, 0, 0, 0};
      const uint32_t v = lanes[lane].x[inst.rs2];
      if (sources_[source]->access_memory(key, lane, addr, old, bytes, false) &&
          std::memcmp(old, &v, bytes) == 0)  // little-endian host and guest
        continue;
    }
    return std::max(addr, w.addr);
  }
  return std::nullopt;
}

bool Debugger::before(unsigned source, uint64_t key, uint32_t pc, uint64_t progress, const isa::Inst& inst,
                      const isa::ThreadState* lanes, uint32_t mask) {
  const Ref ref{source, key};
  if (trigger_ && inst.is_store) {
    if (const auto hit = store_changes(*trigger_, source, key, inst, lanes, mask)) {
      trigger_.reset();
      update_armed();
      std::string name;
      std::vector<ThreadSource::Thread> threads;
      sources_[source]->threads(threads);
      for (const auto& t : threads)
        if (t.key == key) name = t.name;
      fire_(name, pc, *hit);
    }
  }
  if (!conn_) return true;
  if (!all_resumed_ && !resumed_.count(ref)) {
    // Held, unless every thread gdb resumed is gone (a warp that exited):
    // then nothing could ever stop, and every thread runs.
    const bool any = std::any_of(resumed_.begin(), resumed_.end(),
                                 [&](const Ref& r) { return sources_[r.source]->lanes(r.key) != 0; });
    if (any) return false;
    all_resumed_ = true;
    update_armed();
  }
  if (last_stop_.ref == ref && last_stop_.pc == pc && last_stop_.progress == progress) return true;
  const unsigned first = mask ? static_cast<unsigned>(__builtin_ctz(mask)) : 0;
  std::string why;
  unsigned lane = first;
  bool stopping = false, interrupted = false;
  if (--until_poll_ == 0) {
    until_poll_ = kPollEvery;
    while (conn_->readable()) {
      const int c = conn_->read_byte();
      if (c < 0) {
        std::fprintf(stderr, "tessera: gdb closed the connection; the run goes on without it\n");
        disconnect();
        return true;
      }
      interrupted |= reader_.feed(static_cast<char>(c)) == rsp::Reader::Event::kInterrupt;
    }
  }
  if (interrupted) {
    stopping = true;
  } else if (step_ && step_->ref == ref && (!step_->progress || *step_->progress != progress)) {
    stopping = true;
  } else if (breakpoints_.count(pc)) {
    why = "swbreak:;";
    stopping = true;
  } else {
    for (const Watch& w : watches_) {
      const auto hit = overlap(w, inst, lanes, mask);
      if (!hit) continue;
      why = fmt::format("{}:{:x};", w.type == '2' ? "watch" : w.type == '3' ? "rwatch" : "awatch", hit->second);
      lane = hit->first;
      stopping = true;
      break;
    }
  }
  if (!stopping) return true;
  last_stop_ = {ref, pc, progress};
  stop(ref, lane, why, interrupted ? kSigInt : kSigTrap);
  return all_resumed_ || resumed_.count(ref) != 0;
}

void Debugger::fault(unsigned source, uint64_t key, unsigned lane, Signal signal) {
  if (fault_) return;  // the first fault is the run's
  fault_ = std::make_pair(Ref{source, key}, lane);
  fault_signal_ = signal;
}

Debugger::Signal Debugger::signal_of(isa::Trap trap) {
  switch (trap) {
    case isa::Trap::kIllegalInstruction:
    case isa::Trap::kTransactional:
    case isa::Trap::kEcall:
      return kSigIll;
    case isa::Trap::kLoadMisaligned:
    case isa::Trap::kStoreMisaligned:
    case isa::Trap::kInstructionMisaligned:
      return kSigBus;
    case isa::Trap::kEbreak:
      return kSigTrap;
    default:
      return kSigSegv;
  }
}

void Debugger::finish(bool failed, int status, const std::string& message) {
  if (!conn_) return;
  if (failed) {
    std::optional<std::pair<Ref, unsigned>> at = fault_;
    if (!at) {
      const std::vector<Live> live = live_threads();
      if (!live.empty())
        at = std::make_pair(live.front().ref, sources_[live.front().ref.source]->default_lane(live.front().ref.key));
    }
    output(message + "\n");
    if (at) {
      const int64_t tid = tid_of(at->first);
      general_tid_ = tid;
      lanes_[tid] = at->second;
      last_reply_ = stop_reply(fault_ ? fault_signal_ : kSigInt, tid, "");
    } else {
      last_reply_ = fmt::format("S{:02x}", fault_ ? fault_signal_ : kSigInt);
    }
    send(last_reply_);
    // Breakpoints cannot fire any more: whatever gdb resumes, the run ends.
    serve();
    if (!conn_) return;
    send(fmt::format("X{:02x}", fault_ ? fault_signal_ : kSigInt));
  } else if (status > 128 && status < 160) {
    // abort() or raise() on a control core: status 128 + the signal.
    send(fmt::format("X{:02x}", status - 128));
  } else {
    send(fmt::format("W{:02x}", status & 0xff));
  }
  conn_.reset();
}

std::string Debugger::handle(const std::string& p) {
  if (p.empty()) return "";
  const std::string_view args = std::string_view(p).substr(1);
  switch (p[0]) {
    case '?':
      return last_reply_;
    case 'g':
      return read_registers();
    case 'G':
      return write_registers(args) ? "OK" : "E01";
    case 'p': {
      const auto n = rsp::parse_hex(args);
      if (!n) return "E01";
      return read_register(static_cast<unsigned>(*n)).value_or("E01");
    }
    case 'P': {
      const size_t eq = args.find('=');
      const auto n = rsp::parse_hex(args.substr(0, eq));
      if (eq == std::string_view::npos || !n) return "E01";
      return write_register(static_cast<unsigned>(*n), args.substr(eq + 1)) ? "OK" : "E01";
    }
    case 'm':
      return read_memory(args);
    case 'M':
      return write_memory(args, false);
    case 'X':
      return write_memory(args, true);
    case 'Z':
    case 'z':
      return breakpoint(p);
    case 'c':
      return resume("c");
    case 's':
      return resume("s");
    case 'H': {
      if (args.size() < 2) return "E01";
      const std::string_view id = args.substr(1);
      int64_t tid = 0;
      if (id != "-1" && id != "0") {
        const auto v = rsp::parse_hex(id);
        if (!v || !ref_of(static_cast<int64_t>(*v))) return "E01";
        tid = static_cast<int64_t>(*v);
      }
      (args[0] == 'g' ? general_tid_ : continue_tid_) = tid;
      return "OK";
    }
    case 'T': {
      const auto v = rsp::parse_hex(args);
      return v && ref_of(static_cast<int64_t>(*v)) ? "OK" : "E01";
    }
    case 'D':
      send("OK");
      std::fprintf(stderr, "tessera: gdb detached; the run goes on\n");
      disconnect();  // nothing more is sent
      return "";
    case 'k':
      if (kill_) kill_();
      disconnect();
      return "";
    case 'v':
      if (p == "vCont?") return "vCont;c;C;s;S";
      if (p.rfind("vCont;", 0) == 0) return resume(std::string_view(p).substr(6));
      if (p.rfind("vKill", 0) == 0) {
        send("OK");
        if (kill_) kill_();
        disconnect();
        return "";
      }
      return "";
    case 'q':
      if (p.rfind("qSupported", 0) == 0)
        return "PacketSize=4000;qXfer:features:read+;qXfer:threads:read+;swbreak+;hwbreak+;QStartNoAckMode+;"
               "vContSupported+";
      if (p == "qAttached") return "1";
      if (p == "qC") return fmt::format("QC{:x}", general_tid_ > 0 ? general_tid_ : 1);
      if (p == "qfThreadInfo") {
        std::string out = "m";
        for (const Live& t : live_threads()) out += fmt::format("{}{:x}", out.size() > 1 ? "," : "", t.tid);
        return out.size() > 1 ? out : "l";
      }
      if (p == "qsThreadInfo") return "l";
      if (p.rfind("qThreadExtraInfo,", 0) == 0) {
        const auto v = rsp::parse_hex(std::string_view(p).substr(17));
        const auto ref = v ? ref_of(static_cast<int64_t>(*v)) : std::nullopt;
        if (!ref) return "E01";
        return rsp::hex(sources_[ref->source]->activity(ref->key));
      }
      if (p.rfind("qXfer:", 0) == 0) return xfer(p);
      if (p.rfind("qRcmd,", 0) == 0) return monitor(p.substr(6));
      if (p == "qSymbol::") return "OK";
      return "";
    case 'Q':
      if (p == "QStartNoAckMode") {
        ack_off_ = true;  // after this reply
        return "OK";
      }
      return "";
    default:
      return "";
  }
}

std::string Debugger::resume(std::string_view actions) {
  // "c" and "s" (every thread runs; s steps the Hc thread), or vCont's
  // ";"-separated actions: c, s, C sig, S sig (the signal is ignored), each
  // for one thread (:tid) or, without one, for every thread no earlier
  // action named.
  std::optional<Step> step;
  std::set<Ref> named;
  bool all = false;
  size_t pos = 0;
  while (pos <= actions.size()) {
    const size_t end = std::min(actions.find(';', pos), actions.size());
    const std::string_view a = actions.substr(pos, end - pos);
    pos = end + 1;
    if (a.empty()) continue;
    const bool stepping = a[0] == 's' || a[0] == 'S';
    if (!stepping && a[0] != 'c' && a[0] != 'C') return "E01";
    const size_t colon = a.find(':');
    if (colon == std::string_view::npos) {
      all = true;  // every thread no earlier action named; "s" also steps the current one
      if (!stepping) continue;
    }
    int64_t tid = continue_tid_ > 0 ? continue_tid_ : general_tid_;
    if (colon != std::string_view::npos) {
      const auto v = rsp::parse_hex(a.substr(colon + 1));
      if (!v) return "E01";
      tid = static_cast<int64_t>(*v);
    }
    const auto ref = ref_of(tid);
    if (!ref) return "E01";
    named.insert(*ref);
    if (stepping && !step) {
      step = Step{*ref, std::nullopt};
      if (last_stop_.ref == *ref) step->progress = last_stop_.progress;
    }
  }
  step_ = step;
  all_resumed_ = all;
  resumed_ = all ? std::set<Ref>{} : named;
  resume_ = true;
  return "";
}

std::string Debugger::read_registers() {
  const auto ref = general();
  if (!ref) return "E01";
  const isa::ThreadState* s = sources_[ref->source]->state(ref->key, lane_of(tid_of(*ref), *ref));
  if (!s) return "E01";
  std::string out;
  for (unsigned r = 0; r < 32; ++r) out += rsp::hex_le(s->x[r], 4);
  out += rsp::hex_le(s->pc, 4);
  for (unsigned r = 0; r < 32; ++r) out += rsp::hex_le(s->fd(r), 8);
  out += rsp::hex_le(s->fcsr & 0x1f, 4) + rsp::hex_le(s->fcsr >> 5 & 7, 4) + rsp::hex_le(s->fcsr & 0xff, 4);
  return out;
}

std::optional<std::string> Debugger::read_register(unsigned n) {
  const auto ref = general();
  if (!ref || n >= kRegisters) return std::nullopt;
  const isa::ThreadState* s = sources_[ref->source]->state(ref->key, lane_of(tid_of(*ref), *ref));
  if (!s) return std::nullopt;
  if (n < 32) return rsp::hex_le(s->x[n], 4);
  if (n == kPc) return rsp::hex_le(s->pc, 4);
  if (n < kFflags) return rsp::hex_le(s->fd(n - kF0), 8);
  if (n == kFflags) return rsp::hex_le(s->fcsr & 0x1f, 4);
  if (n == kFrm) return rsp::hex_le(s->fcsr >> 5 & 7, 4);
  return rsp::hex_le(s->fcsr & 0xff, 4);
}

bool Debugger::write_register(unsigned n, std::string_view hex) {
  const auto ref = general();
  const auto bytes = rsp::unhex(hex);
  if (!ref || !bytes || n >= kRegisters) return false;
  isa::ThreadState* s = sources_[ref->source]->state(ref->key, lane_of(tid_of(*ref), *ref));
  if (!s) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < bytes->size() && i < 8; ++i) v |= uint64_t{(*bytes)[i]} << (8 * i);
  const auto v32 = static_cast<uint32_t>(v);
  if (n < 32) {
    if (n != 0) s->x[n] = v32;
  } else if (n == kPc) {
    s->pc = v32;
  } else if (n < kFflags) {
    s->set_fd(n - kF0, v);
  } else if (n == kFflags) {
    s->fcsr = (s->fcsr & ~0x1fu) | (v32 & 0x1f);
  } else if (n == kFrm) {
    s->fcsr = (s->fcsr & ~0xe0u) | (v32 & 7) << 5;
  } else {
    s->fcsr = v32 & 0xff;
  }
  return true;
}

bool Debugger::write_registers(std::string_view hex) {
  static constexpr unsigned kBytes[] = {4, 8};
  size_t pos = 0;
  for (unsigned n = 0; n < kRegisters && pos < hex.size(); ++n) {
    const unsigned bytes = n >= kF0 && n < kFflags ? kBytes[1] : kBytes[0];
    if (pos + 2 * bytes > hex.size()) return false;
    if (!write_register(n, hex.substr(pos, 2 * bytes))) return false;
    pos += 2 * bytes;
  }
  return true;
}

std::string Debugger::read_memory(std::string_view args) {
  const size_t comma = args.find(',');
  const auto addr = rsp::parse_hex(args.substr(0, comma));
  const auto len = comma == std::string_view::npos ? std::nullopt : rsp::parse_hex(args.substr(comma + 1));
  const auto ref = general();
  if (!addr || !len || !ref || *addr > 0xffffffffu) return "E01";
  std::vector<uint8_t> data(std::min<uint64_t>(*len, 0x1000));
  const unsigned lane = lane_of(tid_of(*ref), *ref);
  // As many bytes as are mapped from addr: gdb reads past the end of a region.
  size_t n = 0;
  for (; n < data.size(); ++n)
    if (!sources_[ref->source]->access_memory(ref->key, lane, static_cast<uint32_t>(*addr + n), &data[n], 1, false))
      break;
  if (n == 0 && !data.empty()) return "E14";  // EFAULT
  return rsp::hex(data.data(), n);
}

std::string Debugger::write_memory(std::string_view args, bool binary) {
  const size_t comma = args.find(','), colon = args.find(':');
  if (comma == std::string_view::npos || colon == std::string_view::npos || colon < comma) return "E01";
  const auto addr = rsp::parse_hex(args.substr(0, comma));
  const auto len = rsp::parse_hex(args.substr(comma + 1, colon - comma - 1));
  const auto ref = general();
  if (!addr || !len || !ref) return "E01";
  std::vector<uint8_t> data;
  if (binary) {
    const std::string raw = rsp::unescape(args.substr(colon + 1));
    data.assign(raw.begin(), raw.end());
  } else {
    auto bytes = rsp::unhex(args.substr(colon + 1));
    if (!bytes) return "E01";
    data = std::move(*bytes);
  }
  if (data.size() != *len) return "E01";
  if (data.empty()) return "OK";
  const bool ok =
      sources_[ref->source]->access_memory(ref->key, lane_of(tid_of(*ref), *ref), static_cast<uint32_t>(*addr),
                                           data.data(), static_cast<uint32_t>(data.size()), true);
  return ok ? "OK" : "E14";
}

std::string Debugger::breakpoint(const std::string& p) {
  // Z/z TYPE,ADDR,KIND
  const bool insert = p[0] == 'Z';
  if (p.size() < 4 || p[2] != ',') return "E01";
  const char type = p[1];
  const size_t comma = p.find(',', 3);
  const auto addr = rsp::parse_hex(std::string_view(p).substr(3, comma - 3));
  const auto kind = comma == std::string::npos ? std::nullopt : rsp::parse_hex(std::string_view(p).substr(comma + 1));
  if (!addr || !kind || *addr > 0xffffffffu) return "E01";
  const auto a = static_cast<uint32_t>(*addr);
  if (type == '0' || type == '1') {
    if (insert) {
      breakpoints_.insert(a);
    } else {
      breakpoints_.erase(a);
    }
  } else if (type >= '2' && type <= '4') {
    const auto len = static_cast<uint32_t>(std::max<uint64_t>(*kind, 1));
    const auto it = std::find_if(watches_.begin(), watches_.end(),
                                 [&](const Watch& w) { return w.addr == a && w.len == len && w.type == type; });
    if (insert && it == watches_.end()) watches_.push_back({a, len, type});
    if (!insert && it != watches_.end()) watches_.erase(it);
  } else {
    return "";
  }
  update_armed();
  return "OK";
}

std::string Debugger::thread_list_xml() {
  std::string x = "<?xml version=\"1.0\"?>\n<threads>\n";
  for (const Live& t : live_threads())
    x += fmt::format("<thread id=\"{:x}\" name=\"{}\">{}</thread>\n", t.tid, xml_escape(t.name),
                     xml_escape(sources_[t.ref.source]->activity(t.ref.key)));
  return x + "</threads>\n";
}

std::string Debugger::xfer(const std::string& p) {
  // qXfer:OBJECT:read:ANNEX:OFFSET,LENGTH
  static const std::string kFeatures = "qXfer:features:read:target.xml:";
  static const std::string kThreads = "qXfer:threads:read::";
  if (p.rfind(kFeatures, 0) == 0) {
    static const std::string xml = target_xml();
    return xfer_window(xml, std::string_view(p).substr(kFeatures.size()));
  }
  if (p.rfind(kThreads, 0) == 0) {
    const std::string_view range = std::string_view(p).substr(kThreads.size());
    // One snapshot per read sequence: gdb reads it in windows from offset 0.
    if (range.rfind("0,", 0) == 0) threads_xml_ = thread_list_xml();
    return xfer_window(threads_xml_, range);
  }
  return "";
}

std::string Debugger::monitor(const std::string& hex_command) {
  const auto bytes = rsp::unhex(hex_command);
  if (!bytes) return "E01";
  const std::string line(bytes->begin(), bytes->end());
  std::istringstream in(line);
  std::string cmd, rest;
  in >> cmd;
  std::getline(in >> std::ws, rest);
  std::string text;
  if (cmd == "help" || cmd.empty()) {
    text =
        "monitor lane N      show lane N's registers for the current warp thread\n"
        "monitor lanes       the current thread's lanes and the one shown\n" +
        monitor_help_;
  } else if (cmd == "lane" || cmd == "lanes") {
    const auto ref = general();
    if (!ref) return rsp::hex("no thread selected\n");
    const uint32_t lanes = sources_[ref->source]->lanes(ref->key);
    const int64_t tid = tid_of(*ref);
    if (cmd == "lane") {
      char* end = nullptr;
      const unsigned long n = std::strtoul(rest.c_str(), &end, 0);
      if (rest.empty() || *end != '\0' || n >= 32 || !(lanes >> n & 1)) {
        text = fmt::format("monitor lane: '{}' is not a lane of thread {} (lanes 0x{:08x})\n", rest, tid, lanes);
      } else {
        lanes_[tid] = static_cast<unsigned>(n);
        text = fmt::format("thread {}: lane {}\n", tid, n);
      }
    } else {
      text = fmt::format("thread {}: lanes 0x{:08x}, showing lane {}\n", tid, lanes, lane_of(tid, *ref));
    }
  } else if (monitor_) {
    const auto r = monitor_(cmd, rest);
    text = r ? *r : fmt::format("unknown monitor command '{}' (monitor help lists them)\n", cmd);
  } else {
    text = fmt::format("unknown monitor command '{}'\n", cmd);
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  return rsp::hex(text);
}

}  // namespace tessera::debug
