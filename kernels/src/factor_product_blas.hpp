#pragma once
// The bubble channels' factor product through the vendor's batched complex matrix product.
//
// At nb = 1 the factor part of a ph_magnetic or ph_charge batch, Σ_j w_j·left_j(inner, x)·right_j(pair, x),
// is for each exchange row x a product of two dense matrices: (inner × count) times (count × pair), added
// to the (inner × pair) matrix of G_t that the row is (column-major, the inner index fastest). A strided
// batched complex matrix product does exactly that, one row per batch entry: cublasLt's matmul with the
// algorithm its heuristic puts first, on the tensor cores in double (DMMA: fused multiply-adds in IEEE
// double, so the sums differ from FactorProductKernel's by their order only). On an H100 that algorithm
// took 0.92 (B = 32) and 0.89 (B = 64) of the time of cublasZgemmStridedBatched's choice for the paper
// size, and as long in complex<float> (docs/results/factor_blas, bench/gpu/factor_gemm_probe.cu). Only
// GPU builds have it (kernels/CMakeLists.txt links cuBLAS where Kokkos compiles for CUDA);
// GtAccumulator::set_factor_product_blas says when it is used.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "ringcomm/memory.hpp"

namespace ringcomm::gt::detail {

// C_x += A_x·B_xᵀ for x = 0 … batches − 1, all column-major: C_x is rows × cols at c + x·c_stride with
// leading dimension ldc, A_x rows × depth at a + x·a_stride (ld lda), B_x cols × depth at b + x·b_stride
// (ld ldb). Scalars are complex numbers of Real stored as (real, imaginary) pairs.
struct RankUpdate {
  std::int64_t rows = 0, cols = 0;
  int depth = 0;
  const void* a = nullptr;
  std::int64_t lda = 0, a_stride = 0;
  const void* b = nullptr;
  std::int64_t ldb = 0, b_stride = 0;
  void* c = nullptr;
  std::int64_t ldc = 0, c_stride = 0;
  int batches = 0;
};

// A cublasLt handle, created when first used, and the work space its products asked for (grown as
// needed, freed with the handle, counted in allocation_stats). A product runs on `stream` (a
// cudaStream_t), in order with the kernels of that stream. The descriptors of the last product's shape
// and the algorithm cublasLt's heuristic chose for it are kept: the full batches of one accumulator
// (one slice) all have the same shape, so only a shorter last batch asks the heuristic again. Throws
// ringcomm::Error with cuBLAS's message when a call fails.
class BlasHandle {
 public:
  BlasHandle();  // out of line, where Plan is complete
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;
  ~BlasHandle();
  template <class Real>
  void add_products(void* stream, const RankUpdate& update);
  // Makes the handle and runs one product of 1 × 1 matrices on `stream`, waiting for it: the first
  // product in a process sets cuBLAS up, which would otherwise fall into the first batch's flush.
  template <class Real>
  void warm_up(void* stream);

 private:
  struct Plan;  // factor_product_blas.cpp
  template <class Real>
  const Plan& plan_for(const RankUpdate& update);

  std::unique_ptr<Plan> plan_;
  void* handle_ = nullptr;     // cublasLtHandle_t
  void* workspace_ = nullptr;  // device memory
  std::size_t workspace_bytes_ = 0;
  TrackedBytes counted_;  // workspace_bytes_
};

}  // namespace ringcomm::gt::detail
