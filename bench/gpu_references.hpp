#pragma once
// The yardsticks ring_bandwidth holds the transports against, written directly against CUDA and NCCL
// (not through ringcomm's transports) so that they measure the hardware and the library alone.
// Each is a step that only enqueues work and a drain that waits for it.
#include <cuda_runtime_api.h>
#include <mpi.h>

#include <cstddef>
#include <memory>

namespace ringcomm::nccl_backend {
class Communicator;
}

namespace ringcomm::bench {

// cudaMalloc'd or cudaMallocHost'd bytes.
class CudaBytes {
 public:
  enum class Where { device, pinned_host };
  CudaBytes(Where where, std::size_t bytes);
  ~CudaBytes();
  CudaBytes(const CudaBytes&) = delete;
  CudaBytes& operator=(const CudaBytes&) = delete;
  void* get() const { return data_; }

 private:
  Where where_;
  void* data_ = nullptr;
};

// A private non-blocking stream on the current device.
class CudaStream {
 public:
  CudaStream();
  ~CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

// The baseline: a ring step as one grouped ncclSend to the right and ncclRecv from the left, the two
// buffers swapping roles each step. One communicator serves every size.
class RawNcclRing {
 public:
  // Collective over `ring_comm`.
  RawNcclRing(MPI_Comm ring_comm, int right, int left);
  ~RawNcclRing();
  void resize(std::size_t bytes);
  void step();
  void drain() const { stream_.synchronize(); }

 private:
  int right_, left_;
  std::unique_ptr<nccl_backend::Communicator> communicator_;
  CudaStream stream_;
  std::size_t bytes_ = 0;
  std::unique_ptr<CudaBytes> buffers_[2];
  int current_ = 0;
};

// The copy-engine ceiling between GPUs: cudaMemcpyAsync from a local buffer straight into the right
// neighbour's buffer, opened through CUDA IPC. Copies are issued back to back with no handshake, so
// this is what the link and copy engines give, not a usable ring protocol.
class PeerCopy {
 public:
  // Collective over `ring_comm`.
  PeerCopy(MPI_Comm ring_comm, int right, std::size_t bytes);
  ~PeerCopy();
  void step();
  void drain() const { stream_.synchronize(); }

 private:
  std::size_t bytes_;
  CudaBytes source_;
  CudaBytes target_;  // the left neighbour writes here
  void* right_target_ = nullptr;
  CudaStream stream_;
};

// Pinned PCIe copies of one GPU: device to host, host to device, or both at once on two streams.
class PinnedCopies {
 public:
  enum class Direction { download, upload, both };
  PinnedCopies(Direction direction, std::size_t bytes);
  void step();
  void drain() const;

 private:
  Direction direction_;
  std::size_t bytes_;
  CudaBytes device_down_, host_down_, device_up_, host_up_;
  CudaStream down_, up_;
};

}  // namespace ringcomm::bench
