// factor_gemm_probe: how close the bubble batches' factor product, as cuBLAS runs it, comes to the copy rate,
// and whether another of cuBLAS's algorithms does better. The library (kernels/src/factor_product_blas.cpp)
// adds, for each of the 40 exchange rows of the paper size, C_x += A_x·B_xᵀ with C_x the row's inner × pair
// matrix of G_t (I = P = 2304, column-major, ldc = I), A_x the messages' left factors (I × K, ld = the
// message stride 2·40·I, rows I apart) and B_x their right factors (the same, 40·I further), K = the batch.
// This probe lays the operands out the same way (random values) and times, per precision (complex<double>:
// ZGEMM, CUDA_C_64F; complex<float>: CGEMM) and K of 32 and 64:
//   copy        cudaMemcpyAsync of C to another array (C read and written once: the floor);
//   default     cublas[ZC]gemmStridedBatched, what the library calls;
//   lt_<i>      cublasLt's heuristic candidates for the same product (up to --candidates, 64 MiB of work
//               space), each described by its algorithm id, tile id, stages and split-k.
// ratio = copy time / product time. Products accumulate into C (beta = 1), as the library's do.
//
// Not part of the library or its build: it exists to measure. Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 bench/gpu/factor_gemm_probe.cu -lcublas -lcublasLt -o probe
//   ./probe [--candidates=N] [--reps N] [--json FILE]
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "../../kernels/src/blas_complex.hpp"  // the complex types, as the library gives them to cublasLt
#include "probe_support.cuh"

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

#define CHECK_BLAS(call)                                                                                   \
  do {                                                                                                     \
    cublasStatus_t s_ = (call);                                                                            \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cublasGetStatusString(s_));      \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)

constexpr int kRows = 40;                   // exchange rows: 10 momenta × 4 frequencies
constexpr std::int64_t kInner = 36 * 64;    // I = Nc·2n at nb = 1
constexpr std::int64_t kPairs = 36 * 64;    // P
constexpr std::int64_t kPerSide = kRows * kInner;     // one side's factor table of a message
constexpr std::int64_t kMessageStride = 2 * kPerSide;  // both sides: the library's per_slot
int g_candidates = 8;

struct Result {
  std::string precision, variant, algorithm;
  int depth;
  double ms, copy_ms;
};

template <class Real>
void fill_random(void* device, std::size_t reals, unsigned seed) {
  std::vector<Real> host(reals);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (Real& v : host) v = static_cast<Real>(u(rng));
  CHECK(cudaMemcpy(device, host.data(), reals * sizeof(Real), cudaMemcpyHostToDevice));
}

// "algo A tile T stages S splitk K" of a cublasLt algorithm.
std::string describe(const cublasLtMatmulAlgo_t& algo) {
  int id = 0, tile = 0, stages = 0, split = 0;
  std::size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &written);
  cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split, sizeof split, &written);
  return "algo " + std::to_string(id) + " tile " + std::to_string(tile) + " stages " + std::to_string(stages) +
         " splitk " + std::to_string(split);
}

template <class Real>
void run_precision(const char* name, int reps, cublasHandle_t blas, cublasLtHandle_t lt, std::vector<Result>& out) {
  using T = ringcomm::gt::detail::BlasComplex<Real>;
  using Complex = typename T::Complex;
  const std::size_t c_entries = static_cast<std::size_t>(kRows) * kInner * kPairs;
  void *c = nullptr, *copy = nullptr, *factors = nullptr, *workspace = nullptr;
  const std::size_t workspace_bytes = 64u << 20;
  const int most_depth = 64;
  CHECK(cudaMalloc(&c, c_entries * sizeof(Complex)));
  CHECK(cudaMalloc(&copy, c_entries * sizeof(Complex)));
  CHECK(cudaMalloc(&factors, static_cast<std::size_t>(most_depth) * kMessageStride * sizeof(Complex)));
  CHECK(cudaMalloc(&workspace, workspace_bytes));
  fill_random<Real>(c, 2 * c_entries, 1);
  fill_random<Real>(factors, 2 * static_cast<std::size_t>(most_depth) * kMessageStride, 2);
  const auto* a = static_cast<const Complex*>(factors);
  const auto* b = a + kPerSide;
  auto* cc = static_cast<Complex*>(c);
  const double copy_ms = median_ms(reps, [&] {
    CHECK(cudaMemcpyAsync(copy, c, c_entries * sizeof(Complex), cudaMemcpyDeviceToDevice));
  });
  std::printf("%s: copy %.3f ms (%.1f GB/s)\n", name, copy_ms, 2.0 * c_entries * sizeof(Complex) / copy_ms / 1e6);
  const Complex one{Real(1), Real(0)};
  for (const int depth : {32, 64}) {
    const auto record = [&](const std::string& variant, const std::string& algorithm, double ms) {
      out.push_back({name, variant, algorithm, depth, ms, copy_ms});
      std::printf("  K = %d  %-8s %-40s %8.3f ms  ratio %.3f\n", depth, variant.c_str(), algorithm.c_str(), ms,
                  copy_ms / ms);
    };
    record("default", "cublas gemmStridedBatched", median_ms(reps, [&] {
             if constexpr (sizeof(Real) == sizeof(double))
               CHECK_BLAS(cublasZgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, kInner, kPairs, depth, &one, a,
                                                    kMessageStride, kInner, b, kMessageStride, kInner, &one, cc, kInner,
                                                    kInner * kPairs, kRows));
             else
               CHECK_BLAS(cublasCgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_T, kInner, kPairs, depth, &one, a,
                                                    kMessageStride, kInner, b, kMessageStride, kInner, &one, cc, kInner,
                                                    kInner * kPairs, kRows));
           }));
    cublasLtMatmulDesc_t op = nullptr;
    CHECK_BLAS(cublasLtMatmulDescCreate(&op, T::kCompute, T::kData));
    const cublasOperation_t no = CUBLAS_OP_N, yes = CUBLAS_OP_T;
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &no, sizeof no));
    CHECK_BLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &yes, sizeof yes));
    const int batches = kRows;
    const auto layout = [&](std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t stride) {
      cublasLtMatrixLayout_t l = nullptr;
      CHECK_BLAS(cublasLtMatrixLayoutCreate(&l, T::kData, rows, cols, ld));
      CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batches, sizeof batches));
      CHECK_BLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
      return l;
    };
    cublasLtMatrixLayout_t la = layout(kInner, depth, kMessageStride, kInner);
    cublasLtMatrixLayout_t lb = layout(kPairs, depth, kMessageStride, kInner);
    cublasLtMatrixLayout_t lc = layout(kInner, kPairs, kInner, kInner * kPairs);
    cublasLtMatmulPreference_t preference = nullptr;
    CHECK_BLAS(cublasLtMatmulPreferenceCreate(&preference));
    CHECK_BLAS(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                    &workspace_bytes, sizeof workspace_bytes));
    std::vector<cublasLtMatmulHeuristicResult_t> candidates(g_candidates);
    int found = 0;
    CHECK_BLAS(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, preference, g_candidates, candidates.data(),
                                              &found));
    for (int i = 0; i < found; ++i) {
      if (candidates[i].state != CUBLAS_STATUS_SUCCESS) continue;
      record("lt_" + std::to_string(i), describe(candidates[i].algo), median_ms(reps, [&] {
               CHECK_BLAS(cublasLtMatmul(lt, op, &one, a, la, b, lb, &one, cc, lc, cc, lc, &candidates[i].algo,
                                         workspace, workspace_bytes, 0));
             }));
    }
    cublasLtMatmulPreferenceDestroy(preference);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtMatmulDescDestroy(op);
  }
  CHECK(cudaFree(c));
  CHECK(cudaFree(copy));
  CHECK(cudaFree(factors));
  CHECK(cudaFree(workspace));
}

}  // namespace

int main(int argc, char** argv) {
  ProbeOptions options;
  const int status = parse_probe_options(
      argc, argv,
      "usage: %s [--candidates=N] [--reps N] [--json FILE]\n"
      "Times the bubble batches' factor product at the paper size as cuBLAS's strided batched product and as\n"
      "each of cublasLt's first N heuristic candidates (default 8), against a copy of G_t (see the file's\n"
      "opening comment), in complex<double> and complex<float>, K = 32 and 64.\n",
      options, [&](const std::string& a) { return a.rfind("--candidates=", 0) == 0 && (g_candidates = std::atoi(a.c_str() + 13)) > 0; });
  if (status >= 0) return status;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("factor_gemm_probe on %s, %d exchange rows of %lld x %lld, median of %d\n", prop.name, kRows,
              static_cast<long long>(kInner), static_cast<long long>(kPairs), options.reps);
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  CHECK_BLAS(cublasCreate(&blas));
  CHECK_BLAS(cublasLtCreate(&lt));
  std::vector<Result> results;
  run_precision<double>("double", options.reps, blas, lt, results);
  run_precision<float>("float", options.reps, blas, lt, results);
  cublasLtDestroy(lt);
  cublasDestroy(blas);
  if (!options.json.empty() && !write_json_file(options.json, [&](FILE* f) {
        std::fprintf(f, "{\"device\": \"%s\", \"rows\": %d, \"inner\": %lld, \"pairs\": %lld, \"repetitions\": %d, "
                        "\"results\": [\n", prop.name, kRows, static_cast<long long>(kInner),
                     static_cast<long long>(kPairs), options.reps);
        for (std::size_t i = 0; i < results.size(); ++i) {
          const Result& r = results[i];
          std::fprintf(f, "  {\"precision\": \"%s\", \"depth\": %d, \"variant\": \"%s\", \"algorithm\": \"%s\", "
                          "\"ms\": %.6f, \"copy_ms\": %.6f, \"ratio\": %.6f}%s\n",
                       r.precision.c_str(), r.depth, r.variant.c_str(), r.algorithm.c_str(), r.ms, r.copy_ms,
                       r.copy_ms / r.ms, i + 1 < results.size() ? "," : "");
        }
        std::fprintf(f, "]}\n");
      }))
    return 1;
  return 0;
}
