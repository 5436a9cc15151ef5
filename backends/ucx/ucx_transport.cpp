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

std::unique_ptr<Transport> create(const TransportContext& ctx) {
  Capabilities caps = Capabilities::for_slots_in(ctx.memory);
  caps.one_sided = true;
  auto context = std::make_shared<const Context>();
  return make_transport(caps, [context, memory = ctx.memory](const ChannelSpec& spec) {
    return open_channel(context, spec, memory);
  });
}

}  // namespace
}  // namespace ringcomm::ucx_backend

RINGCOMM_DECLARE_BACKEND() {
  return {"UCX one-sided puts into slots registered once; device memory with a CUDA-enabled UCX", Preference::one_sided,
          ucx_backend::probe, ucx_backend::create, ucx_backend::details};
}
