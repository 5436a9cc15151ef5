#include "gpu_placement.hpp"

#include <string>

#include "ringcomm/collective.hpp"
#include "ringcomm/cuda_device.hpp"
#include "ringcomm/gpu_placement.hpp"

namespace ringcomm::nccl_backend {

void require_one_rank_per_gpu(MPI_Comm comm, int device) {
  const GpuIdentity mine = collectively(comm, [&] { return identify_cuda_device(device); });
  const GpuPlacement placement = GpuPlacement::gather(comm, mine);
  const std::string problems = placement.sharing_problems();
  if (problems.empty()) return;
  throw Error(problems + ": NCCL needs one rank per GPU; start one rank per GPU (e.g. mpirun -np " +
                  std::to_string(placement.gpus_in_total()) + ")",
              true);
}

}  // namespace ringcomm::nccl_backend
