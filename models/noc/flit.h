// Packets and the flits they travel as: a head flit (carries the route), body
// flits and a tail flit; a one-flit packet is head and tail at once.
#pragma once

#include <cstdint>

namespace tessera::noc {

struct Packet {
  uint64_t id = 0;
  int src = 0, dst = 0;
  int cls = 0;  // message class
  int flits = 1;
  uint64_t create_cycle = 0;
  uint64_t tag = 0;  // the sender's handle (a transaction, a trace record)
  bool measured = false;
};

struct Flit {
  uint64_t packet_id = 0;
  uint64_t create_cycle = 0;
  uint64_t ready_cycle = 0;  // first cycle in which it is present in the buffer it sits in
  uint64_t tag = 0;
  int32_t src = 0, dst = 0;
  uint16_t index = 0, size = 1;  // position in the packet, packet length
  uint16_t hops = 0;             // router-to-router links traversed
  uint8_t cls = 0;
  uint8_t vc = 0;  // VC of the buffer it sits in (or is sent to)
  bool measured = false;
  // Routing state a head flit carries from router to router (UGAL: the
  // phase of its route and the intermediate node or group it was sent
  // through); set by routing functions, -1 / 0 until then.
  uint8_t phase = 0;
  int32_t intermediate = -1;
  bool head() const { return index == 0; }
  bool tail() const { return index + 1 == size; }
};

}  // namespace tessera::noc
