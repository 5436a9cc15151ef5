#pragma once
// Device code of GtAccumulator.
//
// One message is applied in up to three launches on the accumulator's execution space instance:
//   1. (ph channels) TransposeKernel (gt_kernel_tables.hpp) writes G_up^T and G_down^T, so that the
//      G_σ value whose row is fixed by (pair, exchange) and whose column follows the inner index is
//      read along a column of the copy: coalesced, where G_σ itself would give each lane of a warp its
//      own cache line (for a batch it also writes the message into its slot, as it reads it anyway);
//   2. (ph_magnetic, ph_charge) FactorKernel (gt_kernel_tables.hpp) writes the two factors of the
//      bubble term, left[(b1,b2,k1,w1), exchange] and right[(b3,b4,k2,w2), exchange] of
//      D = G_up − G_down or S = G_up + G_down: a few hundred kB that stay in L2, instead of four
//      scattered G_σ reads per entry;
//   3. ChannelKernel updates the slice with the sum over `count` messages (1, or a batch staged by
//      GtAccumulator: one pass over G_t for all of them); for a batch of the bubble channels, with the
//      exchange term only, and FactorProductKernel (gt_kernel_factor_product.hpp) adds the factor
//      product in a second pass, tiled like a matrix product. Consecutive threads own consecutive inner
//      indices (b1,b2,b3,b4,k1,w1), b1 fastest, so the G_t update is coalesced; each thread updates
//      kRows exchange momenta × kSteps exchange frequencies of one inner index and pair, along the
//      frequency diagonal on which its second G_σ value does not change (SliceOrder, slice_order.hpp):
//      the index decoding and most G_σ reads are shared by its entries, and its G_t loads are in flight
//      together.
// How the kernels read a message and add to G_t: gt_kernel_access.hpp.
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/dims.hpp"
#include "gt_kernel_access.hpp"
#include "gt_kernel_tables.hpp"
#include "l2_hints.hpp"
#include "slice_order.hpp"

namespace ringcomm::gt::detail {

// kAtomic: other kernels may update the same entries concurrently (GtAccumulator's Updates).
// kRows exchange momenta × kSteps exchange frequencies per body thread (SliceOrder); kHoisted: the
// message positions of a thread's entries are computed once for a batch of messages; kSpread: each
// frequency diagonal is walked by order.spread warps together.
template <class Scalar, class Message, Channel kChannel, bool kAtomic, int kRows, int kSteps, bool kHoisted,
          bool kSpread = false, bool kFactorsApart = false>
struct ChannelKernel {
  using Real = typename Scalar::value_type;
  using FactorView = Kokkos::View<const Scalar*, Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
  static constexpr bool kBubble = kChannel == Channel::ph_magnetic || kChannel == Channel::ph_charge;
  // kFactorsApart (the bubble channels' batches): this pass adds the exchange term only, and
  // FactorProductKernel the factor product in a pass of its own (gt_kernel_factor_product.hpp).
  static constexpr bool kReadsFactors = kBubble && !kFactorsApart;
  static constexpr int kEntries = kRows * kSteps;
  // Registers (32-bit) that one message's values take in a thread: the fixed values of each step and
  // the cross values of each entry, both spins in the messages' precision, and the bubble factors in
  // G_t's. Where they take at most 32, batches read all of a message before forming its products
  // (batch_terms); above, the compiler's register budget splits those loads into rounds anyway and
  // the loop entry by entry runs faster. On an H200 (docs/results/h200_batch_loads) loading first cost
  // the default batches of complex<double> messages (40 registers) up to 23 % more time, and gave those
  // of complex<float> messages within the rule (20–28) 2–16 % less. CPUs take the same rule, so that
  // the CPU test suites run both loops: there batches (not the default on CPUs) executed up to 7.7 %
  // more instructions with it (callgrind, docs/results/h200_batch_loads/4_cpu).
  static constexpr int kMessageRegisters =
      (2 * kSteps + 2 * kEntries) * static_cast<int>(sizeof(Message) / 4) +
      (kReadsFactors ? 2 * kEntries * static_cast<int>(sizeof(Scalar) / 4) : 0);
  static constexpr bool kLoadsFirst = kHoisted && kMessageRegisters <= 32;
  // Cross values are read with L2's "evict last" (l2_hints.hpp) except by hoisted batches into a
  // complex<float> G_t. On an H200 single messages ran 1–10 % faster with it, batches into a
  // complex<double> G_t 0.98–1.10 times as fast, and batches into complex<float> up to 5 % slower
  // (docs/results/h200_l2_hints).
  static constexpr bool kCrossKeptInL2 = !(kHoisted && sizeof(Real) == sizeof(float));

  Kokkos::View<Scalar*> slice;
  SliceOrder order;
  GLayout at;
  DeviceTables tables;
  int n_freq = 0;
  // Whether the exchange frequencies are consecutive (Ω_j = Ω_0 + j): the cross value is then the
  // same along a thread's diagonal and read once; otherwise it is read for every step.
  bool consecutive_frequencies = false;
  // Message j (< count) begins at j·message_stride of `messages`: G_up (M²), G_down (M²), sign.
  MessageView<Message> messages;
  std::uint64_t message_stride = 0;
  int count = 1;
  std::uint64_t g_size = 0;  // M²
  // The cross value is read from here, message j at j·cross_stride: G_σ^T when `transposed`, else
  // G_σ itself (uncoalesced for the ph channels; kept to measure what the copy gains).
  MessageView<Message> cross_source;
  std::uint64_t cross_stride = 0;
  bool transposed = false;
  // How far a cross position moves when the shifted k1 or k2 grows by one (nb or nb·M, by channel and
  // `transposed`): set_cross_steps() after `at` and `transposed` (walk_cross_position).
  std::uint32_t cross_k1_step = 0, cross_k2_step = 0;
  FactorView factors;             // FactorKernel's output (ph_magnetic, ph_charge), message j at j·factor_message
  std::uint32_t factor_stride = 0;  // F
  std::uint32_t factor_right = 0;   // F·N_X: where the right factors begin
  std::uint64_t factor_message = 0; // 2·F·N_X

  void set_cross_steps() {
    const OuterIndex x{};
    const std::uint64_t base = shifted_cross_position(x, 0, 0, 0);
    cross_k1_step = static_cast<std::uint32_t>(shifted_cross_position(x, 1, 0, 0) - base);
    cross_k2_step = static_cast<std::uint32_t>(shifted_cross_position(x, 0, 1, 0) - base);
  }

  // The two G_σ values (both spins) at one position.
  struct Pair {
    Scalar up, down;
  };

  KOKKOS_INLINE_FUNCTION Real weight(int j) const {
    return message_weight<Real>(messages, j * message_stride + 2 * g_size);
  }

  // Frequencies of a thread's diagonal: known when compiled unless it is spread over warps (with the
  // length read from `order`, an H200 ran single messages up to 14 % slower: docs/results/h200_diagonal_warps).
  KOKKOS_INLINE_FUNCTION int diagonal() const { return kSpread ? static_cast<int>(order.diagonal) : kSteps; }
  // The frequency offset δ of position d of a frequency diagonal: ω = u + δ along the diagonal on
  // which the cross value is fixed. A thread's step s is position first + s.
  KOKKOS_INLINE_FUNCTION int step_offset(int d) const {
    return kChannel == Channel::pp_up_down ? d - (diagonal() - 1) : -d;
  }
  // The indices of diagonal position d of a thread whose extended indices are `base`.
  KOKKOS_INLINE_FUNCTION OuterIndex step(OuterIndex base, int d) const {
    base.w1 += step_offset(d), base.w2 += step_offset(d);
    return base;
  }

  // The same threads in teams of a size of our choosing (GtAccumulator::set_pass_team_threads), where a
  // RangePolicy lets Kokkos choose (128 threads on an H100): the warps of a pair group then run on one
  // multiprocessor and share their cross values in L1. Thread t is rank t % size of team t / size.
  struct Teams {};  // the work tag of that TeamPolicy
  std::uint64_t thread_count = 0;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(Teams, const Member& team) const {
    const std::uint64_t thread = static_cast<std::uint64_t>(team.league_rank()) * team.team_size() + team.team_rank();
    if (thread < thread_count) (*this)(static_cast<std::int64_t>(thread));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const auto thread = static_cast<std::uint64_t>(i);
    if (!order.in_body(thread)) return edge(thread);
    std::uint32_t inner = 0, pair = 0, group = 0, spread_step = 0;
    // Passes that hoist positions take inner blocks and pair groups (SliceOrder::body_entries). Host
    // builds decode pair groups only where there are some (CPUs take one pair by default): decoding them
    // in every thread, CPU batches of 8 executed 1.035 (pp_up_down) and 1.002 (ph_transverse) times the
    // instructions of before, with this branch 1.030 and 0.998 (callgrind, docs/results/batch_pair_groups/cpu).
#ifdef __CUDA_ARCH__
    constexpr bool groups = kHoisted;
#else
    const bool groups = kHoisted && order.pair_warps.divisor() > 1;
#endif
    if (!(groups ? order.body_entries<kSpread, kHoisted, kHoisted>(thread, inner, pair, group, spread_step)
                 : order.body_entries<kSpread, false, kHoisted>(thread, inner, pair, group, spread_step)))
      return;
    // The thread's first diagonal position; a constant 0 without spread, which host compilers do not
    // see through body_entries when they keep it out of line (8–19 % slower on a CPU).
    const int first = kSpread ? static_cast<int>(spread_step) * kSteps : 0;
    const OuterIndex base = order.shape.decode(inner, pair);  // w1, w2 hold the extended frequencies u
    const int two_n = n_freq;
    // Which of the kEntries entries (bit s·kRows + r: step s, row r) are in the slice.
    std::uint32_t valid = 0;
#ifdef __CUDA_ARCH__  // the device pass; host compilers do not know the pragma
#pragma unroll
#endif
    for (int s = 0; s < kSteps; ++s) {
      const int w1 = base.w1 + step_offset(first + s), w2 = base.w2 + step_offset(first + s);
      if (w1 < 0 || w1 >= two_n || w2 < 0 || w2 >= two_n) continue;
      for (int r = 0; r < kRows; ++r) {
        std::uint32_t i_q = 0, i_omega = 0;
        if (order.entry_row(group, first + s, r, kRows, diagonal(), i_q, i_omega)) valid |= 1u << (s * kRows + r);
      }
    }
    if (valid == 0) return;
    constexpr std::uint32_t kStepMask = (1u << kRows) - 1;
    // kHoisted: where each entry's G_σ values and factors sit inside a message is the same for every
    // message of a batch, so the table lookups and index arithmetic are done once, before the loop
    // over messages. For one message that only keeps every position live at once (more registers,
    // measured up to 6 % slower on an H200), so they are then computed where they are used.
    constexpr int kHoistedSteps = kHoisted ? kSteps : 1, kHoistedEntries = kHoisted ? kEntries : 1;
    constexpr int kFactorSlots = kHoisted && kReadsFactors ? kEntries : 1;  // the other passes read no factors
    // 32-bit offsets where batch_terms reads them (M² < 2^32, checked by GtAccumulator).
    using Position = std::conditional_t<kLoadsFirst, std::uint32_t, std::uint64_t>;
    Position fixed_at[kHoistedSteps] = {};
    Position cross_at[kHoistedEntries] = {};
    std::uint32_t left_at[kFactorSlots] = {}, right_at[kFactorSlots] = {};
    if constexpr (kHoisted) {
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int s = 0; s < kSteps; ++s) {
        if ((valid >> (s * kRows) & kStepMask) == 0) continue;
        const OuterIndex x = step(base, first + s);
        fixed_at[s] = static_cast<Position>(fixed_position(x));
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int r = 0; r < kRows; ++r) {
          const int e = s * kRows + r;
          if (!(valid >> e & 1u)) continue;
          std::uint32_t i_q = 0, i_omega = 0;
          order.entry_row(group, first + s, r, kRows, diagonal(), i_q, i_omega);
          cross_at[e] = static_cast<Position>(cross_position(x, i_q, i_omega));
          // Consecutive exchange frequencies: a row's cross value is the same at every step; batch_terms
          // reads it from step 0's slot, which an entry outside the slice leaves empty (the loop entry
          // by entry reads each entry's own slot).
          if (kLoadsFirst && consecutive_frequencies && s > 0) cross_at[r] = cross_at[e];
          if constexpr (kReadsFactors) factor_positions(x, i_q + order.shape.nq.divisor() * i_omega, left_at[e], right_at[e]);
        }
      }
    }
    // All terms first, then all loads of G_t, then all stores: kEntries loads in flight per thread.
    Scalar value[kEntries];
    bool any = false;
    if constexpr (kLoadsFirst) {
      any = batch_terms(fixed_at, cross_at, left_at, right_at, value);
    } else {
      for (int j = 0; j < count; ++j) {
        const Real w = weight(j);
        if (w == Real(0)) continue;
        Pair cross_of[kRows];
        std::uint32_t read = 0;  // bit r: cross_of[r] holds row r's cross value of message j
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int s = 0; s < kSteps; ++s) {
          if ((valid >> (s * kRows) & kStepMask) == 0) continue;
          const OuterIndex x = step(base, first + s);
          const Pair f = read_message(kHoisted ? fixed_at[kHoisted ? s : 0] : fixed_position(x), j);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
          for (int r = 0; r < kRows; ++r) {
            const int e = s * kRows + r;
            if (!(valid >> e & 1u)) continue;
            std::uint32_t i_q = 0, i_omega = 0;
            order.entry_row(group, first + s, r, kRows, diagonal(), i_q, i_omega);
            if (!(read >> r & 1u) || !consecutive_frequencies) {
              cross_of[r] = read_cross(kHoisted ? cross_at[kHoisted ? e : 0] : cross_position(x, i_q, i_omega), j);
              read |= 1u << r;
            }
            std::uint32_t left = 0, right = 0;
            if constexpr (kHoisted && kReadsFactors) left = left_at[e], right = right_at[e];
            else if constexpr (kReadsFactors) factor_positions(x, i_q + order.shape.nq.divisor() * i_omega, left, right);
            const Scalar t = w * combine(f, cross_of[r], left, right, j);
            value[e] = any ? value[e] + t : t;
          }
        }
        any = true;
      }
    }
    if (!any) return;  // padding only: G_t stays as it is
    std::uint64_t slot[kEntries];
    entry_slots(inner, pair, group, first, slot);
    if constexpr (kAtomic) {
      for (int e = 0; e < kEntries; ++e)
        if (valid >> e & 1u) add(slot[e], value[e]);
    } else {
      Scalar old[kEntries];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int e = 0; e < kEntries; ++e)
        if (valid >> e & 1u) old[e] = slice(slot[e]);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int e = 0; e < kEntries; ++e)
        if (valid >> e & 1u) slice(slot[e]) = old[e] + value[e];
    }
  }

 protected:  // shared with SingleMessageKernel (gt_kernel_single_message.hpp)
  // Where in the slice each of the thread's kEntries entries sits.
  KOKKOS_INLINE_FUNCTION void entry_slots(std::uint32_t inner, std::uint32_t pair, std::uint32_t group, int first,
                                          std::uint64_t (&slot)[kEntries]) const {
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int s = 0; s < kSteps; ++s) {
      const int offset = step_offset(first + s);  // ω1 and ω2 move by δ: inner by δ·nb⁴·Nc, pair by δ·Nc
      const std::uint32_t inner_s = inner + offset * static_cast<int>(order.inner_per_frequency);
      const std::uint32_t pair_s = pair + offset * static_cast<int>(order.shape.nc.divisor());
      for (int r = 0; r < kRows; ++r) {
        std::uint32_t i_q = 0, i_omega = 0;
        order.entry_row(group, first + s, r, kRows, diagonal(), i_q, i_omega);
        slot[s * kRows + r] = order.body_slot(inner_s, pair_s, i_q + order.shape.nq.divisor() * i_omega);
      }
    }
  }

  // One entry of a partial row, in the slice's order.
  KOKKOS_INLINE_FUNCTION void edge(std::uint64_t thread) const {
    std::uint64_t slot = 0;
    std::uint32_t inner = 0, pair = 0, exchange = 0;
    order.edge_entry(thread, slot, inner, pair, exchange);
    const OuterIndex x = order.shape.decode(inner, pair);
    std::uint32_t i_omega = 0, i_q = 0;
    order.shape.nq.divide(exchange, i_omega, i_q);
    const std::uint64_t fixed_at = fixed_position(x), cross_at = cross_position(x, i_q, i_omega);
    std::uint32_t left_at = 0, right_at = 0;
    if constexpr (kReadsFactors) factor_positions(x, exchange, left_at, right_at);
    Scalar sum;
    bool any = false;
    for (int j = 0; j < count; ++j) {
      const Real w = weight(j);
      if (w == Real(0)) continue;
      const Scalar t = w * combine(read_message(fixed_at, j), read_cross(cross_at, j), left_at, right_at, j);
      sum = any ? sum + t : t;  // as in the body: one message adds w·term to G_t unchanged
      any = true;
    }
    if (any) add(slot, sum);
  }

  KOKKOS_INLINE_FUNCTION void add(std::uint64_t slot, const Scalar& term) const { add_to<kAtomic>(slice, slot, term); }

  // G_up and G_down at `position` of message j.
  KOKKOS_INLINE_FUNCTION Pair read_message(std::uint64_t position, int j) const {
    const std::uint64_t at_j = j * message_stride + position;
    return {widen<Scalar>(messages(at_j)), widen<Scalar>(messages(at_j + g_size))};
  }
  // The same from where cross values are read (cross_position).
  KOKKOS_INLINE_FUNCTION Pair read_cross(std::uint64_t position, int j) const {
    const std::uint64_t at_j = j * cross_stride + position;
    if constexpr (kCrossKeptInL2) {
      const Message* at = cross_source.data() + at_j;
      return {widen<Scalar>(load_keeping_in_l2(at)), widen<Scalar>(load_keeping_in_l2(at + g_size))};
    } else {
      return {widen<Scalar>(cross_source(at_j)), widen<Scalar>(cross_source(at_j + g_size))};
    }
  }
  // Position of G_σ[(b,k,w), (bp,kp,wp)] where (bp,kp,wp) follows the inner index and (b,k,w) does
  // not: in G_σ^T when `transposed`, so that a warp reads along a column of the copy.
  KOKKOS_INLINE_FUNCTION std::uint64_t transposable(int b, int k, int w, int bp, int kp, int wp) const {
    return transposed ? at(bp, kp, wp, b, k, w) : at(b, k, w, bp, kp, wp);
  }

  // Position of the G_σ values of an entry that do not depend on the exchange.
  KOKKOS_INLINE_FUNCTION std::uint64_t fixed_position(const OuterIndex& x) const {
    if constexpr (kChannel == Channel::pp_up_down) return at(x.b1, x.k1, x.w1, x.b3, x.k2, x.w2);
    else if constexpr (kChannel == Channel::ph_transverse) return at(x.b2, x.k1, x.w1, x.b4, x.k2, x.w2);
    else if constexpr (kChannel == Channel::ph_magnetic) return at(x.b3, x.k1, x.w1, x.b1, x.k2, x.w2);
    else return at(x.b1, x.k1, x.w1, x.b4, x.k2, x.w2);
  }

  // Position (in cross_source) of the G_σ values of an entry that move with the exchange (iQ, iΩ).
  KOKKOS_INLINE_FUNCTION std::uint64_t cross_position(const OuterIndex& x, std::uint32_t i_q,
                                                      std::uint32_t i_omega) const {
    const int q = tables.exchange_momenta(static_cast<int>(i_q));
    const int omega = tables.exchange_frequencies(static_cast<int>(i_omega));
    const int nc = at.nc;
    if constexpr (kChannel == Channel::pp_up_down)
      return shifted_cross_position(x, tables.sub(x.k1 + nc * q), tables.sub(x.k2 + nc * q), omega);  // Q − k
    else
      return shifted_cross_position(x, tables.add(x.k1 + nc * q), tables.add(x.k2 + nc * q), omega);  // k + Q
  }
  // The base of walk_cross_position: entry x's cross position with both shifted momenta 0 at exchange
  // frequency iΩ.
  KOKKOS_INLINE_FUNCTION std::uint64_t walk_cross_base(const OuterIndex& x, std::uint32_t i_omega) const {
    return shifted_cross_position(x, 0, 0, tables.exchange_frequencies(static_cast<int>(i_omega)));
  }
  // The cross position of entry x at exchange momentum iQ for the single-message walks, from `base`,
  // walk_cross_base(x, iΩ) of the walk's exchange frequency (made again when the walk moves to the
  // next one): GLayout is linear in the momenta, so a step of a walk costs two lookups in the combined
  // table exchange_shift and two multiply-adds by the kernel's cross steps, where cross_position takes
  // four lookups, the index arithmetic and a branch on `transposed`.
  KOKKOS_INLINE_FUNCTION std::uint64_t walk_cross_position(std::uint64_t base, const OuterIndex& x,
                                                           std::uint32_t i_q) const {
    const int row = at.nc * static_cast<int>(i_q);
    return base + static_cast<std::uint64_t>(cross_k1_step) * static_cast<std::uint32_t>(tables.exchange_shift(x.k1 + row)) +
           static_cast<std::uint64_t>(cross_k2_step) * static_cast<std::uint32_t>(tables.exchange_shift(x.k2 + row));
  }
  // The same from k1 and k2 shifted by the exchange momentum (Q − k for pp_up_down, k + Q for the ph
  // channels) and the exchange frequency Ω itself.
  KOKKOS_INLINE_FUNCTION std::uint64_t shifted_cross_position(const OuterIndex& x, int k1s, int k2s, int omega) const {
    if constexpr (kChannel == Channel::pp_up_down) {
      const int w1c = omega + n_freq - 1 - x.w1;  // Ω − ω1
      const int w2c = omega + n_freq - 1 - x.w2;
      return at(x.b2, k1s, w1c, x.b4, k2s, w2c);
    } else {
      const int w1p = x.w1 + omega;  // ω1 + Ω
      const int w2p = x.w2 + omega;
      if constexpr (kChannel == Channel::ph_transverse) return transposable(x.b3, k2s, w2p, x.b1, k1s, w1p);
      else if constexpr (kChannel == Channel::ph_magnetic) return transposable(x.b2, k2s, w2p, x.b4, k1s, w1p);
      else return transposable(x.b2, k2s, w2p, x.b3, k1s, w1p);
    }
  }

  // Positions of the left and right bubble factors of an entry in its message's factor table.
  KOKKOS_INLINE_FUNCTION void factor_positions(const OuterIndex& x, std::uint32_t exchange, std::uint32_t& left,
                                               std::uint32_t& right) const {
    const int nb = at.nb, nc = at.nc;
    const std::uint32_t row = factor_stride * exchange;
    left = row + static_cast<std::uint32_t>(x.b1 + nb * x.b2 + nb * nb * (x.k1 + nc * x.w1));
    right = factor_right + row + static_cast<std::uint32_t>(x.b3 + nb * x.b4 + nb * nb * (x.k2 + nc * x.w2));
  }

  // The contribution of an entry of message j before the weight, from its fixed and cross values
  // (and, for the bubble channels, the positions of its factors). kFactorsKeptInL2: read the factors
  // with L2's "evict last" (the single-message kernels: 1–7 % faster on an H200 for the bubble
  // channels; batches ran up to 13 % slower with it, docs/results/h200_l2_hints).
  template <bool kFactorsKeptInL2 = false>
  KOKKOS_INLINE_FUNCTION Scalar combine(const Pair& f, const Pair& c, std::uint32_t left_at, std::uint32_t right_at,
                                        int j) const {
    if constexpr (!kReadsFactors) {
      return term(f, c, Scalar(), Scalar());
    } else if constexpr (kFactorsKeptInL2) {
      const Scalar* table = factors.data() + j * factor_message;
      return term(f, c, load_keeping_in_l2(table + left_at), load_keeping_in_l2(table + right_at));
    } else {
      const std::uint64_t message = j * factor_message;
      return term(f, c, factors(message + left_at), factors(message + right_at));
    }
  }

  // The same from the values themselves: the left and right bubble factors are read by ph_magnetic
  // and ph_charge only, and not with kFactorsApart.
  KOKKOS_INLINE_FUNCTION static Scalar term(const Pair& f, const Pair& c, const Scalar& left, const Scalar& right) {
    if constexpr (kChannel == Channel::pp_up_down) {
      return f.up * c.down + f.down * c.up;  // Σσ Gσ[a]·Gσ̄[c]
    } else if constexpr (kChannel == Channel::ph_transverse) {
      return -(f.up * c.down + f.down * c.up);
    } else if constexpr (kFactorsApart) {
      (void)left, (void)right;
      return -(f.up * c.up + f.down * c.down);
    } else {
      // Bubble of D = G_up − G_down (magnetic) or S = G_up + G_down (charge) minus an exchange term.
      return left * right - (f.up * c.up + f.down * c.down);
    }
  }

  // Σ_j w_j·term_j of the thread's entries over the batch's `count` messages (kHoisted), from the
  // entries' offsets in a message: the fixed values at fixed_at (per step), the cross values at
  // cross_at (per entry; per row, in step 0's slot, when the exchange frequencies are consecutive)
  // and the bubble factors at left_at and right_at; false when every message is padding. All loads of
  // a message are issued before its first product: entries outside the slice read offset 0 (their
  // sums are never stored) where a branch around each entry's loads made a warp wait for one entry's
  // values before it asked for the next one's, a memory latency per exchange row (Nsight Compute,
  // docs/results/h200_batch_loads). The loads are offsets from the message's base pointers, the same
  // in every thread, and the next message's weight is read while this message's terms are formed.
  template <int kFactors>
  KOKKOS_INLINE_FUNCTION bool batch_terms(const std::uint32_t (&fixed_at)[kSteps], const std::uint32_t (&cross_at)[kEntries],
                                          const std::uint32_t (&left_at)[kFactors], const std::uint32_t (&right_at)[kFactors],
                                          Scalar (&value)[kEntries]) const {
    bool any = false;
    Real next_weight = count > 0 ? weight(0) : Real(0);
    for (int j = 0; j < count; ++j) {
      const Real w = next_weight;
      if (j + 1 < count) next_weight = weight(j + 1);
      if (w == Real(0)) continue;
      const Message* up = messages.data() + j * message_stride;
      const Message* down = up + g_size;
      const Message* cross_up = cross_source.data() + j * cross_stride;
      const Message* cross_down = cross_up + g_size;
      Pair f[kSteps], c[kEntries];
      Scalar left[kFactors], right[kFactors];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int s = 0; s < kSteps; ++s) f[s] = {widen<Scalar>(up[fixed_at[s]]), widen<Scalar>(down[fixed_at[s]])};
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int e = 0; e < kEntries; ++e) {
        if (e >= kRows && consecutive_frequencies) {
          c[e] = c[e % kRows];
        } else if constexpr (kCrossKeptInL2) {
          c[e] = {widen<Scalar>(load_keeping_in_l2(cross_up + cross_at[e])),
                  widen<Scalar>(load_keeping_in_l2(cross_down + cross_at[e]))};
        } else {
          c[e] = {widen<Scalar>(cross_up[cross_at[e]]), widen<Scalar>(cross_down[cross_at[e]])};
        }
      }
      if constexpr (kReadsFactors) {
        const Scalar* table = factors.data() + j * factor_message;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
        for (int e = 0; e < kEntries; ++e) left[e] = table[left_at[e]], right[e] = table[right_at[e]];
      }
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int e = 0; e < kEntries; ++e) {
        const Scalar t = w * term(f[e / kRows], c[e], left[kReadsFactors ? e : 0], right[kReadsFactors ? e : 0]);
        value[e] = any ? value[e] + t : t;
      }
      any = true;
    }
    return any;
  }
};

}  // namespace ringcomm::gt::detail
