#pragma once
// Whether this MPI can be handed device pointers ("CUDA-aware", GPUDirect), and how we know.
#include <string>

namespace ringcomm::mpi_backend {

struct GpuAwareness {
  bool aware = false;
  std::string how;  // e.g. "MPIX_Query_cuda_support() returned 0"
};

// RINGCOMM_MPI_GPU_AWARE=1|0 wins; otherwise the MPI is asked at run time where it can answer.
GpuAwareness probe_gpu_awareness();

}  // namespace ringcomm::mpi_backend
