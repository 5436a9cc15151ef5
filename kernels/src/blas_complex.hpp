#pragma once
// The complex numbers of Real as cuBLAS and cublasLt take them: their C type, their data type and the type
// their sums are computed in. Used by factor_product_blas.cpp and bench/gpu/factor_gemm_probe.cu.
#include <cuComplex.h>
#include <cublasLt.h>

namespace ringcomm::gt::detail {

template <class Real>
struct BlasComplex;
template <>
struct BlasComplex<double> {
  using Complex = cuDoubleComplex;
  static constexpr cudaDataType_t kData = CUDA_C_64F;
  static constexpr cublasComputeType_t kCompute = CUBLAS_COMPUTE_64F;
};
template <>
struct BlasComplex<float> {
  using Complex = cuComplex;
  static constexpr cudaDataType_t kData = CUDA_C_32F;
  static constexpr cublasComputeType_t kCompute = CUBLAS_COMPUTE_32F;
};

}  // namespace ringcomm::gt::detail
