#pragma once
// One message per pass over the slice with the least index work per entry.
//
// With one message, each entry's update is a few multiply-adds, so on an H200 the kernel is bound by
// the instructions that find an entry and its G_σ values (Nsight Compute: about 240 per entry for one
// entry per thread, docs/results/h200_batched) and by the G_σ reads from L2, not by HBM. Here a body
// thread decodes its inner index and pair once, reads the sign and the fixed G_σ values (which do
// not depend on the exchange) once, and then walks its exchange rows in order, one row a step: the
// exchange (iQ, iΩ), its G_t pointer, the cross position and the bubble factors' positions advance by
// increments, in 32-bit offsets where they stay inside one G_σ matrix or factor table, so that a row
// costs two lookups in exchange_shift and the loads themselves. It loads the next row's G_t value
// before it forms this row's term where kLoadsAhead (GtAccumulator::walk_loads_ahead) and prefetches
// the G_t value of kPrefetchSteps rows later into L2 (l2_hints.hpp). A thread walks `rows_per_thread`
// rows in all: SliceOrder is made with that many rows per group and one frequency step, so that a
// body thread's group is its share of the rows; GtAccumulator gives each thread every row of the slice.
// On an H200 this form took 15 % fewer instructions than the previous one (64-bit positions, kRows rows
// a step) for complex<float> ph_magnetic and ran 1–9 % faster in 9 of 24 kernel_bandwidth cases, within
// 1 % in the others (docs/results/h200_lean_walk); two rows a step, two pairs a thread, launch bounds
// for more warps and a prefetch distance read at run time were each slower there. Earlier, 4 rows a step,
// threads that walk fewer rows, and a walk with exchange frequencies fastest and the warps of a block on
// one frequency diagonal were slower (docs/results/h200_single_message). Everything else (the channel
// formulas, the partial rows at either end) is ChannelKernel's. SingleMessageDiagonalKernel below walks
// the rows along frequency diagonals instead (GtAccumulator's frequency steps 2 or 4), sharing each
// cross value between its steps.
#include <type_traits>

#include "gt_kernel.hpp"
#include "warp_row_stages.hpp"

namespace ringcomm::gt::detail {

// How far ahead a single-message thread prefetches its G_t values into L2 (l2_hints.hpp): steps of
// the walk in order, momenta of the diagonal walk. On an H200, with cross values and bubble factors
// read with "evict last", 1 was best for a complex<double> G_t and 2 steps for the walk in order into
// complex<float> (docs/results/h200_l2_hints); the diagonal walk into complex<float> ran 1.4–4.3 % faster
// with 1 momentum than with 2 but for ph_transverse at nb = 2 (0.6 % slower; docs/results/h200_pair_warps).
// Measured again as compile-time constants in the walk with 32-bit offsets (docs/results/h200_nb2_steps):
// 2 rows for a complex<double> G_t lost 1–6 % in the bubble channels, 1 row for complex<float> 2.5 % in
// its bubble channels at nb = 1, 2 momenta up to 4 %.
template <class Real>
inline constexpr std::uint32_t kPrefetchSteps = sizeof(Real) == sizeof(float) ? 2 : 1;
inline constexpr std::uint32_t kPrefetchMomenta = 1;

// Where the walk in order finds each row's old G_t value: loaded into registers. Where kLoadsAhead
// (GtAccumulator::walk_loads_ahead) the next row's value is loaded before this row's term is formed,
// so that it is in flight meanwhile (the compiler may not move a load above a store that could reach
// the same address); without, a row's G_t load is in flight together with its cross reads. Either way
// the value kAhead rows later is prefetched into L2 (l2_hints.hpp). Every member gets the current
// row's slot `at`, the row, the end of the walk's rows and the slots' distance from one row to the next.
template <class Scalar, std::uint32_t kAhead, bool kLoadsAhead>
struct RowsInRegisters {
  Scalar old{}, next{};
  KOKKOS_FORCEINLINE_FUNCTION void start(const Scalar* at, std::uint32_t, std::uint32_t, std::uint64_t) {
    if constexpr (kLoadsAhead) old = *at;
  }
  KOKKOS_FORCEINLINE_FUNCTION void ahead(const Scalar* at, std::uint32_t row, std::uint32_t end, std::uint64_t stride) {
    if (row + kAhead < end) prefetch_to_l2(at + kAhead * stride);
    if constexpr (kLoadsAhead) {
      next = Scalar{};
      if (row + 1 < end) next = at[stride];
    } else {
      old = *at;
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION Scalar take() const { return old; }
  KOKKOS_FORCEINLINE_FUNCTION void taken(const Scalar*, std::uint32_t, std::uint32_t, std::uint64_t) {
    if constexpr (kLoadsAhead) old = next;
  }
};

template <class Scalar, class Message, Channel kChannel, bool kLoadsAhead = true>
struct SingleMessageKernel : ChannelKernel<Scalar, Message, kChannel, false, 1, 1, false> {
  using Base = ChannelKernel<Scalar, Message, kChannel, false, 1, 1, false>;
  using typename Base::Pair;
  using typename Base::Real;

  std::uint32_t rows_per_thread = 1;

  // Inlining chosen so that GCC compiles the CPU walk as it did before it took its rows from a Rows
  // source (callgrind, docs/results/h200_tma_walk): the walks without bubble factors forced into the
  // launch's loop, the others left to the compiler.
  template <bool kForced = !Base::kBubble, std::enable_if_t<kForced, int> = 0>
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const std::int64_t i) const {
    walk_in_registers(static_cast<std::uint64_t>(i));
  }
  template <bool kForced = !Base::kBubble, std::enable_if_t<!kForced, int> = 0>
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    walk_in_registers(static_cast<std::uint64_t>(i));
  }
  KOKKOS_FORCEINLINE_FUNCTION void walk_in_registers(const std::uint64_t thread) const {
    RowsInRegisters<Scalar, kPrefetchSteps<Real>, kLoadsAhead> rows;
    walk(thread, rows);
  }

  // The walk of thread `thread`, with each row's old G_t value from `rows` (RowsInRegisters, or
  // RowsInTmaStages for SingleMessageTmaKernel).
  template <class Rows>
  KOKKOS_FORCEINLINE_FUNCTION void walk(const std::uint64_t thread, Rows& rows) const {
    const SliceOrder& order = this->order;
    if (!order.in_body(thread)) return this->edge(thread);
    std::uint32_t inner = 0, pair = 0, group = 0, spread_step = 0;
    // Pair groups share left bubble factors: the bubble channels only (GtAccumulator::set_pair_warps).
    if (!order.body_entries<false, Base::kBubble>(thread, inner, pair, group, spread_step)) return;
    const Real w = this->weight(0);
    if (w == Real(0)) return;  // padding: its G_σ slots were never written
    const OuterIndex x = order.shape.decode(inner, pair);
    const Pair fixed = this->read_message(this->fixed_position(x), 0);
    // Rows [row, end) of the slice's whole rows, counted from its first whole row.
    std::uint32_t row = group * rows_per_thread;
    const std::uint32_t end = order.row_count - row < rows_per_thread ? order.row_count : row + rows_per_thread;
    const std::uint32_t nq = order.shape.nq.divisor();
    const auto nc = static_cast<std::uint32_t>(this->at.nc);
    std::uint32_t i_q = 0, i_omega = 0;
    order.shape.nq.divide(order.first_row + row, i_omega, i_q);
    // A row's cross position, within one G_σ matrix (below M² < 2^32: the constructor checks), is
    // cross_base (the row's exchange frequency, made again when the walk moves to the next one) plus
    // the two shifted momenta times their steps; exchange_shift is read at k + Nc·iQ.
    const Message* const up = this->cross_source.data();
    const Message* const down = up + this->g_size;
    const int* const shift = this->tables.exchange_shift.data();
    auto cross_base = static_cast<std::uint32_t>(this->walk_cross_base(x, i_omega));
    std::uint32_t k1_at = static_cast<std::uint32_t>(x.k1) + nc * i_q;
    std::uint32_t k2_at = static_cast<std::uint32_t>(x.k2) + nc * i_q;
    // The bubble factors move by one exchange row of their table per row.
    std::uint32_t left = 0, right = 0;
    if constexpr (Base::kBubble) this->factor_positions(x, i_q + nq * i_omega, left, right);
    const std::uint64_t row_stride =
        static_cast<std::uint64_t>(order.shape.inner_size.divisor()) * order.shape.pair_size.divisor();
    Scalar* at = this->slice.data() + order.body_slot(inner, pair, order.first_row + row);
    rows.start(at, row, end, row_stride);
#ifdef __CUDA_ARCH__
#pragma unroll 1  // one row a step: registers decide the occupancy
#endif
    for (; row < end; ++row, at += row_stride) {
      rows.ahead(at, row, end, row_stride);
      const std::uint32_t cross_at = cross_base + this->cross_k1_step * static_cast<std::uint32_t>(shift[k1_at]) +
                                     this->cross_k2_step * static_cast<std::uint32_t>(shift[k2_at]);
      const Pair cross{widen<Scalar>(load_keeping_in_l2(up + cross_at)), widen<Scalar>(load_keeping_in_l2(down + cross_at))};
      *at = rows.take() + w * this->template combine</*kFactorsKeptInL2=*/true>(fixed, cross, left, right, 0);
      if constexpr (Base::kBubble) left += this->factor_stride, right += this->factor_stride;
      k1_at += nc, k2_at += nc;
      if (++i_q == nq) {
        i_q = 0, ++i_omega;
        k1_at = static_cast<std::uint32_t>(x.k1), k2_at = static_cast<std::uint32_t>(x.k2);
        if (i_omega < order.n_omega) cross_base = static_cast<std::uint32_t>(this->walk_cross_base(x, i_omega));
      }
      rows.taken(at, row, end, row_stride);
    }
  }
};

// The walk in order with each warp's G_t values copied kStages rows ahead into shared memory by the
// TMA (RowsInTmaStages, warp_row_stages.hpp) instead of loaded ahead into registers and prefetched into
// L2; the rest is SingleMessageKernel's. Run as a TeamPolicy (work tag Tma) whose threads are numbered
// as SingleMessageKernel's. Its warps must be whole: every lane of a body warp walks the same rows
// (GtAccumulator::tma_stages_in_use checks the slice). On an H200 (docs/results/h200_tma_walk) it ran
// pp_up_down and ph_transverse into a complex<double> G_t at nb = 1 1.5–3 % faster than the walk with
// registers, the bubble channels (left out here) and complex<float> up to 30 % slower: each row's wait,
// warp synchronisation, stage bookkeeping and copy cost about 1.75 × the walk's instructions (not
// spinning: a suspend-time hint on the wait changed nothing), which the walks that issue the most
// cannot hide.
template <class Scalar, class Message, Channel kChannel, int kStages>
struct SingleMessageTmaKernel : SingleMessageKernel<Scalar, Message, kChannel> {
  using Walk = SingleMessageKernel<Scalar, Message, kChannel>;
  static_assert(!Walk::Base::kBubble, "the bubble channels walk with registers (slower with the TMA)");
  using Stages = WarpRowStages<Scalar, kStages>;
  struct Tma {};  // the work tag of its TeamPolicy
  std::uint64_t thread_count = 0;

  KOKKOS_INLINE_FUNCTION static std::size_t team_bytes(int team_size) {
    return Stages::team_bytes(static_cast<std::uint32_t>(team_size) / Stages::kWarp);
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Tma, const Member& team) const {
    const auto rank = static_cast<std::uint32_t>(team.team_rank());
    const auto size = static_cast<std::uint32_t>(team.team_size());
    RowsInTmaStages<Scalar, kStages> rows{Stages(team.team_scratch(0).get_shmem(team_bytes(static_cast<int>(size))),
                                                 size / Stages::kWarp, rank / Stages::kWarp, rank % Stages::kWarp)};
    const std::uint64_t thread = static_cast<std::uint64_t>(team.league_rank()) * size + rank;
    if (thread < thread_count) this->walk(thread, rows);
  }
};

// The single-message walk along frequency diagonals: each body thread takes kSteps consecutive
// exchange frequencies on the diagonal of its extended inner index and pair (SliceOrder with
// N_Q momenta and kSteps frequencies per group) and walks every exchange momentum for them. The cross
// G_σ value of the kSteps entries of one momentum is the same (consecutive exchange frequencies
// only), so it is read once for them: kSteps entries per cross read, where SingleMessageKernel reads
// one per entry. The kSteps fixed values are read once and held in message precision; slots and
// bubble factor positions advance by increments, with kLoadsAhead the next momentum's G_t values
// are loaded before this one's terms are formed, and the G_t values of kPrefetchMomenta momenta later
// are prefetched into L2. The price is registers: on an H200 (sm_90) 68–80 per thread with 2 steps
// and 102–118 with 4 in double with loads ahead (62–72 and 89–102 without), against 48–56 for the
// walk in order as measured then (40–64 in the three kernels of its 32-bit form profiled in
// docs/results/h200_lean_walk), so occupancy drops to 24–48 %. Which walk wins depends on the
// precision, the channel and nb (GtAccumulator::default_frequency_steps and
// default_diagonal_loads_ahead follow the H200 measurements in docs/results/
// h200_single_message_diagonal, h200_loads_ahead, h200_walk_inner and h200_nb2_steps: by default only
// pp_up_down and ph_transverse into a complex<double> G_t at nb > 1 take it now, with 2 steps, double
// with its loads ahead and mixed without); a 2-core CPU resolved no difference
// (docs/results/cpu_single_message_diagonal.md).
template <class Scalar, class Message, Channel kChannel, int kSteps, bool kLoadsAhead = true>
struct SingleMessageDiagonalKernel : ChannelKernel<Scalar, Message, kChannel, false, 1, kSteps, false> {
  using Base = ChannelKernel<Scalar, Message, kChannel, false, 1, kSteps, false>;
  using typename Base::Pair;
  using typename Base::Real;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const SliceOrder& order = this->order;
    const auto thread = static_cast<std::uint64_t>(i);
    if (!order.in_body(thread)) return this->edge(thread);
    std::uint32_t inner = 0, pair = 0, window = 0, spread_step = 0;
    if (!order.body_entries<false>(thread, inner, pair, window, spread_step)) return;
    const Real w = this->weight(0);
    if (w == Real(0)) return;  // padding: its G_σ slots were never written
    const OuterIndex base = order.shape.decode(inner, pair);  // extended frequencies
    const std::uint32_t nq = order.shape.nq.divisor();
    const std::uint32_t omega_0 = order.first_omega + window * kSteps;
    const auto stride = static_cast<std::int64_t>(static_cast<std::uint64_t>(order.shape.inner_size.divisor()) *
                                                  order.shape.pair_size.divisor());  // one exchange row
    // Entry (momentum q, step s) is row q + nq·(Ω_0 + s) of G_t, in the slice when that row is one of
    // its whole rows: q + nq·s + row_shift < row_count, in wrapping unsigned arithmetic.
    const std::uint32_t row_shift = nq * omega_0 - order.first_row;
    // Its slot is slot_0 + s·step_delta + q·stride: a step moves the inner index and the pair by
    // one frequency each (frequency_move) and the row by nq. Signed: slot_0 may lie before the slice.
    const auto frequency_move = static_cast<std::int64_t>(order.inner_per_frequency) +
                                static_cast<std::int64_t>(order.shape.inner_size.divisor()) * order.shape.nc.divisor();
    const std::int64_t slot_0 = static_cast<std::int64_t>(order.body_slot(inner, pair, order.first_row)) +
                                this->step_offset(0) * frequency_move +
                                stride * (static_cast<std::int64_t>(nq) * omega_0 - order.first_row);
    const int step_sign = this->step_offset(1) - this->step_offset(0);  // δ per step: +1 pp_up_down, −1 ph
    const std::int64_t step_delta = step_sign * frequency_move + stride * nq;
    // The steps whose frequencies lie in [0, 2n) and exchange frequency below N_Ω, with their fixed
    // values in message precision.
    std::uint32_t steps = 0;
    Message fixed_up[kSteps], fixed_down[kSteps];
    int first_step = -1;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int s = 0; s < kSteps; ++s) {
      const OuterIndex x = this->step(base, s);
      if (x.w1 < 0 || x.w1 >= this->n_freq || x.w2 < 0 || x.w2 >= this->n_freq ||
          omega_0 + static_cast<std::uint32_t>(s) >= order.n_omega)
        continue;
      const std::uint64_t at = this->fixed_position(x);
      fixed_up[s] = this->messages(at);
      fixed_down[s] = this->messages(at + this->g_size);
      steps |= 1u << s;
      if (first_step < 0) first_step = s;
    }
    if (first_step < 0) return;
    const OuterIndex cross_x = this->step(base, first_step);
    const std::uint64_t cross_base = this->walk_cross_base(cross_x, omega_0 + static_cast<std::uint32_t>(first_step));
    std::int64_t slot_q = slot_0;  // slot of (q, step 0)
    // Bubble factors of (q, s): left_q + s·factor_step and right_q + s·factor_step (wrapping, as the
    // slots), where a momentum moves both by one exchange row of the factor table.
    std::uint32_t left_q = 0, right_q = 0, factor_step = 0;
    if constexpr (Base::kBubble) {
      this->factor_positions(this->step(base, 0), nq * omega_0, left_q, right_q);
      const auto per_frequency = static_cast<std::uint32_t>(this->at.nb * this->at.nb * this->at.nc);
      factor_step = this->factor_stride * nq + static_cast<std::uint32_t>(step_sign) * per_frequency;
    }
    // kLoadsAhead: the G_t values of momentum q + 1 are loaded before momentum q's terms are formed
    // and stored, so that they are in flight meanwhile: the compiler may not move a load above a
    // store that could reach the same address, so without this each momentum waits for its loads in
    // turn. Without, a momentum's loads and its cross read are in flight together, in fewer registers.
    Scalar old[kSteps];
    std::uint32_t in_slice = kLoadsAhead ? load_momentum(old, 0, steps, row_shift, slot_q, step_delta) : 0u;
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
    for (std::uint32_t q = 0; q < nq;
         ++q, slot_q += stride, left_q += this->factor_stride, right_q += this->factor_stride) {
      if (q + kPrefetchMomenta < nq)
        prefetch_momentum(q + kPrefetchMomenta, steps, row_shift, slot_q + kPrefetchMomenta * stride, step_delta);
      Scalar next[kSteps];
      std::uint32_t next_in_slice = 0;
      if constexpr (kLoadsAhead) {
        if (q + 1 < nq) next_in_slice = load_momentum(next, q + 1, steps, row_shift, slot_q + stride, step_delta);
      } else {
        in_slice = load_momentum(old, q, steps, row_shift, slot_q, step_delta);
      }
      const Pair cross = this->read_cross(this->walk_cross_position(cross_base, cross_x, q), 0);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int s = 0; s < kSteps; ++s) {
        if (in_slice >> s & 1u) {
          const std::uint32_t left = left_q + s * factor_step, right = right_q + s * factor_step;
          const Pair fixed{widen<Scalar>(fixed_up[s]), widen<Scalar>(fixed_down[s])};
          this->slice(static_cast<std::uint64_t>(slot_q + s * step_delta)) =
              old[s] + w * this->template combine</*kFactorsKeptInL2=*/true>(fixed, cross, left, right, 0);
        }
        if constexpr (kLoadsAhead) old[s] = next[s];
      }
      if constexpr (kLoadsAhead) in_slice = next_in_slice;
    }
  }

 private:
  // Loads the G_t values of momentum q for the steps in `steps` whose row is one of the slice's whole
  // rows; returns those steps as a bit set.
  KOKKOS_INLINE_FUNCTION std::uint32_t load_momentum(Scalar (&values)[kSteps], std::uint32_t q,
                                                     std::uint32_t steps, std::uint32_t row_shift,
                                                     std::int64_t slot_q, std::int64_t step_delta) const {
    return for_whole_rows(q, steps, row_shift, [&](const int s) {
      values[s] = this->slice(static_cast<std::uint64_t>(slot_q + s * step_delta));
    });
  }

  // Prefetches the G_t values that load_momentum would load with the same arguments.
  KOKKOS_INLINE_FUNCTION void prefetch_momentum(std::uint32_t q, std::uint32_t steps, std::uint32_t row_shift,
                                                std::int64_t slot_q, std::int64_t step_delta) const {
    for_whole_rows(q, steps, row_shift,
                   [&](const int s) { prefetch_to_l2(this->slice.data() + (slot_q + s * step_delta)); });
  }

  // Calls visit(s) for each step s in `steps` whose row at momentum q is one of the slice's whole rows
  // (q + nq·s + row_shift < row_count, wrapping); returns those steps as a bit set.
  template <class Visit>
  KOKKOS_INLINE_FUNCTION std::uint32_t for_whole_rows(std::uint32_t q, std::uint32_t steps, std::uint32_t row_shift,
                                                      const Visit& visit) const {
    const std::uint32_t nq = this->order.shape.nq.divisor();
    std::uint32_t rows = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int s = 0; s < kSteps; ++s)
      if ((steps >> s & 1u) && q + nq * static_cast<std::uint32_t>(s) + row_shift < this->order.row_count) {
        visit(s);
        rows |= 1u << s;
      }
    return rows;
  }
};

}  // namespace ringcomm::gt::detail
