#pragma once
// Which GPU every rank of a communicator drives, and what in that arrangement breaks transports that
// need a GPU of their own per rank (NCCL refuses to start, CUDA IPC cannot map memory of the device
// it runs on). Core knows no CUDA: each rank names its own GPU (cuda_device.hpp does that with the
// CUDA runtime), and this gathers the names and judges them.
#include <mpi.h>

#include <string>
#include <vector>

namespace ringcomm {

// One rank's GPU as that rank sees it.
struct GpuIdentity {
  std::string bus_id;    // PCI bus id: unlike device ordinals, the same in every process of a host
  int visible_gpus = 0;  // how many GPUs the rank can see (a launcher may hide the others)
};

// This rank's GPU as a GPU transport's probe finds it (cuda_device.hpp's local_gpu()), or why it has
// none.
struct LocalGpu {
  int device = -1;       // CUDA ordinal in this process
  GpuIdentity identity;  // empty bus id when the rank has no GPU
  std::string failure;   // empty when the rank has a GPU
};

// Collective over `comm`: "rank 1: …; rank 3: …" for the ranks that pass a non-empty `mine`, the same
// on every rank; empty when none does. Probes use it so that every rank answers alike.
std::string said_by_ranks(MPI_Comm comm, const std::string& mine);

struct RankGpu {
  int world_rank = -1;  // users know ranks by their MPI_COMM_WORLD number
  std::string host;     // MPI_Get_processor_name
  GpuIdentity gpu;
};

class GpuPlacement {
 public:
  // Collective over `comm`: every rank ends up with every rank's GPU, in the order of `comm`.
  static GpuPlacement gather(MPI_Comm comm, const GpuIdentity& mine);

  const std::vector<RankGpu>& ranks() const { return ranks_; }

  // Empty when every rank has a GPU to itself. Otherwise each pair or group of ranks on one GPU
  // ("ranks 0 and 2 share GPU 0000:1B:00.0 on node7") and, for the hosts among them that run more
  // ranks than they have GPUs, that too ("host node7 runs 3 ranks but has only 2 GPUs"), joined by
  // "; ". Identical on every rank, so a caller can throw it as a collective Error.
  std::string sharing_problems() const;

  // Empty when every rank has a GPU to itself; otherwise sharing_problems() and what `transport`
  // needs instead: "ranks 0 and 1 share GPU …: nccl needs one rank per GPU; start one rank per GPU
  // (e.g. mpirun -np 1)". The same on every rank.
  std::string one_rank_per_gpu_refusal(const std::string& transport) const;

  // At least how many GPUs the hosts have between them, i.e. how many ranks could each have their
  // own: for advice such as "mpirun -np N".
  int gpus_in_total() const;

 private:
  std::vector<RankGpu> ranks_;
};

}  // namespace ringcomm
