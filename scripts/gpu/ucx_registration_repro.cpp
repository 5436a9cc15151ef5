// Shows, without ringcomm or Kokkos, why ucp_mem_map of CUDA memory failed for the ucx transport's
// slots (issue #12) and that turning whole-allocation registration off cures it. Build and run on a
// GPU machine with the CUDA-enabled UCX (nvcc links the static CUDA runtime, as Kokkos' builds do):
//
//   nvcc -std=c++17 -I$UCX/include scripts/gpu/ucx_registration_repro.cpp -Xlinker $UCX/lib/libucp.so.0 \
//        -Xlinker $UCX/lib/libucs.so.0 -Xlinker $UCX/lib/libucm.so.0 -o ucx_registration_repro
//   ./ucx_registration_repro            # UCX's defaults
//   ./ucx_registration_repro fixed      # MEMTYPE_REG_WHOLE_ALLOC_TYPES="" as backends/ucx sets it
//
// One buffer is allocated and registered first (that creates UCX's memory-type cache, which scans
// /proc/self/maps for CUDA mappings once); then buffers of growing size are allocated and registered
// one at a time. For each it prints whether UCM reported the cudaMalloc to its listeners (the only
// way the cache learns about later allocations) and what ucp_mem_map answered.
#include <cuda_runtime_api.h>
#include <ucm/api/ucm.h>
#include <ucp/api/ucp.h>

#include <cstdio>
#include <cstring>
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

int main(int argc, char** argv) {
  const bool fixed = argc > 1 && std::strcmp(argv[1], "fixed") == 0;
  ucp_config_t* config = nullptr;
  if (ucp_config_read(nullptr, nullptr, &config) != UCS_OK) return 2;
  if (fixed) {
    const ucs_status_t s = ucp_config_modify(config, "MEMTYPE_REG_WHOLE_ALLOC_TYPES", "");
    std::printf("ucp_config_modify(MEMTYPE_REG_WHOLE_ALLOC_TYPES, \"\"): %s\n", ucs_status_string(s));
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_RMA;
  ucp_context_h context = nullptr;
  if (ucp_init(&params, config, &context) != UCS_OK) return 2;
  ucp_config_release(config);
  const ucs_status_t hooked = ucm_set_event_handler(UCM_EVENT_MEM_TYPE_ALLOC, 0, count_event, nullptr);
  std::printf("UCX %s, %s; UCM mem-type event handler: %s\n", ucp_get_version_string(),
              fixed ? "whole-allocation registration off" : "UCX defaults", ucs_status_string(hooked));

  void* first = nullptr;
  if (cudaMalloc(&first, 1 << 20) != cudaSuccess) return 2;
  ucp_mem_h first_memh = nullptr;
  std::printf("first 1 MiB buffer (allocated before the memory-type cache exists): %s\n",
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
  if (first_memh != nullptr) ucp_mem_unmap(context, first_memh);
  ucp_cleanup(context);
  std::printf("%d of 9 registrations failed\n", failures);
  return failures == 0 ? 0 : 1;
}
