#include "ucx_context.hpp"

#include <Kokkos_Macros.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>

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

// Sets UCX_<name> for ringcomm's UCP context only, unless the user set that variable (then it is
// theirs). A UCX that has no such setting (UCS_ERR_NO_ELEM, or UCS_ERR_INVALID_PARAM from newer
// versions for unknown names) also lacks the behaviour it changes.
void set_unless_user_did(ucp_config_t* config, const char* name, const char* value) {
  if (std::getenv(("UCX_" + std::string(name)).c_str()) != nullptr) return;
  const ucs_status_t status = ucp_config_modify(config, name, value);
  if (status != UCS_OK && status != UCS_ERR_NO_ELEM && status != UCS_ERR_INVALID_PARAM)
    fail(status, std::string("setting UCX_") + name + " for ringcomm's UCP context");
}

// UCX's registration cache (and, from UCX 1.15, its registering whole CUDA allocations) rest on its
// memory-type cache, which learns about GPU allocations only from UCM's hooks on cudaMalloc/cudaFree
// (and once from /proc/self/maps). Those hooks saw none of the cudaMalloc calls in
// docs/results/h200_ucx_registration.txt, with the static or the shared CUDA runtime. Two failures
// follow, both seen on an H200 with UCX 1.22:
// - memory allocated after the cache was made is "unknown, base 0, length -1"; ucp_mem_map takes that
//   as the allocation's bounds (whole-allocation registration, UCX_MEMTYPE_REG_WHOLE_ALLOC_TYPES=cuda)
//   and fails with "rcache.c: failed to insert region … [0x0..0x0]: Invalid parameter";
// - with the registration cache on, a put into a slot allocated where a freed slot had been failed
//   (cuda_ipc: cuMemcpyDtoDAsync: invalid argument), and passed with the cache off: the cache drops a
//   registration only when UCM reports the memory freed, which it never does for Kokkos' memory.
// ringcomm registers each slot once per channel and passes its memory handle to every put, so a
// registration cache gains it nothing: the context runs without one, and registers slots as
// themselves rather than as the allocations around them. docs/troubleshooting.md has the story.
void register_slots_exactly_and_uncached(ucp_config_t* config) {
  set_unless_user_did(config, "RCACHE_ENABLE", "n");
  set_unless_user_did(config, "MEMTYPE_REG_WHOLE_ALLOC_TYPES", "");
}

}  // namespace

Context::Context() {
  ucp_config_t* raw_config = nullptr;
  check(ucp_config_read(nullptr, nullptr, &raw_config), "reading the UCX configuration (UCX_* variables)");
  std::unique_ptr<ucp_config_t, ConfigDeleter> config(raw_config);
  register_slots_exactly_and_uncached(config.get());

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
