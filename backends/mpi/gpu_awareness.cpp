#include "gpu_awareness.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's extensions: MPIX_Query_cuda_support
#endif

#include "ringcomm/settings.hpp"

namespace ringcomm::mpi_backend {

GpuAwareness probe_gpu_awareness() {
  if (const auto forced = settings::env("RINGCOMM_MPI_GPU_AWARE")) {
    const bool aware = settings::parse_choice(*forced, "RINGCOMM_MPI_GPU_AWARE", {"0", "1"}) == "1";
    return {aware, "RINGCOMM_MPI_GPU_AWARE=" + *forced};
  }
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  // The macro describes the headers we compiled against; the library loaded at run time may be a
  // different build, so it is the one asked.
  const bool aware = MPIX_Query_cuda_support() == 1;
  return {aware, std::string("MPIX_Query_cuda_support() returned ") + (aware ? "1" : "0") +
                     " (headers built with MPIX_CUDA_AWARE_SUPPORT=" + std::to_string(MPIX_CUDA_AWARE_SUPPORT) + ")"};
#else
  return {false, "this MPI offers no run-time CUDA query; set RINGCOMM_MPI_GPU_AWARE=1 if it is CUDA-aware"};
#endif
}

}  // namespace ringcomm::mpi_backend
