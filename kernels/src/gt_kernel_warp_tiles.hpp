#pragma once
// The previous G_t kernel (git 3184363, kernels/src/gt_kernel.hpp), kept in its own namespace with
// its device code unchanged (it decodes indices with slice_order.hpp's EntryShape now, which compiles
// to the same PTX for sm_90): one message per launch, one entry per thread, the warps of a block covering `row_tile`
// exchange rows of the same 32 inner entries. It was the faster one for pp_up_down in double with one
// message per pass until gt_kernel_single_message.hpp (docs/results/h200_single_message), and is kept
// as an option to compare with (GtAccumulator::set_warp_tile_kernel). It reads G_σ directly: no
// transposed copy, no factors.
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "gt_kernel_access.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/dims.hpp"
#include "ringcomm/gt/fast_divisor.hpp"
#include "slice_order.hpp"

namespace ringcomm::gt::detail::warp_tiles {

// An entry's inner index and pair (OuterIndex) and its exchange (iQ, iΩ).
struct EntryIndex : OuterIndex {
  int iQ, iOmega;
};

// The indices of an entry from its three parts (slice_order.hpp's EntryShape, and the exchange).
KOKKOS_INLINE_FUNCTION EntryIndex compose(const EntryShape& shape, std::uint32_t inner, std::uint32_t pair,
                                          std::uint32_t exchange) {
  EntryIndex x{};
  static_cast<OuterIndex&>(x) = shape.decode(inner, pair);
  std::uint32_t quotient = 0, remainder = 0;
  shape.nq.divide(exchange, quotient, remainder);
  x.iQ = static_cast<int>(remainder), x.iOmega = static_cast<int>(quotient);
  return x;
}

// Which entries of the slice thread t updates, and where they sit in the slice.
//
// Each G_σ column (k2,w2) is read for every exchange (Q,Ω); in G_t's order those reads lie N/(N_Q·N_Ω)
// entries apart, too far for any cache, and for nb = 1 G_σ would then cost twice the memory traffic of
// G_t itself. So the exchange rows that the slice holds whole are walked with the exchange index
// running faster than (k2,w2): the G_σ columns in use at any time then fit in L2. The partial rows at
// either end are walked in order, one entry per thread.
//
// In the whole rows, threads are grouped in tiles of `row_tile` consecutive exchange rows by kChunk
// consecutive inner indices of one pair (k2,w2): thread t of a tile takes inner (t mod kChunk) and
// row (t div kChunk), so with kChunk = 32 each warp still writes 32 neighbouring entries. Half of the
// G_σ values an entry reads do not depend on the exchange, and a tile's warps, which run on one
// multiprocessor, read the same ones: all but the first find them in L1 instead of L2, which is the
// limit of the one-row order on an H200 (Nsight Compute: L2 87 % busy, HBM 74 %). Tiles go through
// the rows of one pair before the next pair. Lanes past the end of the inner index or of the rows
// have nothing to do.
struct SliceOrder : SliceParts {
  static constexpr std::uint32_t kChunk = 32;

  FastDivisor row_tile;        // rows per tile
  FastDivisor inner_chunks;    // ⌈I / kChunk⌉
  FastDivisor tiles_per_pair;  // ⌈row_count / row_tile⌉

  // The entry of a partial row that thread `thread` (not in_body) updates.
  KOKKOS_INLINE_FUNCTION EntryIndex edge_index(std::uint64_t thread, std::uint64_t& slot) const {
    std::uint32_t inner = 0, pair = 0, exchange = 0;
    edge_entry(thread, slot, inner, pair, exchange);
    return compose(shape, inner, pair, exchange);
  }

  // The entry (inner, pair, row) of body thread `thread`; false for an idle lane.
  KOKKOS_INLINE_FUNCTION bool body_entry(std::uint64_t thread, std::uint32_t& inner, std::uint32_t& pair,
                                         std::uint32_t& row) const {
    const std::uint64_t in_body = thread - head_count;
    const auto lane = static_cast<std::uint32_t>(in_body % kChunk);
    std::uint64_t tile_and_chunk = 0;
    std::uint32_t row_in_tile = 0, chunk = 0, tile = 0;
    row_tile.divide(in_body / kChunk, tile_and_chunk, row_in_tile);
    std::uint64_t pair_and_tile = 0;
    inner_chunks.divide(tile_and_chunk, pair_and_tile, chunk);
    tiles_per_pair.divide(static_cast<std::uint32_t>(pair_and_tile), pair, tile);
    inner = chunk * kChunk + lane;
    row = tile * row_tile.divisor() + row_in_tile;
    return inner < shape.inner_size.divisor() && row < row_count;
  }

  KOKKOS_INLINE_FUNCTION std::uint64_t body_slot(std::uint32_t inner, std::uint32_t pair, std::uint32_t row) const {
    return head_count + inner + static_cast<std::uint64_t>(shape.inner_size.divisor()) *
                                    (pair + static_cast<std::uint64_t>(shape.pair_size.divisor()) * row);
  }

};

// Position of G_σ[(b,k,w), (b',k',w')] in a G_σ matrix; w, w' on G_t's frequency axis.
struct GLayout {
  int nb;
  int nc;
  int e_shift;    // E
  std::int64_t m;  // M

  KOKKOS_INLINE_FUNCTION std::int64_t operator()(int b, int k, int w, int bp, int kp, int wp) const {
    const int row = b + nb * (k + nc * (w + e_shift));  // < M, which fits int
    const int col = bp + nb * (kp + nc * (wp + e_shift));
    return row + m * col;
  }
};

// kAtomic: other kernels may update the same entries concurrently (GtAccumulator's Updates).
template <class Scalar, Channel kChannel, bool kAtomic>
struct ChannelKernel {
  using Real = typename Scalar::value_type;
  using MessageView = Kokkos::View<const Scalar*, Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;

  Kokkos::View<Scalar*> slice;
  SliceOrder order;
  GLayout at;
  DeviceTables tables;
  int n_freq;
  MessageView up;    // G_up
  MessageView down;  // G_down
  MessageView sign;  // one entry

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const Real s = sign(0).real();
    if (s == Real(0)) return;  // padding: its G_σ slots were never written
    const Real weight = Real(0.5) * s;
    const auto thread = static_cast<std::uint64_t>(i);
    if (!order.in_body(thread)) {
      std::uint64_t slot = 0;
      const EntryIndex x = order.edge_index(thread, slot);
      add(slot, weight * contribution(x));
      return;
    }
    std::uint32_t inner = 0, pair = 0, row = 0;
    if (!order.body_entry(thread, inner, pair, row)) return;
    add(order.body_slot(inner, pair, row),
        weight * contribution(compose(order.shape, inner, pair, order.first_row + row)));
  }

 private:
  KOKKOS_INLINE_FUNCTION void add(std::uint64_t slot, const Scalar& term) const { add_to<kAtomic>(slice, slot, term); }

  // Σσ Gσ[a]·Gσ̄[c] and Σσ Gσ[a]·Gσ[c].
  KOKKOS_INLINE_FUNCTION Scalar opposite_spin_sum(std::int64_t a, std::int64_t c) const {
    return up(a) * down(c) + down(a) * up(c);
  }
  KOKKOS_INLINE_FUNCTION Scalar same_spin_sum(std::int64_t a, std::int64_t c) const {
    return up(a) * up(c) + down(a) * down(c);
  }

  KOKKOS_INLINE_FUNCTION Scalar contribution(const EntryIndex& x) const {
    const int q = tables.exchange_momenta(x.iQ);
    const int omega = tables.exchange_frequencies(x.iOmega);
    const int nc = at.nc;
    if constexpr (kChannel == Channel::pp_up_down) {
      const int k1c = tables.sub(x.k1 + nc * q);  // Q − k1
      const int k2c = tables.sub(x.k2 + nc * q);
      const int w1c = omega + n_freq - 1 - x.w1;  // Ω − ω1
      const int w2c = omega + n_freq - 1 - x.w2;
      return opposite_spin_sum(at(x.b1, x.k1, x.w1, x.b3, x.k2, x.w2), at(x.b2, k1c, w1c, x.b4, k2c, w2c));
    } else {
      const int k1p = tables.add(x.k1 + nc * q);  // k1 + Q
      const int k2p = tables.add(x.k2 + nc * q);
      const int w1p = x.w1 + omega;  // ω1 + Ω
      const int w2p = x.w2 + omega;
      if constexpr (kChannel == Channel::ph_transverse) {
        return -opposite_spin_sum(at(x.b2, x.k1, x.w1, x.b4, x.k2, x.w2), at(x.b3, k2p, w2p, x.b1, k1p, w1p));
      } else {
        // Bubble of D = G_up − G_down (magnetic) or S = G_up + G_down (charge) minus an exchange term.
        const std::int64_t left = at(x.b2, x.k1, x.w1, x.b1, k1p, w1p);
        const std::int64_t right = at(x.b3, k2p, w2p, x.b4, x.k2, x.w2);
        if constexpr (kChannel == Channel::ph_magnetic) {
          return (up(left) - down(left)) * (up(right) - down(right)) -
                 same_spin_sum(at(x.b3, x.k1, x.w1, x.b1, x.k2, x.w2), at(x.b2, k2p, w2p, x.b4, k1p, w1p));
        } else {
          return (up(left) + down(left)) * (up(right) + down(right)) -
                 same_spin_sum(at(x.b1, x.k1, x.w1, x.b4, x.k2, x.w2), at(x.b2, k2p, w2p, x.b3, k1p, w1p));
        }
      }
    }
  }
};


// The thread order of a slice for row tiles of `row_tile` rows (as in 3184363).
inline SliceOrder slice_order(const Dims& dims, SliceRange range, int row_tile) {
  constexpr std::uint64_t chunk = SliceOrder::kChunk;
  SliceOrder order{};
  static_cast<SliceParts&>(order) = slice_parts(dims, range);
  const std::uint64_t pair_size = order.shape.pair_size.divisor();
  if (order.row_count > 0) {
    const std::uint64_t tile = static_cast<std::uint64_t>(row_tile);
    const std::uint64_t chunks = (order.shape.inner_size.divisor() + chunk - 1) / chunk;
    const std::uint64_t tiles = (order.row_count + tile - 1) / tile;
    order.row_tile = FastDivisor(static_cast<std::uint32_t>(tile));
    order.inner_chunks = FastDivisor(static_cast<std::uint32_t>(chunks));
    order.tiles_per_pair = FastDivisor(static_cast<std::uint32_t>(tiles));
    order.body_threads = chunk * tile * chunks * tiles * pair_size;
  }
  return order;
}

}  // namespace ringcomm::gt::detail::warp_tiles
