// Where the cluster's coherence transactions take their order, and what
// that order delivers to each cache controller. The snoop bus
// (bus/snoop_bus.h) is one ordering point: its request table and the order
// of its grants serialise every line, and every other cache snoops each
// granted transaction. A directory is another: a line's home orders its
// requests and sends snoops (forwards, invalidations) only to the sharers
// it records. Either way a controller sees the same three things:
//  - requests out: an outstanding miss or write-back (its MSHR, its
//    write-back buffer entry) waits until the ordering point takes it: when
//    no transaction for the line is in flight and a tag is free;
//  - ordered: its request holds its place in the line's order;
//  - snoops and responses in: the ordered transactions of other caches on a
//    line it holds, and the data for its own.
// The cluster (bus/cluster.h) runs the phases of a cycle between the two.
// Both sides stay thin so another ordering point replaces the bus without
// touching the controllers or their protocol tables.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bus/bus_response.h"
#include "bus/transient.h"
#include "mem/coherence_protocol.h"

namespace tessera::bus {

enum class ControllerPort : uint8_t;

// What an ordering point delivers to a cache controller
// (bus/cache_controller.h implements it).
class CoherenceAgent {
 public:
  virtual ~CoherenceAgent() = default;
  // Ordered: the request on `port` holds its place; the snoop's shared line
  // is `shared`. *row: the protocol row the line ends in; the transient
  // row, or nullptr (a protocol error, *error says which).
  virtual const TransientRow* ordered(ControllerPort port, bool shared, int* row, std::string* error) = 0;
  // An ordered request that waits for no data (an upgrade or update) ends in row `row`.
  virtual void complete_without_data(ControllerPort port, int row) = 0;
  // Its write-back for `line` was ordered with `tag`: an error text or "".
  virtual std::string write_back_ordered(uint64_t line, uint32_t tag) = 0;
  // Snoop in: another cache's ordered transaction `op` on `line` takes this
  // cache's copy to protocol row `row` (*update: it takes the written word).
  virtual std::string apply_snoop(uint64_t line, int row, mem::BusOp op, bool* update) = 0;
  // Snoop in, hitting its write-back buffer: the entry answers and retires.
  virtual std::unique_ptr<BusResponse> snoop_write_back(uint64_t line, uint32_t tag, bool needs_data,
                                                        std::string* error) = 0;
  // Response in: the data for its request on `port`, in protocol row `row`.
  virtual void fill(ControllerPort port, int row, const uint8_t* data) = 0;
  // Its write-back's data has left: the entry retires.
  virtual std::string write_back_sent(uint64_t line) = 0;
};

// What the controllers' requests meet: the order (bus/snoop_bus.h
// implements it).
class OrderingPoint {
 public:
  virtual ~OrderingPoint() = default;
  // Requests out: a request for `line` can be taken (no transaction for the
  // line in flight), and the tag it would get (-1: none free).
  virtual bool line_free(uint64_t line) const = 0;
  virtual int free_tag() const = 0;
  virtual bool table_full() const = 0;
  virtual bool table_empty() const = 0;
  // `tag` was taken; the request channel is busy until `busy_until`.
  virtual void granted(uint32_t tag, uint64_t busy_until) = 0;
  // Ordered notifications, in order: whether one is pending, when the next
  // is due, and its tag.
  virtual bool snooping() const = 0;
  virtual uint64_t next_snoop() const = 0;
  virtual uint32_t pop_snoop() = 0;
  // The transaction with `tag` has completed.
  virtual void free(uint32_t tag) = 0;
};

}  // namespace tessera::bus
