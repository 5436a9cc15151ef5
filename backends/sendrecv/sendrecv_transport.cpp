// sendrecv: each ring step is one MPI_Irecv/MPI_Isend pair between host-memory slots. A teaching
// and test backend: `auto` tries it last, and it refuses device memory rather than hand device
// pointers to an MPI that may not be CUDA-aware.
#include "ringcomm/backend/registration.hpp"
#include "sendrecv_channel.hpp"

namespace ringcomm::sendrecv_backend {
namespace {

Usability probe(const TransportContext& ctx) {
  if (ctx.memory == MemoryKind::host) return Usability::yes();
  return Usability::no("ring buffers are in device memory; this backend moves host memory only");
}

std::unique_ptr<Transport> create(const TransportContext&) { return make_transport(Capabilities{}, open_channel); }

}  // namespace
}  // namespace ringcomm::sendrecv_backend

RINGCOMM_DECLARE_BACKEND() {
  return {"teaching and test backend: one MPI_Irecv/MPI_Isend pair per step, host memory only", Preference::last_resort,
          sendrecv_backend::probe, sendrecv_backend::create};
}
