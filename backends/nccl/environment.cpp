#include "environment.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <exception>

#include "ringcomm/backend/cuda_check.hpp"
#include "ringcomm/backend/cuda_device.hpp"
#include "ringcomm/backend/gpu_placement.hpp"
#include "ringcomm/memory.hpp"

extern char** environ;

namespace ringcomm::nccl_backend {
namespace {

std::string version_text(int code) {
  // NCCL_VERSION(X,Y,Z) is X*10000 + Y*100 + Z since 2.9 (X*1000 + Y*100 + Z before).
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string cuda_version_text(int code) {
  return std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10);
}

std::string gpu_line(int device) {
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess)
    return "GPU " + std::to_string(device) + ": " + cuda_error_text(e);
  char bus_id[32] = {};
  cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device);
  return "GPU " + std::to_string(device) + ": " + prop.name + ", sm_" + std::to_string(prop.major) +
         std::to_string(prop.minor) + ", " + format_bytes(static_cast<double>(prop.totalGlobalMem)) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs, PCI " + bus_id;
}

std::string peer_access_line(int devices) {
  std::string text = "peer access (CUDA P2P between visible GPUs):";
  for (int a = 0; a < devices; ++a)
    for (int b = 0; b < devices; ++b) {
      if (a == b) continue;
      int can = 0;
      cudaDeviceCanAccessPeer(&can, a, b);
      text += " " + std::to_string(a) + "->" + std::to_string(b) + (can ? " yes" : " no");
    }
  return text;
}

std::string nccl_settings_line() {
  std::string text;
  for (char** entry = environ; *entry != nullptr; ++entry)
    if (std::strncmp(*entry, "NCCL_", 5) == 0) text += (text.empty() ? "" : " ") + std::string(*entry);
  return "NCCL settings in the environment: " + (text.empty() ? std::string("none") : text);
}

}  // namespace

namespace {

// What keeps NCCL from running on this rank alone, or an empty string.
std::string local_problem() {
  if (const std::string missing = missing_cuda_device(); !missing.empty()) return missing;
  int version = 0;
  if (const ncclResult_t r = ncclGetVersion(&version); r != ncclSuccess)
    return std::string("the NCCL library does not answer ncclGetVersion: ") + ncclGetErrorString(r);
  if (version / 100 < NCCL_VERSION_CODE / 100)
    return "the NCCL library loaded at run time (" + version_text(version) +
           ") is older than the headers ringcomm was built with (" + version_text(NCCL_VERSION_CODE) +
           "); put the newer libnccl.so.2 first on LD_LIBRARY_PATH";
  return {};
}

// Collective over `world`, like cuda_ipc's probe: NCCL refuses ranks that share a GPU only once the
// channel opens, so the probe looks at where all ranks run and says no to such a placement up front,
// with the same reason on every rank (`auto` then passes nccl over).
Usability probe_placement(MPI_Comm world) {
  LocalGpu mine;
  mine.failure = local_problem();
  if (mine.failure.empty()) mine = local_gpu();
  if (const std::string failures = said_by_ranks(world, mine.failure); !failures.empty())
    return Usability::no(failures);
  const GpuPlacement placement = GpuPlacement::gather(world, mine.identity);
  if (const std::string refusal = placement.one_rank_per_gpu_refusal("NCCL"); !refusal.empty())
    return Usability::no(refusal);
  return Usability::yes();
}

}  // namespace

Usability probe(const TransportContext& ctx) {
  // The same on every rank (it comes from the build), so answering alone keeps the ranks together.
  if (ctx.memory != MemoryKind::device)
    return Usability::no("ring buffers are in host memory: this is a CPU build; build with the cuda preset "
                         "(NCCL moves GPU memory only)");
  try {
    return probe_placement(ctx.world);
  } catch (const std::exception& e) {
    return Usability::no(std::string("nccl: ") + e.what());
  }
}

std::vector<std::string> details(const TransportContext&) {
  std::vector<std::string> lines;
  int nccl = 0;
  lines.push_back("NCCL: library " + (ncclGetVersion(&nccl) == ncclSuccess ? version_text(nccl) : "?") +
                  ", built with headers " + version_text(NCCL_VERSION_CODE));
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  lines.push_back("CUDA: runtime " + cuda_version_text(runtime) + ", driver " +
                  (driver ? cuda_version_text(driver) : std::string("none")));
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess) {
    lines.push_back("GPUs: none (cudaGetDeviceCount: " + cuda_error_text(e) + ")");
    return lines;
  }
  lines.push_back("GPUs visible to this rank: " + std::to_string(devices));
  for (int d = 0; d < devices; ++d) lines.push_back(gpu_line(d));
  if (devices > 1) lines.push_back(peer_access_line(devices));
  lines.push_back(nccl_settings_line());
  return lines;
}

}  // namespace ringcomm::nccl_backend
