// mpi: matched send/receive with MPI persistent requests. Device slots are handed to MPI directly,
// which is only correct when the MPI is CUDA-aware ("GPUDirect"); otherwise this backend refuses.
#include "gpu_awareness.hpp"
#include "mpi_channel.hpp"
#include "ringcomm/backend/registration.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::mpi_backend {
namespace {

Usability probe(const TransportContext& ctx) {
  if (ctx.memory != MemoryKind::device) return Usability::yes();
  const GpuAwareness gpu = probe_gpu_awareness();
  if (gpu.aware) return Usability::yes();
  return Usability::no("ring buffers are in device memory and this MPI is not CUDA-aware (" + gpu.how +
                       "); use RINGCOMM_TRANSPORT=host (staged through pinned host memory) or ucx");
}

std::vector<std::string> details(const TransportContext&) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string library(version);  // Open MPI counts the terminating NUL in `length`
  (void)length;
  if (const auto newline = library.find('\n'); newline != std::string::npos) library.resize(newline);
  const GpuAwareness gpu = probe_gpu_awareness();
  return {"library: " + library, std::string("CUDA-aware: ") + (gpu.aware ? "yes" : "no") + " (" + gpu.how + ")"};
}

std::unique_ptr<Transport> create(const TransportContext& ctx) {
  return make_transport(Capabilities::for_slots_in(ctx.memory),
                        [memory = ctx.memory](const ChannelSpec& spec) { return open_channel(spec, memory); });
}

}  // namespace
}  // namespace ringcomm::mpi_backend

RINGCOMM_DECLARE_BACKEND() {
  return {"MPI persistent send/receive; device pointers only with a CUDA-aware MPI", Preference::two_sided,
          mpi_backend::probe, mpi_backend::create, mpi_backend::details};
}
