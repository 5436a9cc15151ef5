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

std::vector<std::string> details(const TransportContext&) {
  const auto text = settings::env(kChunkSetting);
  return {std::string("slots: ") + "data memory, staged through pinned host buffers (2 per direction)",
          std::string("chunk: ") + (text ? *text + " (" + kChunkSetting + ")"
                                         : format_bytes(kDefaultChunkBytes) + " (default; " + kChunkSetting + ")")};
}

std::unique_ptr<Transport> create(const TransportContext& ctx) {
  const std::size_t chunk_bytes = chunk_bytes_setting(ctx.world);
  Capabilities caps = Capabilities::for_slots_in(ctx.memory);
  caps.host_staging = true;
  return make_transport(caps, [memory = ctx.memory, chunk_bytes](const ChannelSpec& spec) {
    return std::make_unique<StagedChannel>(spec, memory, chunk_bytes);
  });
}

}  // namespace
}  // namespace ringcomm::host_backend

RINGCOMM_DECLARE_BACKEND() {
  return {"chunked staging through pinned host memory, non-blocking MPI per chunk; any MPI", Preference::staged,
          [](const TransportContext&) { return Usability::yes(); }, host_backend::create, host_backend::details};
}
