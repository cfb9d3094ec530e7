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

  void free(tlm::tlm_generic_payload* p) override { free_.push_back(p); }

 private:
  std::vector<std::unique_ptr<unsigned char[]>> buffers_;
  std::vector<tlm::tlm_generic_payload*> all_;
  std::vector<tlm::tlm_generic_payload*> free_;
};

}  // namespace tessera::sim
