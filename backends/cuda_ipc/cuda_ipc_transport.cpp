// cuda_ipc: ring steps between the GPUs of one node as copy-engine copies. Each rank maps its right
// neighbour's slots through CUDA IPC once, and every step is one cudaMemcpyAsync straight into the
// neighbour's slot (over NVLink where there is one), with no staging and no library in between;
// cuda_ipc_channel.cpp has the protocol. Built wherever the CUDA toolkit is, usable where ring
// buffers are in device memory, all ranks share one node and each has a GPU (several ranks may share
// one, e.g. under CUDA MPS: the copy then stays on that GPU).
#include <memory>

#include "cuda_ipc_channel.hpp"
#include "placement_probe.hpp"
#include "ringcomm/backend/check.hpp"
#include "ringcomm/backend/registration.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"

namespace ringcomm::cuda_ipc_backend {
namespace {

std::unique_ptr<Transport> create(const TransportContext& ctx) {
  if (ctx.memory != MemoryKind::device) throw Error(std::string(RINGCOMM_TRANSPORT_PREFIX) + kHostMemoryReason);
  const int device = data_memory_device();
  if (device < 0) throw Error(RINGCOMM_TRANSPORT_PREFIX "Kokkos has not chosen a CUDA device (is Kokkos initialised?)");
  Capabilities caps;
  caps.device_memory = true;
  caps.one_sided = true;  // the sender writes into the receiver's slot; the receiver posts nothing
  return make_transport(caps, [device](const ChannelSpec& spec) { return open_channel(spec, device); });
}

}  // namespace
}  // namespace ringcomm::cuda_ipc_backend

// Where it can run at all it is the shortest path between two GPUs.
RINGCOMM_DECLARE_BACKEND() {
  return {"copy-engine copies straight into the neighbour GPU's slot via CUDA IPC (GPU builds; one node; ranks may share a GPU)",
          Preference::peer_copy, cuda_ipc_backend::probe, cuda_ipc_backend::create, cuda_ipc_backend::details};
}
