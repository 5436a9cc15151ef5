// l2_budget_probe: what G_σ reads that hit L2 cost a pass over G_t on one GPU. A single-message
// G_t kernel streams the slice from DRAM and back (the floor) and, per entry, also reads G_σ values
// that are mostly in L2: two cross values (both spins) for every channel, and a left and a right
// bubble factor for ph_magnetic and ph_charge. If L2 served those reads for free alongside the
// stream, the kernels' ceiling would be the G_t stream's rate; this measures how much each extra L2
// read per entry slows that stream, so that each channel's mix of reads gives the best ratio a kernel
// with that many reads per entry can reach.
//
// Every kernel here: G_t[i] += Σ_k table[(i + k·S)·W mod T] for every entry i in memory order (a
// coalesced stream, as fast as the single-message walks' order: docs/results/h200_access_probe), where
// the E extra loads per entry come from a table of T bytes (16 or 2 MiB, or 256 KiB) that stays in L2
// and are W values wide (1: 8 B for complex<float>, 16 B for complex<double>; 2: one 16-B load of two
// complex<float>, as an interleaved up/down pair would be). Kernel names say how those loads are
// cached: "L2 last" with the "evict last" policy that the library's G_σ reads use, "L2 normal"
// without a policy, both without allocating in L1, so every one is an L2 request; "L1" allocating in
// L1 from a 32 KiB table, so they hit L1; "+pf" adds one L2 prefetch per entry of a line that a later
// block loads. "per" entries per thread (n / per apart): their G_t loads first, then their extra
// loads, then their stores. Ratio = copy time / kernel time, both moving the slice read and written
// once; the copy is the faster of cudaMemcpyAsync and a plain copy kernel (one value a thread); "rmw/this"
// is the time of the G_t-only kernel over this one. Paper size: 212,336,640 entries. Medians of --reps
// timed launches after one warm-up (CUDA events). Each kernel's result after one launch is checked
// on 20,000 entries against the sums computed on the host (small integers, exact in float); any
// mismatch fails the run.
//
// Not part of the library or its build: it exists to measure. Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 bench/gpu/l2_budget_probe.cu -o l2_budget_probe
//   ./l2_budget_probe [--reps N] [--json FILE] [--plant] [--l2-persisting-max]
#include <cuda_runtime.h>

#include "probe_support.cuh"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

template <class Real>
using Complex = ProbeComplex<Real>;

constexpr std::size_t kEntries = 212336640;  // the paper size: nb = 1, Nc = 36, 2n = 64, 40 exchange rows
constexpr std::size_t kMaxTableBytes = std::size_t(16) << 20;
constexpr std::size_t kTableBytesL1 = std::size_t(32) << 10;
constexpr std::uint64_t kLoadStride = 1000003;  // entries between the k-th loads of one thread: other lines
constexpr std::size_t kPrefetchAhead = std::size_t(1) << 18;  // entries

// How the extra loads are cached: L2 "evict last" (the library's G_σ reads), L2's normal policy, both
// without allocating in L1, or allocating in L1 (normal policy).
enum class Cache { l2_last, l2_normal, l1 };

// One 8-B (v2.f32) or 16-B (v4.f32, v2.f64) load cached as kCache says, added into re and im.
template <Cache kCache>
__device__ void load_extra(const Complex<float>* p, int width, float& re, float& im, std::uint64_t policy) {
  float a, b, c = 0, d = 0;
  if (width == 1) {
    if (kCache == Cache::l2_last)
      asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;" : "=f"(a), "=f"(b) : "l"(p), "l"(policy));
    else if (kCache == Cache::l2_normal)
      asm volatile("ld.global.nc.L1::no_allocate.v2.f32 {%0, %1}, [%2];" : "=f"(a), "=f"(b) : "l"(p));
    else
      asm volatile("ld.global.nc.v2.f32 {%0, %1}, [%2];" : "=f"(a), "=f"(b) : "l"(p));
  } else {
    if (kCache == Cache::l2_last)
      asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                   : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(p), "l"(policy));
    else if (kCache == Cache::l2_normal)
      asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(p));
    else
      asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(p));
  }
  re += a + c, im += b + d;
}
template <Cache kCache>
__device__ void load_extra(const Complex<double>* p, int, double& re, double& im, std::uint64_t policy) {
  double a, b;
  if (kCache == Cache::l2_last)
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v2.f64 {%0, %1}, [%2], %3;" : "=d"(a), "=d"(b) : "l"(p), "l"(policy));
  else if (kCache == Cache::l2_normal)
    asm volatile("ld.global.nc.L1::no_allocate.v2.f64 {%0, %1}, [%2];" : "=d"(a), "=d"(b) : "l"(p));
  else
    asm volatile("ld.global.nc.v2.f64 {%0, %1}, [%2];" : "=d"(a), "=d"(b) : "l"(p));
  re += a, im += b;
}

// Where the k-th extra load of entry i reads: `width` consecutive values of the table (mask + 1 values).
__host__ __device__ inline std::uint64_t extra_index(std::uint64_t i, int k, int width, std::uint64_t mask) {
  return ((i + k * kLoadStride) * width) & mask;
}

// kPer entries per thread, n / kPer apart (n is a multiple of 4), their G_t loads issued first, then
// their extra loads, then their stores: kPer times the loads in flight per thread. kPrefetch: one
// prefetch into L2 per entry of a line that a later block loads, as the walks prefetch their own
// later rows (an L2 request more per entry).
template <class Real, int kExtra, int kWidth, Cache kCache, int kPer = 1, bool kPrefetch = false>
__global__ void rmw_extra(Complex<Real>* __restrict__ gt, const Complex<Real>* __restrict__ table, std::size_t n,
                          std::uint64_t mask) {
  const std::size_t part = n / kPer, first = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (first >= part) return;
  Complex<Real> old[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) old[j] = gt[first + j * part];
  if (kPrefetch && first + kPrefetchAhead < n) asm volatile("prefetch.global.L2 [%0];" ::"l"(gt + first + kPrefetchAhead));
  std::uint64_t policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  Real re[kPer] = {}, im[kPer] = {};
#pragma unroll
  for (int j = 0; j < kPer; ++j)
#pragma unroll
    for (int k = 0; k < kExtra; ++k)
      load_extra<kCache>(table + extra_index(first + j * part, k, kWidth, mask), kWidth, re[j], im[j], policy);
#pragma unroll
  for (int j = 0; j < kPer; ++j) gt[first + j * part] = Complex<Real>{old[j].re + re[j], old[j].im + im[j]};
}

template <class T>
__global__ void copy_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i];
}

struct Row {
  std::string scalar, kernel;
  int extra, width_bytes, per_thread;
  std::size_t table_bytes;
  double ms, copy_ms, base_ms;
  long mismatches;
};

// G_t[i] starts as i mod 1021 (+ 1 in the imaginary part), table[j] as j mod 7 (+ 2): small integers.
template <class Real>
__global__ void fill(Complex<Real>* gt, std::size_t n, Complex<Real>* table, std::size_t table_size) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) gt[i] = Complex<Real>{Real(i % 1021), Real(i % 1021 + 1)};
  if (i < table_size) table[i] = Complex<Real>{Real(i % 7), Real(i % 7 + 2)};
}

// --plant: the host's sums are off by one, so that every check must fail (the check's own test).
bool planted = false;
// --l2-persisting-max: the L2 set-aside for persisting accesses raised to the device's maximum first.
bool persisting_max = false;

// Sampled entries (20,000, evenly spaced) whose value after one launch differs from the host's sum.
template <class Real>
long check(const Complex<Real>* gt, std::size_t n, int extra, int width, std::uint64_t mask) {
  const std::size_t count = 20000, step = n / count;
  std::vector<Complex<Real>> sample(count);
  CHECK(cudaMemcpy2D(sample.data(), sizeof(Complex<Real>), gt, step * sizeof(Complex<Real>), sizeof(Complex<Real>), count,
                     cudaMemcpyDeviceToHost));
  long bad = 0;
  for (std::size_t s = 0; s < count; ++s) {
    const std::size_t i = s * step;
    double re = double(i % 1021) + (planted ? 1 : 0), im = double(i % 1021 + 1);
    for (int k = 0; k < extra; ++k)
      for (int w = 0; w < width; ++w) {
        const std::uint64_t j = extra_index(i, k, width, mask) + w;
        re += double(j % 7), im += double(j % 7 + 2);
      }
    bad += double(sample[s].re) != re || double(sample[s].im) != im;
  }
  return bad;
}

template <class Real>
void measure(const char* scalar, int reps, std::vector<Row>& rows) {
  using T = Complex<Real>;
  const std::size_t n = kEntries, bytes = n * sizeof(T);
  T *gt = nullptr, *other = nullptr, *table = nullptr;
  CHECK(cudaMalloc(&gt, bytes));
  CHECK(cudaMalloc(&other, bytes));
  CHECK(cudaMalloc(&table, kMaxTableBytes));
  const int threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  const double memcpy_ms = median_ms(reps, [&] { CHECK(cudaMemcpyAsync(other, gt, bytes, cudaMemcpyDeviceToDevice)); });
  const double kernel_ms = median_ms(reps, [&] { copy_kernel<<<blocks, threads>>>(gt, other, n); });
  const double copy = std::min(memcpy_ms, kernel_ms);
  double base = 0;
  // One kernel: E extra loads W values wide, kPer entries a thread, from a table of `table_bytes`.
  const auto run = [&](const char* name, int extra, int width, int per, std::size_t table_bytes, auto kernel) {
    const std::size_t table_size = table_bytes / sizeof(T);
    const std::uint64_t mask = table_size - 1;
    const auto kernel_blocks = static_cast<unsigned>((n / per + threads - 1) / threads);
    fill<Real><<<blocks, threads>>>(gt, n, table, table_size);
    kernel<<<kernel_blocks, threads>>>(gt, table, n, mask);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    const long bad = check(gt, n, extra, width, mask);
    const double ms = median_ms(reps, [&] { kernel<<<kernel_blocks, threads>>>(gt, table, n, mask); });
    if (extra == 0 && per == 1) base = ms;
    rows.push_back({scalar, name, extra, width * int(sizeof(T)), per, table_bytes, ms, copy, base, bad});
  };
  constexpr std::size_t kMiB = std::size_t(1) << 20;
  constexpr Cache last = Cache::l2_last, normal = Cache::l2_normal;
  run("rmw", 0, 1, 1, 16 * kMiB, rmw_extra<Real, 0, 1, last>);
  run("rmw", 0, 1, 4, 16 * kMiB, rmw_extra<Real, 0, 1, last, 4>);
  for (const std::size_t mib : {16, 2}) {
    run("L2 last", 1, 1, 1, mib * kMiB, rmw_extra<Real, 1, 1, last>);
    run("L2 last", 2, 1, 1, mib * kMiB, rmw_extra<Real, 2, 1, last>);
    run("L2 last", 3, 1, 1, mib * kMiB, rmw_extra<Real, 3, 1, last>);
    run("L2 normal", 1, 1, 1, mib * kMiB, rmw_extra<Real, 1, 1, normal>);
    run("L2 normal", 2, 1, 1, mib * kMiB, rmw_extra<Real, 2, 1, normal>);
    run("L2 last", 1, 1, 4, mib * kMiB, rmw_extra<Real, 1, 1, last, 4>);
    run("L2 last", 2, 1, 4, mib * kMiB, rmw_extra<Real, 2, 1, last, 4>);
  }
  run("L2 last", 4, 1, 1, 16 * kMiB, rmw_extra<Real, 4, 1, last>);
  run("L2 last", 1, 1, 1, kMiB / 4, rmw_extra<Real, 1, 1, last>);
  run("L2 normal", 1, 1, 1, kMiB / 4, rmw_extra<Real, 1, 1, normal>);
  if (sizeof(Real) == 4) {
    run("L2 last", 1, 2, 1, 16 * kMiB, rmw_extra<Real, 1, 2, last>);
    run("L2 last", 2, 2, 1, 16 * kMiB, rmw_extra<Real, 2, 2, last>);
  }
  run("L2 last+pf", 2, 1, 1, 16 * kMiB, rmw_extra<Real, 2, 1, last, 1, true>);
  run("L1", 2, 1, 1, kTableBytesL1, rmw_extra<Real, 2, 1, Cache::l1>);
  run("L1", 4, 1, 1, kTableBytesL1, rmw_extra<Real, 4, 1, Cache::l1>);
  std::printf("%s: cudaMemcpyAsync %.4f ms, copy kernel %.4f ms\n", scalar, memcpy_ms, kernel_ms);
  CHECK(cudaFree(gt));
  CHECK(cudaFree(other));
  CHECK(cudaFree(table));
}

}  // namespace

int main(int argc, char** argv) {
  ProbeOptions options;
  const int status = parse_probe_options(argc, argv,
                                         "usage: %s [--reps N] [--json FILE] [--plant] [--l2-persisting-max]\n"
                                         "Times G_t += (E loads per entry from an L2-resident table) over the paper size's\n"
                                         "212,336,640 entries, complex<double> and complex<float>, E = 0..4, against a copy of\n"
                                         "the same bytes; checks a sample of every kernel's output (--plant: against sums off\n"
                                         "by one, to see the check fail; --l2-persisting-max: the L2 set-aside for persisting\n"
                                         "accesses raised to the device's maximum first).\n",
                                         options, [](const std::string& a) {
                                           if (a == "--plant") return planted = true;
                                           if (a == "--l2-persisting-max") return persisting_max = true;
                                           return false;
                                         });
  if (status >= 0) return status;
  // Lines read with "evict last" may count against the set-aside: it is printed and recorded.
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (persisting_max)
    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, std::size_t(prop.persistingL2CacheMaxSize)));
  std::size_t persisting = 0;
  CHECK(cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize));
  std::printf("%s: L2 %d MiB, persisting set-aside %.1f MiB (maximum %.1f MiB)\n", prop.name, prop.l2CacheSize >> 20,
              persisting / 1048576.0, prop.persistingL2CacheMaxSize / 1048576.0);
  std::vector<Row> rows;
  measure<double>("complex<double>", options.reps, rows);
  measure<float>("complex<float>", options.reps, rows);
  long bad = 0;
  std::printf("%-16s %-11s %5s %6s %4s %9s %9s %9s %11s %9s %10s\n", "scalar", "kernel", "extra", "bytes", "per",
              "table KiB", "ms", "copy ms", "copy/kernel", "rmw/this", "mismatches");
  for (const Row& r : rows) {
    std::printf("%-16s %-11s %5d %6d %4d %9zu %9.4f %9.4f %11.3f %9.3f %10ld\n", r.scalar.c_str(), r.kernel.c_str(),
                r.extra, r.width_bytes, r.per_thread, r.table_bytes >> 10, r.ms, r.copy_ms, r.copy_ms / r.ms,
                r.base_ms / r.ms, r.mismatches);
    bad += r.mismatches;
  }
  if (!options.json.empty() && !write_json_file(options.json, [&](FILE* f) {
    std::fprintf(f, "{\"program\": \"l2_budget_probe\", \"reps\": %d, \"entries\": %zu, \"l2_persisting_bytes\": %zu, "
                 "\"results\": [\n", options.reps, kEntries, persisting);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::fprintf(f,
                   "  {\"scalar\": \"%s\", \"kernel\": \"%s\", \"extra_loads\": %d, \"load_bytes\": %d, "
                   "\"per_thread\": %d, \"table_bytes\": %zu, \"ms\": %.6f, \"copy_ms\": %.6f, \"copy_over_kernel\": %.4f, "
                   "\"rmw_over_kernel\": %.4f, \"mismatches\": %ld}%s\n",
                   r.scalar.c_str(), r.kernel.c_str(), r.extra, r.width_bytes, r.per_thread, r.table_bytes, r.ms,
                   r.copy_ms, r.copy_ms / r.ms,
                   r.base_ms / r.ms, r.mismatches, i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
  }))
    return 1;
  if (bad) std::fprintf(stderr, "%ld sampled entries differ from the host's sums\n", bad);
  return bad ? 1 : 0;
}
