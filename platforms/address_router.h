// An address router between the L2 slices and several memories (HBM stacks),
// each serving its own address range. It adds no time: requests and
// responses pass through in the same delta with every TLM-2.0 phase intact.
// Each input port reaches each memory through a binding of its own, so a
// memory sees the slice's socket index exactly as if the slice were bound
// to it directly (the HBM model orders same-instant requests by socket).
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace tessera::platform {

class AddressRouter : public sc_core::sc_module {
 public:
  struct Range {
    uint64_t base, size;
  };
  tlm_utils::multi_passthrough_target_socket<AddressRouter> in;
  tlm_utils::multi_passthrough_initiator_socket<AddressRouter> out;

  // inputs: the initiator ports bound to `in`. Bind `out` to memory t
  // `inputs` times, memories in the order of `ranges`.
  AddressRouter(const sc_core::sc_module_name& name, unsigned inputs, std::vector<Range> ranges);

  unsigned inputs() const { return inputs_; }
  // Index of the memory serving [addr, addr + len), or -1.
  int route(uint64_t addr, uint64_t len) const;

 private:
  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  int port(int id, const tlm::tlm_generic_payload& gp) const;

  unsigned inputs_;
  std::vector<Range> ranges_;
};

}  // namespace tessera::platform
