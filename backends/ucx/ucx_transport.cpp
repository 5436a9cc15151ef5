// ucx: one-sided puts with UCX (libucp) into slots registered once at setup. On a CUDA build the
// slots stay in device memory and UCX moves them itself (cuda_ipc between GPUs of a node), which
// needs a UCX built with CUDA support.
#include <memory>

#include "ringcomm/backend/registration.hpp"
#include "ringcomm/error.hpp"
#include "ucx_channel.hpp"
#include "ucx_context.hpp"

namespace ringcomm::ucx_backend {
namespace {

class UcxTransport final : public Transport {
 public:
  explicit UcxTransport(MemoryKind memory) : memory_(memory), context_(std::make_shared<const Context>()) {}
  std::string name() const override { return "ucx"; }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.one_sided = true;
    caps.device_memory = memory_ == MemoryKind::device;
    return caps;
  }
  std::unique_ptr<Channel> open_channel(const ChannelSpec& spec) override {
    verify_channel_spec(spec, name());
    return ucx_backend::open_channel(context_, spec, memory_);
  }

 private:
  MemoryKind memory_;
  std::shared_ptr<const Context> context_;
};

// What one trial start of UCP found; taken once per process, as starting UCP loads its transports.
struct LocalUcx {
  bool started = false;
  std::string failure;
  std::string memory_types;
  bool moves_device_memory = false;
  std::vector<std::string> resources;
};

const LocalUcx& local_ucx() {
  static const LocalUcx found = [] {
    LocalUcx ucx;
    try {
      const Context context;
      ucx.started = true;
      ucx.memory_types = context.memory_types();
      const ucs_memory_type_t device_type = memory_type_of(MemoryKind::device);
      ucx.moves_device_memory = device_type != UCS_MEMORY_TYPE_UNKNOWN && context.supports(device_type);
      ucx.resources = context.resources();
    } catch (const Error& e) {
      ucx.failure = e.what();
    }
    return ucx;
  }();
  return found;
}

Usability probe(const TransportContext& ctx) {
  const LocalUcx& ucx = local_ucx();
  if (!ucx.started) return Usability::no(ucx.failure);
  if (ctx.memory == MemoryKind::device && !ucx.moves_device_memory)
    return Usability::no("this UCX has no CUDA memory support (it moves: " + ucx.memory_types +
                         "); use a CUDA-enabled UCX (e.g. PyPI libucx-cu13) or RINGCOMM_TRANSPORT=host");
  return Usability::yes();
}

std::vector<std::string> details(const TransportContext&) {
  std::vector<std::string> lines = {std::string("UCX version: ") + ucp_get_version_string()};
  const LocalUcx& ucx = local_ucx();
  if (!ucx.started) {
    lines.push_back("UCP does not start: " + ucx.failure);
    return lines;
  }
  lines.push_back("memory types: " + ucx.memory_types);
  std::string resources;
  for (const auto& r : ucx.resources) resources += (resources.empty() ? "" : ", ") + r;
  lines.push_back("transports: " + (resources.empty() ? std::string("unknown") : resources));
  return lines;
}

}  // namespace
}  // namespace ringcomm::ucx_backend

RINGCOMM_REGISTER_BACKEND(ucx) {
  using namespace ringcomm;
  BackendInfo info;
  info.name = "ucx";
  info.summary = "UCX one-sided puts into slots registered once; device memory with a CUDA-enabled UCX";
  info.auto_preference = 20;
  info.probe = ucx_backend::probe;
  info.create = [](const TransportContext& ctx) { return std::make_unique<ucx_backend::UcxTransport>(ctx.memory); };
  info.details = ucx_backend::details;
  registry.add(std::move(info));
}
