// Compiled into GPU builds only (kernels/CMakeLists.txt): see factor_product_blas.hpp.
#include "factor_product_blas.hpp"

#include "blas_complex.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <tuple>

#include "ringcomm/error.hpp"

namespace ringcomm::gt::detail {

namespace {

// The most work space a product may ask for (cuBLAS's own default on Hopper).
constexpr std::size_t kMostWorkspace = std::size_t{32} << 20;

void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("GtAccumulator's factor product: ") + call + " failed: " + cublasLtGetStatusString(status));
}

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw Error(std::string("GtAccumulator's factor product: ") + call + " failed: " + cudaGetErrorString(status));
}

// cublasLt's descriptors, destroyed with their owners.
struct DestroyDesc {
  void operator()(cublasLtMatmulDescOpaque_t* d) const { cublasLtMatmulDescDestroy(d); }
  void operator()(cublasLtMatrixLayoutOpaque_t* l) const { cublasLtMatrixLayoutDestroy(l); }
  void operator()(cublasLtMatmulPreferenceOpaque_t* p) const { cublasLtMatmulPreferenceDestroy(p); }
};
using Desc = std::unique_ptr<cublasLtMatmulDescOpaque_t, DestroyDesc>;
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, DestroyDesc>;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, DestroyDesc>;

// `batches` column-major rows × cols matrices with leading dimension ld, `stride` scalars apart.
Layout layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld, int batches,
              std::int64_t stride) {
  cublasLtMatrixLayout_t made = nullptr;
  check(cublasLtMatrixLayoutCreate(&made, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), ld),
        "cublasLtMatrixLayoutCreate");
  Layout owned(made);
  check(cublasLtMatrixLayoutSetAttribute(made, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batches, sizeof batches),
        "cublasLtMatrixLayoutSetAttribute(BATCH_COUNT)");
  check(cublasLtMatrixLayoutSetAttribute(made, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
        "cublasLtMatrixLayoutSetAttribute(STRIDED_BATCH_OFFSET)");
  return owned;
}

// What a product's descriptors depend on: the scalar type and everything in a RankUpdate but its pointers.
auto shape_of(cudaDataType_t type, const RankUpdate& u) {
  return std::make_tuple(type, u.rows, u.cols, u.depth, u.lda, u.a_stride, u.ldb, u.b_stride, u.ldc, u.c_stride,
                         u.batches);
}
using Shape = decltype(shape_of(cudaDataType_t{}, RankUpdate{}));

}  // namespace

// A product's descriptors and the algorithm cublasLt's heuristic chose, made for one shape.
struct BlasHandle::Plan {
  Shape shape;
  Desc product;
  Layout a, b, c;
  cublasLtMatmulHeuristicResult_t choice{};
};

BlasHandle::BlasHandle() = default;

BlasHandle::~BlasHandle() {
  plan_.reset();
  if (workspace_ != nullptr) cudaFree(workspace_);
  if (handle_ != nullptr) cublasLtDestroy(static_cast<cublasLtHandle_t>(handle_));
}

template <class Real>
const BlasHandle::Plan& BlasHandle::plan_for(const RankUpdate& u) {
  using Type = BlasComplex<Real>;
  const Shape shape = shape_of(Type::kData, u);
  if (plan_ && plan_->shape == shape) return *plan_;
  plan_.reset();
  if (handle_ == nullptr) {
    cublasLtHandle_t created = nullptr;
    check(cublasLtCreate(&created), "cublasLtCreate");
    handle_ = created;
  }
  auto plan = std::make_unique<Plan>();
  plan->shape = shape;
  cublasLtMatmulDesc_t made = nullptr;
  check(cublasLtMatmulDescCreate(&made, Type::kCompute, Type::kData), "cublasLtMatmulDescCreate");
  plan->product.reset(made);
  const cublasOperation_t as_is = CUBLAS_OP_N, transposed = CUBLAS_OP_T;
  check(cublasLtMatmulDescSetAttribute(made, CUBLASLT_MATMUL_DESC_TRANSA, &as_is, sizeof as_is),
        "cublasLtMatmulDescSetAttribute(TRANSA)");
  check(cublasLtMatmulDescSetAttribute(made, CUBLASLT_MATMUL_DESC_TRANSB, &transposed, sizeof transposed),
        "cublasLtMatmulDescSetAttribute(TRANSB)");
  plan->a = layout(Type::kData, u.rows, u.depth, u.lda, u.batches, u.a_stride);
  plan->b = layout(Type::kData, u.cols, u.depth, u.ldb, u.batches, u.b_stride);
  plan->c = layout(Type::kData, u.rows, u.cols, u.ldc, u.batches, u.c_stride);
  cublasLtMatmulPreference_t preferred = nullptr;
  check(cublasLtMatmulPreferenceCreate(&preferred), "cublasLtMatmulPreferenceCreate");
  const Preference preference(preferred);
  check(cublasLtMatmulPreferenceSetAttribute(preferred, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kMostWorkspace,
                                             sizeof kMostWorkspace),
        "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
  int found = 0;
  check(cublasLtMatmulAlgoGetHeuristic(static_cast<cublasLtHandle_t>(handle_), made, plan->a.get(), plan->b.get(),
                                       plan->c.get(), plan->c.get(), preferred, 1, &plan->choice, &found),
        "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) throw Error("GtAccumulator's factor product: cublasLt has no algorithm for the product");
  if (plan->choice.workspaceSize > workspace_bytes_) {
    if (workspace_ != nullptr) check(cudaFree(workspace_), "cudaFree");  // waits for the products using it
    workspace_ = nullptr;
    workspace_bytes_ = 0;
    counted_ = TrackedBytes();
    check(cudaMalloc(&workspace_, plan->choice.workspaceSize), "cudaMalloc");
    workspace_bytes_ = plan->choice.workspaceSize;
    counted_ = TrackedBytes(workspace_bytes_);
  }
  plan_ = std::move(plan);
  return *plan_;
}

template <class Real>
void BlasHandle::add_products(void* stream, const RankUpdate& u) {
  const Plan& plan = plan_for<Real>(u);
  const typename BlasComplex<Real>::Complex one{Real(1), Real(0)};
  check(cublasLtMatmul(static_cast<cublasLtHandle_t>(handle_), plan.product.get(), &one, u.a, plan.a.get(), u.b,
                       plan.b.get(), &one, u.c, plan.c.get(), u.c, plan.c.get(), &plan.choice.algo, workspace_,
                       workspace_bytes_, static_cast<cudaStream_t>(stream)),
        "cublasLtMatmul");
}

template <class Real>
void BlasHandle::warm_up(void* stream) {
  void* scalars = nullptr;  // A, B and C, one complex number each
  check(cudaMalloc(&scalars, 6 * sizeof(Real)), "cudaMalloc");
  RankUpdate tiny;
  tiny.rows = tiny.cols = tiny.lda = tiny.ldb = tiny.ldc = 1;
  tiny.depth = tiny.batches = 1;
  tiny.a = scalars;
  tiny.b = static_cast<Real*>(scalars) + 2;
  tiny.c = static_cast<Real*>(scalars) + 4;
  try {
    add_products<Real>(stream, tiny);
    check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "its first product");
  } catch (...) {
    cudaFree(scalars);
    throw;
  }
  cudaFree(scalars);
}

template void BlasHandle::add_products<double>(void*, const RankUpdate&);
template void BlasHandle::add_products<float>(void*, const RankUpdate&);
template void BlasHandle::warm_up<double>(void*);
template void BlasHandle::warm_up<float>(void*);

}  // namespace ringcomm::gt::detail
