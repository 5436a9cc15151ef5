#include "peer_copier.hpp"

#include "ringcomm/backend/cuda_check.hpp"

namespace ringcomm::cuda_ipc_backend {

PeerCopier::PeerCopier() {
  // Non-blocking: the copies must not wait for, or hold up, work on the legacy default stream.
  RINGCOMM_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  // Events that only order and signal need no timestamps, which makes recording them cheaper.
  RINGCOMM_CHECK(cudaEventCreateWithFlags(&producer_done_, cudaEventDisableTiming));
  RINGCOMM_CHECK(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming));
}

PeerCopier::~PeerCopier() {
  // A stream destroyed with a copy in flight is released once the copy ends.
  if (copied_ != nullptr) cudaEventDestroy(copied_);
  if (producer_done_ != nullptr) cudaEventDestroy(producer_done_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void PeerCopier::follow(cudaStream_t producer) {
  RINGCOMM_CHECK(cudaEventRecord(producer_done_, producer));
  follows_producer_ = true;
}

void PeerCopier::copy(void* target, const void* source, std::size_t bytes) {
  if (follows_producer_) RINGCOMM_CHECK(cudaStreamWaitEvent(stream_, producer_done_, 0));
  follows_producer_ = false;
  RINGCOMM_CHECK(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDeviceToDevice, stream_));
  RINGCOMM_CHECK(cudaEventRecord(copied_, stream_));
  copying_ = true;
}

bool PeerCopier::idle() const {
  if (!copying_) return true;
  const cudaError_t status = cudaEventQuery(copied_);
  if (status == cudaErrorNotReady) return false;
  backend::check_result(status, RINGCOMM_TRANSPORT_PREFIX, "cudaEventQuery after the copy into the right neighbour's slot");
  return true;
}

}  // namespace ringcomm::cuda_ipc_backend
