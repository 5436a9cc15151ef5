#pragma once
// The CUDA device a rank drives: which physical GPU it is, and making it current for a while.
// Header-only like cuda_check.hpp, so that only files compiled against cuda_runtime_api.h pay for it.
#include <cuda_runtime_api.h>

#include <exception>
#include <string>

#include "ringcomm/backend/cuda_check.hpp"
#include "ringcomm/backend/gpu_placement.hpp"
#include "ringcomm/memory.hpp"

namespace ringcomm {

// Why this process has no CUDA device to run on, or an empty string when it has one.
inline std::string missing_cuda_device() {
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess)
    return "no CUDA device (cudaGetDeviceCount: " + cuda_error_text(e) + ")";
  if (devices == 0) return "no CUDA device (cudaGetDeviceCount found none)";
  return {};
}

// `device` (an ordinal of this process) as other processes can recognise it.
inline GpuIdentity identify_cuda_device(int device) {
  GpuIdentity gpu;
  char bus_id[32] = {};
  RINGCOMM_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  gpu.bus_id = bus_id;
  RINGCOMM_CUDA(cudaGetDeviceCount(&gpu.visible_gpus));
  return gpu;
}

// The GPU of this rank's data memory (the device Kokkos chose), or why there is none. Never throws. A
// failed runtime call is also remembered as the thread's last error, which Kokkos may check later and
// blame on its own work, so it is cleared here.
inline LocalGpu local_gpu() {
  LocalGpu gpu;
  try {
    gpu.failure = missing_cuda_device();
    if (gpu.failure.empty()) {
      if ((gpu.device = data_memory_device()) < 0)
        gpu.failure = "Kokkos has not chosen a CUDA device (is Kokkos initialised?)";
      else
        gpu.identity = identify_cuda_device(gpu.device);
    }
  } catch (const std::exception& e) {
    gpu.failure = e.what();
  }
  if (!gpu.failure.empty()) cudaGetLastError();
  return gpu;
}

// The current device is a per-thread setting that a thread which never chose one leaves at 0, while
// streams, events and IPC mappings belong to the device that was current when they were made. This
// makes `device` current for one scope and puts the thread's own choice back afterwards.
class ScopedCudaDevice {
 public:
  explicit ScopedCudaDevice(int device) {
    int current = 0;
    RINGCOMM_CUDA(cudaGetDevice(&current));
    if (current == device) return;
    RINGCOMM_CUDA(cudaSetDevice(device));
    restore_ = current;
  }
  ~ScopedCudaDevice() {
    if (restore_ >= 0) cudaSetDevice(restore_);
  }
  ScopedCudaDevice(const ScopedCudaDevice&) = delete;
  ScopedCudaDevice& operator=(const ScopedCudaDevice&) = delete;

 private:
  int restore_ = -1;  // -1: the device was current already
};

}  // namespace ringcomm
