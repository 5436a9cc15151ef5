#pragma once
// One message per pass over the slice with the least index work per entry.
//
// With one message, each entry's update is a few multiply-adds, so on an H200 the kernel is bound by
// the instructions that find an entry and its G_σ values (Nsight Compute: about 240 per entry for one
// entry per thread, docs/results/h200_batched) and by the G_σ reads from L2, not by HBM. Here a body
// thread decodes its inner index and pair once, reads the sign and the fixed G_σ values (which do
// not depend on the exchange) once, and then walks its exchange rows in order: the exchange (iQ, iΩ)
// and the slot advance by increments, and only the cross value and the bubble factors are looked up
// per entry. It takes kRows rows a step and loads the G_t values of the next step before it forms
// this step's terms, so that those loads are in flight meanwhile. A thread walks `rows_per_thread`
// rows in all: SliceOrder is made with that many rows per group and one frequency step, so that a
// body thread's group is its share of the rows. GtAccumulator takes 1 row a step and every row of the
// slice per thread; on an H200, 4 rows a step (more registers), threads that walk fewer rows, and a
// walk with exchange frequencies fastest and the warps of a block on one frequency diagonal were
// each slower (docs/results/h200_single_message); so was this loop rewritten for one row a step
// without the row arrays (3–6 % for pp_up_down and ph_transverse), which is why the general form
// stays. Everything else (positions, the channel formulas, the partial rows at either end) is
// ChannelKernel's.
#include "gt_kernel.hpp"

namespace ringcomm::gt::detail {

template <class Scalar, class Message, Channel kChannel, int kRows>
struct SingleMessageKernel : ChannelKernel<Scalar, Message, kChannel, false, kRows, 1, false> {
  using Base = ChannelKernel<Scalar, Message, kChannel, false, kRows, 1, false>;
  using typename Base::Pair;
  using typename Base::Real;

  std::uint32_t rows_per_thread = kRows;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const SliceOrder& order = this->order;
    const auto thread = static_cast<std::uint64_t>(i);
    if (!order.in_body(thread)) return this->edge(thread);
    std::uint32_t inner = 0, pair = 0, group = 0, spread_step = 0;
    if (!order.body_entries<false>(thread, inner, pair, group, spread_step)) return;
    const Real w = this->weight(0);
    if (w == Real(0)) return;  // padding: its G_σ slots were never written
    const OuterIndex x = order.shape.decode(inner, pair);
    const Pair fixed = this->read_message(this->fixed_position(x), 0);
    // Rows [row, end) of the slice's whole rows, counted from its first whole row.
    std::uint32_t row = group * rows_per_thread;
    const std::uint32_t end = order.row_count - row < rows_per_thread ? order.row_count : row + rows_per_thread;
    const std::uint32_t nq = order.shape.nq.divisor();
    std::uint32_t i_q = 0, i_omega = 0;
    order.shape.nq.divide(order.first_row + row, i_omega, i_q);
    const std::uint64_t row_stride =
        static_cast<std::uint64_t>(order.shape.inner_size.divisor()) * order.shape.pair_size.divisor();
    std::uint64_t slot = order.body_slot(inner, pair, order.first_row + row);
    // The G_t values of the next kRows rows are loaded before this step's terms are formed, so that
    // they are in flight while the cross values are found: 2 × kRows loads per thread at a time.
    Scalar old[kRows];
    load_rows(old, row, end, slot, row_stride);
#ifdef __CUDA_ARCH__
#pragma unroll 1  // kRows rows a step, not more: registers decide the occupancy
#endif
    for (; row < end; row += kRows, slot += kRows * row_stride) {
      Scalar next[kRows];
      load_rows(next, row + kRows, end, slot + kRows * row_stride, row_stride);
      Scalar value[kRows];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int r = 0; r < kRows; ++r) {
        if (row + r >= end) break;
        std::uint32_t left = 0, right = 0;
        if constexpr (Base::kBubble) this->factor_positions(x, i_q + nq * i_omega, left, right);
        const Pair cross = this->read_cross(this->cross_position(x, i_q, i_omega), 0);
        value[r] = w * this->combine(fixed, cross, left, right, 0);
        if (++i_q == nq) i_q = 0, ++i_omega;
      }
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int r = 0; r < kRows; ++r) {
        if (row + r < end) this->slice(slot + r * row_stride) = old[r] + value[r];
        old[r] = next[r];
      }
    }
  }

 private:
  // G_t at rows [row, row + kRows) ∩ [row, end), the first at `slot`.
  KOKKOS_INLINE_FUNCTION void load_rows(Scalar (&values)[kRows], std::uint32_t row, std::uint32_t end,
                                        std::uint64_t slot, std::uint64_t row_stride) const {
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int r = 0; r < kRows; ++r)
      if (row + r < end) values[r] = this->slice(slot + r * row_stride);
  }
};

}  // namespace ringcomm::gt::detail
