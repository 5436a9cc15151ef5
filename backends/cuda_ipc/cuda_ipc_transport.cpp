// cuda_ipc: ring steps between the GPUs of one node as copy-engine copies. Each rank maps its right
// neighbour's slots through CUDA IPC once, and every step is one cudaMemcpyAsync straight into the
// neighbour's slot (over NVLink where there is one), with no staging and no library in between;
// cuda_ipc_channel.cpp has the protocol. Built wherever the CUDA toolkit is, usable where ring
// buffers are in device memory, all ranks share one node and each has a GPU (several ranks may share
// one, e.g. under CUDA MPS: the copy then stays on that GPU).
#include <memory>

#include "cuda_ipc_channel.hpp"
#include "placement_probe.hpp"
#include "ringcomm/backend/registration.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"

namespace ringcomm::cuda_ipc_backend {
namespace {

class CudaIpcTransport final : public Transport {
 public:
  explicit CudaIpcTransport(int device) : device_(device) {}
  std::string name() const override { return "cuda_ipc"; }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.device_memory = true;
    caps.one_sided = true;  // the sender writes into the receiver's slot; the receiver posts nothing
    return caps;
  }
  std::unique_ptr<Channel> open_channel(const ChannelSpec& spec) override {
    verify_channel_spec(spec, name());
    return cuda_ipc_backend::open_channel(spec, device_);
  }

 private:
  int device_;  // the CUDA device of this rank's data memory
};

}  // namespace
}  // namespace ringcomm::cuda_ipc_backend

RINGCOMM_REGISTER_BACKEND(cuda_ipc) {
  using namespace ringcomm;
  BackendInfo info;
  info.name = "cuda_ipc";
  info.summary = "copy-engine copies straight into the neighbour GPU's slot via CUDA IPC (GPU builds; one node; "
                 "ranks may share a GPU)";
  // Where it can run at all it is the shortest path between two GPUs, so it comes before nccl (10).
  info.auto_preference = 5;
  info.probe = cuda_ipc_backend::probe;
  info.create = [](const TransportContext& ctx) -> std::unique_ptr<Transport> {
    if (ctx.memory != MemoryKind::device)
      throw Error(std::string("cuda_ipc transport: ") + cuda_ipc_backend::kHostMemoryReason);
    const int device = data_memory_device();
    if (device < 0) throw Error("cuda_ipc transport: Kokkos has not chosen a CUDA device (is Kokkos initialised?)");
    return std::make_unique<cuda_ipc_backend::CudaIpcTransport>(device);
  };
  info.details = cuda_ipc_backend::details;
  registry.add(std::move(info));
}
