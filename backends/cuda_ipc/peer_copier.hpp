#pragma once
// The copy engine's queue of one cuda_ipc channel: a stream of the channel's own on its GPU, which
// runs nothing but the channel's copies into the right neighbour's slots, and the events that order a
// copy after the work that produced its source and tell when it has landed.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace ringcomm::cuda_ipc_backend {

class PeerCopier {
 public:
  // On the current device.
  PeerCopier();
  ~PeerCopier();
  PeerCopier(const PeerCopier&) = delete;
  PeerCopier& operator=(const PeerCopier&) = delete;

  // The next copy waits for the work queued on `producer` until now (the kernels that wrote its
  // source), whenever it is enqueued; without a call, it waits for nothing.
  void follow(cudaStream_t producer);
  // Enqueues the copy of `bytes` from `source` to `target` (a slot mapped from another GPU, or one of
  // this GPU's: cudaMemcpyDeviceToDevice covers both).
  void copy(void* target, const void* source, std::size_t bytes);
  // Whether the last copy has completed; throws the CUDA error of a copy that failed.
  bool idle() const;

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t producer_done_ = nullptr;
  cudaEvent_t copied_ = nullptr;
  bool follows_producer_ = false;
  bool copying_ = false;
};

}  // namespace ringcomm::cuda_ipc_backend
