#include "gpu_placement.hpp"

#include <string>

#include "ringcomm/collective.hpp"
#include "ringcomm/cuda_device.hpp"
#include "ringcomm/gpu_placement.hpp"

namespace ringcomm::nccl_backend {

void require_one_rank_per_gpu(MPI_Comm comm, int device) {
  const GpuIdentity mine = collectively(comm, [&] { return identify_cuda_device(device); });
  const GpuPlacement placement = GpuPlacement::gather(comm, mine);
  if (const std::string refusal = placement.one_rank_per_gpu_refusal("NCCL"); !refusal.empty())
    throw Error(refusal, true);
}

}  // namespace ringcomm::nccl_backend
