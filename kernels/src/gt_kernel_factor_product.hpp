#pragma once
// The factor product of the bubble channels' batches, in a pass of its own.
//
// ph_magnetic and ph_charge add w_j·(left_j(inner, x)·right_j(pair, x) − exchange term) per message j
// (FactorKernel's tables, gt_kernel_tables.hpp). Over a batch the factor part, Σ_j w_j·left_j·right_j,
// is for each exchange row x a rank-`count` update of the (inner × pair) matrix of G_t: a matrix
// product with `count` as its inner dimension. ChannelKernel with kFactorsApart adds the exchange term only;
// this kernel adds the factor part the way matrix products are tiled: a team takes one exchange row,
// a tile of inner indices and a tile of pairs, stages every weighted left factor and every right
// factor of the tile for a chunk of the messages in team scratch memory (all loads in flight together,
// one barrier), and each thread then forms the sums of its inner index and kPairs pairs from scratch
// memory alone, so that its products never wait for memory, and adds them to its G_t entries. On an
// H200 at the paper size (nb = 1, double, B = 16) the pass takes 2.7 ms, about 1.7 times a copy of
// G_t, where a thread-per-entries form that read the factors from global memory waited for them
// message by message and took three (docs/results/h200_batch_loads, sections 6–8;
// docs/results/h200_factor_tiles). A batch larger than a chunk takes its chunks in turn within the
// team, so that G_t crosses memory once per batch: a chunk's update finds the tile that the chunk
// before wrote still in cache (docs/results/factor_chunks). A team asks L2 for its G_t tile before it
// stages anything (4.66 → 4.40 ms for a B = 32 batch on an H200); the sums on the tensor cores (DMMA)
// were no faster, as they are not what bounds the pass (docs/results/batch_prepare).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gt_kernel_access.hpp"
#include "l2_hints.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/fast_divisor.hpp"

namespace ringcomm::gt::detail {

template <class Scalar, class Message>
struct FactorProductKernel {
  using Real = typename Scalar::value_type;
  using FactorView = Kokkos::View<const Scalar*, Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
  // At most 64 registers a thread, so that four teams fit an SM: with each thread's G_t values loaded
  // before its sums (80 registers bounded, 110 unbounded) an H200 ran the pass 18–21 % slower
  // (docs/results/h200_factor_tiles).
  using Bounds = Kokkos::LaunchBounds<256, 4>;
  // Work tags of the two forms (operator()): a batch within one chunk, a larger batch.
  struct OneChunk {};
  struct Chunks {};
  template <class Tag>
  using TaggedPolicy = Kokkos::TeamPolicy<ExecSpace, Bounds, Tag>;
  using Policy = TaggedPolicy<Chunks>;
  using Team = typename Policy::member_type;
  using Staged = Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static constexpr int kLanes = 32;    // consecutive inner indices of a warp: coalesced G_t rows
  static constexpr int kWarps = 8;     // a team's warps (threads on GPUs; a host team walks them in turn)
  static constexpr int kThreads = kLanes * kWarps;
  static constexpr int kStage = 8;     // staged values a thread loads before it stores them
  static constexpr int kPairs = 8;     // pairs per thread: each staged left factor serves kPairs entries
  static constexpr int kRound = 4;     // G_t entries a thread loads before it stores them

  Kokkos::View<Scalar*> slice;
  std::uint64_t begin = 0, end = 0;  // the slice's entries in G_t
  std::uint32_t inner_size = 0;      // I = nb⁴·Nc·2n
  std::uint32_t pair_size = 0;       // P = Nc·2n
  int nb = 1;
  std::uint32_t first_row = 0;       // exchange row of the slice's first entry
  // The team's shape: inner_warps × pair_warps = kWarps (choose_shape), so a team covers
  // kLanes·inner_warps inner indices and kPairs·pair_warps pairs of one exchange row.
  int inner_warps = 1, pair_warps = kWarps;
  std::uint32_t inner_tiles = 0, pair_tiles = 0;
  // Divisors of the staging loop (choose_shape): the left factors of a message (kLanes·inner_warps),
  // the right ones of a message (nb² rows) and of a row (right_row()), and nb⁴, the orbital part of an
  // inner index.
  FastDivisor per_left, per_right, row_of_right, orbitals;
  // Message j (< count) of the pass: its sign at j·message_stride + sign_at of `messages` (its weight
  // is message_weight), its factor tables at j·factor_message of `factors`: left at
  // x·F + (b1 + nb·b2 + nb²·(k1 + Nc·w1)), right at factor_right + x·F + (b3 + nb·b4 + nb²·pair).
  MessageView<Message> messages;
  std::uint64_t message_stride = 0, sign_at = 0;
  int count = 0;
  int chunk = 0;  // messages staged at once (team_bytes()): the team takes count / chunk chunks in turn
  FactorView factors;
  std::uint32_t factor_stride = 0, factor_right = 0;
  std::uint64_t factor_message = 0;

  KOKKOS_INLINE_FUNCTION int inner_per_team() const { return kLanes * inner_warps; }
  KOKKOS_INLINE_FUNCTION int pairs_per_team() const { return kPairs * pair_warps; }
  // A row of right factors (one message, one (b3, b4)) holds the team's pairs and one slot of padding:
  // the 16-byte step it adds puts the rows that the lanes of a warp read at once (nb > 1) in other
  // shared-memory banks.
  KOKKOS_INLINE_FUNCTION int right_row() const { return pairs_per_team() + 1; }
  // Scalars of scratch memory a team stages for n messages: the left factors, then the right ones.
  KOKKOS_INLINE_FUNCTION int left_scalars(int n) const { return n * inner_per_team(); }
  KOKKOS_INLINE_FUNCTION int right_scalars(int n) const { return n * nb * nb * right_row(); }
  std::size_t team_bytes() const {
    return Staged::shmem_size(left_scalars(chunk)) + Staged::shmem_size(right_scalars(chunk));
  }
  std::int64_t league(std::uint32_t rows) const { return static_cast<std::int64_t>(inner_tiles) * pair_tiles * rows; }

  // The team shape with the least scratch memory per message (the left factors take kLanes·inner_warps
  // scalars, the right ones nb²·(kPairs·pair_warps + 1)): at nb = 1 one warp of inner indices, 64 pairs.
  void choose_shape() {
    int best = 0;
    for (int w = 1; w <= kWarps; w *= 2) {
      const int scalars = kLanes * w + nb * nb * (kPairs * (kWarps / w) + 1);
      if (best == 0 || scalars < best) best = scalars, inner_warps = w, pair_warps = kWarps / w;
    }
    inner_tiles = (inner_size + inner_per_team() - 1) / inner_per_team();
    pair_tiles = (pair_size + pairs_per_team() - 1) / pairs_per_team();
    per_left = FastDivisor(static_cast<std::uint32_t>(inner_per_team()));
    per_right = FastDivisor(static_cast<std::uint32_t>(nb * nb * right_row()));
    row_of_right = FastDivisor(static_cast<std::uint32_t>(right_row()));
    orbitals = FastDivisor(static_cast<std::uint32_t>(nb * nb * nb * nb));
  }

  KOKKOS_INLINE_FUNCTION Real weight(int j) const {
    return message_weight<Real>(messages, j * message_stride + sign_at);
  }

  struct Tile {
    std::uint32_t x, inner0, pair0;  // exchange row, first inner index, first pair
  };
  // The G_t entry (its index in all of G_t, not in the slice) of an inner index, pair and exchange row.
  KOKKOS_INLINE_FUNCTION std::uint64_t entry_of(std::uint32_t inner, std::uint64_t pair, std::uint32_t x) const {
    return inner + static_cast<std::uint64_t>(inner_size) * (pair + static_cast<std::uint64_t>(pair_size) * x);
  }

  // Team t's tile: its inner tile, then its pair tile, then its exchange row, so that the teams running
  // together share the right factors of a pair tile.
  KOKKOS_INLINE_FUNCTION Tile tile_of(const Team& team) const {
    const auto rank = static_cast<std::uint32_t>(team.league_rank());
    const std::uint32_t inner_tile = rank % inner_tiles, pair_tile = rank / inner_tiles % pair_tiles;
    return {first_row + rank / inner_tiles / pair_tiles, inner_tile * inner_per_team(), pair_tile * pairs_per_team()};
  }

  // Staged value s of a team's chunk (its first message j0): below n_left the weighted left factor of
  // message j0 + s / per_left at inner index inner0 + s % per_left, above it the right factor of the
  // remaining index's message, (b3, b4) and pair.
  KOKKOS_INLINE_FUNCTION Scalar staged_value(int s, int n_left, int j0, const Tile& tile) const {
    const bool is_left = s < n_left;
    std::uint32_t j = 0, at = tile.x * factor_stride;
    bool inside = false;
    if (is_left) {
      std::uint32_t inner = 0;
      per_left.divide(static_cast<std::uint32_t>(s), j, inner);
      inner += tile.inner0;
      inside = inner < inner_size;
      if (nb == 1) {
        at += inner;
      } else {  // b1 + nb·b2 + nb²·(k1 + Nc·w1)
        std::uint32_t b12 = 0, k1w1 = 0;
        orbitals.divide(inner, k1w1, b12);  // b12 = b1 + nb·b2 + nb²·(b3 + nb·b4)
        at += b12 % (nb * nb) + nb * nb * k1w1;
      }
    } else {
      std::uint32_t rest = 0, b34 = 0, p = 0;
      per_right.divide(static_cast<std::uint32_t>(s - n_left), j, rest);
      row_of_right.divide(rest, b34, p);
      const std::uint32_t pair = tile.pair0 + p;
      inside = p < static_cast<std::uint32_t>(pairs_per_team()) && pair < pair_size;
      at += factor_right + b34 + nb * nb * pair;
    }
    j += static_cast<std::uint32_t>(j0);
    const Real w = weight(static_cast<int>(j));
    const Scalar factor = factors(j * factor_message + (inside ? at : 0));
    return inside && w != Real(0) ? (is_left ? w * factor : factor) : Scalar();
  }

  // Virtual thread t of a team: its inner index i in the tile, its first pair in the tile, the G_t entry
  // of its first pair and which of its kPairs entries (bit p) are in the slice; false past the last
  // inner index.
  KOKKOS_INLINE_FUNCTION bool thread_entries(int t, const Tile& tile, int& i, int& first_pair, std::uint64_t& first,
                                             std::uint32_t& in_slice) const {
    const int lane = t % kLanes, warp = t / kLanes;
    i = (warp % inner_warps) * kLanes + lane, first_pair = (warp / inner_warps) * kPairs;
    const std::uint32_t inner = tile.inner0 + static_cast<std::uint32_t>(i);
    if (inner >= inner_size) return false;
    const std::uint64_t pair = tile.pair0 + first_pair;
    first = entry_of(inner, pair, tile.x);
    in_slice = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int p = 0; p < kPairs; ++p) {
      const std::uint64_t entry = first + static_cast<std::uint64_t>(inner_size) * p;
      if (pair + p < pair_size && entry >= begin && entry < end) in_slice |= 1u << p;
    }
    return true;
  }

  // A batch within one chunk (count ≤ chunk), compiled apart from the chunk loop: with it, ptxas spills
  // two tile constants in complex<double> (docs/results/factor_chunks), without it none.
  KOKKOS_INLINE_FUNCTION void operator()(OneChunk, const Team& team) const {
    const Staged left(team.team_scratch(0), left_scalars(chunk));
    const Staged right(team.team_scratch(0), right_scalars(chunk));
    const Tile tile = tile_of(team);
    prefetch_tile(team, tile);
    stage(team, tile, left, right, count, 0);
    team.team_barrier();
    add_products(team, tile, left, right, count);
  }

  // A larger batch: its chunks in turn through the same scratch memory; the barrier before a chunk's
  // staging lets every thread finish reading the chunk before.
  KOKKOS_INLINE_FUNCTION void operator()(Chunks, const Team& team) const {
    const Staged left(team.team_scratch(0), left_scalars(chunk));
    const Staged right(team.team_scratch(0), right_scalars(chunk));
    const Tile tile = tile_of(team);
    prefetch_tile(team, tile);
    for (int j0 = 0; j0 < count; j0 += chunk) {
      const int n = count - j0 < chunk ? count - j0 : chunk;
      if (j0 > 0) team.team_barrier();
      stage(team, tile, left, right, n, j0);
      team.team_barrier();
      add_products(team, tile, left, right, n);
    }
  }

  // Asks L2 for the team's G_t entries (one 128-byte line per thread and round) before the team
  // stages and sums, so that their DRAM reads overlap the sums instead of following them.
  KOKKOS_INLINE_FUNCTION void prefetch_tile(const Team& team, const Tile& tile) const {
    constexpr int kPerLine = 128 / static_cast<int>(sizeof(Scalar));
    const int lines_per_pair = (inner_per_team() + kPerLine - 1) / kPerLine, lines = lines_per_pair * pairs_per_team();
    for (int l = team.team_rank(); l < lines; l += team.team_size()) {
      const std::uint32_t inner = tile.inner0 + static_cast<std::uint32_t>(l % lines_per_pair * kPerLine);
      const std::uint32_t pair = tile.pair0 + static_cast<std::uint32_t>(l / lines_per_pair);
      const std::uint64_t entry = entry_of(inner, pair, tile.x);
      if (inner < inner_size && pair < pair_size && entry >= begin && entry < end) prefetch_to_l2(slice.data() + (entry - begin));
    }
  }

  // Stages the factors of messages j0 … j0 + n − 1. Each thread loads kStage staged values before it
  // stores any, so that they are in flight together (value by value, the team waited for a round trip
  // to L2 per value). The weight and the factor are loaded without waiting for each other: padding
  // messages (weight 0), whose tables were never written, and positions past the last inner index or
  // pair stage zeros after the load, since 0 · NaN would not vanish.
  KOKKOS_INLINE_FUNCTION void stage(const Team& team, const Tile& tile, const Staged& left, const Staged& right, int n,
                                    int j0) const {
    const int n_left = left_scalars(n), total = n_left + right_scalars(n);
    const int size = team.team_size();
    for (int first = team.team_rank(); first < total; first += size * kStage) {
      Scalar value[kStage];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int k = 0; k < kStage; ++k)
        if (first + size * k < total) value[k] = staged_value(first + size * k, n_left, j0, tile);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int k = 0; k < kStage; ++k) {
        const int s = first + size * k;
        if (s < n_left) left(s) = value[k];
        else if (s < total) right(s - n_left) = value[k];
      }
    }
  }

  // Adds the staged chunk's products, n messages, to each thread's G_t entries.
  KOKKOS_INLINE_FUNCTION void add_products(const Team& team, const Tile& tile, const Staged& left, const Staged& right,
                                           int n) const {
    const int n_inner = inner_per_team(), n_right = nb * nb * right_row();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kThreads), [&](const int t) {
      int i = 0, first_pair = 0;
      std::uint64_t first = 0;
      std::uint32_t in_slice = 0;  // bit p: pair p's entry is in the slice
      if (!thread_entries(t, tile, i, first_pair, first, in_slice)) return;
      const std::uint32_t inner = tile.inner0 + static_cast<std::uint32_t>(i);
      const int b34 = static_cast<int>(inner / (nb * nb) % (nb * nb));  // b3 + nb·b4
      // Real and imaginary parts apart, each product added in two fused multiply-adds: four per complex
      // term, where `sum += l * r` compiled to six (a product, then its sum).
      Real re[kPairs] = {}, im[kPairs] = {};
      for (int j = 0; j < n; ++j) {
        const Scalar l = left(j * n_inner + i);
        const int row = j * n_right + b34 * right_row() + first_pair;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int p = 0; p < kPairs; ++p) {
          const Scalar r = right(row + p);
          re[p] += l.real() * r.real();
          re[p] -= l.imag() * r.imag();
          im[p] += l.real() * r.imag();
          im[p] += l.imag() * r.real();
        }
      }
      // G_t in rounds of kRound entries, each round's loads before its stores: the compiler cannot tell
      // that the entries differ, so a load after a store waited for it. (All of them loaded before the
      // sums took 110 registers, and the pass was slower: docs/results/h200_factor_tiles.)
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int h = 0; h < kPairs; h += kRound) {
        Scalar old[kRound];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int p = 0; p < kRound; ++p)
          if (in_slice >> (h + p) & 1u) old[p] = slice(first + static_cast<std::uint64_t>(inner_size) * (h + p) - begin);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int p = 0; p < kRound; ++p)
          if (in_slice >> (h + p) & 1u)
            slice(first + static_cast<std::uint64_t>(inner_size) * (h + p) - begin) = old[p] + Scalar(re[h + p], im[h + p]);
      }
    });
  }
};

// Before the factor product of whole exchange rows goes to a matrix product (factor_product_blas.hpp),
// whose sums know no weights: message j's left factors of rows [row0, row0 + rows) times w_j, in place,
// and both of its sides zero where w_j = 0 (padding, whose tables were never written: 0·NaN would not
// vanish in the product, as FactorProductKernel::staged_value stages zeros for the same reason). Thread t
// takes message t / (2·R), side t / R % 2 (left, right) and entry t % R of those rows (R = rows·F).
template <class Scalar, class Message>
struct WeighFactorRows {
  using Real = typename Scalar::value_type;
  Kokkos::View<Scalar*> factors;
  MessageView<Message> messages;
  std::uint64_t message_stride = 0, sign_at = 0;  // as FactorProductKernel's
  std::uint64_t factor_message = 0, factor_right = 0;
  std::uint64_t first = 0;        // row0·F: the rows' first entry in each side's table
  std::uint64_t row_entries = 0;  // R

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t t) const {
    const auto u = static_cast<std::uint64_t>(t);
    const std::uint64_t j = u / (2 * row_entries), side = u / row_entries % 2;
    const Real w = message_weight<Real>(messages, j * message_stride + sign_at);
    const std::uint64_t at = j * factor_message + side * factor_right + first + u % row_entries;
    if (w == Real(0)) factors(at) = Scalar();
    else if (side == 0) factors(at) = w * factors(at);
  }
};

}  // namespace ringcomm::gt::detail
