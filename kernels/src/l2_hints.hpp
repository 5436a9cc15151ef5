#pragma once
// Hints to the L2 cache of a GPU for the G_t kernels; plain loads and nothing at all elsewhere.
//
// A pass over G_t streams the slice through L2 once (read, then written back) while the G_σ values
// it reads along the way (cross values, bubble factors) are each read many times by other threads
// shortly after. At the paper size a message's G_σ (about 200 MB in double) does not fit in L2, so
// the G_t stream evicts G_σ lines that are still wanted and they come from DRAM again. Reading G_σ
// with the policy "evict last" lets the G_t lines go first. A single message's threads also wait
// for each exchange row's G_t values in turn (latency, not bandwidth, bounds them on an H200); a
// prefetch into L2 of a later row costs no register and shortens that wait. Both measured on an
// H200: docs/results/h200_l2_hints.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace ringcomm::gt::detail {

// *p (a complex<double> or complex<float> that no thread writes during the kernel), loaded on
// sm_80 and later with the L2 policy "evict last".
template <class Value>
KOKKOS_INLINE_FUNCTION Value load_keeping_in_l2(const Value* p) {
  static_assert(sizeof(Value) == 16 || sizeof(Value) == 8, "a complex<double> or complex<float>");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  std::uint64_t policy;  // the same value in every call: the compiler may compute it once
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  if constexpr (sizeof(Value) == 16) {
    double re, im;
    asm("ld.global.nc.L2::cache_hint.v2.f64 {%0, %1}, [%2], %3;" : "=d"(re), "=d"(im) : "l"(p), "l"(policy));
    return Value(re, im);
  } else {
    float re, im;
    asm("ld.global.nc.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;" : "=f"(re), "=f"(im) : "l"(p), "l"(policy));
    return Value(re, im);
  }
#else
  return *p;
#endif
}

// Asks L2 to fetch the line that holds *p; a no-op off the GPU (CPU code stays as it was measured).
KOKKOS_INLINE_FUNCTION void prefetch_to_l2([[maybe_unused]] const void* p) {
#if defined(__CUDA_ARCH__)
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#endif
}

}  // namespace ringcomm::gt::detail
