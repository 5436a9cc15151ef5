// transpose_probe: how close a tiled transpose of G_up and G_down (two M × M matrices) comes to a
// device-to-device copy of the same bytes on one GPU, by how many values each thread loads before it
// stores any of them to shared memory. GtAccumulator transposes every message of the ph channels
// (TransposeKernel in kernels/src/gt_kernel.hpp); this measures what that copy can cost, in plain
// CUDA. Each kernel: 32 × 32 tiles (+1 column of padding), a block of 32 × (32 / P) threads, each
// thread P values of the tile: "loads first" loads its P values into registers and then stores them
// to shared memory; "one at a time" loads and stores one value after the other (`#pragma unroll 1`),
// as a loop over TeamThreadRange does. Both then write the tile out along its other side.
// M = 2520 is the paper size's (nb = 1, Nc = 36, 2n = 64, E = 3), 2736 that of nb = 2 with 2n = 32.
// Medians of --reps timed launches after one warm-up (CUDA events); every kernel's output is checked
// against the transpose of the input (any mismatch is reported and fails the run).
//
// Not part of the library or its build: it exists to measure. Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 bench/gpu/transpose_probe.cu -o transpose_probe
//   ./transpose_probe [--reps N] [--json FILE]
#include <cuda_runtime.h>

#include "probe_support.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kTile = 32;

// out[c + M·r] = in[r + M·c] for both matrices; kPer values per thread; kLoadsFirst as above.
template <class T, int kPer, bool kLoadsFirst>
__global__ void transpose(const T* __restrict__ in, T* __restrict__ out, int m, int tiles) {
  __shared__ T tile[kTile][kTile + 1];
  constexpr int kStride = kTile / kPer;  // rows of the tile between a thread's values
  const int per_matrix = tiles * tiles;
  const size_t matrix = size_t(blockIdx.x / per_matrix) * m * m;
  const int row0 = (blockIdx.x % per_matrix) % tiles * kTile, col0 = (blockIdx.x % per_matrix) / tiles * kTile;
  const int lane = threadIdx.x % kTile, y = threadIdx.x / kTile;
  const int r = row0 + lane;
  if (kLoadsFirst) {
    T value[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int c = col0 + y + j * kStride;
      if (r < m && c < m) value[j] = in[matrix + r + size_t(m) * c];
    }
#pragma unroll
    for (int j = 0; j < kPer; ++j) tile[y + j * kStride][lane] = value[j];
  } else {
#pragma unroll 1
    for (int j = 0; j < kPer; ++j) {
      const int c = col0 + y + j * kStride;
      if (r < m && c < m) tile[y + j * kStride][lane] = in[matrix + r + size_t(m) * c];
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const int c = col0 + lane, rr = row0 + y + j * kStride;
    if (rr < m && c < m) out[matrix + c + size_t(m) * rr] = tile[lane][y + j * kStride];
  }
}

struct Row {
  std::string scalar, kernel;
  int m, per_thread;
  double ms, copy_ms;
  long mismatches;
};

// Whether out holds the transpose of in (values compared bit for bit; the inputs are distinct).
template <class T>
long mismatches(const std::vector<T>& in, const T* device_out, int m) {
  std::vector<T> out(in.size());
  CHECK(cudaMemcpy(out.data(), device_out, in.size() * sizeof(T), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (size_t k = 0; k < 2; ++k)
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < m; ++c) {
        const T& a = in[k * m * m + r + size_t(m) * c];
        const T& b = out[k * m * m + c + size_t(m) * r];
        bad += a.re != b.re || a.im != b.im;
      }
  return bad;
}

template <class T>
void measure(const char* scalar, int m, int reps, std::vector<Row>& rows) {
  const size_t n = 2 * size_t(m) * m;
  std::vector<T> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = T{static_cast<decltype(T::re)>(i % 1000003), static_cast<decltype(T::re)>(i / 1000003)};
  T *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, n * sizeof(T)));
  CHECK(cudaMemcpy(in, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  const int tiles = (m + kTile - 1) / kTile, blocks = 2 * tiles * tiles;
  const double copy = median_ms(reps, [&] { CHECK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); });
  const auto run = [&](const char* name, int per, auto kernel) {
    const int threads = kTile * kTile / per;
    CHECK(cudaMemset(out, 0, n * sizeof(T)));
    const double ms = median_ms(reps, [&] { kernel<<<blocks, threads>>>(in, out, m, tiles); });
    CHECK(cudaGetLastError());
    rows.push_back({scalar, name, m, per, ms, copy, mismatches(host, out, m)});
  };
  run("one at a time", 4, transpose<T, 4, false>);
  run("loads first", 1, transpose<T, 1, true>);
  run("loads first", 2, transpose<T, 2, true>);
  run("loads first", 4, transpose<T, 4, true>);
  run("loads first", 8, transpose<T, 8, true>);
  run("loads first", 16, transpose<T, 16, true>);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

}  // namespace

int main(int argc, char** argv) {
  ProbeOptions options;
  const int status = parse_probe_options(argc, argv,
                                         "usage: %s [--reps N] [--json FILE]\n"
                                         "Times a tiled transpose of two M x M complex matrices (M = 2520 and 2736, complex<float>\n"
                                         "and complex<double>) by values loaded per thread before the shared-memory stores,\n"
                                         "against cudaMemcpyAsync of the same bytes; checks every output.\n",
                                         options, [](const std::string&) { return false; });
  if (status >= 0) return status;
  const int reps = options.reps;
  const std::string json = options.json;
  std::vector<Row> rows;
  for (const int m : {2520, 2736}) {
    measure<ProbeComplex<double>>("complex<double>", m, reps, rows);
    measure<ProbeComplex<float>>("complex<float>", m, reps, rows);
  }
  long bad = 0;
  std::printf("%-16s %5s %-14s %3s %9s %9s %11s %10s\n", "scalar", "M", "kernel", "P", "ms", "copy ms", "copy/kernel", "mismatches");
  for (const Row& r : rows) {
    std::printf("%-16s %5d %-14s %3d %9.4f %9.4f %11.3f %10ld\n", r.scalar.c_str(), r.m, r.kernel.c_str(), r.per_thread,
                r.ms, r.copy_ms, r.copy_ms / r.ms, r.mismatches);
    bad += r.mismatches;
  }
  if (!json.empty() && !write_json_file(json, [&](FILE* f) {
    std::fprintf(f, "{\"program\": \"transpose_probe\", \"reps\": %d, \"results\": [\n", reps);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::fprintf(f, "  {\"scalar\": \"%s\", \"m\": %d, \"kernel\": \"%s\", \"per_thread\": %d, \"ms\": %.6f, \"copy_ms\": %.6f, "
                   "\"copy_over_kernel\": %.4f, \"mismatches\": %ld}%s\n", r.scalar.c_str(), r.m, r.kernel.c_str(), r.per_thread,
                   r.ms, r.copy_ms, r.copy_ms / r.ms, r.mismatches, i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
  }))
    return 1;
  if (bad) std::fprintf(stderr, "%ld values differ from the transpose\n", bad);
  return bad ? 1 : 0;
}
