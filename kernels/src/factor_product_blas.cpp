// Compiled into GPU builds only (kernels/CMakeLists.txt): see factor_product_blas.hpp.
#include "factor_product_blas.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cuComplex.h>

#include <string>
#include <type_traits>

#include "ringcomm/error.hpp"

namespace ringcomm::gt::detail {

namespace {

void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("GtAccumulator's factor product: ") + call + " failed: " + cublasGetStatusString(status));
}

}  // namespace

BlasHandle::~BlasHandle() {
  if (handle_ != nullptr) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

template <class Real>
void BlasHandle::add_products(void* stream, const RankUpdate& u) {
  if (!u.fits_blas()) throw Error("GtAccumulator's factor product: a leading dimension exceeds cuBLAS's int");
  if (handle_ == nullptr) {
    cublasHandle_t created = nullptr;
    check(cublasCreate(&created), "cublasCreate");
    handle_ = created;
  }
  const auto handle = static_cast<cublasHandle_t>(handle_);
  check(cublasSetStream(handle, static_cast<cudaStream_t>(stream)), "cublasSetStream");
  const auto rows = static_cast<int>(u.rows), cols = static_cast<int>(u.cols);
  const auto lda = static_cast<int>(u.lda), ldb = static_cast<int>(u.ldb), ldc = static_cast<int>(u.ldc);
  if constexpr (std::is_same_v<Real, double>) {
    const cuDoubleComplex one = make_cuDoubleComplex(1.0, 0.0);
    check(cublasZgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_T, rows, cols, u.depth, &one,
                                    static_cast<const cuDoubleComplex*>(u.a), lda, u.a_stride,
                                    static_cast<const cuDoubleComplex*>(u.b), ldb, u.b_stride, &one,
                                    static_cast<cuDoubleComplex*>(u.c), ldc, u.c_stride, u.batches),
          "cublasZgemmStridedBatched");
  } else {
    static_assert(std::is_same_v<Real, float>);
    const cuComplex one = make_cuComplex(1.0f, 0.0f);
    check(cublasCgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_T, rows, cols, u.depth, &one,
                                    static_cast<const cuComplex*>(u.a), lda, u.a_stride,
                                    static_cast<const cuComplex*>(u.b), ldb, u.b_stride, &one,
                                    static_cast<cuComplex*>(u.c), ldc, u.c_stride, u.batches),
          "cublasCgemmStridedBatched");
  }
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
