#include "bus/bridge.h"

#include <fmt/format.h>

namespace tessera::bus {

Bridge::Bridge(mem::MemorySide& memory, uint32_t slots, uint32_t line_bytes, uint64_t* reads, uint64_t* writes)
    : memory_(memory),
      slots_(slots),
      line_bytes_(line_bytes),
      reads_(reads),
      writes_(writes),
      written_(line_bytes),
      merged_(line_bytes) {}

void Bridge::read(uint32_t tag, uint64_t line, uint64_t now) {
  auto resp = std::make_unique<BusResponse>(
      BusResponse{tag, -1, now + memory_.read_latency(), true, false, std::vector<uint8_t>(line_bytes_)});
  memory_.read_line(line, resp->data.data(), line_bytes_);
  queue_.push_back(std::move(resp));
  ++used_;
  ++*reads_;
}

void Bridge::write(uint64_t line, const uint8_t* data) {
  ++*writes_;
  if (!written_.take(line, mask_)) return;  // memory already holds every byte the cores wrote
  if (written_.whole_line(mask_)) {
    memory_.write_line(line, data, line_bytes_);
    return;
  }
  memory_.read_line(line, merged_.data(), line_bytes_);
  written_.merge(mask_, data, merged_.data());
  memory_.write_line(line, merged_.data(), line_bytes_);
}

std::unique_ptr<BusResponse> Bridge::pop_response() {
  std::unique_ptr<BusResponse> r = std::move(queue_.front());
  queue_.pop_front();
  return r;
}

std::string Bridge::describe_in_flight() const {
  if (used_ == 0 && queue_.empty()) return "";
  std::string out = fmt::format("cluster.bridge: {} of {} slots in use\n", used_, slots_);
  for (const auto& r : queue_)
    out += fmt::format("cluster.bridge: memory read for tag {} ready at cycle {}\n", r->tag, r->ready_at);
  return out;
}

}  // namespace tessera::bus
