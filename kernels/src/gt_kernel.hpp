#pragma once
// Device code of GtAccumulator.
//
// One message is applied in up to three launches on the accumulator's execution space instance:
//   1. (ph channels) TransposeKernel writes G_up^T and G_down^T, so that the G_σ value whose row is
//      fixed by (pair, exchange) and whose column follows the inner index is read along a column
//      of the copy: coalesced, where G_σ itself would give each lane of a warp its own cache line;
//   2. (ph_magnetic, ph_charge) FactorKernel writes the two factors of the bubble term,
//      left[(b1,b2,k1,w1), exchange] and right[(b3,b4,k2,w2), exchange] of D = G_up − G_down or
//      S = G_up + G_down: a few hundred kB that stay in L2, instead of four scattered G_σ reads per entry;
//   3. ChannelKernel updates the slice with the sum over `count` messages (1, or a batch staged by
//      GtAccumulator: one pass over G_t for all of them). Consecutive threads own consecutive inner
//      indices (b1,b2,b3,b4,k1,w1), b1 fastest, so the G_t update is coalesced; each thread updates
//      kRows exchange rows (Q,Ω) of one inner index and pair (k2,w2): the index decoding and the G_σ
//      values that do not depend on the exchange are shared by its kRows entries, and its kRows G_t
//      loads are in flight together.
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/dims.hpp"
#include "ringcomm/gt/fast_divisor.hpp"

namespace ringcomm::gt::detail {

// G_σ values (message precision) widened to the precision of G_t, in which all arithmetic is done.
template <class To, class From>
KOKKOS_INLINE_FUNCTION To widen(const From& value) {
  return To(value.real(), value.imag());
}

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

// Which entries of the slice thread t updates, and where they sit in the slice.
//
// Each G_σ column (k2,w2) is read for every exchange (Q,Ω); in G_t's order those reads lie N/(N_Q·N_Ω)
// entries apart, too far for any cache. So the exchange rows that the slice holds whole are walked
// with the exchange index running faster than (k2,w2): the G_σ columns in use at any time then fit
// in L2. Body threads are numbered (lane, warp of the tile, inner chunk, tile, pair), fastest first:
// a tile holds `row_warps` warps, which take the same 32 inner indices chunk·32 + lane and
// neighbouring blocks of kRows rows each, so that the G_σ values that do not depend on the exchange
// are read by warps of one thread block (L1). Lanes past the end of the inner index and rows past the
// last have nothing to do. The partial rows at either end of the slice are walked in order, one entry
// per thread.
struct SliceOrder {
  static constexpr std::uint32_t kChunk = 32;

  EntryShape shape;
  std::uint32_t begin_inner;  // the slice's first entry is begin_inner + I·begin_outer
  std::uint32_t begin_outer;
  std::uint64_t head_count;    // entries before the first whole row
  std::uint64_t body_count;    // entries in whole rows
  std::uint64_t body_threads;  // threads for the whole rows, idle lanes included
  std::uint32_t first_row;     // exchange index of the first whole row
  std::uint32_t row_count;     // number of whole rows
  std::uint32_t rows_per_thread;
  FastDivisor row_warps;     // warps per tile
  FastDivisor inner_chunks;  // ⌈I / kChunk⌉
  FastDivisor row_tiles;     // ⌈row_count / (rows_per_thread · row_warps)⌉

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

  // The inner index, pair and block of rows_per_thread rows of body thread `thread` (its first row is
  // block · rows_per_thread); false for an idle lane.
  KOKKOS_INLINE_FUNCTION bool body_entries(std::uint64_t thread, std::uint32_t& inner, std::uint32_t& pair,
                                           std::uint32_t& block) const {
    const std::uint64_t in_body = thread - head_count;
    const auto lane = static_cast<std::uint32_t>(in_body % kChunk);
    std::uint64_t rest = 0, pair_wide = 0;
    std::uint32_t warp = 0, chunk = 0, tile = 0;
    row_warps.divide(in_body / kChunk, rest, warp);
    inner_chunks.divide(rest, rest, chunk);
    row_tiles.divide(rest, pair_wide, tile);
    pair = static_cast<std::uint32_t>(pair_wide);
    inner = chunk * kChunk + lane;
    block = tile * row_warps.divisor() + warp;
    return inner < shape.inner_size.divisor();
  }

  KOKKOS_INLINE_FUNCTION std::uint64_t body_slot(std::uint32_t inner, std::uint32_t pair, std::uint32_t row) const {
    return head_count + inner + static_cast<std::uint64_t>(shape.inner_size.divisor()) *
                                    (pair + static_cast<std::uint64_t>(shape.pair_size.divisor()) * row);
  }

  KOKKOS_INLINE_FUNCTION std::uint64_t threads(std::uint64_t entries) const {
    return entries - body_count + body_threads;
  }
};

// Position of G_σ[(b,k,w), (b',k',w')] in a G_σ matrix; w, w' on G_t's frequency axis.
struct GLayout {
  int nb;
  int nc;
  int e_shift;      // E
  std::uint32_t m;  // M

  KOKKOS_INLINE_FUNCTION std::uint32_t index(int b, int k, int w) const {
    return static_cast<std::uint32_t>(b + nb * (k + nc * (w + e_shift)));  // < M
  }
  // One 32 × 32 → 64-bit multiply-add.
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(int b, int k, int w, int bp, int kp, int wp) const {
    return index(b, k, w) + static_cast<std::uint64_t>(m) * index(bp, kp, wp);
  }
};

template <class Real>
KOKKOS_INLINE_FUNCTION void add_atomically(Real* target, Real value) {
#if defined(KOKKOS_ENABLE_SERIAL_ATOMICS)
  // Kokkos 3 built with Serial alone turns its atomics into plain adds, but walker threads of one rank
  // do share the slice: a compare-and-swap loop of the compiler's own.
  Real expected;
  __atomic_load(target, &expected, __ATOMIC_RELAXED);
  Real desired = expected + value;
  while (!__atomic_compare_exchange(target, &expected, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    desired = expected + value;
#else
  Kokkos::atomic_add(target, value);
#endif
}

template <class Message>
using MessageView = Kokkos::View<const Message*, Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;

// out[j + M·i] = in[i + M·j] for both spins (2M² values, G_up then G_down), through 32 × 32 tiles in
// team scratch memory so that both the reads and the writes are coalesced.
template <class Message>
struct TransposeKernel {
  static constexpr int kTile = 32;
  using Team = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Tile = Kokkos::View<Message**, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  MessageView<Message> in;
  Kokkos::View<Message*> out;
  int m;
  int tiles;  // ⌈M / kTile⌉ per side

  static std::size_t scratch_bytes() { return Tile::shmem_size(kTile, kTile + 1); }

  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    const int league = team.league_rank();
    const int per_matrix = tiles * tiles;
    const std::uint64_t matrix = static_cast<std::uint64_t>(league / per_matrix) * m * m;
    const int tile_row = (league % per_matrix) % tiles * kTile;
    const int tile_col = (league % per_matrix) / tiles * kTile;
    Tile tile(team.team_scratch(0), kTile, kTile + 1);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kTile * kTile), [&](const int t) {
      const int r = tile_row + t % kTile, c = tile_col + t / kTile;
      if (r < m && c < m) tile(t / kTile, t % kTile) = in(matrix + r + static_cast<std::uint64_t>(m) * c);
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kTile * kTile), [&](const int t) {
      const int c = tile_col + t % kTile, r = tile_row + t / kTile;  // out row c, out column r
      if (r < m && c < m) out(matrix + c + static_cast<std::uint64_t>(m) * r) = tile(t % kTile, t / kTile);
    });
  }
};

// The bubble factors: entry j + F·(x + N_X·side), F = nb²·Nc·2n, j = ba + nb·bb + nb²·(k + Nc·w),
// exchange x = iQ + N_Q·iΩ; side 0 is left(b1 = ba, b2 = bb, k1 = k, w1 = w) = F(b2 k1 w1; b1 k1+Q w1+Ω),
// side 1 is right(b3 = ba, b4 = bb, k2 = k, w2 = w) = F(b3 k2+Q w2+Ω; b4 k2 w2), with F = G_up − G_down
// (kDifference) or G_up + G_down.
template <class Scalar, class Message, bool kDifference>
struct FactorKernel {
  Kokkos::View<Scalar*> factors;
  GLayout at;
  DeviceTables tables;
  MessageView<Message> up;
  MessageView<Message> down;
  int n_freq;
  int nq;
  std::int64_t per_side;  // F

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t j = i % per_side;
    const int x = static_cast<int>((i / per_side) % (factors.extent(0) / 2 / per_side));
    const bool right = i >= static_cast<std::int64_t>(factors.extent(0) / 2);
    const int nb = at.nb, nc = at.nc;
    const int ba = static_cast<int>(j % nb), bb = static_cast<int>(j / nb % nb);
    const int k = static_cast<int>(j / (nb * nb) % nc), w = static_cast<int>(j / (nb * nb * nc));
    const int q = tables.exchange_momenta(x % nq);
    const int kp = tables.add(k + nc * q);
    const int wp = w + tables.exchange_frequencies(x / nq);
    const std::uint64_t position = right ? at(ba, kp, wp, bb, k, w) : at(bb, k, w, ba, kp, wp);
    const Scalar u = widen<Scalar>(up(position)), d = widen<Scalar>(down(position));
    factors(i) = kDifference ? u - d : u + d;
  }
};

// kAtomic: other kernels may update the same entries concurrently (GtAccumulator's Updates).
template <class Scalar, class Message, Channel kChannel, bool kAtomic, int kRows>
struct ChannelKernel {
  using Real = typename Scalar::value_type;
  using FactorView = Kokkos::View<const Scalar*, Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
  static constexpr bool kBubble = kChannel == Channel::ph_magnetic || kChannel == Channel::ph_charge;

  Kokkos::View<Scalar*> slice;
  SliceOrder order;
  GLayout at;
  DeviceTables tables;
  int n_freq;
  // Message j (< count) begins at j·message_stride of `messages`: G_up (M²), G_down (M²), sign.
  MessageView<Message> messages;
  std::uint64_t message_stride;
  int count = 1;
  std::uint64_t g_size;  // M²
  // The G_σ value with row fixed by (pair, exchange) is read from here, message j at j·cross_stride:
  // G_σ^T when `transposed`, else G_σ itself (uncoalesced; kept to measure what the copy gains).
  MessageView<Message> cross;
  std::uint64_t cross_stride;
  bool transposed = false;
  FactorView factors;             // FactorKernel's output (ph_magnetic, ph_charge), message j at j·factor_message
  std::uint32_t factor_stride;    // F
  std::uint32_t factor_right;     // F·N_X: where the right factors begin
  std::uint64_t factor_message;   // 2·F·N_X

  // The two G_σ values (both spins) of an entry that do not depend on the exchange.
  struct Fixed {
    Scalar up, down;
  };

  // The weight sign/2 of message j; 0 for padding, whose G_σ slots were never written.
  KOKKOS_INLINE_FUNCTION Real weight(int j) const {
    return Real(0.5) * static_cast<Real>(messages(j * message_stride + 2 * g_size).real());
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const auto thread = static_cast<std::uint64_t>(i);
    if (!order.in_body(thread)) {
      std::uint64_t slot = 0;
      std::uint32_t inner = 0, pair = 0, exchange = 0;
      order.edge_entry(thread, slot, inner, pair, exchange);
      const OuterIndex x = order.shape.decode(inner, pair);
      Scalar sum;
      bool any = false;
      for (int j = 0; j < count; ++j) {
        const Real w = weight(j);
        if (w == Real(0)) continue;
        const Scalar t = w * term(x, fixed(x, j), exchange, j);
        sum = any ? sum + t : t;  // as in the body: one message adds w·term to G_t unchanged
        any = true;
      }
      if (any) add(slot, sum);
      return;
    }
    std::uint32_t inner = 0, pair = 0, block = 0;
    if (!order.body_entries(thread, inner, pair, block)) return;
    const OuterIndex x = order.shape.decode(inner, pair);
    const std::uint32_t first = block * kRows;
    // All terms first, then all loads of G_t, then all stores: kRows loads in flight per thread.
    // Issuing the G_t loads before the sum was measured on an H200 and is slower (9–14 %): the kRows
    // old values stay live through it, 92–104 registers per thread, a quarter to a third occupancy.
    Scalar value[kRows];
    bool any = false;
    for (int j = 0; j < count; ++j) {
      const Real w = weight(j);
      if (w == Real(0)) continue;
      const Fixed f = fixed(x, j);
#ifdef __CUDA_ARCH__  // the device pass; host compilers do not know the pragma
#pragma unroll
#endif
      for (int r = 0; r < kRows; ++r)
        if (first + r < order.row_count) {
          const Scalar t = w * term(x, f, order.first_row + first + r, j);
          value[r] = any ? value[r] + t : t;
        }
      any = true;
    }
    if (!any) return;  // padding only: G_t stays as it is
    std::uint64_t slot[kRows];
#ifdef __CUDA_ARCH__  // the device pass; host compilers do not know the pragma
#pragma unroll
#endif
    for (int r = 0; r < kRows; ++r) slot[r] = order.body_slot(inner, pair, first + r);
    if constexpr (kAtomic) {
      for (int r = 0; r < kRows; ++r)
        if (first + r < order.row_count) add(slot[r], value[r]);
    } else {
      Scalar old[kRows];
#ifdef __CUDA_ARCH__  // the device pass; host compilers do not know the pragma
#pragma unroll
#endif
      for (int r = 0; r < kRows; ++r)
        if (first + r < order.row_count) old[r] = slice(slot[r]);
#ifdef __CUDA_ARCH__  // the device pass; host compilers do not know the pragma
#pragma unroll
#endif
      for (int r = 0; r < kRows; ++r)
        if (first + r < order.row_count) slice(slot[r]) = old[r] + value[r];
    }
  }

 private:
  KOKKOS_INLINE_FUNCTION void add(std::uint64_t slot, const Scalar& term) const {
    if constexpr (kAtomic) {
      // The real and imaginary parts are independent sums: two scalar atomics, no 128-bit CAS.
      Real* parts = reinterpret_cast<Real*>(&slice(slot));
      add_atomically(&parts[0], term.real());
      add_atomically(&parts[1], term.imag());
    } else {
      slice(slot) += term;
    }
  }

  // G_up and G_down at `position` of message j.
  KOKKOS_INLINE_FUNCTION Fixed read(std::uint64_t position, int j) const {
    const std::uint64_t base = j * message_stride + position;
    return {widen<Scalar>(messages(base)), widen<Scalar>(messages(base + g_size))};
  }
  // G_σ[(b,k,w), (bp,kp,wp)] of message j, where (bp,kp,wp) follows the inner index and (b,k,w) does not.
  KOKKOS_INLINE_FUNCTION Fixed read_cross(int b, int k, int w, int bp, int kp, int wp, int j) const {
    const std::uint64_t base = j * cross_stride + (transposed ? at(bp, kp, wp, b, k, w) : at(b, k, w, bp, kp, wp));
    return {widen<Scalar>(cross(base)), widen<Scalar>(cross(base + g_size))};
  }

  KOKKOS_INLINE_FUNCTION Fixed fixed(const OuterIndex& x, int j) const {
    if constexpr (kChannel == Channel::pp_up_down) return read(at(x.b1, x.k1, x.w1, x.b3, x.k2, x.w2), j);
    else if constexpr (kChannel == Channel::ph_transverse) return read(at(x.b2, x.k1, x.w1, x.b4, x.k2, x.w2), j);
    else if constexpr (kChannel == Channel::ph_magnetic) return read(at(x.b3, x.k1, x.w1, x.b1, x.k2, x.w2), j);
    else return read(at(x.b1, x.k1, x.w1, x.b4, x.k2, x.w2), j);
  }

  // The contribution of entry (x, exchange) of message j before the weight; f = fixed(x, j).
  KOKKOS_INLINE_FUNCTION Scalar term(const OuterIndex& x, const Fixed& f, std::uint32_t exchange, int j) const {
    std::uint32_t i_omega = 0, i_q = 0;
    order.shape.nq.divide(exchange, i_omega, i_q);
    const int q = tables.exchange_momenta(static_cast<int>(i_q));
    const int omega = tables.exchange_frequencies(static_cast<int>(i_omega));
    const int nc = at.nc;
    if constexpr (kChannel == Channel::pp_up_down) {
      const int k1c = tables.sub(x.k1 + nc * q);  // Q − k1
      const int k2c = tables.sub(x.k2 + nc * q);
      const int w1c = omega + n_freq - 1 - x.w1;  // Ω − ω1
      const int w2c = omega + n_freq - 1 - x.w2;
      const Fixed c = read(at(x.b2, k1c, w1c, x.b4, k2c, w2c), j);
      return f.up * c.down + f.down * c.up;  // Σσ Gσ[a]·Gσ̄[c]
    } else {
      const int k1p = tables.add(x.k1 + nc * q);  // k1 + Q
      const int k2p = tables.add(x.k2 + nc * q);
      const int w1p = x.w1 + omega;  // ω1 + Ω
      const int w2p = x.w2 + omega;
      if constexpr (kChannel == Channel::ph_transverse) {
        const Fixed c = read_cross(x.b3, k2p, w2p, x.b1, k1p, w1p, j);
        return -(f.up * c.down + f.down * c.up);
      } else {
        // Bubble of D = G_up − G_down (magnetic) or S = G_up + G_down (charge) minus an exchange term.
        const int nb = at.nb;
        const std::uint64_t row = j * factor_message + factor_stride * exchange;
        const Scalar left = factors(row + static_cast<std::uint32_t>(x.b1 + nb * x.b2 + nb * nb * (x.k1 + nc * x.w1)));
        const Scalar right =
            factors(factor_right + row + static_cast<std::uint32_t>(x.b3 + nb * x.b4 + nb * nb * (x.k2 + nc * x.w2)));
        const Fixed c = kChannel == Channel::ph_magnetic ? read_cross(x.b2, k2p, w2p, x.b4, k1p, w1p, j)
                                                         : read_cross(x.b2, k2p, w2p, x.b3, k1p, w1p, j);
        return left * right - (f.up * c.up + f.down * c.down);  // Σσ Gσ[a]·Gσ[c]
      }
    }
  }
};

}  // namespace ringcomm::gt::detail
