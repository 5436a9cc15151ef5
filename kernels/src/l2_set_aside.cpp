#include "ringcomm/gt/l2_set_aside.hpp"

#include <Kokkos_Core.hpp>  // KOKKOS_ENABLE_CUDA
#include <algorithm>
#include <mutex>

#include "ringcomm/settings.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace ringcomm::gt {

int l2_set_aside_setting() {
  if (const auto text = settings::env("RINGCOMM_GT_L2_SET_ASIDE_MIB"))
    return static_cast<int>(settings::parse_integer(*text, "RINGCOMM_GT_L2_SET_ASIDE_MIB", 0, 1024));
  return kDefaultL2SetAsideMiB;
}

L2SetAside change_l2_set_aside([[maybe_unused]] int mib, [[maybe_unused]] bool may_lower) {
  L2SetAside result;
#ifdef KOKKOS_ENABLE_CUDA
  const auto failed = [&](const char* what, cudaError_t status) {
    cudaGetLastError();  // none of these errors is sticky; leave no trace for the caller's checks
    result.problem = std::string(what) + ": " + cudaGetErrorString(status);
    return result;
  };
  int device = 0, most = 0;
  if (const cudaError_t status = cudaGetDevice(&device); status != cudaSuccess) return failed("cudaGetDevice", status);
  if (const cudaError_t status = cudaDeviceGetAttribute(&most, cudaDevAttrMaxPersistingL2CacheSize, device);
      status != cudaSuccess)
    return failed("cudaDeviceGetAttribute(cudaDevAttrMaxPersistingL2CacheSize)", status);
  std::size_t bytes = 0;
  if (const cudaError_t status = cudaDeviceGetLimit(&bytes, cudaLimitPersistingL2CacheSize); status != cudaSuccess)
    return failed("cudaDeviceGetLimit(cudaLimitPersistingL2CacheSize)", status);
  result.before = result.after = static_cast<std::int64_t>(bytes);
  result.wanted = std::min<std::int64_t>(static_cast<std::int64_t>(mib) << 20, most);
  if (result.wanted == result.before || (result.wanted < result.before && !may_lower)) return result;
  if (const cudaError_t status = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(result.wanted));
      status != cudaSuccess)
    return failed("cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize)", status);
  if (const cudaError_t status = cudaDeviceGetLimit(&bytes, cudaLimitPersistingL2CacheSize); status != cudaSuccess)
    return failed("cudaDeviceGetLimit(cudaLimitPersistingL2CacheSize)", status);
  result.after = static_cast<std::int64_t>(bytes);
#endif
  return result;
}

const L2SetAside& l2_set_aside_once() {
  static std::once_flag once;
  static L2SetAside result;
  std::call_once(once, [] { result = raise_l2_set_aside(l2_set_aside_setting()); });
  return result;
}

}  // namespace ringcomm::gt
