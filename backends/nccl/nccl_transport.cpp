// nccl: NCCL grouped send/receive on a stream of the channel's own, ordered with the caller's Kokkos
// stream by events (nccl_channel.cpp); the probe and ringcomm-info's details are in environment.cpp.
#include <Kokkos_Macros.hpp>

#include "environment.hpp"
#include "nccl_channel.hpp"
#include "ringcomm/backend/check.hpp"
#include "ringcomm/backend/registration.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::nccl_backend {
namespace {

std::unique_ptr<Transport> create(const TransportContext& ctx) {
  const Usability usable = probe(ctx);
  if (!usable.usable) throw Error(RINGCOMM_TRANSPORT_PREFIX + usable.reason);
  Capabilities caps;
  caps.device_memory = true;
  caps.stream_ordered = true;
  return make_transport(caps, [](const ChannelSpec& spec) { return open_channel(spec); });
}

}  // namespace
}  // namespace ringcomm::nccl_backend

// Stream-ordered and on NVLink where there is one.
RINGCOMM_DECLARE_BACKEND() {
  BackendInfo backend("NCCL grouped send/receive on a stream of its own, ordered with the Kokkos stream by events (GPU "
                      "builds; one rank per GPU)",
                      Preference::device_library, nccl_backend::probe, nccl_backend::create, nccl_backend::details);
  backend.refuses_walker_threads =
      "its exchanges are GPU kernels that wait for the peer rank, and those of several walker threads can "
      "deadlock across ranks (NCCL calls concurrent communicators on one GPU unsafe; runs on 2 H200 did hang)";
#ifdef KOKKOS_ENABLE_CUDA
  // With walker threads, one thread's NCCL kernel can spin waiting for its peer rank while another
  // thread launches a kernel for the first time. CUDA's lazy loading may then synchronise the whole
  // context to load that kernel, waiting for the spinning kernel, whose peer may be stuck the same
  // way: a deadlock across ranks. Loading every kernel when the context is created rules that out.
  backend.environment_defaults = {{"CUDA_MODULE_LOADING", "EAGER"}};
#endif
  return backend;
}
