#pragma once
// A warp's G_t values of its next exchange rows, copied into shared memory by the Tensor Memory
// Accelerator (TMA, sm_90 and later) for the single-message walk in order (SingleMessageTmaKernel).
//
// The walk loads each row's G_t value ahead into registers and prefetches a later row's line into
// L2. On an H200 that prefetch is what keeps enough G_t reads in flight (the multiprocessor's queue
// of L1 misses does not hold more), but the line it brings into L2 must cross the fabric between
// L2's two partitions a second time when the load that uses it comes from the other partition: the
// walks' fabric was 90–97 % busy, the copy's 93 % (docs/results/h200_l2_fabric). A bulk copy of
// the TMA moves a warp's 32 consecutive values of a row into shared memory, once across the fabric,
// and does not wait in that queue. One lane issues the copies; an mbarrier per stage tells the warp
// when a stage has arrived.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace ringcomm::gt::detail {

namespace tma {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define RINGCOMM_TMA_DEVICE 1
#endif

KOKKOS_INLINE_FUNCTION std::uint32_t shared_address([[maybe_unused]] const void* p) {
#ifdef RINGCOMM_TMA_DEVICE
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
#else
  return 0;
#endif
}

// An mbarrier that completes a phase on one arrival and the bytes that arrival announced.
KOKKOS_INLINE_FUNCTION void init_barrier([[maybe_unused]] std::uint64_t* barrier) {
#ifdef RINGCOMM_TMA_DEVICE
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barrier)) : "memory");
#endif
}

// Makes initialised barriers visible to the TMA (the async proxy).
KOKKOS_INLINE_FUNCTION void fence_barrier_init() {
#ifdef RINGCOMM_TMA_DEVICE
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// Arrives on `barrier`, announcing `bytes` that copies will complete on it.
KOKKOS_INLINE_FUNCTION void expect_bytes([[maybe_unused]] std::uint64_t* barrier, [[maybe_unused]] std::uint32_t bytes) {
#ifdef RINGCOMM_TMA_DEVICE
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
#endif
}

// Copies `bytes` (a multiple of 16, both addresses 16-byte aligned) from global `from` to shared
// `to`; they complete on `barrier`.
KOKKOS_INLINE_FUNCTION void copy([[maybe_unused]] void* to, [[maybe_unused]] const void* from,
                                 [[maybe_unused]] std::uint32_t bytes, [[maybe_unused]] std::uint64_t* barrier) {
#ifdef RINGCOMM_TMA_DEVICE
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   shared_address(to)),
               "l"(from), "r"(bytes), "r"(shared_address(barrier))
               : "memory");
#endif
}

// Waits until the phase of `barrier` with this parity has completed.
KOKKOS_INLINE_FUNCTION void wait([[maybe_unused]] std::uint64_t* barrier, [[maybe_unused]] std::uint32_t parity) {
#ifdef RINGCOMM_TMA_DEVICE
  std::uint32_t done = 0;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(shared_address(barrier)), "r"(parity)
                 : "memory");
  } while (!done);
#endif
}

// Orders this thread's earlier reads of shared memory before the TMA's later writes there.
KOKKOS_INLINE_FUNCTION void fence_shared_reads() {
#ifdef RINGCOMM_TMA_DEVICE
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

KOKKOS_INLINE_FUNCTION void sync_warp() {
#ifdef RINGCOMM_TMA_DEVICE
  __syncwarp();
#endif
}

#undef RINGCOMM_TMA_DEVICE

}  // namespace tma

// The kStages stages of one warp: stage s holds the warp's 32 values of one row in `values`
// [32·s, 32·s + 32) and completes on barriers[s]. Row k of the walk (counted from its first) goes to
// stage k mod kStages in phase k / kStages. Every lane calls every member (they synchronise the warp);
// lane 0 issues the copies. `at` is always lane 0's G_t slot of the row named.
template <class Scalar, int kStages>
struct WarpRowStages {
  static constexpr std::uint32_t kWarp = 32;
  static constexpr std::uint32_t kRowBytes = kWarp * sizeof(Scalar);
  static_assert(kRowBytes % 16 == 0);

  Scalar* values;
  std::uint64_t* barriers;
  std::uint32_t lane;
  std::uint32_t stage = 0, parity = 0;

  // Team scratch bytes for `warps` warps, with room to align them.
  KOKKOS_INLINE_FUNCTION static std::size_t team_bytes(std::uint32_t warps) {
    return warps * kStages * (kRowBytes + sizeof(std::uint64_t)) + 128;
  }

  // The stages of warp `warp` of a team of `warps` in its scratch at `scratch`.
  KOKKOS_INLINE_FUNCTION WarpRowStages(void* scratch, std::uint32_t warps, std::uint32_t warp, std::uint32_t lane_)
      : lane(lane_) {
    const std::uintptr_t base = (reinterpret_cast<std::uintptr_t>(scratch) + 127) & ~std::uintptr_t{127};
    values = reinterpret_cast<Scalar*>(base) + warp * kStages * kWarp;
    barriers = reinterpret_cast<std::uint64_t*>(base + std::uintptr_t{warps} * kStages * kRowBytes) + warp * kStages;
  }

  // Starts the copies of rows [row, row + kStages) ∩ [row, end), `stride` entries apart from `at`.
  KOKKOS_INLINE_FUNCTION void start(const Scalar* at, std::uint32_t row, std::uint32_t end, std::uint64_t stride) {
    if (lane == 0) {
      for (int s = 0; s < kStages; ++s) tma::init_barrier(barriers + s);
      tma::fence_barrier_init();
      for (std::uint32_t s = 0; s < static_cast<std::uint32_t>(kStages) && row + s < end; ++s) fill(s, at + s * stride);
    }
    tma::sync_warp();
  }

  // This lane's value of the current row, once its stage has arrived.
  KOKKOS_INLINE_FUNCTION Scalar take() const {
    tma::wait(barriers + stage, parity);
    return values[stage * kWarp + lane];
  }

  // After every lane has taken the current row `row` (whose slot is `at`): its stage takes row +
  // kStages, and the next row becomes current.
  KOKKOS_INLINE_FUNCTION void taken(const Scalar* at, std::uint32_t row, std::uint32_t end, std::uint64_t stride) {
    tma::sync_warp();
    if (lane == 0 && row + kStages < end) {
      tma::fence_shared_reads();
      fill(stage, at + kStages * stride);
    }
    if (++stage == static_cast<std::uint32_t>(kStages)) stage = 0, parity ^= 1u;
  }

 private:
  KOKKOS_INLINE_FUNCTION void fill(std::uint32_t s, const Scalar* from) const {
    tma::expect_bytes(barriers + s, kRowBytes);
    tma::copy(values + s * kWarp, from, kRowBytes, barriers + s);
  }
};

// Where the walk in order (SingleMessageKernel::walk) finds each row's old G_t value with the TMA:
// in the warp's stages, copied kStages rows ahead. `at` is this lane's slot of the current row.
template <class Scalar, int kStages>
struct RowsInTmaStages {
  WarpRowStages<Scalar, kStages> stages;
  KOKKOS_FORCEINLINE_FUNCTION void start(const Scalar* at, std::uint32_t row, std::uint32_t end, std::uint64_t stride) {
    stages.start(at - stages.lane, row, end, stride);
  }
  KOKKOS_FORCEINLINE_FUNCTION void ahead(const Scalar*, std::uint32_t, std::uint32_t, std::uint64_t) {}
  KOKKOS_FORCEINLINE_FUNCTION Scalar take() const { return stages.take(); }
  KOKKOS_FORCEINLINE_FUNCTION void taken(const Scalar* at, std::uint32_t row, std::uint32_t end, std::uint64_t stride) {
    stages.taken(at - stages.lane, row, end, stride);
  }
};

}  // namespace ringcomm::gt::detail
