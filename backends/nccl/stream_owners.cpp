#include "stream_owners.hpp"

#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "ringcomm/error.hpp"

namespace ringcomm::nccl_backend {
namespace {

struct Claims {
  std::mutex mutex;
  std::map<std::pair<cudaStream_t, const void*>, std::thread::id> owner;  // (stream, channel) -> thread
};

Claims& claims() {
  static Claims* instance = new Claims();  // never destroyed: channels may outlive static destruction
  return *instance;
}

}  // namespace

void claim_stream(cudaStream_t stream, const void* channel) {
  const std::thread::id me = std::this_thread::get_id();
  Claims& c = claims();
  const std::lock_guard<std::mutex> lock(c.mutex);
  for (auto it = c.owner.lower_bound({stream, nullptr}); it != c.owner.end() && it->first.first == stream; ++it)
    if (it->first.second != channel && it->second != me)
      throw Error("nccl transport: channels of two threads exchange on the same CUDA stream, which can hang "
                  "(their exchanges may queue in a different order on each rank); give each thread its own "
                  "Kokkos execution space instance and pass it to Ring::circulate");
  c.owner[{stream, channel}] = me;
}

void release_streams(const void* channel) {
  Claims& c = claims();
  const std::lock_guard<std::mutex> lock(c.mutex);
  for (auto it = c.owner.begin(); it != c.owner.end();)
    it = it->first.second == channel ? c.owner.erase(it) : std::next(it);
}

}  // namespace ringcomm::nccl_backend
