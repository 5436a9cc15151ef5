// Shows, without ringcomm or Kokkos, why ucp_mem_map of CUDA memory failed for the ucx transport's
// slots (issue #12), and why registrations must not be cached either. Build and run on a GPU machine
// with the CUDA-enabled UCX (nvcc links the static CUDA runtime, as Kokkos' builds do):
//
//   nvcc -std=c++17 -I$UCX/include scripts/gpu/ucx_registration_repro.cpp -Xlinker $UCX/lib/libucp.so.0 \
//        -Xlinker $UCX/lib/libucs.so.0 -Xlinker $UCX/lib/libucm.so.0 -o ucx_registration_repro
//   ./ucx_registration_repro            # UCX's defaults
//   ./ucx_registration_repro exact      # MEMTYPE_REG_WHOLE_ALLOC_TYPES="": each buffer registered as itself
//   ./ucx_registration_repro uncached   # that and RCACHE_ENABLE=n, as backends/ucx sets them
//
// Part 1 allocates buffers of growing size (the first is CUDA's first allocation in the process) and
// registers each; it prints whether UCM reported the cudaMalloc to its listeners (the only way UCX's
// memory-type cache learns about allocations made after it was created) and what ucp_mem_map said.
// Part 2 registers a 64 MiB buffer, unregisters and frees it, allocates another of the same size
// (CUDA usually hands out the same addresses) and registers that: the packed remote keys of the two
// are compared. Equal keys mean that UCX handed out the freed buffer's registration, whose CUDA IPC
// handle a peer would map instead of the new buffer.
#include <cuda_runtime_api.h>
#include <ucm/api/ucm.h>
#include <ucp/api/ucp.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

int cuda_alloc_events = 0;

void count_event(ucm_event_type_t, ucm_event_t* event, void*) {
  if (event->mem_type.mem_type == UCS_MEMORY_TYPE_CUDA) ++cuda_alloc_events;
}

ucs_status_t map(ucp_context_h context, void* address, size_t bytes, ucp_mem_h* memh) {
  ucp_mem_map_params_t params{};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                      UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
  params.address = address;
  params.length = bytes;
  params.memory_type = UCS_MEMORY_TYPE_CUDA;
  return ucp_mem_map(context, &params, memh);
}

}  // namespace

std::string packed_key(ucp_context_h context, ucp_mem_h memh) {
  void* buffer = nullptr;
  size_t length = 0;
  if (ucp_rkey_pack(context, memh, &buffer, &length) != UCS_OK) return {};
  std::string key(static_cast<const char*>(buffer), length);
  ucp_rkey_buffer_release(buffer);
  return key;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "defaults";
  ucp_config_t* config = nullptr;
  if (ucp_config_read(nullptr, nullptr, &config) != UCS_OK) return 2;
  if (mode == "exact" || mode == "uncached") {
    const ucs_status_t s = ucp_config_modify(config, "MEMTYPE_REG_WHOLE_ALLOC_TYPES", "");
    std::printf("ucp_config_modify(MEMTYPE_REG_WHOLE_ALLOC_TYPES, \"\"): %s\n", ucs_status_string(s));
  }
  if (mode == "uncached") {
    const ucs_status_t s = ucp_config_modify(config, "RCACHE_ENABLE", "n");
    std::printf("ucp_config_modify(RCACHE_ENABLE, n): %s\n", ucs_status_string(s));
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_RMA;
  ucp_context_h context = nullptr;
  if (ucp_init(&params, config, &context) != UCS_OK) return 2;
  ucp_config_release(config);
  const ucs_status_t hooked = ucm_set_event_handler(UCM_EVENT_MEM_TYPE_ALLOC, 0, count_event, nullptr);
  std::printf("UCX %s, mode %s; UCM mem-type event handler: %s\n", ucp_get_version_string(), mode.c_str(),
              ucs_status_string(hooked));

  void* first = nullptr;
  if (cudaMalloc(&first, 1 << 20) != cudaSuccess) return 2;
  ucp_mem_h first_memh = nullptr;
  std::printf("first 1 MiB buffer (CUDA's first allocation in this process): %s\n",
              ucs_status_string(map(context, first, 1 << 20, &first_memh)));

  int failures = 0;
  for (const size_t mib : std::vector<size_t>{1, 2, 4, 6, 8, 16, 64, 162, 256}) {
    const size_t bytes = mib << 20;
    const int events_before = cuda_alloc_events;
    void* buffer = nullptr;
    if (cudaMalloc(&buffer, bytes) != cudaSuccess) return 2;
    const int events = cuda_alloc_events - events_before;
    ucp_mem_h memh = nullptr;
    const ucs_status_t status = map(context, buffer, bytes, &memh);
    std::printf("%4zu MiB at %p: UCM saw %d cudaMalloc event(s); ucp_mem_map: %s\n", mib, buffer, events,
                ucs_status_string(status));
    std::fflush(stdout);
    if (status == UCS_OK) ucp_mem_unmap(context, memh);
    else ++failures;
    // Kept allocated, as a ring's slots are, so that every buffer takes fresh address space.
  }
  std::printf("part 1: %d of 9 registrations failed\n", failures);

  constexpr size_t kBytes = size_t(64) << 20;
  void* old_buffer = nullptr;
  ucp_mem_h old_memh = nullptr;
  if (cudaMalloc(&old_buffer, kBytes) != cudaSuccess) return 2;
  if (map(context, old_buffer, kBytes, &old_memh) == UCS_OK) {
    const std::string old_key = packed_key(context, old_memh);
    ucp_mem_unmap(context, old_memh);
    cudaFree(old_buffer);
    void* new_buffer = nullptr;
    ucp_mem_h new_memh = nullptr;
    if (cudaMalloc(&new_buffer, kBytes) != cudaSuccess) return 2;
    if (map(context, new_buffer, kBytes, &new_memh) == UCS_OK) {
      const bool stale = packed_key(context, new_memh) == old_key;
      std::printf("part 2: freed buffer at %p, new one at %p; remote keys %s\n", old_buffer, new_buffer,
                  stale ? "EQUAL: the new buffer got the freed one's registration" : "differ (a fresh registration)");
      failures += stale ? 1 : 0;
      ucp_mem_unmap(context, new_memh);
    } else {
      std::printf("part 2: registering the new buffer failed\n");
    }
  } else {
    std::printf("part 2: registering a 64 MiB buffer failed\n");
    ++failures;
  }
  if (first_memh != nullptr) ucp_mem_unmap(context, first_memh);
  ucp_cleanup(context);
  return failures == 0 ? 0 : 1;
}
