#include "gpu_references.hpp"

#include <nccl.h>

#include <cstring>
#include <vector>

#include "communicator.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/backend/cuda_check.hpp"

namespace ringcomm::bench {

CudaBytes::CudaBytes(Where where, std::size_t bytes) : where_(where) {
  if (bytes == 0) return;
  // Touched once, so that no timed copy is the first to fault pages in.
  if (where == Where::device) {
    RINGCOMM_CUDA(cudaMalloc(&data_, bytes));
    RINGCOMM_CUDA(cudaMemset(data_, 1, bytes));
  } else {
    RINGCOMM_CUDA(cudaMallocHost(&data_, bytes));
    std::memset(data_, 1, bytes);
  }
}

CudaBytes::~CudaBytes() {
  if (data_ == nullptr) return;
  if (where_ == Where::device) cudaFree(data_);
  else cudaFreeHost(data_);
}

CudaStream::CudaStream() { RINGCOMM_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
CudaStream::~CudaStream() { cudaStreamDestroy(stream_); }
void CudaStream::synchronize() const { RINGCOMM_CUDA(cudaStreamSynchronize(stream_)); }

RawNcclRing::RawNcclRing(MPI_Comm ring_comm, int right, int left)
    : right_(right),
      left_(left),
      communicator_(std::make_unique<nccl_backend::Communicator>(ring_comm, "ring_bandwidth raw NCCL ring")) {}

RawNcclRing::~RawNcclRing() = default;

void RawNcclRing::resize(std::size_t bytes) {
  bytes_ = bytes;
  for (auto& buffer : buffers_) {
    buffer.reset();
    buffer = std::make_unique<CudaBytes>(CudaBytes::Where::device, bytes);
  }
}

void RawNcclRing::step() {
  const int other = 1 - current_;
  RINGCOMM_CHECK(ncclGroupStart());
  RINGCOMM_CHECK(ncclSend(buffers_[current_]->get(), bytes_, ncclUint8, right_, communicator_->get(), stream_.get()));
  RINGCOMM_CHECK(ncclRecv(buffers_[other]->get(), bytes_, ncclUint8, left_, communicator_->get(), stream_.get()));
  RINGCOMM_CHECK(ncclGroupEnd());
  current_ = other;
}

PeerCopy::PeerCopy(MPI_Comm ring_comm, int right, std::size_t bytes)
    : bytes_(bytes), source_(CudaBytes::Where::device, bytes), target_(CudaBytes::Where::device, bytes) {
  cudaIpcMemHandle_t mine{};
  collectively(ring_comm, [&] { RINGCOMM_CUDA(cudaIpcGetMemHandle(&mine, target_.get())); });
  int size = 0;
  MPI_Comm_size(ring_comm, &size);
  std::vector<cudaIpcMemHandle_t> all(static_cast<std::size_t>(size));
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, ring_comm);
  collectively(ring_comm, [&] {
    RINGCOMM_CUDA(cudaIpcOpenMemHandle(&right_target_, all[static_cast<std::size_t>(right)],
                                       cudaIpcMemLazyEnablePeerAccess));
  });
}

PeerCopy::~PeerCopy() {
  if (right_target_ != nullptr) cudaIpcCloseMemHandle(right_target_);
}

void PeerCopy::step() {
  RINGCOMM_CUDA(cudaMemcpyAsync(right_target_, source_.get(), bytes_, cudaMemcpyDeviceToDevice, stream_.get()));
}

PinnedCopies::PinnedCopies(Direction direction, std::size_t bytes)
    : direction_(direction),
      bytes_(bytes),
      device_down_(CudaBytes::Where::device, direction == Direction::upload ? 0 : bytes),
      host_down_(CudaBytes::Where::pinned_host, direction == Direction::upload ? 0 : bytes),
      device_up_(CudaBytes::Where::device, direction == Direction::download ? 0 : bytes),
      host_up_(CudaBytes::Where::pinned_host, direction == Direction::download ? 0 : bytes) {}

void PinnedCopies::step() {
  if (direction_ != Direction::upload)
    RINGCOMM_CUDA(cudaMemcpyAsync(host_down_.get(), device_down_.get(), bytes_, cudaMemcpyDeviceToHost, down_.get()));
  if (direction_ != Direction::download)
    RINGCOMM_CUDA(cudaMemcpyAsync(device_up_.get(), host_up_.get(), bytes_, cudaMemcpyHostToDevice, up_.get()));
}

void PinnedCopies::drain() const {
  down_.synchronize();
  up_.synchronize();
}

}  // namespace ringcomm::bench
