#pragma once
// The thread orders of the G_t passes over a slice.
//
// A slice is a range [begin, end) of G_t's entries. Its entry index has three parts (EntryShape):
// the inner index (b1,b2,b3,b4,k1,w1), the pair (k2,w2) and the exchange row (Q,Ω); the slice splits
// into partial exchange rows at either end, walked one entry per thread, and the whole rows between
// them (SliceParts), whose threads the kernels number in an order of their own (SliceOrder, built on
// the host by slice_order).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>

#include "ringcomm/distributed_array.hpp"
#include "ringcomm/gt/dims.hpp"
#include "ringcomm/gt/fast_divisor.hpp"

namespace ringcomm::gt::detail {

// The inner index (b1,b2,b3,b4,k1,w1) and the pair (k2,w2) of an entry.
struct OuterIndex {
  int b1, b2, b3, b4, k1, w1, k2, w2;
};

// G_t's index in three parts: inner = (b1,b2,b3,b4,k1,w1), pair = (k2,w2), exchange = (Q,Ω), so that
// entry = inner + I·(pair + P·exchange). Each part fits 32 bits (GtAccumulator's constructor checks),
// so every division is a FastDivisor's.
struct EntryShape {
  FastDivisor nb;
  FastDivisor nc;
  FastDivisor nq;
  FastDivisor pair_size;   // P = Nc·2n
  FastDivisor inner_size;  // I = nb⁴·Nc·2n

  KOKKOS_INLINE_FUNCTION OuterIndex decode(std::uint32_t inner, std::uint32_t pair) const {
    OuterIndex x{};
    std::uint32_t quotient = 0, remainder = 0;
    if (nb.divisor() > 1) {  // the single-orbital case skips four divisions
      nb.divide(inner, quotient, remainder), x.b1 = static_cast<int>(remainder), inner = quotient;
      nb.divide(inner, quotient, remainder), x.b2 = static_cast<int>(remainder), inner = quotient;
      nb.divide(inner, quotient, remainder), x.b3 = static_cast<int>(remainder), inner = quotient;
      nb.divide(inner, quotient, remainder), x.b4 = static_cast<int>(remainder), inner = quotient;
    }
    nc.divide(inner, quotient, remainder), x.k1 = static_cast<int>(remainder), x.w1 = static_cast<int>(quotient);
    nc.divide(pair, quotient, remainder), x.k2 = static_cast<int>(remainder), x.w2 = static_cast<int>(quotient);
    return x;
  }
};

// What every thread order of a slice holds: its shape, where it begins, and how it splits into the
// partial exchange rows at either end, walked in order with one entry per thread, and the whole rows
// between them (the body), whose order is the kernel's own.
struct SliceParts {
  EntryShape shape;
  std::uint32_t begin_inner;  // the slice's first entry is begin_inner + I·begin_outer
  std::uint32_t begin_outer;
  std::uint64_t head_count;      // entries before the first whole row
  std::uint64_t body_count;      // entries in whole rows
  std::uint64_t body_threads;    // threads for the whole rows, idle lanes included
  std::uint32_t first_row;       // exchange index of the first whole row
  std::uint32_t row_count;       // number of whole rows

  KOKKOS_INLINE_FUNCTION bool in_body(std::uint64_t thread) const {
    return thread >= head_count && thread - head_count < body_threads;
  }

  // An entry of a partial row: thread `thread` (not in_body) updates exactly one.
  KOKKOS_INLINE_FUNCTION void edge_entry(std::uint64_t thread, std::uint64_t& slot, std::uint32_t& inner,
                                         std::uint32_t& pair, std::uint32_t& exchange) const {
    slot = thread < head_count ? thread : body_count + thread - body_threads;
    std::uint64_t quotient = 0;
    shape.inner_size.divide(begin_inner + slot, quotient, inner);
    shape.pair_size.divide(begin_outer + static_cast<std::uint32_t>(quotient), exchange, pair);
  }

  KOKKOS_INLINE_FUNCTION std::uint64_t threads(std::uint64_t entries) const {
    return entries - body_count + body_threads;
  }
};

// P = Nc·2n and I = nb⁴·Nc·2n of `dims` (host code).
inline std::uint64_t pair_size_of(const Dims& dims) {
  return static_cast<std::uint64_t>(dims.Nc()) * static_cast<std::uint64_t>(dims.n_freq);
}
inline std::uint64_t inner_size_of(const Dims& dims) {
  const auto nb = static_cast<std::uint64_t>(dims.nb);
  return nb * nb * nb * nb * pair_size_of(dims);
}

// The parts of `range` of G_t with `dims` (host code); body_threads is left to the thread order.
inline SliceParts slice_parts(const Dims& dims, SliceRange range) {
  const std::uint64_t pair_size = pair_size_of(dims);
  const std::uint64_t inner_size = inner_size_of(dims);
  SliceParts parts{};
  parts.shape.nb = FastDivisor(static_cast<std::uint32_t>(dims.nb));
  parts.shape.nc = FastDivisor(static_cast<std::uint32_t>(dims.Nc()));
  parts.shape.nq = FastDivisor(static_cast<std::uint32_t>(dims.NQ()));
  parts.shape.pair_size = FastDivisor(static_cast<std::uint32_t>(pair_size));
  parts.shape.inner_size = FastDivisor(static_cast<std::uint32_t>(inner_size));
  parts.begin_inner = static_cast<std::uint32_t>(range.begin % inner_size);
  parts.begin_outer = static_cast<std::uint32_t>(range.begin / inner_size);
  const std::uint64_t row_size = inner_size * pair_size;
  const std::uint64_t first_row = (range.begin + row_size - 1) / row_size;
  const std::uint64_t end_row = range.end / row_size;
  if (first_row < end_row) {
    parts.first_row = static_cast<std::uint32_t>(first_row);
    parts.row_count = static_cast<std::uint32_t>(end_row - first_row);
    parts.head_count = first_row * row_size - range.begin;
    parts.body_count = (end_row - first_row) * row_size;
  } else {
    parts.head_count = range.size();
  }
  return parts;
}

// Which entries of the slice thread t updates, and where they sit in the slice.
//
// Every channel's second G_σ value (the "cross" value) has one index made of (k1 ± Q, ω1 ± Ω) and
// the other of (k2 ± Q, ω2 ± Ω): it is the same for the entries (ω1 + δ, ω2 + δ, Ω_j) along a
// frequency diagonal, where Ω_j = Ω_0 + j and δ = j (pp_up_down, which has Ω − ω) or δ = −j (the ph
// channels, which have ω + Ω). The first G_σ value ("fixed", indices (k1, ω1) and (k2, ω2)) does
// not depend on the exchange at all. So each body thread updates kRows exchange rows of one inner
// index and pair and reads the fixed value once for them; with kSteps > 1 its rows are kRows
// momenta × kSteps consecutive exchange frequencies, walked along the diagonal, and it reads the
// cross value once per momentum: kSteps + kRows G_σ reads (per spin) for kSteps · kRows entries,
// where one entry per thread needs two. That costs registers, and on an H200 it paid in one batched
// case only (docs/results/h200_batched), so kSteps = 1 is the default. The diagonal can instead be
// spread over `spread` warps of a thread block, one frequency each: they read the same cross values
// at about the same time, so all but the first find them in L1, with no registers spent. A diagonal
// has D = kSteps · spread frequencies; warp w of it walks positions w·kSteps … w·kSteps + kSteps − 1.
// On an H200 that made batches in double 7–26 % faster (docs/results/h200_diagonal_warps).
//
// A thread is named by its extended inner index and pair, whose frequency u runs over 2n + D − 1
// values (ω = u + δ of position j; positions whose ω falls outside [0, 2n) are skipped), and by its
// group: kRows consecutive whole exchange rows when D = 1, else a block of kRows momenta and a window
// of D frequencies (entry_row). Body threads are numbered (lane, warp of the diagonal, warp of the
// tile, pair of the pair group, inner chunk, tile, pair group), fastest first: a tile holds
// `row_warps` warps, which take the same 32 extended inner indices and neighbouring groups, so that
// they share the fixed values in L1; a pair group (kPairGroups: the bubble channels' single-message
// walk in order and the kernels that take inner blocks) holds `pair_warps` consecutive pairs, whose
// warps take the same 32 inner indices too, so that what depends on the inner index and the exchange
// but not on the pair is read once from L2 for several warps: the walk's left bubble factors, the
// cross values of batches where k2 ± Q meets (GtAccumulator::default_block_pair_warps); pairs beyond
// the last leave lanes idle. For a
// fixed step, the 32 lanes of a warp update 32 consecutive G_t entries. Kernels that take inner blocks
// (kInnerBlocks: the hoisting ones, GtAccumulator::set_inner_block_chunks) number the inner chunks of
// a block in place of all inner chunks, and the blocks last: a block's chunks take every pair before
// the next block starts, which keeps the G_σ rows that its cross values come from in L2. The partial
// exchange rows at either end of the slice are walked in order, one entry per thread. (Teams that
// decode the pair and groups once from their league rank were measured on an H200 and are slower.)
struct SliceOrder : SliceParts {
  static constexpr std::uint32_t kChunk = 32;

  std::uint32_t inner_extended;  // nb⁴·Nc·(2n + D − 1)
  std::uint32_t inner_per_frequency;  // nb⁴·Nc: the inner index of ω1 + 1 minus that of ω1
  std::uint32_t first_omega;     // frequency index of the first window
  std::uint32_t n_omega;         // N_Ω
  std::uint32_t groups;          // one step: ⌈row_count / kRows⌉; else momentum blocks × frequency windows
  std::uint32_t diagonal;        // D: frequencies of a diagonal, kSteps × spread
  FastDivisor spread;            // warps that walk one diagonal together
  FastDivisor momentum_blocks;   // ⌈N_Q / kRows⌉
  FastDivisor row_warps;         // warps per tile
  FastDivisor inner_chunks;      // chunks of an inner block: ⌈inner_extended / kChunk⌉ unless blocked
  FastDivisor pair_groups;       // ⌈pairs_extended / pair_warps⌉: orders with inner blocks
  FastDivisor row_tiles;         // ⌈groups / row_warps⌉
  FastDivisor pair_warps;        // pairs of a pair group (1 for orders without)
  std::uint32_t pairs_extended;  // Nc·(2n + D − 1)

  // The extended inner index, pair, group and warp of its diagonal of body thread `thread`; false for an
  // idle lane. kSpread: whether the order may spread diagonals over warps (else spread is 1);
  // kPairGroups: whether it numbers pairs in groups (else pair_warps is 1). Only the kernels that gain
  // from pair groups pay for their division: on a CPU the walk in order of pp_up_down and
  // ph_transverse ran 6–11 % slower with it (docs/results/h200_pair_warps). Forced inline: with the
  // division GCC stopped inlining it (8 % more instructions in a single-message kernel, callgrind).
  template <bool kSpread, bool kPairGroups = false, bool kInnerBlocks = false>
  KOKKOS_FORCEINLINE_FUNCTION bool body_entries(std::uint64_t thread, std::uint32_t& inner, std::uint32_t& pair,
                                           std::uint32_t& group, std::uint32_t& spread_step) const {
    const std::uint64_t in_body = thread - head_count;
    const auto lane = static_cast<std::uint32_t>(in_body % kChunk);
    std::uint64_t rest = in_body / kChunk, pair_wide = 0;
    std::uint32_t warp = 0, chunk = 0, tile = 0;
    spread_step = 0;
    if constexpr (kSpread) spread.divide(rest, rest, spread_step);
    row_warps.divide(rest, rest, warp);
    std::uint32_t pair_in_group = 0;
    if constexpr (kPairGroups) {
#ifdef __CUDA_ARCH__
      pair_warps.divide(rest, rest, pair_in_group);
#else
      // Host compilers keep this division out of line, and CPUs take one pair a group by default.
      if (pair_warps.divisor() > 1) pair_warps.divide(rest, rest, pair_in_group);
#endif
    }
    inner_chunks.divide(rest, rest, chunk);
    row_tiles.divide(rest, pair_wide, tile);
    if constexpr (kInnerBlocks) {  // (pair group, chunk block): the chunk block last
      std::uint64_t block = 0;
      auto pair_group = static_cast<std::uint32_t>(pair_wide);
#ifdef __CUDA_ARCH__
      pair_groups.divide(pair_wide, block, pair_group);
#else
      // Host compilers keep this division out of line (3.6 % more instructions in a CPU batch of
      // pp_up_down, callgrind): the first block, the only one by default on CPUs, needs none.
      if (pair_wide >= pair_groups.divisor()) pair_groups.divide(pair_wide, block, pair_group);
#endif
      pair_wide = pair_group;
      chunk += static_cast<std::uint32_t>(block) * inner_chunks.divisor();
    }
    pair = static_cast<std::uint32_t>(pair_wide);
    if constexpr (kPairGroups) pair = pair * pair_warps.divisor() + pair_in_group;
    inner = chunk * kChunk + lane;
    group = tile * row_warps.divisor() + warp;
    return inner < inner_extended && group < groups && (!kPairGroups || pair < pairs_extended);
  }

  // The exchange row (iQ, iΩ) of entry (step s, row r) of `group`; false when the slice does not
  // hold it whole. One step: the group's rows are `rows` consecutive whole rows of the slice, so no
  // thread idles for N_Q not being a multiple of `rows`. Several: momentum r of the group's block of
  // momenta at frequency s of its window of frequencies.
  KOKKOS_INLINE_FUNCTION bool entry_row(std::uint32_t group, int s, int r, int rows, int steps, std::uint32_t& i_q,
                                        std::uint32_t& i_omega) const {
    if (steps == 1) {
      const std::uint32_t row = group * static_cast<std::uint32_t>(rows) + static_cast<std::uint32_t>(r);
      shape.nq.divide(first_row + row, i_omega, i_q);
      return row < row_count;
    }
    std::uint32_t window = 0, block = 0;
    momentum_blocks.divide(group, window, block);
    i_q = block * static_cast<std::uint32_t>(rows) + static_cast<std::uint32_t>(r);
    i_omega = first_omega + window * static_cast<std::uint32_t>(steps) + static_cast<std::uint32_t>(s);
    return whole_row(i_q, i_omega);
  }

  // Whether exchange row iQ + N_Q·iΩ is one of the slice's whole rows.
  KOKKOS_INLINE_FUNCTION bool whole_row(std::uint32_t i_q, std::uint32_t i_omega) const {
    const std::uint32_t row = i_q + shape.nq.divisor() * i_omega;
    return i_q < shape.nq.divisor() && i_omega < n_omega && row >= first_row && row - first_row < row_count;
  }

  KOKKOS_INLINE_FUNCTION std::uint64_t body_slot(std::uint32_t inner, std::uint32_t pair, std::uint32_t row) const {
    return head_count + inner + static_cast<std::uint64_t>(shape.inner_size.divisor()) *
                                    (pair + static_cast<std::uint64_t>(shape.pair_size.divisor()) * (row - first_row));
  }

};

// The thread order of `range` for kRows = rows exchange rows (momenta when a diagonal has more than one
// step) × kSteps = thread_steps frequencies per thread, with `spread` warps walking each diagonal
// together, `pair_warps` pairs a pair group and `block_chunks` chunks of 32 inner indices an inner block
// (0: one block; decoded only by kernels whose body_entries take kInnerBlocks) (SliceOrder).
inline SliceOrder slice_order(const Dims& dims, SliceRange range, int rows, int thread_steps, int row_warps,
                               int spread, int pair_warps, int block_chunks = 0) {
  const int steps = thread_steps * spread;  // frequency steps of a diagonal
  const auto extension = static_cast<std::uint64_t>(steps - 1);
  constexpr std::uint64_t chunk = SliceOrder::kChunk;
  SliceOrder order{};
  static_cast<SliceParts&>(order) = detail::slice_parts(dims, range);
  const std::uint64_t inner_size = order.shape.inner_size.divisor();
  const std::uint64_t pair_size = order.shape.pair_size.divisor();
  const std::uint64_t per_frequency = inner_size / static_cast<std::uint64_t>(dims.n_freq);  // nb⁴·Nc
  order.n_omega = static_cast<std::uint32_t>(dims.NOmega());
  order.diagonal = static_cast<std::uint32_t>(steps);
  order.spread = FastDivisor(static_cast<std::uint32_t>(spread));
  if (order.row_count > 0) {
    const auto nq = static_cast<std::uint64_t>(dims.NQ());
    const std::uint64_t rows_in_slice = order.row_count;
    const std::uint64_t first_omega = order.first_row / nq, last_omega = (order.first_row + rows_in_slice - 1) / nq;
    const std::uint64_t windows = (last_omega - first_omega + static_cast<std::uint64_t>(steps)) / steps;
    const std::uint64_t blocks = (nq + rows - 1) / rows;
    const std::uint64_t groups = steps == 1 ? (rows_in_slice + rows - 1) / rows : blocks * windows;
    const std::uint64_t inner_extended = inner_size + extension * per_frequency;
    const std::uint64_t pairs_extended = pair_size + extension * static_cast<std::uint64_t>(dims.Nc());
    const std::uint64_t chunks = (inner_extended + chunk - 1) / chunk;
    const std::uint64_t tiles = (groups + row_warps - 1) / row_warps;
    order.inner_extended = static_cast<std::uint32_t>(inner_extended);
    order.inner_per_frequency = static_cast<std::uint32_t>(per_frequency);
    order.first_omega = static_cast<std::uint32_t>(first_omega);
    order.momentum_blocks = FastDivisor(static_cast<std::uint32_t>(blocks));
    order.groups = static_cast<std::uint32_t>(groups);
    order.row_warps = FastDivisor(static_cast<std::uint32_t>(row_warps));
    // Inner blocks (block_chunks > 0): the chunks of a block, every pair, then the next block.
    const std::uint64_t per_block = block_chunks > 0 ? std::min<std::uint64_t>(block_chunks, chunks) : chunks;
    const std::uint64_t inner_blocks = (chunks + per_block - 1) / per_block;
    order.inner_chunks = FastDivisor(static_cast<std::uint32_t>(per_block));
    order.row_tiles = FastDivisor(static_cast<std::uint32_t>(tiles));
    // A group of more pairs than there are would only add idle lanes: as many.
    const std::uint64_t group_pairs = std::min<std::uint64_t>(static_cast<std::uint64_t>(pair_warps), pairs_extended);
    const std::uint64_t pair_groups = (pairs_extended + group_pairs - 1) / group_pairs;
    order.pair_warps = FastDivisor(static_cast<std::uint32_t>(group_pairs));
    order.pair_groups = FastDivisor(static_cast<std::uint32_t>(pair_groups));
    order.pairs_extended = static_cast<std::uint32_t>(pairs_extended);
    order.body_threads = chunk * static_cast<std::uint64_t>(spread) * row_warps * group_pairs * per_block * tiles *
                         pair_groups * inner_blocks;
  }
  return order;
}

}  // namespace ringcomm::gt::detail
