#include "peer_copier.hpp"

#include "cuda_ipc_call.hpp"

namespace ringcomm::cuda_ipc_backend {

PeerCopier::PeerCopier() {
  // Non-blocking: the copies must not wait for, or hold up, work on the legacy default stream.
  CUDA_IPC_CALL(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  // Events that only order and signal need no timestamps, which makes recording them cheaper.
  CUDA_IPC_CALL(cudaEventCreateWithFlags(&producer_done_, cudaEventDisableTiming));
  CUDA_IPC_CALL(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming));
}

PeerCopier::~PeerCopier() {
  // A stream destroyed with a copy in flight is released once the copy ends.
  if (copied_ != nullptr) cudaEventDestroy(copied_);
  if (producer_done_ != nullptr) cudaEventDestroy(producer_done_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void PeerCopier::follow(cudaStream_t producer) {
  CUDA_IPC_CALL(cudaEventRecord(producer_done_, producer));
  follows_producer_ = true;
}

void PeerCopier::copy(void* target, const void* source, std::size_t bytes) {
  if (follows_producer_) CUDA_IPC_CALL(cudaStreamWaitEvent(stream_, producer_done_, 0));
  follows_producer_ = false;
  CUDA_IPC_CALL(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDeviceToDevice, stream_));
  CUDA_IPC_CALL(cudaEventRecord(copied_, stream_));
  copying_ = true;
}

bool PeerCopier::idle() const {
  if (!copying_) return true;
  const cudaError_t status = cudaEventQuery(copied_);
  if (status == cudaErrorNotReady) return false;
  check_cuda(status, "cuda_ipc transport: cudaEventQuery after the copy into the right neighbour's slot");
  return true;
}

}  // namespace ringcomm::cuda_ipc_backend
