// A TLM-2.0 memory manager: recycles generic payloads with their data
// buffers, as the AT protocol requires reference-counted payloads.
#pragma once

#include <tlm>

#include <memory>
#include <vector>

#include "sim/mem_ext.h"

namespace tessera::sim {

class PayloadPool : public tlm::tlm_mm_interface {
 public:
  static constexpr unsigned kMaxBytes = 128;  // one cache line

  ~PayloadPool() override {
    for (auto* p : all_) {
      p->reset();  // deletes the extensions it owns
      delete p;
    }
  }

  // A payload with acquire() already called, a MemExt attached and a data
  // buffer of kMaxBytes.
  tlm::tlm_generic_payload* allocate() {
    tlm::tlm_generic_payload* p;
    if (free_.empty()) {
      buffers_.push_back(std::make_unique<unsigned char[]>(kMaxBytes));
      p = new tlm::tlm_generic_payload(this);
      p->set_data_ptr(buffers_.back().get());
      p->set_extension(new MemExt);
      all_.push_back(p);
    } else {
      p = free_.back();
      free_.pop_back();
    }
    p->acquire();
    return p;
  }

  // A timing-only memory request (the issuer already performed the access):
  // a payload from allocate() with its fields and MemExt set; returns the
  // extension for the issuer's own fields (source, warp, tag, sectors).
  MemExt& request(tlm::tlm_generic_payload*& out, uint64_t address, unsigned bytes, MemOp op) {
    tlm::tlm_generic_payload* p = allocate();
    p->set_address(address);
    p->set_data_length(bytes);
    p->set_streaming_width(bytes);
    p->set_byte_enable_ptr(nullptr);
    p->set_dmi_allowed(false);
    p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p->set_command(op == MemOp::kWrite ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    MemExt& ext = *p->get_extension<MemExt>();
    ext = MemExt{};
    ext.op = op;
    ext.timing_only = true;
    out = p;
    return ext;
  }

  void free(tlm::tlm_generic_payload* p) override { free_.push_back(p); }

 private:
  std::vector<std::unique_ptr<unsigned char[]>> buffers_;
  std::vector<tlm::tlm_generic_payload*> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
};

}  // namespace tessera::sim
