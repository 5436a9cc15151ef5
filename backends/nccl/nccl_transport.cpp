// nccl: NCCL grouped send/receive on a stream of the channel's own, ordered with the caller's Kokkos
// stream by events (nccl_channel.cpp); the probe and ringcomm-info's details are in environment.cpp.
#include "environment.hpp"
#include "nccl_channel.hpp"
#include "ringcomm/backend/registration.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::nccl_backend {
namespace {

class NcclTransport final : public Transport {
 public:
  std::string name() const override { return "nccl"; }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.device_memory = true;
    caps.stream_ordered = true;
    return caps;
  }
  std::unique_ptr<Channel> open_channel(const ChannelSpec& spec) override {
    verify_channel_spec(spec, name());
    return nccl_backend::open_channel(spec);
  }
};

}  // namespace
}  // namespace ringcomm::nccl_backend

RINGCOMM_REGISTER_BACKEND(nccl) {
  using namespace ringcomm;
  BackendInfo info;
  info.name = "nccl";
  info.summary = "NCCL grouped send/receive on a stream of its own, ordered with the Kokkos stream by events (GPU builds; one rank per GPU)";
  // Stream-ordered and on NVLink where there is one: the first choice wherever it can run.
  info.auto_preference = 10;
  info.probe = nccl_backend::probe;
  info.create = [](const TransportContext& ctx) -> std::unique_ptr<Transport> {
    const Usability usable = nccl_backend::probe(ctx);
    if (!usable.usable) throw Error("nccl transport: " + usable.reason);
    return std::make_unique<nccl_backend::NcclTransport>();
  };
  info.details = nccl_backend::details;
  registry.add(std::move(info));
}
