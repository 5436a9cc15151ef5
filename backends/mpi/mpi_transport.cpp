// mpi: matched send/receive with MPI persistent requests. Device slots are handed to MPI directly,
// which is only correct when the MPI is CUDA-aware ("GPUDirect"); otherwise this backend refuses.
#include "gpu_awareness.hpp"
#include "mpi_channel.hpp"
#include "ringcomm/backend/registration.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::mpi_backend {
namespace {

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MemoryKind memory) : memory_(memory) {}
  std::string name() const override { return "mpi"; }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.device_memory = memory_ == MemoryKind::device;
    return caps;
  }
  std::unique_ptr<Channel> open_channel(const ChannelSpec& spec) override {
    verify_channel_spec(spec, name());
    return mpi_backend::open_channel(spec, memory_);
  }

 private:
  MemoryKind memory_;
};

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

}  // namespace
}  // namespace ringcomm::mpi_backend

RINGCOMM_REGISTER_BACKEND(mpi) {
  using namespace ringcomm;
  BackendInfo info;
  info.name = "mpi";
  info.summary = "MPI persistent send/receive; device pointers only with a CUDA-aware MPI";
  info.auto_preference = 30;
  info.probe = mpi_backend::probe;
  info.create = [](const TransportContext& ctx) { return std::make_unique<mpi_backend::MpiTransport>(ctx.memory); };
  info.details = mpi_backend::details;
  registry.add(std::move(info));
}
