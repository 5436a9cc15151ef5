// The asynchronous copier for device slots (CUDA builds only; see staging_copier.hpp).
//
// Downloads and uploads each run on their own non-blocking stream, so the download of chunk c+1, the
// upload of chunk c−1 and the MPI transfer of chunk c proceed together; one event per lane and
// direction tells the channel when a staging buffer has landed or may be reused. Staging buffers must
// be page-locked: a pageable one would make cudaMemcpyAsync copy synchronously through a driver
// bounce buffer, so that is refused.
#include <vector>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/backend/cuda_check.hpp"
#include "ringcomm/watchdog.hpp"
#include "staging_copier.hpp"

namespace ringcomm::host_backend {
namespace {

class CopyQueue {
 public:
  CopyQueue(int lanes, cudaMemcpyKind kind, double timeout_seconds)
      : kind_(kind), timeout_seconds_(timeout_seconds), events_(lanes, nullptr), checked_(lanes, false) {}
  CopyQueue(const CopyQueue&) = delete;
  CopyQueue& operator=(const CopyQueue&) = delete;

  ~CopyQueue() {
    if (stream_ == nullptr) return;
    cudaStreamSynchronize(stream_);
    for (cudaEvent_t event : events_) cudaEventDestroy(event);
    cudaStreamDestroy(stream_);
  }

  void start(int lane, void* dst, const void* src, std::size_t bytes, const void* device_side,
             const void* host_side) {
    if (stream_ == nullptr) create_on_device_of(device_side);
    if (!checked_[lane]) {
      require_pinned(host_side);
      checked_[lane] = true;
    }
    RINGCOMM_CHECK(cudaMemcpyAsync(dst, src, bytes, kind_, stream_));
    RINGCOMM_CHECK(cudaEventRecord(events_[lane], stream_));
  }

  void wait(int lane) {
    if (stream_ == nullptr) return;
    wait_until(
        [&] {
          const cudaError_t status = cudaEventQuery(events_[lane]);
          if (status == cudaErrorNotReady) return false;
          backend::check_result(status, RINGCOMM_TRANSPORT_PREFIX, "cudaEventQuery");
          return true;
        },
        timeout_seconds_,
        [&] {
          Stall stall;
          stall.transport = RINGCOMM_BACKEND_STRING;
          stall.waiting_for = kind_ == cudaMemcpyDeviceToHost ? "a copy from a GPU slot to host staging"
                                                              : "a copy from host staging to a GPU slot";
          return stall;
        });
  }

 private:
  // The stream must belong to the slots' GPU, which the creating thread need not have selected.
  void create_on_device_of(const void* device_pointer) {
    cudaPointerAttributes attributes{};
    RINGCOMM_CHECK(cudaPointerGetAttributes(&attributes, device_pointer));
    int previous = 0;
    RINGCOMM_CHECK(cudaGetDevice(&previous));
    RINGCOMM_CHECK(cudaSetDevice(attributes.device));
    RINGCOMM_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (cudaEvent_t& event : events_) RINGCOMM_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    RINGCOMM_CHECK(cudaSetDevice(previous));
  }

  static void require_pinned(const void* host_pointer) {
    cudaPointerAttributes attributes{};
    RINGCOMM_CHECK(cudaPointerGetAttributes(&attributes, host_pointer));
    if (attributes.type != cudaMemoryTypeHost)
      throw Error(RINGCOMM_TRANSPORT_PREFIX "a staging buffer is not page-locked host memory; asynchronous copies "
                  "from it would silently become synchronous");
  }

  cudaMemcpyKind kind_;
  double timeout_seconds_;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> events_;
  std::vector<bool> checked_;
};

class CudaCopier final : public StagingCopier {
 public:
  CudaCopier(int lanes, double timeout_seconds)
      : downloads_(lanes, cudaMemcpyDeviceToHost, timeout_seconds), uploads_(lanes, cudaMemcpyHostToDevice, timeout_seconds) {}

  void start_download(int lane, void* staging, const void* slot, std::size_t bytes) override {
    downloads_.start(lane, staging, slot, bytes, slot, staging);
  }
  void wait_download(int lane) override { downloads_.wait(lane); }

  void start_upload(int lane, void* slot, const void* staging, std::size_t bytes) override {
    uploads_.start(lane, slot, staging, bytes, slot, staging);
  }
  void wait_upload(int lane) override { uploads_.wait(lane); }

 private:
  CopyQueue downloads_;
  CopyQueue uploads_;
};

}  // namespace

std::unique_ptr<StagingCopier> make_cuda_copier(int lanes, double timeout_seconds) {
  return std::make_unique<CudaCopier>(lanes, timeout_seconds);
}

}  // namespace ringcomm::host_backend
