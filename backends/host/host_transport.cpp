// host: every message is staged through pinned host memory in chunks and moved by plain MPI, so it
// works with any MPI, CUDA-aware or not. Chunks keep staging memory and MPI counts small and let the
// copies of one chunk overlap the transfer of the next.
#include <climits>

#include "ringcomm/backend/registration.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/settings.hpp"
#include "host_channel.hpp"

namespace ringcomm::host_backend {
namespace {

constexpr const char* kChunkSetting = "RINGCOMM_HOST_CHUNK_BYTES";
constexpr std::size_t kDefaultChunkBytes = std::size_t(4) << 20;

// Collective over `world`: every rank must stage in the same chunks, or their messages would not match.
std::size_t chunk_bytes_setting(MPI_Comm world) {
  const auto text = settings::env(kChunkSetting);
  check_identical(world, {{kChunkSetting, text.value_or("(unset)")}},
                  std::string("the staging chunk size (") + kChunkSetting + ")");
  if (!text) return kDefaultChunkBytes;
  const std::size_t bytes = settings::parse_bytes(*text, kChunkSetting);
  if (bytes == 0 || bytes > static_cast<std::size_t>(INT_MAX))
    throw Error(std::string(kChunkSetting) + "='" + *text + "' is not valid: expected between 1 byte and " +
                format_bytes(static_cast<double>(INT_MAX)) + " (MPI counts are int)");
  return bytes;
}

class HostTransport final : public Transport {
 public:
  HostTransport(MemoryKind memory, std::size_t chunk_bytes) : memory_(memory), chunk_bytes_(chunk_bytes) {}
  std::string name() const override { return "host"; }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.device_memory = memory_ == MemoryKind::device;
    caps.host_staging = true;
    return caps;
  }
  std::unique_ptr<Channel> open_channel(const ChannelSpec& spec) override {
    verify_channel_spec(spec, name());
    return std::make_unique<StagedChannel>(spec, memory_, chunk_bytes_);
  }

 private:
  MemoryKind memory_;
  std::size_t chunk_bytes_;
};

std::vector<std::string> details(const TransportContext&) {
  const auto text = settings::env(kChunkSetting);
  return {std::string("slots: ") + "data memory, staged through pinned host buffers (2 per direction)",
          std::string("chunk: ") + (text ? *text + " (" + kChunkSetting + ")"
                                         : format_bytes(kDefaultChunkBytes) + " (default; " + kChunkSetting + ")")};
}

}  // namespace
}  // namespace ringcomm::host_backend

RINGCOMM_REGISTER_BACKEND(host) {
  using namespace ringcomm;
  BackendInfo info;
  info.name = "host";
  info.summary = "chunked staging through pinned host memory, non-blocking MPI per chunk; any MPI";
  info.auto_preference = 40;
  info.probe = [](const TransportContext&) { return Usability::yes(); };
  info.create = [](const TransportContext& ctx) {
    const std::size_t chunk_bytes = host_backend::chunk_bytes_setting(ctx.world);
    return std::make_unique<host_backend::HostTransport>(ctx.memory, chunk_bytes);
  };
  info.details = host_backend::details;
  registry.add(std::move(info));
}
