// gt_access_probe: ceilings of the G_t update's memory access patterns on one GPU, in plain CUDA, so
// that the Kokkos kernels' gaps to the copy rate can be split into "the order in which G_t is walked"
// and "the G_σ reads". Everything is measured in one run against a device-to-device copy of the same
// size (ratio = copy time / kernel time, the copy counting its read and write, the kernels the G_t
// slice read and written once), at the paper size (nb = 1, 6 × 6 cluster, 2n = 64, exchange momenta
// 0..9, exchange frequencies 0..3):
//   rmw_linear    G_t[i] += c in memory order (the best any update can do);
//   walk_rmw      G_t += c in the single-message walks' order (a thread per (inner, pair) walks the 40
//                 exchange rows, the next row's value loaded ahead), no G_σ;
//   walk_pp       the same walk with pp_up_down's terms: fixed G_σ values read once per thread, the
//                 cross values per row (L2 "evict last"), as the Kokkos walk does;
//   runs_*        a block owns W consecutive ω1 (runs of 36·W contiguous G_t entries) and K consecutive
//                 k2 of one ω2, and walks the exchange rows; with terms, the fixed values stay in
//                 registers and the cross values of each exchange frequency (and the bubble factors)
//                 are staged once per block in shared memory and read there N_Q times; tile_* are the
//                 frequency-pair tiles, runs of one ω1 and 36 pairs (--all);
//   walk_*_gP[s]  the walk in pair groups, optionally staggered (--all);
//   walk_pp_chunksC  the walk with threads numbered in blocks of C chunks of 32 inner indices, every
//                 pair of a block before the next (walk_blocked; 72 = walk()'s order, 128 a block);
//   walk_pp_dD    the walk with each frequency diagonal spread over D warps of a block (walk_diagonal);
//   naive_*       one thread per entry, the formula as written: the reference.
// Correctness: the walk, one pair-group walk, walk_pp_chunks9, walk_pp_d2, walk_pp_d4 and every runs
// and tile kernel with terms are compared with naive_* (the relative max error is printed); G_t starts from random values, never zeros.
// The walks read their momentum tables from constant memory with indices that differ between lanes,
// which the constant cache serialises; the library's walk reads them from global memory.
//
// Not part of the library or its build: it exists to measure. Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 bench/gpu/gt_access_probe.cu -o probe
//   ./probe [--all | --walks] [--reps N] [--json FILE]
#include <cuda_runtime.h>

#include "probe_support.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

// The paper's shape, nb = 1.
constexpr int kLx = 6, kNc = 36, kNw = 64, kNQ = 10, kNW = 4, kE = 3;
constexpr int kM = kNc * (kNw + 2 * kE);          // 2520
constexpr int kInner = kNc * kNw;                  // (k1, ω1): 2304
constexpr std::uint64_t kRow = std::uint64_t(kInner) * kInner;  // one exchange row
constexpr std::uint64_t kEntries = kRow * kNQ * kNW;             // 212,336,640
constexpr int kRows = kNQ * kNW;

template <class R>
using C = ProbeComplex<R>;
template <class R>
__host__ __device__ inline C<R> operator*(C<R> a, C<R> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class R>
__host__ __device__ inline C<R> operator+(C<R> a, C<R> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class R>
__host__ __device__ inline C<R> operator-(C<R> a, C<R> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class R>
__host__ __device__ inline C<R> scale(R s, C<R> a) {
  return {s * a.re, s * a.im};
}

// k + q and q − k in the periodic 6 × 6 cluster, k = kx + 6·ky.
__host__ __device__ inline int k_add(int k, int q) { return (k % kLx + q % kLx) % kLx + kLx * ((k / kLx + q / kLx) % kLx); }
__host__ __device__ inline int k_sub(int q, int k) {
  return (q % kLx - k % kLx + kLx) % kLx + kLx * ((q / kLx - k / kLx + kLx) % kLx);
}
// Row or column of (k, ω) in G_σ, ω on G_t's axis.
__host__ __device__ inline int gidx(int k, int w) { return k + kNc * (w + kE); }
__host__ __device__ inline std::uint64_t gat(int k, int w, int kp, int wp) {
  return gidx(k, w) + std::uint64_t(kM) * gidx(kp, wp);
}

struct Tables {
  int sub[kNc * kNQ];  // Q − k of exchange momentum iQ (= Q)
  int add[kNc * kNQ];  // k + Q
};
__constant__ Tables c_tables;

template <class R>
__device__ inline C<R> load_evict_last(const C<R>* p) {
  std::uint64_t policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  C<R> v;
  if constexpr (sizeof(R) == 8)
    asm("ld.global.nc.L2::cache_hint.v2.f64 {%0, %1}, [%2], %3;" : "=d"(v.re), "=d"(v.im) : "l"(p), "l"(policy));
  else
    asm("ld.global.nc.L2::cache_hint.v2.f32 {%0, %1}, [%2], %3;" : "=f"(v.re), "=f"(v.im) : "l"(p), "l"(policy));
  return v;
}

enum class Channel { pp, magnetic };

// ---- the reference: one thread per entry, the formula as written --------------------------------
template <class R, Channel kChannel>
__global__ void naive(C<R>* gt, const C<R>* __restrict__ g, R half_s) {
  const std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (i >= kEntries) return;
  const int k1 = int(i % kNc), w1 = int(i / kNc % kNw), k2 = int(i / kInner % kNc), w2 = int(i / kInner / kNc % kNw);
  const int iq = int(i / kRow % kNQ), iw = int(i / kRow / kNQ);
  const std::uint64_t dn = std::uint64_t(kM) * kM;
  C<R> sum{0, 0};
  if constexpr (kChannel == Channel::pp) {
    const int a = k_sub(iq, k1), b = k_sub(iq, k2), wa = iw + kNw - 1 - w1, wb = iw + kNw - 1 - w2;
    sum = g[gat(k1, w1, k2, w2)] * g[dn + gat(a, wa, b, wb)] + g[dn + gat(k1, w1, k2, w2)] * g[gat(a, wa, b, wb)];
  } else {
    const int k1q = k_add(k1, iq), k2q = k_add(k2, iq);
    const std::uint64_t l = gat(k1, w1, k1q, w1 + iw), r = gat(k2q, w2 + iw, k2, w2);
    const std::uint64_t f = gat(k1, w1, k2, w2), x = gat(k2q, w2 + iw, k1q, w1 + iw);
    sum = (g[l] - g[dn + l]) * (g[r] - g[dn + r]) - (g[f] * g[x] + g[dn + f] * g[dn + x]);
  }
  gt[i] = gt[i] + scale(half_s, sum);
}

// A grid-stride copy in 16-byte words: the second baseline beside cudaMemcpyAsync (the faster counts).
__global__ void copy16(uint4* __restrict__ to, const uint4* __restrict__ from, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += stride) to[i] = from[i];
}

// ---- memory order ----------------------------------------------------------------------------------
template <class R>
__global__ void rmw_linear(C<R>* gt, R c) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < kEntries; i += stride) {
    C<R> v = gt[i];
    v.re += c;
    gt[i] = v;
  }
}

// pp_up_down's term of entry (k1, ω1, k2, ω2) at exchange row (iQ, iΩ) from its fixed values fu, fd
// and the cross values, read with L2 "evict last": what both walks below compute per row.
template <class R>
__device__ inline C<R> walk_pp_term(const C<R>* g, C<R> fu, C<R> fd, int k1, int w1, int k2, int w2, int iq, int iw,
                                    R half_s) {
  const std::uint64_t dn = std::uint64_t(kM) * kM;
  const int a = c_tables.sub[k1 + kNc * iq], b = c_tables.sub[k2 + kNc * iq];
  const std::uint64_t x = gat(a, iw + kNw - 1 - w1, b, iw + kNw - 1 - w2);
  return scale(half_s, fu * load_evict_last(g + dn + x) + fd * load_evict_last(g + x));
}

// ---- the walks' order: a thread per (inner, pair), 40 rows -----------------------------------------
// Thread (inner, pair) of a walk: its fixed G_σ values once (kTerms), then the 40 exchange rows in
// order, the next row's G_t value loaded ahead.
template <class R, bool kTerms>
__device__ inline void walk_rows(C<R>* gt, const C<R>* __restrict__ g, R half_s, int inner, int pair) {
  const int k1 = inner % kNc, w1 = inner / kNc, k2 = pair % kNc, w2 = pair / kNc;
  const std::uint64_t dn = std::uint64_t(kM) * kM;
  C<R> fu{0, 0}, fd{0, 0};
  if constexpr (kTerms) fu = g[gat(k1, w1, k2, w2)], fd = g[dn + gat(k1, w1, k2, w2)];
  C<R>* p = gt + inner + std::uint64_t(kInner) * pair;
  C<R> old = p[0];
  for (int row = 0; row < kRows; ++row) {
    C<R> next{0, 0};
    if (row + 1 < kRows) next = p[(row + 1) * kRow];
    C<R> term{half_s, 0};
    if constexpr (kTerms) term = walk_pp_term(g, fu, fd, k1, w1, k2, w2, row % kNQ, row / kNQ, half_s);
    p[row * kRow] = old + term;
    old = next;
  }
}

template <class R, bool kTerms>
__global__ void walk(C<R>* gt, const C<R>* __restrict__ g, R half_s) {
  const std::uint64_t t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (t >= kRow) return;
  walk_rows<R, kTerms>(gt, g, half_s, int(t % kInner), int(t / kInner));
}

// ---- walks in pair groups: the kPairs warps of a group take the same 32 inner indices and kPairs
// consecutive pairs; with kStagger, warp p walks the momenta of each exchange frequency starting at
// p (cyclically), so that at a given step the warps of a group read Q − k2 (or k2 + Q) of the same
// momentum where the cluster's index arithmetic carries no digit: the same cross column, and rows of
// the same frequency, so that one warp's L2 read serves the others from L1. kGtNoL1: G_t loads skip L1.
template <class R>
__device__ inline C<R> load_no_l1(const C<R>* p) {
  C<R> v;
  if constexpr (sizeof(R) == 8)
    asm volatile("ld.global.L1::no_allocate.v2.f64 {%0, %1}, [%2];" : "=d"(v.re), "=d"(v.im) : "l"(p));
  else
    asm volatile("ld.global.L1::no_allocate.v2.f32 {%0, %1}, [%2];" : "=f"(v.re), "=f"(v.im) : "l"(p));
  return v;
}

template <class R, bool kTerms, int kPairs, bool kStagger, bool kGtNoL1 = false>
__global__ void walk_grouped(C<R>* gt, const C<R>* __restrict__ g, R half_s) {
  constexpr int kWarps = 8, kChunksPerBlock = kWarps / kPairs;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int p = warp % kPairs, c = warp / kPairs;
  constexpr int kChunks = kInner / 32;  // 72
  const int chunk_block = blockIdx.x % (kChunks / kChunksPerBlock), group = blockIdx.x / (kChunks / kChunksPerBlock);
  const int inner = (chunk_block * kChunksPerBlock + c) * 32 + lane, pair = group * kPairs + p;
  if (pair >= kInner) return;
  const int k1 = inner % kNc, w1 = inner / kNc, k2 = pair % kNc, w2 = pair / kNc;
  const std::uint64_t dn = std::uint64_t(kM) * kM;
  C<R> fu{0, 0}, fd{0, 0};
  if constexpr (kTerms) fu = g[gat(k1, w1, k2, w2)], fd = g[dn + gat(k1, w1, k2, w2)];
  C<R>* base = gt + inner + std::uint64_t(kInner) * pair;
  const int start = kStagger ? p % kNQ : 0;
  const auto row_of = [&](int step) { const int iw = step / kNQ, iq = (step % kNQ + start) % kNQ; return iq + kNQ * iw; };
  const auto load = [&](int step) { const C<R>* a = base + kRow * row_of(step); return kGtNoL1 ? load_no_l1(a) : *a; };
  C<R> old = load(0);
  for (int step = 0; step < kRows; ++step) {
    C<R> next{0, 0};
    if (step + 1 < kRows) next = load(step + 1);
    const int row = row_of(step), iq = row % kNQ, iw = row / kNQ;
    C<R> term{half_s, 0};
    if constexpr (kTerms) term = walk_pp_term(g, fu, fd, k1, w1, k2, w2, iq, iw, half_s);
    base[kRow * row] = old + term;
    old = next;
  }
}

// ---- the walk in blocks of inner chunks -------------------------------------------------------------
// The cross values of pp_up_down that the threads in flight read at one time are G_σ rows (Q − k1,
// Ω − ω1) of every inner index in flight × columns of the pairs in flight. walk() numbers threads
// inner index first, so every inner index (all of G_σ's rows) is in flight with a few ω2; here thread
// t is (lane, chunk within a block of kChunks chunks of 32 inner indices, pair, chunk block), so the
// threads in flight cover kChunks·32 inner indices (kChunks·32/36 values of ω1) and many more pairs:
// a squarer piece of G_σ, fewer bytes to keep in L2 for the same reuse. kChunks = 72 is walk()'s order.
template <class R, int kChunks>
__global__ void walk_blocked(C<R>* gt, const C<R>* __restrict__ g, R half_s) {
  constexpr int kAllChunks = kInner / 32;  // 72
  const std::uint64_t t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const int lane = int(t % 32), c = int(t / 32 % kChunks);
  const std::uint64_t rest = t / 32 / kChunks;
  const int pair = int(rest % kInner), chunk = int(rest / kInner) * kChunks + c;
  if (chunk >= kAllChunks) return;
  walk_rows<R, true>(gt, g, half_s, chunk * 32 + lane, pair);
}
template <int kChunks>
constexpr unsigned walk_blocked_blocks(unsigned threads) {
  constexpr std::uint64_t kBlocks = (kInner / 32 + kChunks - 1) / kChunks;
  return unsigned(32 * kChunks * std::uint64_t(kInner) * kBlocks / threads);
}

// ---- the walk with its frequency diagonals spread over warps ----------------------------------------
// pp_up_down's cross value depends on Ω − ω1 and Ω − ω2 only, so it is the same for the entries
// (ω1 + j, ω2 + j, Ω_0 + j) of a frequency diagonal. A block's 4 warps are kD positions of a diagonal
// × 4 / kD chunks of 32 extended inner indices of one extended pair: frequencies u ∈ [0, 2n + kD − 1)
// on both axes, position d taking ω = u + d − (kD − 1) and exchange frequency Ω = window·kD + d (lanes
// whose ω falls outside [0, 2n) idle), and walking the N_Q momenta of that row: the kD warps of a
// diagonal read the same cross values at the same step, so all but one can find them in L1.
template <class R, int kD>
__global__ void walk_diagonal(C<R>* gt, const C<R>* __restrict__ g, R half_s) {
  constexpr int kExtended = kNw + kD - 1;
  constexpr int kChunks = (kNc * kExtended + 31) / 32, kChunksPerBlock = 4 / kD;
  constexpr int kChunkBlocks = (kChunks + kChunksPerBlock - 1) / kChunksPerBlock;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int d = warp % kD, chunk = blockIdx.x % kChunkBlocks * kChunksPerBlock + warp / kD;
  const int pair = blockIdx.x / kChunkBlocks % (kNc * kExtended), window = blockIdx.x / kChunkBlocks / (kNc * kExtended);
  const int inner = chunk * 32 + lane;
  if (inner >= kNc * kExtended) return;
  const int shift = d - (kD - 1), iw = window * kD + d;
  const int k1 = inner % kNc, w1 = inner / kNc + shift, k2 = pair % kNc, w2 = pair / kNc + shift;
  if (w1 < 0 || w1 >= kNw || w2 < 0 || w2 >= kNw) return;
  const std::uint64_t dn = std::uint64_t(kM) * kM;
  const C<R> fu = g[gat(k1, w1, k2, w2)], fd = g[dn + gat(k1, w1, k2, w2)];
  C<R>* p = gt + (k1 + kNc * w1) + std::uint64_t(kInner) * (k2 + kNc * w2) + kRow * (kNQ * iw);
  C<R> old = p[0];
  for (int iq = 0; iq < kNQ; ++iq) {
    C<R> next{0, 0};
    if (iq + 1 < kNQ) next = p[(iq + 1) * kRow];
    p[iq * kRow] = old + walk_pp_term(g, fu, fd, k1, w1, k2, w2, iq, iw, half_s);
    old = next;
  }
}
template <int kD>
constexpr unsigned walk_diagonal_blocks() {
  constexpr int kExtended = kNw + kD - 1, kChunks = (kNc * kExtended + 31) / 32, kChunksPerBlock = 4 / kD;
  return unsigned((kChunks + kChunksPerBlock - 1) / kChunksPerBlock * kNc * kExtended * (kNW / kD));
}

// ---- runs of frequencies, the frequency-pair tiles among them (kW1 = 1, 36 pairs) -----------------
// A block owns kW1 consecutive ω1 (a run of 36·kW1 contiguous G_t entries per pair) and every k2 of one
// ω2, and walks the exchange rows: per row it touches 36 runs of 36·kW1·sizeof(G_t) bytes. Per exchange
// frequency it stages the cross values of all its entries for every momentum (rows (·, ω) of its kW1
// frequencies × the 36 columns of ω2's shifted frequency, both spins) in shared memory, read there N_Q
// times; the fixed values stay in registers for all 40 rows (kPer entries per thread).
template <class R, Channel kChannel, int kW1>
constexpr std::size_t run_scratch_bytes() {
  constexpr int kRun = kNc * kW1;
  return sizeof(C<R>) * (2 * kRun * kNc + (kChannel == Channel::magnetic ? kRun * kNQ + kNc * kNQ : 0)) +
         sizeof(int) * kNc * kNQ;
}

// kK2: the block's pairs are kK2 consecutive k2 of its ω2 (36: all), fewer pairs per block leaving
// each thread more registers; the staged cross tile covers every momentum all the same.
template <class R, Channel kChannel, bool kTerms, int kW1, int kPer, int kK2 = kNc>
__global__ void __launch_bounds__(kNc * kK2 * kW1 / kPer) runs(C<R>* gt, const C<R>* __restrict__ g, R half_s) {
  constexpr int kRun = kNc * kW1, kTile = kRun * kNc, kBlockEntries = kRun * kK2, kThreads = kBlockEntries / kPer;
  static_assert(kBlockEntries % kPer == 0 && kThreads <= 1024, "");
  extern __shared__ __align__(16) unsigned char scratch[];
  C<R>* cross_up = reinterpret_cast<C<R>*>(scratch);
  C<R>* cross_dn = cross_up + kTile;
  constexpr bool kMag = kChannel == Channel::magnetic;
  C<R>* left = cross_dn + kTile;           // [il + kRun·iq]
  C<R>* right = left + (kMag ? kRun * kNQ : 0);    // [k2 + 36·iq]
  int* shift = reinterpret_cast<int*>(right + (kMag ? kNc * kNQ : 0));
  const int w1_0 = blockIdx.x % (kNw / kW1) * kW1, k2_0 = blockIdx.x / (kNw / kW1) % (kNc / kK2) * kK2;
  const int w2 = blockIdx.x / (kNw / kW1) / (kNc / kK2);
  const int t = threadIdx.x;
  const std::uint64_t dn = std::uint64_t(kM) * kM;
  if constexpr (kTerms)  // without terms nothing is staged (and no scratch is allocated)
    for (int i = t; i < kNc * kNQ; i += kThreads) shift[i] = kMag ? c_tables.add[i] : c_tables.sub[i];
  int il[kPer], k2[kPer];
  C<R> fu[kPer], fd[kPer];
  std::uint32_t slot[kPer];  // within a row: < 2304²
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const int e = t + kThreads * j;
    il[j] = e % kRun, k2[j] = k2_0 + e / kRun;
    slot[j] = std::uint32_t(w1_0 * kNc + il[j]) + std::uint32_t(kInner) * std::uint32_t(k2[j] + kNc * w2);
    if constexpr (kTerms) {
      const std::uint64_t f = gat(il[j] % kNc, w1_0 + il[j] / kNc, k2[j], w2);
      fu[j] = g[f], fd[j] = g[dn + f];
    }
  }
  for (int iw = 0; iw < kNW; ++iw) {
    if constexpr (kTerms) {
      __syncthreads();
      // pp: T[il + kRun·b] = G(a, Ω − ω1; b, Ω − ω2), il = a + 36·i, ω1 = ω1_0 + i.
      // magnetic: T[(b + 36·i) + kRun·a] = G(a, ω2 + Ω; b, ω1_0 + i + Ω).
      for (int f = t; f < kTile; f += kThreads) {
        const int a = f % kNc, rest = f / kNc;
        std::uint64_t x;
        int to;
        if constexpr (!kMag) {
          const int i = rest % kW1, b = rest / kW1;
          x = gat(a, iw + kNw - 1 - (w1_0 + i), b, iw + kNw - 1 - w2);
          to = a + kNc * i + kRun * b;
        } else {
          const int b = rest % kNc, i = rest / kNc;
          x = gat(a, w2 + iw, b, w1_0 + i + iw);
          to = b + kNc * i + kRun * a;
        }
        cross_up[to] = g[x], cross_dn[to] = g[dn + x];
      }
      if constexpr (kMag) {
        for (int f = t; f < kRun * kNQ; f += kThreads) {
          const int k = f % kNc, i = f / kNc % kW1, iq = f / kRun, kq = k_add(k, iq), w1 = w1_0 + i;
          const std::uint64_t l = gat(k, w1, kq, w1 + iw);
          left[f] = g[l] - g[dn + l];
        }
        for (int f = t; f < kNc * kNQ; f += kThreads) {
          const int k = f % kNc, iq = f / kNc, kq = k_add(k, iq);
          const std::uint64_t r = gat(kq, w2 + iw, k, w2);
          right[f] = g[r] - g[dn + r];
        }
      }
      __syncthreads();
    }
    for (int iq = 0; iq < kNQ; ++iq) {
      C<R>* row = gt + kRow * (iq + kNQ * iw);
      C<R> old[kPer];
#pragma unroll
      for (int j = 0; j < kPer; ++j) old[j] = row[slot[j]];
#pragma unroll
      for (int j = 0; j < kPer; ++j) {
        C<R> term{half_s, 0};
        if constexpr (kTerms) {
          const int k1 = il[j] % kNc, i = il[j] / kNc;
          const int x = shift[k1 + kNc * iq] + kNc * i + kRun * shift[k2[j] + kNc * iq];
          if constexpr (!kMag) {
            term = scale(half_s, fu[j] * cross_dn[x] + fd[j] * cross_up[x]);
          } else {
            term = scale(half_s, left[il[j] + kRun * iq] * right[k2[j] + kNc * iq] -
                                     (fu[j] * cross_up[x] + fd[j] * cross_dn[x]));
          }
        }
        row[slot[j]] = old[j] + term;
      }
    }
  }
}

// ---- host ------------------------------------------------------------------------------------------
struct Result {
  std::string precision, kernel;
  double ms, copy_ms, ratio;
  double max_rel_error;  // against the reference kernel; -1 where not checked
};

template <class R>
__global__ void fill_random(C<R>* p, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    p[i] = {R(double(z & 0xFFFFFF) / 0xFFFFFF - 0.5), R(double(z >> 40) / 0xFFFFFF - 0.5)};
  }
}

// max |a − b| / max |b| over the slice, on the host.
template <class R>
double max_rel_error(const C<R>* a_dev, const C<R>* b_dev) {
  std::vector<C<R>> a(kEntries), b(kEntries);
  CHECK(cudaMemcpy(a.data(), a_dev, kEntries * sizeof(C<R>), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), b_dev, kEntries * sizeof(C<R>), cudaMemcpyDeviceToHost));
  double diff = 0, ref = 0;
  for (std::uint64_t i = 0; i < kEntries; ++i) {
    const double d = std::hypot(double(a[i].re) - b[i].re, double(a[i].im) - b[i].im);
    diff = std::isnan(d) || std::isnan(diff) ? NAN : std::max(diff, d);  // a NaN stays
    ref = std::max(ref, std::hypot(double(b[i].re), double(b[i].im)));
  }
  return diff / ref;
}

// --all: also the pair-group walks and the frequency-pair tiles (docs/results/h200_access_probe: runs 1 and 2).
bool g_all = false;
// --walks: only the walks (no runs kernels).
bool g_walks = false;

template <class R>
void run_precision(const char* name, int reps, std::vector<Result>& out) {
  C<R>*gt, *copy, *g;
  CHECK(cudaMalloc(&gt, kEntries * sizeof(C<R>)));
  CHECK(cudaMalloc(&copy, kEntries * sizeof(C<R>)));
  const std::uint64_t g_entries = 2 * std::uint64_t(kM) * kM;
  CHECK(cudaMalloc(&g, g_entries * sizeof(C<R>)));
  fill_random<<<4096, 256>>>(gt, kEntries, 1);
  fill_random<<<4096, 256>>>(g, g_entries, 2);
  CHECK(cudaGetLastError());
  const R half_s = R(0.5);
  const std::size_t bytes = kEntries * sizeof(C<R>);
  const double memcpy_ms = median_ms(reps, [&] { CHECK(cudaMemcpyAsync(copy, gt, bytes, cudaMemcpyDeviceToDevice)); });
  const double copy16_ms = median_ms(reps, [&] {
    copy16<<<132 * 8, 512>>>(reinterpret_cast<uint4*>(copy), reinterpret_cast<const uint4*>(gt), bytes / 16);
  });
  std::printf("%-7s cudaMemcpyAsync %.3f ms, copy kernel %.3f ms (the faster is the baseline)\n", name, memcpy_ms, copy16_ms);
  const double copy_ms = std::min(memcpy_ms, copy16_ms);
  const auto add = [&](const char* kernel, double ms, double err) {
    out.push_back({name, kernel, ms, copy_ms, copy_ms / ms, err});
    std::printf("%-7s %-22s %8.3f ms  copy %8.3f ms  ratio %.3f  max rel error %s\n", name, kernel, ms, copy_ms,
                copy_ms / ms, err < 0 ? "-" : std::to_string(err).c_str());
    std::fflush(stdout);
  };
  const unsigned linear_blocks = 132 * 16;
  add("rmw_linear", median_ms(reps, [&] { rmw_linear<R><<<linear_blocks, 256>>>(gt, R(1e-3)); }), -1);
  const unsigned walk_blocks = unsigned((kRow + 255) / 256);
  add("walk_rmw", median_ms(reps, [&] { walk<R, false><<<walk_blocks, 256>>>(gt, g, half_s); }), -1);
  add("walk_pp", median_ms(reps, [&] { walk<R, true><<<walk_blocks, 256>>>(gt, g, half_s); }), -1);
  // Correctness first (from the same random G_t), then timing.
  const auto check = [&](auto launch_tile, auto launch_naive) {
    fill_random<<<4096, 256>>>(gt, kEntries, 3);
    CHECK(cudaMemcpy(copy, gt, bytes, cudaMemcpyDeviceToDevice));
    launch_tile(gt);
    launch_naive(copy);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return max_rel_error(gt, copy);
  };
  const unsigned naive_blocks = unsigned((kEntries + 255) / 256);
  const auto naive_pp = [&](C<R>* p) { naive<R, Channel::pp><<<naive_blocks, 256>>>(p, g, half_s); };
  const auto naive_mag = [&](C<R>* p) { naive<R, Channel::magnetic><<<naive_blocks, 256>>>(p, g, half_s); };
  if (g_all) {
  add("naive_pp", median_ms(reps, [&] { naive_pp(gt); }), -1);
  add("naive_magnetic", median_ms(reps, [&] { naive_mag(gt); }), -1);
  }
  if (g_all) {
  const auto grouped_blocks = [](int pairs) { return unsigned((kInner / 32) / (8 / pairs) * ((kInner + pairs - 1) / pairs)); };
  add("walk_rmw_g4", median_ms(reps, [&] { walk_grouped<R, false, 4, true><<<grouped_blocks(4), 256>>>(gt, g, half_s); }), -1);
  add("walk_rmw_g8", median_ms(reps, [&] { walk_grouped<R, false, 8, true><<<grouped_blocks(8), 256>>>(gt, g, half_s); }), -1);
  add("walk_pp_g1", median_ms(reps, [&] { walk_grouped<R, true, 1, false><<<grouped_blocks(1), 256>>>(gt, g, half_s); }), -1);
  add("walk_pp_g1_noL1", median_ms(reps, [&] { walk_grouped<R, true, 1, false, true><<<grouped_blocks(1), 256>>>(gt, g, half_s); }), -1);
  add("walk_pp_g2s", median_ms(reps, [&] { walk_grouped<R, true, 2, true><<<grouped_blocks(2), 256>>>(gt, g, half_s); }), -1);
  add("walk_pp_g4", median_ms(reps, [&] { walk_grouped<R, true, 4, false><<<grouped_blocks(4), 256>>>(gt, g, half_s); }), -1);
  add("walk_pp_g4s", median_ms(reps, [&] { walk_grouped<R, true, 4, true><<<grouped_blocks(4), 256>>>(gt, g, half_s); }), -1);
  add("walk_pp_g4s_noL1", median_ms(reps, [&] { walk_grouped<R, true, 4, true, true><<<grouped_blocks(4), 256>>>(gt, g, half_s); }), -1);
  add("walk_pp_g8s", median_ms(reps, [&] { walk_grouped<R, true, 8, true><<<grouped_blocks(8), 256>>>(gt, g, half_s); }), -1);
  add("walk_pp_g8s_noL1", median_ms(reps, [&] { walk_grouped<R, true, 8, true, true><<<grouped_blocks(8), 256>>>(gt, g, half_s); }), -1);
  {
    const auto launch = [&](C<R>* p) { walk_grouped<R, true, 4, true><<<grouped_blocks(4), 256>>>(p, g, half_s); };
    const double err = check(launch, naive_pp);
    add("walk_pp_g4s (checked)", median_ms(reps, [&] { launch(gt); }), err);
  }
  }
#define RUN_CASE(CH, TERMS, W1, PER, K2, NAME, NAIVE)                                                      \
  {                                                                                                        \
    constexpr std::size_t shm = TERMS ? run_scratch_bytes<R, CH, W1>() : 0; /* nothing staged without terms */ \
    auto* k = runs<R, CH, TERMS, W1, PER, K2>;                                                             \
    CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shm)));                 \
    const auto launch = [&](C<R>* p) { k<<<(kNw / W1) * (kNc / K2) * kNw, kNc * K2 * W1 / PER, shm>>>(p, g, half_s); }; \
    const double err = TERMS ? check(launch, NAIVE) : -1;                                                 \
    add(NAME, median_ms(reps, [&] { launch(gt); }), err);                                                  \
  }
  if (g_all) {
  // The frequency-pair tiles: runs of one ω1 and 36 pairs.
  RUN_CASE(Channel::pp, false, 1, 4, 36, "tile_rmw_4", naive_pp)
  RUN_CASE(Channel::pp, false, 1, 6, 36, "tile_rmw_6", naive_pp)
  RUN_CASE(Channel::pp, true, 1, 3, 36, "tile_pp_3", naive_pp)
  RUN_CASE(Channel::pp, true, 1, 4, 36, "tile_pp_4", naive_pp)
  RUN_CASE(Channel::pp, true, 1, 6, 36, "tile_pp_6", naive_pp)
  RUN_CASE(Channel::magnetic, true, 1, 4, 36, "tile_magnetic_4", naive_mag)
  RUN_CASE(Channel::magnetic, true, 1, 6, 36, "tile_magnetic_6", naive_mag)
  RUN_CASE(Channel::pp, false, 1, 2, 36, "runs_rmw_w1x1", naive_pp)
  RUN_CASE(Channel::pp, false, 2, 3, 36, "runs_rmw_w1x2", naive_pp)
  RUN_CASE(Channel::pp, false, 8, 12, 36, "runs_rmw_w1x8", naive_pp)
  RUN_CASE(Channel::pp, true, 1, 2, 36, "runs_pp_w1x1", naive_pp)
  RUN_CASE(Channel::pp, true, 2, 3, 36, "runs_pp_w1x2", naive_pp)
  RUN_CASE(Channel::pp, true, 2, 4, 36, "runs_pp_w1x2_4", naive_pp)
  RUN_CASE(Channel::magnetic, true, 2, 3, 36, "runs_magnetic_w1x2", naive_mag)
  }
  if (!g_walks) {
  RUN_CASE(Channel::pp, false, 4, 6, 36, "runs_rmw_w1x4", naive_pp)
  RUN_CASE(Channel::pp, false, 4, 6, 18, "runs_rmw_w1x4_k18", naive_pp)
  RUN_CASE(Channel::pp, false, 4, 4, 12, "runs_rmw_w1x4_k12", naive_pp)
  RUN_CASE(Channel::pp, true, 4, 6, 18, "runs_pp_w1x4_k18", naive_pp)
  RUN_CASE(Channel::magnetic, true, 4, 6, 18, "runs_magnetic_w1x4_k18", naive_mag)
  RUN_CASE(Channel::pp, true, 4, 4, 12, "runs_pp_w1x4_k12", naive_pp)
  RUN_CASE(Channel::magnetic, true, 4, 4, 12, "runs_magnetic_w1x4_k12", naive_mag)
  if constexpr (sizeof(R) == 4) {
    RUN_CASE(Channel::pp, false, 8, 6, 18, "runs_rmw_w1x8_k18", naive_pp)
    RUN_CASE(Channel::pp, true, 8, 6, 18, "runs_pp_w1x8_k18", naive_pp)
    RUN_CASE(Channel::magnetic, true, 8, 6, 18, "runs_magnetic_w1x8_k18", naive_mag)
  }
  }
#undef RUN_CASE
  {
    const auto launch = [&](C<R>* p) { walk<R, true><<<walk_blocks, 256>>>(p, g, half_s); };
    const double err = check(launch, naive_pp);
    add("walk_pp (checked)", median_ms(reps, [&] { launch(gt); }), err);
  }
  // Blocks of inner chunks (walk_blocked) and diagonals spread over warps (walk_diagonal), checked once each.
  const auto other_walk = [&](const char* kernel, auto walk_kernel, unsigned blocks, unsigned threads, bool checked) {
    const auto launch = [&](C<R>* p) { walk_kernel<<<blocks, threads>>>(p, g, half_s); };
    const double err = checked ? check(launch, naive_pp) : -1;
    add(kernel, median_ms(reps, [&] { launch(gt); }), err);
  };
  other_walk("walk_pp_chunks72", walk_blocked<R, 72>, walk_blocked_blocks<72>(128), 128, false);
  other_walk("walk_pp_chunks18", walk_blocked<R, 18>, walk_blocked_blocks<18>(128), 128, false);
  other_walk("walk_pp_chunks9", walk_blocked<R, 9>, walk_blocked_blocks<9>(128), 128, true);
  other_walk("walk_pp_chunks4", walk_blocked<R, 4>, walk_blocked_blocks<4>(128), 128, false);
  other_walk("walk_pp_d2", walk_diagonal<R, 2>, walk_diagonal_blocks<2>(), 128, true);
  other_walk("walk_pp_d4", walk_diagonal<R, 4>, walk_diagonal_blocks<4>(), 128, true);
  other_walk("walk_pp_chunks9 (again)", walk_blocked<R, 9>, walk_blocked_blocks<9>(128), 128, false);
  other_walk("walk_pp_chunks72 (again)", walk_blocked<R, 72>, walk_blocked_blocks<72>(128), 128, false);
  CHECK(cudaFree(gt));
  CHECK(cudaFree(copy));
  CHECK(cudaFree(g));
}

}  // namespace

int main(int argc, char** argv) {
  ProbeOptions options;
  const int status = parse_probe_options(argc, argv,
                                         "usage: %s [--all | --walks] [--reps N] [--json FILE]\n"
                                         "Times the G_t update's access patterns (see the file's opening comment) against a\n"
                                         "device-to-device copy at the paper size, in double and float, and checks the tile\n"
                                         "kernels against a one-thread-per-entry reference. --walks: the walks only.\n",
                                         options, [](const std::string& a) {
                                           if (a == "--all") return g_all = true;
                                           if (a == "--walks") return g_walks = true;
                                           return false;
                                         });
  if (status >= 0) return status;
  const int reps = options.reps;
  const std::string json = options.json;
  Tables t{};
  for (int q = 0; q < kNQ; ++q)
    for (int k = 0; k < kNc; ++k) t.sub[k + kNc * q] = k_sub(q, k), t.add[k + kNc * q] = k_add(k, q);
  CHECK(cudaMemcpyToSymbol(c_tables, &t, sizeof t));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("gt_access_probe on %s (%d SMs, L2 %d MiB), %llu entries, median of %d\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, (unsigned long long)kEntries, reps);
  std::vector<Result> results;
  run_precision<double>("double", reps, results);
  run_precision<float>("float", reps, results);
  if (!json.empty() && !write_json_file(json, [&](FILE* f) {
    std::fprintf(f, "{\"device\": \"%s\", \"entries\": %llu, \"repetitions\": %d, \"results\": [\n", prop.name,
                 (unsigned long long)kEntries, reps);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const Result& r = results[i];
      std::fprintf(f, "  {\"precision\": \"%s\", \"kernel\": \"%s\", \"ms\": %.6f, \"copy_ms\": %.6f, \"ratio\": %.4f, "
                      "\"max_rel_error\": %.3e}%s\n",
                   r.precision.c_str(), r.kernel.c_str(), r.ms, r.copy_ms, r.ratio, r.max_rel_error,
                   i + 1 < results.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
  }))
    return 1;
  return 0;
}
