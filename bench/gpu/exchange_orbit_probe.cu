// exchange_orbit_probe: can the exchange term of a batch (the pass that bounds the bubble channels' batches,
// about two thirds of their kernel time) read its G_σ values from shared memory instead of L1/L2?
//
// The term, for ph_magnetic at nb = 1 (ph_charge is the same), entry (k1 w1; k2 w2; Q, Ω):
//   G_t += Σ_j w_j · −(G↑_j[k1 w1, k2 w2]·G↑_j[k2+Q w2+Ω, k1+Q w1+Ω] + the same for ↓)
// with the second value read from the transposed copy, as the library does. Shifting k1 and k2 by the same
// Q keeps their difference d = k2 − k1: for one frequency pair and one Ω, the entries of an "orbit" d are
// a circular correlation over k1 of 36 fixed values with 36 cross values, each value used by all 10 exchange
// momenta. A thread block that owns one (ω1, ω2), all four Ω and the six orbits of one row of d (dx = 0..5,
// fixed dy) needs 2 · (36·6 + 4·36·6) values of a message for 8640 entries, where the library's pass reads
// a cross value from L1 or L2 for each entry and message. Its G_t partial sums stay in registers for the
// whole batch (10 exchange momenta a thread), so G_t is still read and written once a batch, and whole
// sectors of it: the two values of a 32-byte sector are k1 and k1 + x̂ of one pair, which belong to orbits dx
// and dx − 1 of the same row. What it measured: docs/results/exchange_orbits/README.md.
//
// Kernels (all add into G_t, the same entries, the same layout as the library: entry = inner + I·(pair +
// P·(iQ + NQ·iΩ)), inner = k1 + Nc·ω1, pair = k2 + Nc·ω2; G_σ column-major with rows and columns (k, ω) over
// 2n + 4 frequencies):
//   direct       a thread per (inner, pair, Ω, 5 exchange momenta), G_σ from global memory: the library's
//                shape without its pair groups and teams (a baseline inside this file; the library's own
//                pass is timed by Nsight Compute next to this probe, docs/results/exchange_orbits);
//   orbits_4     the blocks above, each message copied into shared memory with cp.async while the one
//                before is used (three buffers where they fit, else two); threads in orbit order;
//   rows_4/_2    the same with consecutive threads on consecutive k1 (whole 576-byte runs of G_t), blocks of
//                4 or 2 exchange frequencies;
//   unwrapped_*  rows_* with cross tables laid out without wrap-around (kUnwrapped), no bank conflicts;
//   paired_4     threads of two entries of an orbit sharing cross values (kPaired);
//   halves_4/_2  paired threads in two launches of five exchange momenta each (kHalf).
// Messages complex<double> ("double") or complex<float> widened to double ("mixed"); G_t complex<double>.
// Checks: every kernel's G_t agrees with direct's to 1e-12 relative (max over entries of |a − b| / max |a|);
// the program exits 1 otherwise.
//
// Not part of the library or its build: it exists to measure. Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 bench/gpu/exchange_orbit_probe.cu -o orbit_probe
//   ./orbit_probe [--batch B] [--precision double|mixed|both] [--reps N] [--json FILE]
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include "probe_support.cuh"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kL = 6;                  // 6 × 6 cluster
constexpr int kNc = kL * kL;           // 36 momenta
constexpr int kNw = 64;                // 2n fermionic frequencies
constexpr int kNq = 10;                // exchange momenta 0..9 (index qx + 6·qy)
constexpr int kNomega = 4;             // exchange frequencies 0..3
constexpr int kWe = kNw + kNomega;     // G_σ's frequencies, extended so that ω + Ω fits
constexpr std::int64_t kM = std::int64_t{kNc} * kWe;  // G_σ is M × M
constexpr std::int64_t kI = std::int64_t{kNc} * kNw;  // inner indices (k1, ω1)
constexpr std::int64_t kP = kI;                       // pair indices (k2, ω2)
constexpr std::int64_t kGt = kI * kP * kNq * kNomega;
constexpr int kQHalf = kNq / 2;        // exchange momenta a thread of `direct`

using Z = ProbeComplex<double>;

__host__ __device__ inline int add_k(int k, int q) {  // k + q on the torus
  return (k % kL + q % kL) % kL + kL * ((k / kL + q / kL) % kL);
}
__host__ __device__ inline std::int64_t row(int k, int w) { return k + std::int64_t{kNc} * w; }

template <class Msg>
__device__ inline Z widen(const Msg& v) {
  return {static_cast<double>(v.re), static_cast<double>(v.im)};
}
__device__ inline void fma_into(Z& acc, const Z& a, const Z& b) {  // acc += a·b
  acc.re = fma(a.re, b.re, fma(-a.im, b.im, acc.re));
  acc.im = fma(a.re, b.im, fma(a.im, b.re, acc.im));
}

// The messages: g[j] = G↑ then G↓ of message j (M² each), gt the same transposed; w the weights.
template <class Msg>
struct Batch {
  const Msg* g;
  const Msg* gt;
  const double* w;
  int count;
  static constexpr std::int64_t kSpin = kM * kM;
  __device__ const Msg* g_of(int j, int spin) const { return g + (2 * std::int64_t{j} + spin) * kSpin; }
  __device__ const Msg* gt_of(int j, int spin) const { return gt + (2 * std::int64_t{j} + spin) * kSpin; }
};

template <class Msg>
__global__ void direct_kernel(Batch<Msg> b, Z* gt_out) {
  const std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (t >= kI * kP * 2 * kNomega) return;
  const int inner = static_cast<int>(t % kI);
  const std::int64_t rest = t / kI;
  const int pair = static_cast<int>(rest % kP);
  const int half = static_cast<int>(rest / kP % 2), i_omega = static_cast<int>(rest / kP / 2);
  const int k1 = inner % kNc, w1 = inner / kNc, k2 = pair % kNc, w2 = pair / kNc;
  const std::int64_t fixed_at = row(k1, w1) + kM * row(k2, w2);
  std::int64_t cross_at[kQHalf];
  for (int q = 0; q < kQHalf; ++q) {
    const int iq = half * kQHalf + q;
    cross_at[q] = row(add_k(k1, iq), w1 + i_omega) + kM * row(add_k(k2, iq), w2 + i_omega);
  }
  Z acc[kQHalf] = {};
  for (int j = 0; j < b.count; ++j) {
    const double w = -b.w[j];
    Z f[2];
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const Z v = widen(b.g_of(j, s)[fixed_at]);
      f[s] = {w * v.re, w * v.im};
    }
    for (int q = 0; q < kQHalf; ++q)
      for (int s = 0; s < 2; ++s) fma_into(acc[q], f[s], widen(b.gt_of(j, s)[cross_at[q]]));
  }
  for (int q = 0; q < kQHalf; ++q) {
    const std::int64_t e = inner + kI * (pair + kP * (half * kQHalf + q + kNq * std::int64_t{i_omega}));
    Z old = gt_out[e];
    gt_out[e] = {old.re + acc[q].re, old.im + acc[q].im};
  }
}

// One block: one frequency pair (ω1, ω2), one orbit row dy and kOmegas of the exchange frequencies. Thread t
// in orbit order: k1x = t % 6, k2x = t / 6 % 6, k1y = t / 36 % 6; in rows order (kRowsFast): k1 = t % 36,
// k2x = t / 36 % 6; Ω = its group's first + t / 216. Either way consecutive threads take consecutive inner
// indices of one pair (6 or 36 of them), so G_t's sectors are whole.
constexpr int kFixedValues = 2 * kNc * kL;  // both spins, 36 k1 × 6 k2x
// kUnwrapped: the cross tables hold their rows at unwrapped positions ax = k1x + qx (0..10), ay = k1y + qy
// (0..6), each column at a pitch P per ay and C per column, tables T apart (values at the wrapped-around
// positions are copied twice): the row a thread reads is then its k1's slot moved by the same q for every
// thread, and with the pitches below the eight (sixteen for 8-byte values) threads of each phase of a
// shared-memory request hit different banks for every q (a model of the requests,
// docs/results/exchange_orbits/bank_model.py;
// where rows wrap around, threads took 1.8 wavefronts a phase and Nsight Compute counted 7-way conflicts).
template <std::size_t kBytes>
struct UnwrappedPitch;
template <>
struct UnwrappedPitch<16> {
  static constexpr int P = 14, C = 100, T = 600;
};
template <>
struct UnwrappedPitch<8> {
  static constexpr int P = 22, C = 164, T = 984;
};
constexpr int kUnwrappedX = 2 * kL - 1, kUnwrappedY = kL + 1;  // ax 0..10, ay 0..6 (qy ≤ 1)
constexpr int kUnwrappedTable = kL * kUnwrappedY * kUnwrappedX;  // values copied into one cross table

template <int kOmegas, bool kPaired = false, bool kUnwrapped = false, std::size_t kBytes = 16>
struct OrbitShape {
  static constexpr int kThreads = kNc * kL * kOmegas / (kPaired ? 2 : 1);
  // Values copied from a message, and the shared-memory slots a message takes.
  static constexpr int kCopies = kFixedValues + 2 * kOmegas * (kUnwrapped ? kUnwrappedTable : kNc * kL);
  static constexpr int kStaged = kUnwrapped ? kFixedValues + 2 * kOmegas * UnwrappedPitch<kBytes>::T : kCopies;
  static constexpr int kLoadsPerThread = (kCopies + kThreads - 1) / kThreads;
};

// Where staged value v of a block sits in its message. v = ((table·2 + spin)·6 + cx)·36 + k: table 0 holds
// the fixed values (row k1 = k, column k2 = (cx, k.y + dy)), table 1 + i the cross values at the block's
// i-th Ω (row a = k, column b = (cx, a.y + dy)); k fastest, so that consecutive threads copy consecutive
// rows of a column. Returns the offset from the message's G↑ (fixed) or G↑ᵀ (cross; *cross set), spin
// included: < 2·M², 32 bits.
__device__ inline std::uint32_t staged_offset(int v, int w1, int w2, int dy, int first_omega, bool* cross) {
  const int k = v % kNc, cx = v / kNc % kL, spin = v / (kNc * kL) % 2, table = v / kFixedValues;
  const int col = cx + kL * ((k / kL + dy) % kL);
  const int omega = table == 0 ? 0 : first_omega + table - 1;
  *cross = table > 0;
  return static_cast<std::uint32_t>(spin * kM * kM + row(k, w1 + omega) + kM * row(col, w2 + omega));
}

// Copy v of an unwrapped block (v < kCopies): its shared-memory slot, and its offset in the message as
// staged_offset gives it.
template <class Pitch>
__device__ inline int unwrapped_copy(int v, int w1, int w2, int dy, int first_omega, std::uint32_t* offset, bool* cross) {
  if (v < kFixedValues) {
    *offset = staged_offset(v, w1, w2, dy, first_omega, cross);
    return v;
  }
  const int c = v - kFixedValues;
  const int ax = c % kUnwrappedX, ay = c / kUnwrappedX % kUnwrappedY, bx = c / (kUnwrappedX * kUnwrappedY) % kL;
  const int table = c / kUnwrappedTable, spin = table % 2, omega = first_omega + table / 2;
  const int k = ax % kL + kL * (ay % kL), col = bx + kL * ((ay + dy) % kL);
  *cross = true;
  *offset = static_cast<std::uint32_t>(spin * kM * kM + row(k, w1 + omega) + kM * row(col, w2 + omega));
  return kFixedValues + table * Pitch::T + bx * Pitch::C + ay * Pitch::P + ax;
}

// kPaired: a thread takes two entries of one orbit, (k1, k2) and (k1 + x̂, k2 + x̂) with k1x even; the
// cross value of the first at Q is the second's at Q − x̂, so for the exchange momenta 0..9 (qx = iq % 6,
// qy = iq / 6) eleven cross values serve its twenty entries, where unpaired threads read ten for ten.
// kHalf (0 or 1, paired only): the launch takes exchange momenta 5·kHalf .. 5·kHalf + 4 of both entries
// (six or seven cross values for ten entries, half the sums of kPaired alone); two launches make the term.
template <class Msg, int kOmegas, int kStages, bool kPaired, bool kRowsFast = false, bool kUnwrapped = false,
          int kHalf = -1>
__global__ void __launch_bounds__(OrbitShape<kOmegas, kPaired, kUnwrapped, sizeof(Msg)>::kThreads, 1)
    orbit_kernel(Batch<Msg> b, Z* gt_out) {
  static_assert(!kUnwrapped || (kRowsFast && !kPaired));
  static_assert(kHalf < 0 || kPaired);
  // Whether this launch takes exchange momentum iq (compile-time in the unrolled loops below).
  const auto mine = [](int iq) { return iq >= 0 && iq < kNq && (kHalf < 0 || iq / (kNq / 2) == kHalf); };
  using Shape = OrbitShape<kOmegas, kPaired, kUnwrapped, sizeof(Msg)>;
  using Pitch = UnwrappedPitch<sizeof(Msg)>;
  constexpr int kItems = kPaired ? 2 : 1;
  extern __shared__ unsigned char shared_bytes[];
  Msg* stage = reinterpret_cast<Msg*>(shared_bytes);  // kStages buffers of kStaged
  // Launch order: the six orbit rows of one (ω1, ω2), then (ω1 + 1, ω2 + 1): blocks that read the same
  // cross values (those of (ω1 + Ω, ω2 + Ω) for each of the four Ω) or the two halves of one cache line
  // (neighbouring orbit rows) run at the same time, so that L2 serves the second read.
  const int id = blockIdx.x;
  const int dy = id % kL, w1 = id / kL % kNw, diagonal = id / (kL * kNw) % kNw;
  const int w2 = (w1 + diagonal) % kNw;
  const int first_omega = id / (kL * kNw * kNw) * kOmegas;
  const int t = threadIdx.x;
  constexpr int kX = kPaired ? kL / 2 : kL;  // threads along k1x
  // kRowsFast: consecutive threads take consecutive k1 (all 36 of a column pair before the next k2x).
  const int k1x = kRowsFast ? t % kL : (t % kX) * kItems;
  const int k2x = kRowsFast ? t / kNc % kL : t / kX % kL;
  const int k1y = kRowsFast ? t / kL % kL : t / (kX * kL) % kL;
  const int own_omega = t / (kX * kNc);
  const int k1 = k1x + kL * k1y;
  // Item i: k1 + i·x̂, k2 + i·x̂.
  const auto k2x_of = [&](int i) { return k2x + i - (k2x + i >= kL ? kL : 0); };
  const auto fixed_at = [&](int i) { return k2x_of(i) * kNc + k1 + i; };  // spin s: + s·216
  const int cross_base = kFixedValues * (1 + own_omega);
  // The cross value at shift iq (0..9: exchange momentum iq, q = (iq % 6, iq / 6); 10: q = (4, 1)) of the
  // first item: row a = k1 + q, column x bx = k2x + qx; made where used, from compile-time q, so that the
  // offsets do not hold registers beside the sums.
  const auto cross_at = [&](int iq) {
    const int qx = iq < kNq ? iq % kL : 4, qy = iq < kNq ? iq / kL : 1;
    if constexpr (kUnwrapped) {
      const int bx = k2x + qx - (k2x + qx >= kL ? kL : 0);
      return kFixedValues + 2 * own_omega * Pitch::T + bx * Pitch::C + (k1y + qy) * Pitch::P + k1x + qx;
    }
    const int ax = k1x + qx - (k1x + qx >= kL ? kL : 0), ay = k1y + qy - (k1y + qy >= kL ? kL : 0);
    const int bx = k2x + qx - (k2x + qx >= kL ? kL : 0);
    return cross_base + bx * kNc + ax + kL * ay;
  };
  std::uint32_t source_at[Shape::kLoadsPerThread];
  bool from_cross[Shape::kLoadsPerThread];
  int slot_of[Shape::kLoadsPerThread];
#pragma unroll
  for (int l = 0; l < Shape::kLoadsPerThread; ++l) {
    const int v = min(t + l * Shape::kThreads, Shape::kCopies - 1);
    if constexpr (kUnwrapped) slot_of[l] = unwrapped_copy<Pitch>(v, w1, w2, dy, first_omega, &source_at[l], &from_cross[l]);
    else slot_of[l] = v, source_at[l] = staged_offset(v, w1, w2, dy, first_omega, &from_cross[l]);
  }
  // Message j's values into buffer `buffer`, copied asynchronously (cp.async): no registers hold them
  // on the way.
  const auto load = [&](int j, int buffer) {
    const Msg* g = b.g_of(j, 0);
    const Msg* gt = b.gt_of(j, 0);
#pragma unroll
    for (int l = 0; l < Shape::kLoadsPerThread; ++l) {
      const int v = t + l * Shape::kThreads;
      if (v < Shape::kCopies)
        __pipeline_memcpy_async(stage + buffer * Shape::kStaged + slot_of[l], (from_cross[l] ? gt : g) + source_at[l],
                                sizeof(Msg));
    }
    __pipeline_commit();
  };
  Z acc[kItems][kNq] = {};
  // kStages − 1 messages in flight while one message's terms are formed. Every thread commits a (possibly
  // empty) group per message so that wait_prior counts the same groups everywhere.
  for (int j = 0; j < kStages - 1; ++j) {
    if (j < b.count) load(j, j);
    else __pipeline_commit();
  }
  for (int j = 0; j < b.count; ++j) {
    __pipeline_wait_prior(kStages - 2);  // message j has arrived (this thread's copies)
    __syncthreads();                     // ... and every thread's; buffer (j − 1) % kStages is free
    if (j + kStages - 1 < b.count) load(j + kStages - 1, (j + kStages - 1) % kStages);
    else __pipeline_commit();
    const Msg* m = stage + (j % kStages) * Shape::kStaged;
    const double w = -b.w[j];
    Z f[kItems][2];
#pragma unroll
    for (int i = 0; i < kItems; ++i)
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        const Z v = widen(m[s * kNc * kL + fixed_at(i)]);
        f[i][s] = {w * v.re, w * v.im};
      }
#pragma unroll
    for (int iq = 0; iq < (kPaired ? kNq + 1 : kNq); ++iq) {
      // The second item's exchange momentum for this cross value: iq − x̂ where that is one of 0..9.
      const int second = iq < kL ? (iq + kL - 1) % kL : (iq == kL ? -1 : iq - 1);
      const bool first_uses = mine(iq), second_uses = kPaired && mine(second);
      if (!first_uses && !second_uses) continue;
#pragma unroll
      for (int s = 0; s < 2; ++s) {
        const Z c = widen(m[s * (kUnwrapped ? Pitch::T : kNc * kL) + cross_at(iq)]);
        if (first_uses) fma_into(acc[0][iq], f[0][s], c);
        if (second_uses) fma_into(acc[kItems - 1][second], f[kItems - 1][s], c);
      }
    }
  }
  const int omega = first_omega + own_omega;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int k2 = k2x_of(i) + kL * ((k1y + dy) % kL);
    const std::int64_t inner = row(k1 + i, w1), pair = row(k2, w2);
#pragma unroll
    for (int iq = 0; iq < kNq; ++iq) {
      if (!mine(iq)) continue;
      const std::int64_t e = inner + kI * (pair + kP * (iq + kNq * std::int64_t{omega}));
      Z old = gt_out[e];
      gt_out[e] = {old.re + acc[i][iq].re, old.im + acc[i][iq].im};
    }
  }
}

// Values in [−0.02, 0.02) from a hash of the position (on the device: 12 GB of messages at B = 32).
template <class Real>
__global__ void fill_kernel(Real* values, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = static_cast<std::uint64_t>(i) + seed * 0x9e3779b97f4a7c15ull;  // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    values[i] = static_cast<Real>((static_cast<double>(z >> 11) * 0x1.0p-53 * 2.0 - 1.0) * 0.02);
  }
}
template <class Real>
void fill_random(Real* device, std::int64_t reals, std::uint64_t seed) {
  fill_kernel<Real><<<4096, 256>>>(device, reals, seed);
  CHECK(cudaGetLastError());
}

// max |a − b| / max |a| over G_t (host copies).
double relative_difference(const Z* a_dev, const Z* b_dev) {
  std::vector<Z> a(kGt), b(kGt);
  CHECK(cudaMemcpy(a.data(), a_dev, kGt * sizeof(Z), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), b_dev, kGt * sizeof(Z), cudaMemcpyDeviceToHost));
  double diff = 0, scale = 0;
  for (std::int64_t e = 0; e < kGt; ++e) {
    diff = std::max(diff, std::hypot(a[e].re - b[e].re, a[e].im - b[e].im));
    scale = std::max(scale, std::hypot(a[e].re, a[e].im));
  }
  return scale > 0 ? diff / scale : (diff == 0 ? 0.0 : INFINITY);
}

struct Result {
  std::string precision;
  int batch;
  double copy_ms = 0, direct_ms = 0, difference = 0;
  std::vector<std::pair<std::string, double>> variant_ms;  // name, ms
};

template <class Real>
Result run(const std::string& precision, int batch, int reps, Z* gt_a, Z* gt_b) {
  using Msg = ProbeComplex<Real>;
  const std::size_t message_values = 2 * static_cast<std::size_t>(kM * kM);  // both spins
  Msg *g = nullptr, *gt = nullptr;
  double* w = nullptr;
  CHECK(cudaMalloc(&g, batch * message_values * sizeof(Msg)));
  CHECK(cudaMalloc(&gt, batch * message_values * sizeof(Msg)));
  CHECK(cudaMalloc(&w, batch * sizeof(double)));
  fill_random(reinterpret_cast<Real*>(g), static_cast<std::int64_t>(2 * batch * message_values), 11);
  fill_random(reinterpret_cast<Real*>(gt), static_cast<std::int64_t>(2 * batch * message_values), 12);
  std::vector<double> weights(batch);
  for (int j = 0; j < batch; ++j) weights[j] = (j % 8 == 3) ? -1.0 : 1.0;
  CHECK(cudaMemcpy(w, weights.data(), batch * sizeof(double), cudaMemcpyHostToDevice));
  const Batch<Msg> b{g, gt, w, batch};

  const std::int64_t direct_threads = kI * kP * 2 * kNomega;
  const auto direct = [&](Z* out) {
    direct_kernel<Msg><<<static_cast<unsigned>((direct_threads + 255) / 256), 256>>>(b, out);
  };
  // Three buffers (two messages in flight) where they fit in shared memory, else two.
  // halves: two launches, exchange momenta 0..4 and 5..9 (kHalf), else one.
  const auto orbit_launcher = [&](auto omegas, auto paired, auto rows_fast, auto unwrapped, auto halves) {
    constexpr int kOmegas = decltype(omegas)::value;
    constexpr bool kPaired = decltype(paired)::value, kRowsFast = decltype(rows_fast)::value;
    constexpr bool kUnwrapped = decltype(unwrapped)::value, kHalves = decltype(halves)::value;
    using Shape = OrbitShape<kOmegas, kPaired, kUnwrapped, sizeof(Msg)>;
    constexpr int kStages = 3 * Shape::kStaged * sizeof(Msg) <= 220 * 1024 ? 3 : 2;
    const std::size_t shared = kStages * Shape::kStaged * sizeof(Msg);
    const auto first = orbit_kernel<Msg, kOmegas, kStages, kPaired, kRowsFast, kUnwrapped, kHalves ? 0 : -1>;
    const auto second = orbit_kernel<Msg, kOmegas, kStages, kPaired, kRowsFast, kUnwrapped, kHalves ? 1 : -1>;
    CHECK(cudaFuncSetAttribute(first, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    if (kHalves) CHECK(cudaFuncSetAttribute(second, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    return [=](Z* out) {
      const unsigned blocks = kNw * kNw * kL * (kNomega / kOmegas);
      first<<<blocks, Shape::kThreads, shared>>>(b, out);
      if (kHalves) second<<<blocks, Shape::kThreads, shared>>>(b, out);
    };
  };
  using Four = std::integral_constant<int, 4>;
  using Two = std::integral_constant<int, 2>;
  using On = std::true_type;
  using Off = std::false_type;
  const std::vector<std::pair<std::string, std::function<void(Z*)>>> variants = {
      {"orbits_4", orbit_launcher(Four{}, Off{}, Off{}, Off{}, Off{})},
      {"rows_4", orbit_launcher(Four{}, Off{}, On{}, Off{}, Off{})},
      {"rows_2", orbit_launcher(Two{}, Off{}, On{}, Off{}, Off{})},
      {"unwrapped_4", orbit_launcher(Four{}, Off{}, On{}, On{}, Off{})},
      {"unwrapped_2", orbit_launcher(Two{}, Off{}, On{}, On{}, Off{})},
      {"paired_4", orbit_launcher(Four{}, On{}, Off{}, Off{}, Off{})},
      {"halves_4", orbit_launcher(Four{}, On{}, Off{}, Off{}, On{})},
      {"halves_2", orbit_launcher(Two{}, On{}, Off{}, Off{}, On{})}};

  // Agreement: each kernel once into a zeroed G_t.
  Result r{precision, batch};
  CHECK(cudaMemset(gt_a, 0, kGt * sizeof(Z)));
  direct(gt_a);
  CHECK(cudaGetLastError());
  for (const auto& [name, launch] : variants) {
    CHECK(cudaMemset(gt_b, 0, kGt * sizeof(Z)));
    launch(gt_b);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    r.difference = std::max(r.difference, relative_difference(gt_a, gt_b));
  }
  r.copy_ms = median_ms(reps, [&] { CHECK(cudaMemcpyAsync(gt_b, gt_a, kGt * sizeof(Z), cudaMemcpyDeviceToDevice)); });
  r.direct_ms = median_ms(reps, [&] { direct(gt_a); });
  std::printf("%-7s B = %2d  copy %8.3f ms  direct %8.3f ms", precision.c_str(), batch, r.copy_ms, r.direct_ms);
  for (const auto& variant : variants) {
    r.variant_ms.emplace_back(variant.first, median_ms(reps, [&] { variant.second(gt_a); }));
    std::printf("  %s %8.3f ms (%.3f)", variant.first.c_str(), r.variant_ms.back().second,
                r.variant_ms.back().second / r.direct_ms);
  }
  std::printf("  |diff| %.2e\n", r.difference);
  std::fflush(stdout);
  CHECK(cudaFree(g));
  CHECK(cudaFree(gt));
  CHECK(cudaFree(w));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "usage: %s [--batch B] [--precision double|mixed|both] [--reps N] [--json FILE]\n"
      "Times a batch's exchange term (ph_magnetic, nb = 1, 6 x 6, 2n = 64, 10 x 4 exchange rows) read from\n"
      "global memory (direct) and from shared-memory orbit tiles (orbits), next to a copy of G_t.\n";
  ProbeOptions options;
  int batch = 32;
  std::string precision = "both";
  std::string pending;
  const int status = parse_probe_options(argc, argv, usage, options, [&](const std::string& a) {
    if (!pending.empty()) {
      (pending == "--batch" ? batch = std::max(1, std::atoi(a.c_str())) : 0);
      if (pending == "--precision") precision = a;
      pending.clear();
      return true;
    }
    if (a == "--batch" || a == "--precision") {
      pending = a;
      return true;
    }
    return false;
  });
  if (status >= 0) return status;
  if (precision != "double" && precision != "mixed" && precision != "both") {
    std::fprintf(stderr, "%s: --precision takes double, mixed or both\n", argv[0]);
    return 2;
  }
  Z *gt_a = nullptr, *gt_b = nullptr;
  CHECK(cudaMalloc(&gt_a, kGt * sizeof(Z)));
  CHECK(cudaMalloc(&gt_b, kGt * sizeof(Z)));
  std::vector<Result> results;
  if (precision != "mixed") results.push_back(run<double>("double", batch, options.reps, gt_a, gt_b));
  if (precision != "double") results.push_back(run<float>("mixed", batch, options.reps, gt_a, gt_b));
  bool agree = true;
  for (const Result& r : results) agree = agree && r.difference <= 1e-12;
  if (!options.json.empty())
    write_json_file(options.json, [&](FILE* f) {
      std::fprintf(f, "{\"probe\": \"exchange_orbit_probe\", \"gt_entries\": %lld, \"results\": [", static_cast<long long>(kGt));
      for (std::size_t i = 0; i < results.size(); ++i) {
        const Result& r = results[i];
        std::fprintf(f, "%s\n  {\"precision\": \"%s\", \"batch\": %d, \"copy_ms\": %.6f, \"direct_ms\": %.6f, ",
                     i ? "," : "", r.precision.c_str(), r.batch, r.copy_ms, r.direct_ms);
        for (const auto& [name, ms] : r.variant_ms) std::fprintf(f, "\"%s_ms\": %.6f, ", name.c_str(), ms);
        std::fprintf(f, "\"relative_difference\": %.3e}", r.difference);
      }
      std::fprintf(f, "\n]}\n");
    });
  CHECK(cudaFree(gt_a));
  CHECK(cudaFree(gt_b));
  if (!agree) std::fprintf(stderr, "the kernels disagree beyond 1e-12\n");
  return agree ? 0 : 1;
}
