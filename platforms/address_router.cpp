#include "platforms/address_router.h"

#include <fmt/format.h>

#include <algorithm>

namespace tessera::platform {

AddressRouter::AddressRouter(const sc_core::sc_module_name& name, unsigned inputs, std::vector<Range> ranges)
    : sc_module(name), in("in"), out("out"), inputs_(inputs), ranges_(std::move(ranges)) {
  in.register_nb_transport_fw(this, &AddressRouter::nb_transport_fw);
  in.register_b_transport(this, &AddressRouter::b_transport);
  out.register_nb_transport_bw(this, &AddressRouter::nb_transport_bw);
}

int AddressRouter::route(uint64_t addr, uint64_t len) const {
  for (size_t t = 0; t < ranges_.size(); ++t)
    if (addr >= ranges_[t].base && addr - ranges_[t].base < ranges_[t].size &&
        len <= ranges_[t].size - (addr - ranges_[t].base))
      return static_cast<int>(t);
  return -1;
}

// The out binding of input `id` to the memory serving the payload.
int AddressRouter::port(int id, const tlm::tlm_generic_payload& gp) const {
  const int t = route(gp.get_address(), std::max<uint64_t>(gp.get_data_length(), 1));
  if (t < 0)
    SC_REPORT_ERROR(
        name(),
        fmt::format("no memory serves address 0x{:x} ({} bytes)", gp.get_address(), gp.get_data_length()).c_str());
  return t * static_cast<int>(inputs_) + id;
}

tlm::tlm_sync_enum AddressRouter::nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  return out[static_cast<unsigned>(port(id, gp))]->nb_transport_fw(gp, phase, delay);
}

tlm::tlm_sync_enum AddressRouter::nb_transport_bw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  return in[static_cast<unsigned>(id) % inputs_]->nb_transport_bw(gp, phase, delay);
}

void AddressRouter::b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  out[static_cast<unsigned>(port(id, gp))]->b_transport(gp, delay);
}

}  // namespace tessera::platform
