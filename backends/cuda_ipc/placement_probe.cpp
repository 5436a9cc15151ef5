#include "placement_probe.hpp"

#include <cuda_runtime_api.h>

#include <exception>

#include "ringcomm/collective.hpp"
#include "ringcomm/backend/cuda_device.hpp"
#include "ringcomm/backend/gpu_placement.hpp"
#include "ringcomm/memory.hpp"

namespace ringcomm::cuda_ipc_backend {

const char* const kHostMemoryReason =
    "cuda_ipc moves device memory only, and this build keeps ring buffers in host memory (a CPU build; "
    "build with the cuda preset)";

namespace {

// How many nodes the ranks of `world` run on, as MPI sees it (ranks that can share memory).
int nodes_spanned(MPI_Comm world) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int leaders = comm_rank(node) == 0 ? 1 : 0;
  MPI_Comm_free(&node);
  bounded("MPI_Iallreduce", world,
          [&](MPI_Request* r) { return MPI_Iallreduce(MPI_IN_PLACE, &leaders, 1, MPI_INT, MPI_SUM, world, r); });
  return leaders;
}

// The GPUs of other ranks that this rank's GPU cannot write to directly (its own, which other ranks
// may share, it can). A GPU this process cannot see (CUDA_VISIBLE_DEVICES) cannot be asked about;
// CUDA IPC may reach it all the same, and a mapping that fails says so when the channel opens.
std::string unreachable_gpus(const LocalGpu& mine, const GpuPlacement& placement) {
  std::string problems;
  for (const RankGpu& other : placement.ranks()) {
    if (other.gpu.bus_id == mine.identity.bus_id) continue;
    int ordinal = -1;
    if (cudaDeviceGetByPCIBusId(&ordinal, other.gpu.bus_id.c_str()) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    int reachable = 0;
    if (cudaDeviceCanAccessPeer(&reachable, mine.device, ordinal) != cudaSuccess) cudaGetLastError();
    if (!reachable)
      problems += (problems.empty() ? "" : ", ") + std::string("GPU ") + mine.identity.bus_id +
                  " has no peer access to GPU " + other.gpu.bus_id + " of rank " + std::to_string(other.world_rank);
  }
  return problems;
}

// Collective over `world`; see probe().
Usability probe_gpus(MPI_Comm world) {
  const LocalGpu mine = local_gpu();
  const int nodes = nodes_spanned(world);
  if (nodes > 1)
    return Usability::no("cuda_ipc reaches the GPUs of one node only, and these ranks run on " + std::to_string(nodes) +
                         " nodes; use nccl or ucx across nodes");
  if (const std::string failures = said_by_ranks(world, mine.failure); !failures.empty())
    return Usability::no(failures);
  const GpuPlacement placement = GpuPlacement::gather(world, mine.identity);
  // Ranks sharing a GPU (several walkers per GPU, CUDA MPS) are fine: another process' allocation on
  // the same device maps through CUDA IPC like one on another device, and the copy stays on that GPU.
  if (const std::string unreachable = said_by_ranks(world, unreachable_gpus(mine, placement)); !unreachable.empty())
    return Usability::no(unreachable +
                         "; cuda_ipc copies straight from GPU to GPU, which needs peer access (NVLink or PCIe "
                         "peer-to-peer) between every pair; use nccl or ucx");
  return Usability::yes();
}

}  // namespace

Usability probe(const TransportContext& ctx) {
  // The same on every rank (it comes from the build), so answering alone keeps the ranks together.
  if (ctx.memory != MemoryKind::device) return Usability::no(kHostMemoryReason);
  try {
    return probe_gpus(ctx.world);
  } catch (const std::exception& e) {
    return Usability::no(std::string("cuda_ipc: ") + e.what());
  }
}

std::vector<std::string> details(const TransportContext& ctx) {
  std::vector<std::string> lines = {
      "each step: one cudaMemcpyAsync (copy engine) from this rank's slot into the right neighbour's, mapped "
      "through CUDA IPC; credits and arrival notices over MPI"};
  if (ctx.memory != MemoryKind::device) return lines;
  const LocalGpu gpu = local_gpu();
  lines.push_back(gpu.failure.empty() ? "this rank's GPU: CUDA device " + std::to_string(gpu.device) + ", PCI " +
                                            gpu.identity.bus_id
                                      : "this rank's GPU: none (" + gpu.failure + ")");
  return lines;
}

}  // namespace ringcomm::cuda_ipc_backend
