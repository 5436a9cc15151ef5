// Compiled into GPU builds only (kernels/CMakeLists.txt): see factor_product_blas.hpp.
#include "factor_product_blas.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cuComplex.h>

#include <string>

#include "ringcomm/error.hpp"

namespace ringcomm::gt::detail {

namespace {

void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("GtAccumulator's factor product: ") + call + " failed: " + cublasGetStatusString(status));
}

// cuBLAS's strided batched product of complex numbers of Real: its type, its function and its name.
template <class Real>
struct ComplexGemm;
template <>
struct ComplexGemm<double> {
  using Complex = cuDoubleComplex;
  static constexpr auto product = cublasZgemmStridedBatched;
  static constexpr const char* name = "cublasZgemmStridedBatched";
};
template <>
struct ComplexGemm<float> {
  using Complex = cuComplex;
  static constexpr auto product = cublasCgemmStridedBatched;
  static constexpr const char* name = "cublasCgemmStridedBatched";
};

}  // namespace

BlasHandle::~BlasHandle() {
  if (handle_ != nullptr) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

template <class Real>
void BlasHandle::add_products(void* stream, const RankUpdate& u) {
  using Gemm = ComplexGemm<Real>;
  using Complex = typename Gemm::Complex;
  if (!u.fits_blas()) throw Error("GtAccumulator's factor product: a leading dimension exceeds cuBLAS's int");
  if (handle_ == nullptr) {
    cublasHandle_t created = nullptr;
    check(cublasCreate(&created), "cublasCreate");
    handle_ = created;
  }
  const auto handle = static_cast<cublasHandle_t>(handle_);
  check(cublasSetStream(handle, static_cast<cudaStream_t>(stream)), "cublasSetStream");
  const Complex one{Real(1), Real(0)};
  check(Gemm::product(handle, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(u.rows), static_cast<int>(u.cols), u.depth,
                      &one, static_cast<const Complex*>(u.a), static_cast<int>(u.lda), u.a_stride,
                      static_cast<const Complex*>(u.b), static_cast<int>(u.ldb), u.b_stride, &one,
                      static_cast<Complex*>(u.c), static_cast<int>(u.ldc), u.c_stride, u.batches),
        Gemm::name);
}

template <class Real>
void BlasHandle::warm_up(void* stream) {
  void* scalars = nullptr;  // A, B and C, one complex number each
  if (const cudaError_t status = cudaMalloc(&scalars, 6 * sizeof(Real)); status != cudaSuccess)
    throw Error(std::string("GtAccumulator's factor product: cudaMalloc failed: ") + cudaGetErrorString(status));
  RankUpdate tiny;
  tiny.rows = tiny.cols = tiny.lda = tiny.ldb = tiny.ldc = 1;
  tiny.depth = tiny.batches = 1;
  tiny.a = scalars;
  tiny.b = static_cast<Real*>(scalars) + 2;
  tiny.c = static_cast<Real*>(scalars) + 4;
  try {
    add_products<Real>(stream, tiny);
  } catch (...) {
    cudaFree(scalars);
    throw;
  }
  const cudaError_t status = cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  cudaFree(scalars);
  if (status != cudaSuccess)
    throw Error(std::string("GtAccumulator's factor product: its first product failed: ") + cudaGetErrorString(status));
}

template void BlasHandle::add_products<double>(void*, const RankUpdate&);
template void BlasHandle::add_products<float>(void*, const RankUpdate&);
template void BlasHandle::warm_up<double>(void*);
template void BlasHandle::warm_up<float>(void*);

}  // namespace ringcomm::gt::detail
