#include "ucx_context.hpp"

#include <Kokkos_Macros.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "ucx_status.hpp"

namespace ringcomm::ucx_backend {

namespace {

struct ConfigDeleter {
  void operator()(ucp_config_t* config) const { ucp_config_release(config); }
};

const char* memory_type_name(unsigned type) {
  switch (type) {
    case UCS_MEMORY_TYPE_HOST: return "host";
    case UCS_MEMORY_TYPE_CUDA: return "cuda";
    case UCS_MEMORY_TYPE_CUDA_MANAGED: return "cuda-managed";
    case UCS_MEMORY_TYPE_ROCM: return "rocm";
    case UCS_MEMORY_TYPE_ROCM_MANAGED: return "rocm-managed";
  }
  return "other";
}

// UCX (1.15 and later, 1.22 included) registers GPU memory as a whole cudaMalloc allocation
// (UCX_MEMTYPE_REG_WHOLE_ALLOC_TYPES=cuda) and takes the allocation's bounds from its memory-type
// cache. That cache learns about allocations from UCM's hooks on cudaMalloc/cuMemAlloc, and from
// the CUDA mappings in /proc/self/maps when it is created. Kokkos calls cudaMalloc through the
// static CUDA runtime, which the hooks do not see, so memory allocated after the cache was created
// (a channel's second slot; any slot from 8 MiB on, which gets address space of its own) is not in
// it. ucp_mem_map then takes the lookup's "host memory, base 0, length -1" as the allocation's
// bounds although we told it the memory is CUDA, and its registration cache is asked for the region
// [0x0..0x0]: "rcache.c: failed to insert region … [0x0..0x0]: Invalid parameter".
// Each slot is one allocation registered once, so registering exactly the slot loses nothing: this
// turns whole-allocation registration off for ringcomm's context only, unless the user set
// UCX_MEMTYPE_REG_WHOLE_ALLOC_TYPES (then that is what UCX gets). UCX versions without the setting
// answer UCS_ERR_NO_ELEM and never had the problem. docs/troubleshooting.md has the story.
void register_slots_not_whole_allocations(ucp_config_t* config) {
  if (std::getenv("UCX_MEMTYPE_REG_WHOLE_ALLOC_TYPES") != nullptr) return;
  const ucs_status_t status = ucp_config_modify(config, "MEMTYPE_REG_WHOLE_ALLOC_TYPES", "");
  if (status != UCS_OK && status != UCS_ERR_NO_ELEM)
    fail(status, "setting UCX_MEMTYPE_REG_WHOLE_ALLOC_TYPES for ringcomm's UCP context");
}

}  // namespace

Context::Context() {
  ucp_config_t* raw_config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &raw_config), "reading the UCX configuration (UCX_* variables)");
  std::unique_ptr<ucp_config_t, ConfigDeleter> config(raw_config);
  register_slots_not_whole_allocations(config.get());

  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_NAME;
  // Puts carry both the messages and the step counters, so RMA is the only feature needed.
  params.features = UCP_FEATURE_RMA;
  // Each channel has its own worker, but channels may be driven by different threads.
  params.mt_workers_shared = 1;
  params.name = "ringcomm";
  check(ucp_init(&params, config.get(), &context_), "initialising UCP");

  ucp_context_attr_t attributes{};
  attributes.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  const ucs_status_t status = ucp_context_query(context_, &attributes);
  if (status != UCS_OK) {
    ucp_cleanup(context_);
    fail(status, "querying the UCP context");
  }
  memory_types_ = attributes.memory_types;
}

Context::~Context() { ucp_cleanup(context_); }

bool Context::supports(ucs_memory_type_t type) const { return (memory_types_ >> type) & 1u; }

std::string Context::memory_types() const {
  std::string names;
  for (unsigned type = 0; type < UCS_MEMORY_TYPE_LAST; ++type)
    if (supports(static_cast<ucs_memory_type_t>(type)))
      names += (names.empty() ? "" : ", ") + std::string(memory_type_name(type));
  return names.empty() ? "none" : names;
}

std::vector<std::string> Context::resources() const {
  // UCP offers the list only as printed text; its resource lines end in "<transport>/<device>".
  char* text = nullptr;
  std::size_t length = 0;
  FILE* stream = open_memstream(&text, &length);
  if (stream == nullptr) return {};
  ucp_context_print_info(context_, stream);
  std::fclose(stream);
  std::istringstream lines(std::string(text, length));
  std::free(text);
  std::vector<std::string> found;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("resource") == std::string::npos) continue;
    const auto last_space = line.find_last_of(' ');
    if (last_space != std::string::npos && line.find('/', last_space) != std::string::npos)
      found.push_back(line.substr(last_space + 1));
  }
  return found;
}

ucs_memory_type_t memory_type_of(MemoryKind kind) {
  if (kind != MemoryKind::device || !device_is_separate()) return UCS_MEMORY_TYPE_HOST;
#if defined(KOKKOS_ENABLE_CUDA)
  return UCS_MEMORY_TYPE_CUDA;
#elif defined(KOKKOS_ENABLE_HIP)
  return UCS_MEMORY_TYPE_ROCM;
#else
  return UCS_MEMORY_TYPE_UNKNOWN;
#endif
}

}  // namespace ringcomm::ucx_backend
