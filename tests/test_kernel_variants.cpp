// GtAccumulator's kernel variants (rows per thread, warps per row tile, transposed reads), batched
// accumulation and mixed precision (G_σ complex<float>, G_t complex<double>), against the serial
// reference and each other, on slices that begin and end inside exchange rows.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ringcomm/collective.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/ringcomm.hpp"
#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/l2_set_aside.hpp"
#include "ringcomm/gt/walker.hpp"
#include "same_sums.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

namespace ringcomm::gt {
// GoogleTest prints a PassKernel that differs by its name (found by argument-dependent lookup).
void PrintTo(PassKernel kernel, std::ostream* out) { *out << to_string(kernel); }
}  // namespace ringcomm::gt

namespace {

using namespace ringcomm;
using namespace ringcomm::gt;
using ringcomm::gt::Channel;
using ZDouble = Kokkos::complex<double>;
using ZFloat = Kokkos::complex<float>;

const Channel kAllChannels[] = {Channel::pp_up_down, Channel::ph_transverse, Channel::ph_magnetic,
                                Channel::ph_charge};

// Non-square cluster, non-zero momentum, unsorted frequencies with E = 2 (as test_kernels).
Problem small_problem(int nb, Channel channel, std::size_t measurements) {
  Problem problem;
  problem.dims.nb = nb;
  problem.dims.Lx = 3;
  problem.dims.Ly = 2;
  problem.dims.n_freq = 4;
  problem.dims.exchange_momenta = {0, 4};
  problem.dims.exchange_frequencies = {2, 0};
  problem.channel = channel;
  problem.seed = 77;
  problem.measurements = measurements;
  return problem;
}

// "ph_magnetic, nb 2, 3 frequencies": what names a problem of for_each_walk_problem in a trace.
std::string describe(const Problem& problem) {
  return to_string(problem.channel) + ", nb " + std::to_string(problem.dims.nb) + ", " +
         std::to_string(problem.dims.exchange_frequencies.size()) + " frequencies";
}

// `body(problem)` for nb 1 and 2, every channel, exchange momenta {0, 4, 1} (more rows than a tile
// or a frequency diagonal covers) and exchange frequencies `first`, then `second`.
template <class Body>
void for_each_walk_problem(std::size_t measurements, const std::vector<int>& first, const std::vector<int>& second,
                           Body&& body) {
  for (const std::vector<int>* frequencies : {&first, &second})
    for (const int nb : {1, 2})
      for (const Channel channel : kAllChannels) {
        Problem problem = small_problem(nb, channel, measurements);
        problem.dims.exchange_momenta = {0, 4, 1};
        problem.dims.exchange_frequencies = *frequencies;
        body(problem);
      }
}

struct Outcome {
  std::vector<ZDouble> gt;               // widened to double
  std::vector<int> staged_before_flush;  // per slice
  std::vector<int> tma_stages;           // per slice: GtAccumulator::tma_stages_in_use
};

// Every measurement, then one padding message whose G_σ slots hold NaN, through an accumulator of
// `batch` messages per slice; flushes at the end.
std::vector<SliceRange> uneven_slices(std::size_t n) {
  return {{0, n / 3}, {n / 3, n / 2 + 1}, {n / 2 + 1, n}};
}

struct Variant {
  int rows = 1;
  int warps = 1;
  bool transposed = true;
  bool warp_tile_kernel = false;  // pp_up_down, messages of G_t's type only
  int steps = 1;                  // exchange frequencies per thread
  int frequency_warps = 1;        // warps walking one frequency diagonal, a frequency each
  int single = -1;                // single-message kernel: -1 the default, 0 off, 1 on
  int loads_ahead = -1;           // its walks' loads of the next row or momentum ahead: the same
  int pair_warps = 0;             // warps of consecutive pairs on the same inner indices: 0 the default
  int tma_stages = -1;            // the walk in order's TMA stages: -1 the default
  int inner_block_chunks = -1;    // chunks of 32 inner indices per inner block of batches: -1 the default
  int team_threads = -1;          // threads per team of batched passes (0: a RangePolicy): -1 the default
  int factor_blas = -1;           // bubble batches' factor product through cuBLAS: -1 the default, 0 off, 1 on
};

template <class Scalar, class Message>
Outcome run(const Problem& problem, const std::vector<SliceRange>& ranges, int batch, Variant variant = {}) {
  const Dims& dims = problem.dims;
  const SyntheticWalker walker(dims, problem.seed, problem.measurements);
  const std::size_t bytes = dims.message_entries() * sizeof(Message);
  Buffer message(data_memory_kind(), bytes, "test message");
  Outcome out;
  out.gt.resize(dims.entries());
  for (const SliceRange& range : ranges) {
    Kokkos::View<Scalar*> slice("test slice", range.size());
    GtAccumulator<Scalar, Message> accumulate(dims, problem.channel, slice, range);
    accumulate.set_batch(batch);
    accumulate.set_exchange_row_tile(variant.rows);
    accumulate.set_frequency_steps(variant.steps);
    accumulate.set_frequency_warps(variant.frequency_warps);
    accumulate.set_exchange_row_warps(variant.warps);
    if (variant.pair_warps > 0) accumulate.set_pair_warps(variant.pair_warps);
    accumulate.set_transposed_reads(variant.transposed);
    accumulate.set_warp_tile_kernel(variant.warp_tile_kernel);
    if (variant.single >= 0) accumulate.set_single_message_kernel(variant.single == 1);
    if (variant.loads_ahead >= 0) {
      accumulate.set_diagonal_loads_ahead(variant.loads_ahead == 1);
      accumulate.set_walk_loads_ahead(variant.loads_ahead == 1);
    }
    if (variant.tma_stages >= 0) accumulate.set_walk_tma_stages(variant.tma_stages);
    if (variant.inner_block_chunks >= 0) accumulate.set_inner_block_chunks(variant.inner_block_chunks);
    if (variant.team_threads >= 0) accumulate.set_pass_team_threads(variant.team_threads);
    if (variant.factor_blas >= 0) accumulate.set_factor_product_blas(variant.factor_blas == 1);
    out.tma_stages.push_back(accumulate.tma_stages_in_use());
    for (std::size_t id = 0; id <= problem.measurements; ++id) {
      if (id == problem.measurements) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const std::vector<Message> garbage(dims.message_entries(), Message(nan, nan));
        copy_bytes(message.data(), data_memory_kind(), garbage.data(), MemoryKind::host, bytes);
      }
      walker.write<Message>(id, message.data());  // for the padding id: the sign 0 only
      accumulate(message.data(), 0);
      Kokkos::fence();  // the next message overwrites the buffer
    }
    out.staged_before_flush.push_back(accumulate.staged());
    Ring::flush(accumulate);
    EXPECT_EQ(accumulate.staged(), 0);
    Kokkos::fence();
    std::vector<Scalar> part(range.size());
    copy_bytes(part.data(), MemoryKind::host, slice.data(), data_memory_kind(), part.size() * sizeof(Scalar));
    for (std::size_t i = 0; i < part.size(); ++i) out.gt[range.begin + i] = ZDouble(part[i].real(), part[i].imag());
  }
  return out;
}

std::vector<std::complex<double>> compare_input(const std::vector<ZDouble>& values) {
  std::vector<std::complex<double>> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = {values[i].real(), values[i].imag()};
  return out;
}

double largest_error(const std::vector<ZDouble>& result, const std::vector<std::complex<double>>& reference) {
  const ErrorNorms e = compare(result, reference);
  return std::max({e.l1, e.l2, e.linf});
}

// Momenta and frequencies per thread, warps per tile, per frequency diagonal or per pair group (the
// bubble channels' walk in order, with 2, 3, 5 and 64 pairs: groups that leave pairs over), the
// single-message kernel or the one-entry-per-thread kernel, and where G_σ is read from change which
// thread updates which entry, never the arithmetic: the same bits, also with more exchange rows than
// a tile covers and inner indices (24 for nb = 1) that leave lanes idle. Frequencies {2, 0} are not consecutive,
// so every step reads its own cross value; {3, 4, 5} are, and a thread reads it once (with one
// message and frequency steps, the single-message kernel walks the diagonals unless it is off).
// "No bit" where multiply-adds are not fused; where they may be, the same sums (same_sums.hpp).
TEST(Variants, ChangeNoSum) {
  for_each_walk_problem(3, {2, 0}, {3, 4, 5}, [](const Problem& problem) {
    const std::vector<SliceRange> slices = uneven_slices(problem.dims.entries());
    const std::vector<ZDouble> plain = run<ZDouble, ZDouble>(problem, slices, 1, {1, 1, true}).gt;
    for (const Variant v : {Variant{2, 1, true}, Variant{1, 2, true}, Variant{2, 2, false}, Variant{4, 2, true},
                            Variant{8, 3, false}, Variant{1, 16, true}, Variant{1, 1, true, false, 2},
                            Variant{2, 1, true, false, 4}, Variant{4, 3, false, false, 4},
                            Variant{8, 1, true, false, 2}, Variant{2, 1, true, false, 1, 4},
                            Variant{1, 2, false, false, 1, 2}, Variant{4, 1, true, false, 1, 2},
                            Variant{1, 1, false, false, 1, 4}, Variant{1, 1, true, false, 1, 1, 0},
                            Variant{1, 1, true, false, 1, 1, 1}, Variant{4, 1, false, false, 1, 1, 1},
                            Variant{1, 1, true, false, 2, 1, 0}, Variant{2, 1, false, false, 4, 1, 1},
                            Variant{1, 1, true, false, 2, 1, 1, 0}, Variant{1, 1, false, false, 4, 1, 1, 0},
                            Variant{1, 1, true, false, 1, 1, 1, 0}, Variant{1, 1, true, false, 1, 1, 1, 1},
                            Variant{1, 1, true, false, 1, 1, 1, -1, 3}, Variant{1, 1, false, false, 1, 1, 1, -1, 64},
                            Variant{4, 1, true, false, 1, 1, 1, 0, 5}, Variant{1, 1, true, false, 1, 1, 1, 1, 2}}) {
      SCOPED_TRACE(describe(problem) + ", rows " + std::to_string(v.rows) + ", steps " + std::to_string(v.steps) +
                   ", frequency warps " + std::to_string(v.frequency_warps) + ", warps " + std::to_string(v.warps) +
                   ", pair warps " + std::to_string(v.pair_warps) +
                   ", single-message kernel " + std::to_string(v.single) + ", loads ahead " +
                   std::to_string(v.loads_ahead) + (v.transposed ? ", G^T" : ", G"));
      const std::vector<ZDouble> other = run<ZDouble, ZDouble>(problem, slices, 1, v).gt;
      EXPECT_TRUE(test::same_sums(other, plain));
      // One slice: every row whole, several tiles.
      const std::vector<ZDouble> whole =
          run<ZDouble, ZDouble>(problem, {SliceRange{0, problem.dims.entries()}}, 1, v).gt;
      EXPECT_TRUE(test::same_sums(whole, plain));
    }
  });
}

// The single-message kernel (batch 1, one frequency warp; its threads walk every whole row of their
// inner index and pair, in order or, with 2 or 4 frequency steps, along frequency diagonals), turned
// on: every channel in double and mixed precision against the reference, on slices that begin and
// end inside rows (their partial rows are ChannelKernel's) and on the whole G_t, with frequencies
// {2, 0} (unsorted: the diagonal walk does not apply) and {1, 2, 3}, so that walks cross from one
// exchange frequency to the next and diagonals of 2 and 4 steps overhang the last frequency, with
// and without the next row's or momentum's G_t loaded ahead, and with a row tile of 4 set (which it
// does not use).
TEST(Variants, SingleMessageKernelMatchesTheReference) {
  for_each_walk_problem(4, {2, 0}, {1, 2, 3}, [](const Problem& problem) {
    // Each uneven slice holds a few whole rows; the whole G_t holds them all.
    const std::vector<SliceRange> slices = uneven_slices(problem.dims.entries());
    const std::vector<SliceRange> whole{SliceRange{0, problem.dims.entries()}};
    const std::vector<std::complex<double>> reference = reference_gt<ZDouble>(problem);
    const std::vector<std::complex<double>> reference_mixed = reference_gt<ZFloat>(problem);
    for (const auto& [rows, steps, ahead] : {std::tuple{1, 1, 1}, std::tuple{4, 1, 1}, std::tuple{1, 2, 1},
                                             std::tuple{1, 4, 1}, std::tuple{1, 1, 0}, std::tuple{1, 2, 0},
                                             std::tuple{1, 4, 0}}) {
      SCOPED_TRACE(describe(problem) + ", row tile " + std::to_string(rows) + ", frequency steps " +
                   std::to_string(steps) + ", loads ahead " + std::to_string(ahead));
      const Variant v{rows, 1, true, false, steps, 1, 1, ahead};
      for (const std::vector<SliceRange>& ranges : {slices, whole}) {
        EXPECT_LE(largest_error(run<ZDouble, ZDouble>(problem, ranges, 1, v).gt, reference), 1e-12);
        EXPECT_LE(largest_error(run<ZDouble, ZFloat>(problem, ranges, 1, v).gt, reference_mixed), 1e-12);
      }
    }
  });
}

// The walk in order with the TMA (GtAccumulator::set_walk_tma_stages): every channel and precision
// against the reference, and the same sums as the walk with registers. Its shapes make whole warps
// (nb⁴·Nc·2n = 32 for nb = 1 with a 4 × 2 cluster, 384 for nb = 2), so on builds with the TMA it
// runs for the whole G_t and for slices that begin with a whole row, 2 rows before the end
// (tma_stages_in_use says so), in pp_up_down and ph_transverse; uneven slices begin inside a row and
// take the walk with registers, as do the bubble channels. Without the TMA every slice takes that walk.
TEST(Variants, TmaWalkMatchesTheReference) {
  using Accumulator = GtAccumulator<ZDouble>;
  for (const int nb : {1, 2})
    for (const Channel channel : kAllChannels)
      for (const std::vector<int>& frequencies : {std::vector<int>{2, 0}, std::vector<int>{1, 2, 3}}) {
        Problem problem = small_problem(nb, channel, 4);
        if (nb == 1) problem.dims.Lx = 4;
        problem.dims.exchange_momenta = {0, 4, 1};
        problem.dims.exchange_frequencies = frequencies;
        const std::size_t n = problem.dims.entries();
        const std::size_t row = n / static_cast<std::size_t>(problem.dims.NQ() * problem.dims.NOmega());
        // (slices, whether the TMA walk takes them where the build has it)
        const std::vector<std::pair<std::vector<SliceRange>, bool>> cases{
            {{{0, n}}, true}, {{{0, n - 2 * row}, {n - 2 * row, n}}, true}, {uneven_slices(n), false}};
        const std::vector<std::complex<double>> reference = reference_gt<ZDouble>(problem);
        const std::vector<std::complex<double>> reference_float = reference_gt<ZFloat>(problem);
        for (const int stages : {4, 8}) {
          SCOPED_TRACE(describe(problem) + ", TMA stages " + std::to_string(stages));
          Variant v;
          v.single = 1, v.tma_stages = stages;
          Variant registers = v;
          registers.tma_stages = 0;
          for (const auto& [ranges, whole_warps] : cases) {
            const Outcome tma = run<ZDouble, ZDouble>(problem, ranges, 1, v);
            EXPECT_LE(largest_error(tma.gt, reference), 1e-12);
            EXPECT_TRUE(test::same_sums(tma.gt, run<ZDouble, ZDouble>(problem, ranges, 1, registers).gt));
            EXPECT_LE(largest_error(run<ZDouble, ZFloat>(problem, ranges, 1, v).gt, reference_float), 1e-12);
            EXPECT_LE(largest_error(run<ZFloat, ZFloat>(problem, ranges, 1, v).gt, reference_float), 5e-6);
            if (whole_warps)
              for (const int in_use : tma.tma_stages)
                EXPECT_EQ(in_use, Accumulator::kTmaBuild && Accumulator::tma_walk_channel(channel) ? stages : 0);
          }
        }
      }
}

// Stages are 0, 4 or 8: anything else is refused and leaves the setting as it was. The default takes
// the TMA only where the build has it, at nb = 1, for pp_up_down (4 rows ahead, 8 with complex<float>
// messages) and ph_transverse (8) into a complex<double> G_t.
TEST(Variants, TmaStagesOutsideTheListAreRefused) {
  const Problem problem = small_problem(1, Channel::pp_up_down, 1);
  Kokkos::View<ZDouble*> slice("slice", problem.dims.entries());
  GtAccumulator<ZDouble> accumulate(problem.dims, Channel::pp_up_down, slice, {0, problem.dims.entries()});
  EXPECT_EQ(accumulate.walk_tma_stages(), GtAccumulator<ZDouble>::default_walk_tma_stages(Channel::pp_up_down, 1));
  for (const int stages : {0, 4, 8}) {
    accumulate.set_walk_tma_stages(stages);
    EXPECT_EQ(accumulate.walk_tma_stages(), stages);
  }
  for (const int stages : {-1, 1, 2, 16}) {
    EXPECT_THROW(accumulate.set_walk_tma_stages(stages), Error) << stages;
    EXPECT_EQ(accumulate.walk_tma_stages(), 8);
  }
  // nb = 1 with Nc·2n = 24: not whole warps, so never in use.
  EXPECT_EQ(accumulate.tma_stages_in_use(), 0);
  const bool tma = GtAccumulator<ZDouble>::kTmaBuild;
  EXPECT_EQ(GtAccumulator<ZDouble>::default_walk_tma_stages(Channel::pp_up_down, 1), tma ? 4 : 0);
  EXPECT_EQ((GtAccumulator<ZDouble, ZFloat>::default_walk_tma_stages(Channel::ph_transverse, 1)), tma ? 8 : 0);
  EXPECT_EQ((GtAccumulator<ZDouble, ZFloat>::default_walk_tma_stages(Channel::pp_up_down, 1)), tma ? 8 : 0);
  EXPECT_EQ(GtAccumulator<ZDouble>::default_walk_tma_stages(Channel::ph_magnetic, 1), 0);
  EXPECT_EQ(GtAccumulator<ZDouble>::default_walk_tma_stages(Channel::pp_up_down, 2), 0);
  EXPECT_EQ(GtAccumulator<ZFloat>::default_walk_tma_stages(Channel::pp_up_down, 1), 0);
}

// The previous kernel, kept for pp_up_down with one message per pass, against the reference and the
// default kernel, alone and next to batches (which it leaves to the default kernel).
TEST(Variants, WarpTileKernelMatchesTheReference) {
  for (const int nb : {1, 2}) {
    const Problem problem = small_problem(nb, Channel::pp_up_down, 5);
    const std::vector<SliceRange> slices = uneven_slices(problem.dims.entries());
    const std::vector<std::complex<double>> reference = reference_gt<ZDouble>(problem);
    for (const int batch : {1, 3}) {
      SCOPED_TRACE("nb " + std::to_string(nb) + ", batch " + std::to_string(batch));
      const Outcome tiles = run<ZDouble, ZDouble>(problem, slices, batch, {1, 1, true, true});
      EXPECT_LE(largest_error(tiles.gt, reference), 1e-12);
      const Outcome rows = run<ZDouble, ZDouble>(problem, slices, batch, {4, 1, true, false});
      EXPECT_LE(largest_error(tiles.gt, compare_input(rows.gt)), 1e-12);
    }
    const Outcome single = run<ZFloat, ZFloat>(problem, slices, 1, {1, 1, true, true});
    EXPECT_LE(largest_error(single.gt, reference_gt<ZFloat>(problem)), 5e-6);
  }
  const Dims dims = small_problem(1, Channel::ph_magnetic, 1).dims;
  Kokkos::View<ZDouble*> slice("slice", dims.entries());
  GtAccumulator<ZDouble> magnetic(dims, Channel::ph_magnetic, slice, SliceRange{0, dims.entries()});
  EXPECT_THROW(magnetic.set_warp_tile_kernel(true), Error);
  GtAccumulator<ZDouble, ZFloat> mixed(dims, Channel::pp_up_down, slice, SliceRange{0, dims.entries()});
  EXPECT_THROW(mixed.set_warp_tile_kernel(true), Error);
  EXPECT_FALSE(mixed.warp_tile_kernel());
}

TEST(Variants, SettingsOutOfRangeThrow) {
  const Problem problem = small_problem(1, Channel::pp_up_down, 1);
  Kokkos::View<ZDouble*> slice("slice", problem.dims.entries());
  GtAccumulator<ZDouble> accumulate(problem.dims, problem.channel, slice, SliceRange{0, problem.dims.entries()});
  EXPECT_THROW(accumulate.set_exchange_row_warps(0), Error);
  EXPECT_THROW(accumulate.set_exchange_row_warps(GtAccumulator<ZDouble>::kMaxExchangeRowWarps + 1), Error);
  accumulate.set_exchange_row_warps(3);
  EXPECT_EQ(accumulate.exchange_row_warps(), 3);
  EXPECT_THROW(accumulate.set_pair_warps(0), Error);
  EXPECT_THROW(accumulate.set_pair_warps(GtAccumulator<ZDouble>::kMaxPairWarps + 1), Error);
  accumulate.set_pair_warps(5);
  EXPECT_EQ(accumulate.pair_warps(), 1);  // pp_up_down takes no pair groups
  GtAccumulator<ZDouble> magnetic(problem.dims, Channel::ph_magnetic, slice, SliceRange{0, problem.dims.entries()});
  magnetic.set_single_message_kernel(true);
  magnetic.set_pair_warps(5);
  EXPECT_EQ(magnetic.pair_warps(), 5);
  magnetic.set_batch(2);
  EXPECT_EQ(magnetic.pair_warps(), 5);  // batches take them in every channel
  accumulate.set_batch(2);
  EXPECT_EQ(accumulate.pair_warps(), 5);
  EXPECT_THROW(accumulate.set_frequency_steps(0), Error);
  EXPECT_THROW(accumulate.set_frequency_steps(3), Error);
  EXPECT_THROW(accumulate.set_frequency_steps(8), Error);
  accumulate.set_frequency_steps(4);
  EXPECT_EQ(accumulate.frequency_steps(), 4);
  EXPECT_THROW(accumulate.set_frequency_warps(0), Error);
  EXPECT_THROW(accumulate.set_frequency_warps(3), Error);
  EXPECT_THROW(accumulate.set_frequency_warps(8), Error);
  accumulate.set_batch(4);  // the default frequency warps apply only without frequency steps
  accumulate.set_frequency_steps(1);
  EXPECT_EQ(accumulate.frequency_warps(), GtAccumulator<ZDouble>::kDefaultFrequencyWarps);
  accumulate.set_frequency_steps(4);
  EXPECT_EQ(accumulate.frequency_warps(), 1);  // threads walk 4 frequencies: no warps share a diagonal
  EXPECT_THROW(accumulate.set_frequency_warps(2), Error);
  accumulate.set_frequency_steps(1);
  accumulate.set_frequency_warps(2);
  EXPECT_EQ(accumulate.frequency_warps(), 2);
  EXPECT_THROW(accumulate.set_frequency_steps(2), Error);
  EXPECT_TRUE(accumulate.single_message_kernel());  // 4 exchange rows
  Dims one_row = problem.dims;
  one_row.exchange_frequencies = {0};
  one_row.exchange_momenta = {0};
  EXPECT_FALSE(GtAccumulator<ZDouble>::default_single_message_kernel(one_row));
}

// pass_kernel names the kernel a pass runs (kernel_bandwidth reports it): every branch of the choice.
TEST(Variants, PassKernelFollowsTheSettings) {
  using Kernel = PassKernel;
  Problem problem = small_problem(1, Channel::pp_up_down, 1);
  problem.dims.exchange_frequencies = {1, 2, 3};
  Kokkos::View<ZDouble*> slice("slice", problem.dims.entries());
  const SliceRange all{0, problem.dims.entries()};
  GtAccumulator<ZDouble> pp(problem.dims, Channel::pp_up_down, slice, all);
  EXPECT_EQ(pp.pass_kernel(1), Kernel::single_message);
  pp.set_frequency_steps(4);
  EXPECT_EQ(pp.pass_kernel(1), Kernel::single_diagonal);
  EXPECT_EQ(pp.pass_kernel(2), Kernel::channel);
  pp.set_single_message_kernel(false);
  EXPECT_EQ(pp.pass_kernel(1), Kernel::channel);
  pp.set_single_message_kernel(true);
  pp.set_frequency_steps(1);
  pp.set_frequency_warps(2);
  EXPECT_EQ(pp.pass_kernel(1), Kernel::channel);
  pp.set_frequency_warps(1);
  pp.set_warp_tile_kernel(true);
  EXPECT_EQ(pp.pass_kernel(1), Kernel::warp_tiles);
  pp.set_batch(3);  // a flush of one staged message runs the single-message kernel, never warp tiles
  EXPECT_EQ(pp.pass_kernel(1), Kernel::single_message);
  EXPECT_EQ(pp.pass_kernel(3), Kernel::channel);
  // Exchange frequencies {2, 0}: no diagonal shares one cross value, so frequency steps go to the
  // general kernel; so do concurrent updates.
  const Dims unsorted = small_problem(1, Channel::ph_magnetic, 1).dims;
  Kokkos::View<ZDouble*> unsorted_slice("unsorted slice", unsorted.entries());
  GtAccumulator<ZDouble, ZFloat> magnetic(unsorted, Channel::ph_magnetic, unsorted_slice, {0, unsorted.entries()});
  magnetic.set_frequency_steps(2);
  EXPECT_EQ(magnetic.pass_kernel(1), Kernel::channel);
  GtAccumulator<ZDouble> shared(problem.dims, Channel::ph_charge, slice, all, ExecSpace(), Updates::concurrent);
  EXPECT_EQ(shared.pass_kernel(1), Kernel::channel);
  EXPECT_STREQ(to_string(Kernel::single_diagonal), "diagonal");
  EXPECT_STREQ(to_string(Kernel::single_message), "single");
}

// Unset frequency steps follow default_frequency_steps(channel, w, nb), w true only where a single
// message takes the single-message kernel's diagonal walk; where it cannot, a default above 1 would
// send single messages to the general kernel. On CPUs every default is 1, so the branches are told
// apart on GPU builds, by a complex<double> G_t at nb = 2, whose walk takes 2 steps there (with a
// complex<float> G_t, which took 4 steps until 2026-12-02, a GPU run with the consecutive-frequency
// condition dropped went red: docs/results/h200_single_message_diagonal/final/planted_consecutive.txt;
// with nb ignored, docs/results/h200_nb2_steps/5_planted).
TEST(Variants, FrequencyStepsDefaultFollowsThePass) {
  using Accumulator = GtAccumulator<ZDouble, ZDouble>;
  const auto kernel_for = [](int steps) { return steps > 1 ? PassKernel::single_diagonal : PassKernel::single_message; };
  for (const Channel channel : {Channel::pp_up_down, Channel::ph_transverse, Channel::ph_magnetic}) {
    SCOPED_TRACE(to_string(channel));
    Problem problem = small_problem(2, channel, 1);
    problem.dims.exchange_frequencies = {1, 2, 3};
    Kokkos::View<ZDouble*> slice("slice", problem.dims.entries());
    const SliceRange all{0, problem.dims.entries()};
    const int walk = Accumulator::default_frequency_steps(channel, true, 2);
    const int elsewhere = Accumulator::default_frequency_steps(channel, false, 2);
    EXPECT_EQ(elsewhere, 1);
    Accumulator accumulate(problem.dims, channel, slice, all);
    EXPECT_EQ(accumulate.frequency_steps(), walk);
    EXPECT_EQ(accumulate.pass_kernel(1), kernel_for(walk));
    accumulate.set_batch(3);  // batches: the general kernel with one step
    EXPECT_EQ(accumulate.frequency_steps(), elsewhere);
    accumulate.set_batch(1);
    accumulate.set_single_message_kernel(false);
    EXPECT_EQ(accumulate.frequency_steps(), elsewhere);
    EXPECT_EQ(accumulate.pass_kernel(1), PassKernel::channel);
    accumulate.set_single_message_kernel(true);
    accumulate.set_frequency_warps(2);
    EXPECT_EQ(accumulate.frequency_steps(), elsewhere);
    Accumulator shared(problem.dims, channel, slice, all, ExecSpace(), Updates::concurrent);
    EXPECT_EQ(shared.frequency_steps(), elsewhere);
    problem.dims.exchange_frequencies = {2, 0};  // no shared cross values: the walk in order
    Kokkos::View<ZDouble*> unsorted_slice("unsorted slice", problem.dims.entries());
    Accumulator unsorted(problem.dims, channel, unsorted_slice, {0, problem.dims.entries()});
    EXPECT_EQ(unsorted.frequency_steps(), elsewhere);
    EXPECT_EQ(unsorted.pass_kernel(1), PassKernel::single_message);
  }
}

// The diagonal walk loads the next momentum's G_t ahead unless default_diagonal_loads_ahead(nb) says
// otherwise (off for mixed precision with nb > 1 on GPUs), and the default frequency steps follow
// the shape, not that setting: changing it leaves them as they were; the walk in order loads the next
// row ahead where default_walk_loads_ahead(channel) says so. On CPUs both defaults are on for every
// shape and every default step count is 1, so the constructor's choices are told apart on GPU builds.
template <class Scalar, class Message>
void expect_loads_ahead_defaults(int nb, const std::string& precision) {
  using Accumulator = GtAccumulator<Scalar, Message>;
  for (const Channel channel : {Channel::pp_up_down, Channel::ph_transverse, Channel::ph_charge}) {
    SCOPED_TRACE(to_string(channel) + ", nb " + std::to_string(nb) + ", " + precision);
    Problem problem = small_problem(nb, channel, 1);
    problem.dims.exchange_frequencies = {1, 2, 3};
    Kokkos::View<Scalar*> slice("slice", problem.dims.entries());
    Accumulator accumulate(problem.dims, channel, slice, {0, problem.dims.entries()});
    const bool ahead = Accumulator::default_diagonal_loads_ahead(nb);
    EXPECT_EQ(accumulate.diagonal_loads_ahead(), ahead);
    const int steps = Accumulator::default_frequency_steps(channel, true, nb);
    EXPECT_EQ(accumulate.frequency_steps(), steps);
    accumulate.set_diagonal_loads_ahead(!ahead);
    EXPECT_EQ(accumulate.diagonal_loads_ahead(), !ahead);
    EXPECT_EQ(accumulate.frequency_steps(), steps);
    const bool diagonal = accumulate.frequency_steps() > 1;
    EXPECT_EQ(accumulate.pass_kernel(1), diagonal ? PassKernel::single_diagonal : PassKernel::single_message);
    EXPECT_EQ(accumulate.walk_loads_ahead(), Accumulator::default_walk_loads_ahead(channel));
  }
}

// The single-message walk finds cross values at 32-bit offsets inside one G_σ matrix, so a shape whose
// G_σ has M² ≥ 2^32 entries is refused: M = 65536 here (Nc = 256, 2n = 256, E = 0), while the other
// 32-bit parts (nb⁴·Nc·2n and Nc·2n·N_Q·N_Ω, both 65536) fit. One entry fewer per side (2n = 254) passes
// the check and would only then need its 2·M² scratch, so only the refusal is run.
TEST(Variants, GSigmaBeyondThirtyTwoBitOffsetsIsRefused) {
  Dims dims;
  dims.Lx = 16, dims.Ly = 16, dims.n_freq = 256;
  ASSERT_EQ(static_cast<std::uint64_t>(dims.M()) * static_cast<std::uint64_t>(dims.M()), std::uint64_t{1} << 32);
  Kokkos::View<ZDouble*> empty("empty slice", 0);
  try {
    GtAccumulator<ZDouble> accumulate(dims, Channel::ph_magnetic, empty, SliceRange{0, 0});
    ADD_FAILURE() << "a G_sigma of M^2 = 2^32 entries was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("M^2"), std::string::npos) << e.what();
  }
}

TEST(Variants, DiagonalLoadsAheadDefaultFollowsTheShape) {
  for (const int nb : {1, 2}) {
    expect_loads_ahead_defaults<ZDouble, ZDouble>(nb, "double");
    expect_loads_ahead_defaults<ZDouble, ZFloat>(nb, "mixed");
    expect_loads_ahead_defaults<ZFloat, ZFloat>(nb, "float");
  }
  EXPECT_TRUE(GtAccumulator<ZDouble>::default_diagonal_loads_ahead(1));
  EXPECT_TRUE(GtAccumulator<ZFloat>::default_diagonal_loads_ahead(2));
#ifdef KOKKOS_ENABLE_CUDA
  EXPECT_TRUE(GtAccumulator<ZDouble>::default_diagonal_loads_ahead(2));
  EXPECT_FALSE((GtAccumulator<ZDouble, ZFloat>::default_diagonal_loads_ahead(2)));
  EXPECT_EQ(GtAccumulator<ZDouble>::default_frequency_steps(Channel::pp_up_down, true, 2), 2);
  EXPECT_EQ((GtAccumulator<ZDouble, ZFloat>::default_frequency_steps(Channel::ph_transverse, true, 2)), 2);
  EXPECT_EQ(GtAccumulator<ZDouble>::default_frequency_steps(Channel::pp_up_down, true, 1), 1);
  EXPECT_EQ(GtAccumulator<ZDouble>::default_frequency_steps(Channel::ph_magnetic, true, 2), 1);
  EXPECT_EQ(GtAccumulator<ZFloat>::default_frequency_steps(Channel::pp_up_down, true, 2), 1);
#else
  EXPECT_TRUE((GtAccumulator<ZDouble, ZFloat>::default_diagonal_loads_ahead(2)));
  EXPECT_EQ(GtAccumulator<ZDouble>::default_frequency_steps(Channel::pp_up_down, true, 2), 1);
#endif
  for (const Channel channel : {Channel::pp_up_down, Channel::ph_transverse, Channel::ph_magnetic, Channel::ph_charge}) {
    EXPECT_TRUE(GtAccumulator<ZDouble>::default_walk_loads_ahead(channel));
    EXPECT_TRUE((GtAccumulator<ZDouble, ZFloat>::default_walk_loads_ahead(channel)));
    EXPECT_TRUE(GtAccumulator<ZFloat>::default_walk_loads_ahead(channel));
  }
}

// Pair groups by default (default_pair_warps): on GPUs 64 pairs for a complex<float> G_t and 4 for
// complex<double> at nb = 1, 8 and 1 at nb > 1; on CPUs 1. An accumulator takes the default of its shape.
TEST(Variants, PairWarpsDefaultFollowsTheShape) {
#ifdef KOKKOS_ENABLE_CUDA
  EXPECT_EQ(GtAccumulator<ZFloat>::default_pair_warps(1), 64);
  EXPECT_EQ(GtAccumulator<ZFloat>::default_pair_warps(2), 8);
  EXPECT_EQ(GtAccumulator<ZDouble>::default_pair_warps(1), 4);
  EXPECT_EQ(GtAccumulator<ZDouble>::default_pair_warps(2), 1);
  EXPECT_EQ((GtAccumulator<ZDouble, ZFloat>::default_pair_warps(2)), 1);
#else
  EXPECT_EQ(GtAccumulator<ZFloat>::default_pair_warps(1), 1);
  EXPECT_EQ(GtAccumulator<ZFloat>::default_pair_warps(2), 1);
#endif
  for (const int nb : {1, 2}) {
    SCOPED_TRACE("nb " + std::to_string(nb));
    const Problem problem = small_problem(nb, Channel::ph_magnetic, 1);
    Kokkos::View<ZFloat*> slice("slice", problem.dims.entries());
    GtAccumulator<ZFloat> magnetic(problem.dims, Channel::ph_magnetic, slice, SliceRange{0, problem.dims.entries()});
    magnetic.set_single_message_kernel(true);
    EXPECT_EQ(magnetic.pair_warps(), GtAccumulator<ZFloat>::default_pair_warps(nb));
  }
}

// Row tiles of batches by default (default_exchange_row_tile with batched true): on GPUs 4 (the bubble
// channels took 2 until their batches added the factor product in a pass of its own,
// docs/results/h200_batch_loads); on CPUs 1. A batched accumulator takes the default of its channel.
TEST(Batches, RowTileDefaultFollowsChannelAndPrecision) {
  using Double = GtAccumulator<ZDouble, ZDouble>;
  using Mixed = GtAccumulator<ZDouble, ZFloat>;
  using Float = GtAccumulator<ZFloat, ZFloat>;
  for (const Channel channel : kAllChannels) {
    SCOPED_TRACE(to_string(channel));
#ifdef KOKKOS_ENABLE_CUDA
    EXPECT_EQ(Double::default_exchange_row_tile(channel, true), 4);
    EXPECT_EQ(Mixed::default_exchange_row_tile(channel, true), 4);
    EXPECT_EQ(Float::default_exchange_row_tile(channel, true), 4);
#else
    EXPECT_EQ(Double::default_exchange_row_tile(channel, true), 1);
    EXPECT_EQ(Mixed::default_exchange_row_tile(channel, true), 1);
    EXPECT_EQ(Float::default_exchange_row_tile(channel, true), 1);
#endif
    const Problem problem = small_problem(1, channel, 1);
    Kokkos::View<ZDouble*> slice("slice", problem.dims.entries());
    Double accumulate(problem.dims, channel, slice, SliceRange{0, problem.dims.entries()});
    accumulate.set_batch(8);
    EXPECT_EQ(accumulate.exchange_row_tile(), Double::default_exchange_row_tile(channel, true));
  }
}

// Inner blocks of batches by default (default_inner_block_chunks): on GPUs 3 chunks at nb = 1 and 18
// at nb = 2 for messages in complex<double>, 12 and 36 for messages in complex<float>
// (docs/results/h200_batch_blocks); on CPUs 0 (one block). An accumulator takes the default of its shape.
TEST(Batches, InnerBlockDefaultFollowsPrecisionAndShape) {
  using Double = GtAccumulator<ZDouble, ZDouble>;
  using Mixed = GtAccumulator<ZDouble, ZFloat>;
  using Float = GtAccumulator<ZFloat, ZFloat>;
  for (const int nb : {1, 2}) {
    SCOPED_TRACE("nb " + std::to_string(nb));
#ifdef KOKKOS_ENABLE_CUDA
    EXPECT_EQ(Double::default_inner_block_chunks(nb), nb == 1 ? 3 : 18);
    EXPECT_EQ(Mixed::default_inner_block_chunks(nb), nb == 1 ? 12 : 36);
    EXPECT_EQ(Float::default_inner_block_chunks(nb), nb == 1 ? 12 : 36);
#else
    EXPECT_EQ(Double::default_inner_block_chunks(nb), 0);
    EXPECT_EQ(Mixed::default_inner_block_chunks(nb), 0);
    EXPECT_EQ(Float::default_inner_block_chunks(nb), 0);
#endif
    const Problem problem = small_problem(nb, Channel::ph_charge, 1);
    Kokkos::View<ZDouble*> slice("slice", problem.dims.entries());
    Mixed accumulate(problem.dims, problem.channel, slice, SliceRange{0, problem.dims.entries()});
    accumulate.set_batch(8);
    EXPECT_EQ(accumulate.inner_block_chunks(), Mixed::default_inner_block_chunks(nb));
  }
}

// inner_block_chunks_in_use says which passes take the inner blocks: those of the general kernel with
// hoisted positions (a batch, or frequency warps above 1), not the single-message kernel; so does
// pass_team_threads_in_use for teams.
TEST(Batches, InnerBlocksInUseFollowTheKernel) {
  const Problem problem = small_problem(1, Channel::pp_up_down, 1);
  Kokkos::View<ZDouble*> slice("slice", problem.dims.entries());
  GtAccumulator<ZDouble> accumulate(problem.dims, problem.channel, slice, SliceRange{0, problem.dims.entries()});
  accumulate.set_batch(8);
  accumulate.set_inner_block_chunks(5);
  // Batches on GPUs spread diagonals over frequency warps by default, which sends a single message
  // through the general kernel too: one warp a diagonal, so that it takes the single-message kernel.
  accumulate.set_frequency_warps(1);
  EXPECT_EQ(accumulate.inner_block_chunks_in_use(8), 5);
  EXPECT_EQ(accumulate.pass_kernel(1), PassKernel::single_message);  // a flush of one staged message
  EXPECT_EQ(accumulate.inner_block_chunks_in_use(1), 0);
  accumulate.set_pass_team_threads(256);  // teams follow the same passes
  EXPECT_EQ(accumulate.pass_team_threads_in_use(8), 256);
  EXPECT_EQ(accumulate.pass_team_threads_in_use(1), 0);
  accumulate.set_frequency_warps(2);  // one message through the general kernel, positions hoisted
  EXPECT_EQ(accumulate.pass_kernel(1), PassKernel::channel);
  EXPECT_EQ(accumulate.inner_block_chunks_in_use(1), 5);
  EXPECT_EQ(accumulate.pass_team_threads_in_use(1), 256);
  accumulate.set_inner_block_chunks(0);
  EXPECT_EQ(accumulate.inner_block_chunks_in_use(8), 0);
}

// 5 measurements + 1 padding message in batches of 2, 3 and 4 leave 0, 0 and 2 staged: flush() must
// apply them, and a batch holding the NaN padding must add nothing. Summation order changes with the
// batch, so the bound is the one of double precision rounding, not bit equality.
TEST(Batches, MatchTheReferenceAndKeepNothingAfterFlush) {
  for (const int nb : {1, 2})
    for (const Channel channel : kAllChannels) {
      const Problem problem = small_problem(nb, channel, 5);
      const std::vector<std::complex<double>> reference = reference_gt<ZDouble>(problem);
      for (const int batch : {1, 2, 3, 4}) {
        SCOPED_TRACE(to_string(channel) + ", nb " + std::to_string(nb) + ", batch " + std::to_string(batch));
        const Outcome out = run<ZDouble, ZDouble>(problem, uneven_slices(problem.dims.entries()), batch);
        EXPECT_LE(largest_error(out.gt, reference), 1e-12);
        for (const int staged : out.staged_before_flush) EXPECT_EQ(staged, batch == 1 ? 0 : 6 % batch);
      }
    }
}

// Bubble batches larger than a team of the factor pass stages at once (GtAccumulator::apply_factor_product,
// within TeamPolicy::scratch_size_max(0)): at nb = 2 a team's scratch memory holds 12 messages in
// complex<double> on GPUs and 10 on CPUs, so a batch of 25 takes three chunks (9, 9, 7), each staging
// its own messages' weights and factor tables and adding to the G_t entries the chunk before updated;
// at nb = 1, 25 and 20, so a batch of 31 takes two (16, 15). (A chunk of 31 at nb = 1, which a limit of
// 48 KiB of scratch let through, asks more than Kokkos launches on a GPU: its ParallelFor for CUDA keeps
// 8 bytes a thread besides and refuses a total above 48 KiB.)
TEST(Batches, BubbleBatchesLargerThanAStagedChunkMatchTheReference) {
  for (const auto& [nb, batch] : {std::pair{2, 25}, std::pair{1, 31}})
    for (const Channel channel : {Channel::ph_magnetic, Channel::ph_charge}) {
      SCOPED_TRACE(to_string(channel) + ", nb " + std::to_string(nb));
      const Problem problem = small_problem(nb, channel, 35);
      const std::vector<std::complex<double>> reference = reference_gt<ZDouble>(problem);
      const Outcome out = run<ZDouble, ZDouble>(problem, uneven_slices(problem.dims.entries()), batch);
      EXPECT_LE(largest_error(out.gt, reference), 1e-12);
    }
}

// Batches through threads that walk frequency diagonals, where each message's cross value is read
// once per momentum, and through warps that walk them together: consecutive frequencies {1, 2, 3},
// more than one window with 2 steps.
TEST(Batches, FrequencyDiagonalsMatchTheReference) {
  for (const int nb : {1, 2})
    for (const Channel channel : kAllChannels) {
      Problem problem = small_problem(nb, channel, 5);
      problem.dims.exchange_frequencies = {1, 2, 3};
      const std::vector<std::complex<double>> reference = reference_gt<ZDouble>(problem);
      for (const Variant v : {Variant{2, 1, true, false, 2}, Variant{4, 2, false, false, 4},
                              Variant{2, 1, true, false, 1, 4}, Variant{1, 1, true, false, 1, 2}})
        for (const int batch : {1, 3}) {
          SCOPED_TRACE(to_string(channel) + ", nb " + std::to_string(nb) + ", steps " + std::to_string(v.steps) +
                       ", frequency warps " + std::to_string(v.frequency_warps) + ", batch " + std::to_string(batch));
          const Outcome out = run<ZDouble, ZDouble>(problem, uneven_slices(problem.dims.entries()), batch, v);
          EXPECT_LE(largest_error(out.gt, reference), 1e-12);
          const Outcome mixed = run<ZDouble, ZFloat>(problem, uneven_slices(problem.dims.entries()), batch, v);
          EXPECT_LE(largest_error(mixed.gt, reference_gt<ZFloat>(problem)), 1e-12);
        }
    }
}

// The problems of the thread-order tests below: nb = 1 with 2n = 16 and nb = 2, every channel,
// exchange frequencies {1, 2, 3}, on slices that begin and end inside rows.
template <class Body>
void for_each_order_problem(Body&& body) {
  for (const int nb : {1, 2})
    for (const Channel channel : kAllChannels) {
      Problem problem = small_problem(nb, channel, 5);
      if (nb == 1) problem.dims.n_freq = 16;
      problem.dims.exchange_frequencies = {1, 2, 3};
      body(problem, uneven_slices(problem.dims.entries()));
    }
}

// Inner blocks of batched passes (set_inner_block_chunks) change which thread updates which entry,
// never a sum: blocks of 1, 2, 5 and 7 chunks and one larger than all of them against one block of
// all (0), with row tiles, frequency steps and frequency warps (whose diagonals extend the inner
// index), for nb = 1 with 2n = 16 (3 or 4 chunks of 32 inner indices) and nb = 2 (12 to 21), every
// channel, double and mixed precision, batches of 3 on slices that begin and end inside rows.
TEST(Batches, InnerBlocksChangeNoSum) {
  for_each_order_problem([](const Problem& problem, const std::vector<SliceRange>& slices) {
    const int nb = problem.dims.nb;
    const Channel channel = problem.channel;
    for (const Variant shape : {Variant{1}, Variant{4, 1, true, false, 2}, Variant{2, 1, true, false, 1, 4}}) {
      Variant v = shape;
      v.inner_block_chunks = 0;
      const std::vector<ZDouble> one_block = run<ZDouble, ZDouble>(problem, slices, 3, v).gt;
      const std::vector<ZDouble> one_block_mixed = run<ZDouble, ZFloat>(problem, slices, 3, v).gt;
      EXPECT_LE(largest_error(one_block, reference_gt<ZDouble>(problem)), 1e-12);
      for (const int chunks : {1, 2, 5, 7, 1000}) {
        SCOPED_TRACE(to_string(channel) + ", nb " + std::to_string(nb) + ", rows " + std::to_string(v.rows) +
                     ", steps " + std::to_string(v.steps) + ", frequency warps " +
                     std::to_string(v.frequency_warps) + ", inner blocks of " + std::to_string(chunks));
        v.inner_block_chunks = chunks;
        EXPECT_TRUE(test::same_sums(run<ZDouble, ZDouble>(problem, slices, 3, v).gt, one_block));
        EXPECT_TRUE(test::same_sums(run<ZDouble, ZFloat>(problem, slices, 3, v).gt, one_block_mixed));
      }
    }
  });
}

// Pair groups of batched passes (set_pair_warps) change which thread updates which entry, and teams
// (set_pass_team_threads) which multiprocessor runs it, never a sum: groups of 2, 3 and 7 pairs and
// one larger than all pairs, in teams of 96 to 1024 threads or a RangePolicy, against one pair in a
// RangePolicy, with one inner block and blocks of 2 chunks, row tiles and frequency warps (and 8 rows
// × 4 steps, whose registers may allow a GPU fewer threads a team than asked), every
// channel, nb = 1 (2n = 16: 96 pairs, 102 with the diagonals of 2 frequency warps) and nb = 2 (24 or
// 30), so that 7 leaves a partial group, double and mixed precision, batches of 3 on slices that
// begin and end inside rows. (Host teams are one thread: on a CPU this runs the team launch's
// numbering, on a GPU teams of those sizes too.)
TEST(Batches, PairGroupsChangeNoSum) {
  for_each_order_problem([](const Problem& problem, const std::vector<SliceRange>& slices) {
    const int nb = problem.dims.nb;
    const Channel channel = problem.channel;
    for (const Variant shape : {Variant{1}, Variant{4, 1, true, false, 1, 2}, Variant{8, 1, true, false, 4}})
      for (const int chunks : {0, 2}) {
        Variant v = shape;
        v.inner_block_chunks = chunks;
        v.pair_warps = 1;
        v.team_threads = 0;
        const std::vector<ZDouble> one_pair = run<ZDouble, ZDouble>(problem, slices, 3, v).gt;
        const std::vector<ZDouble> one_pair_mixed = run<ZDouble, ZFloat>(problem, slices, 3, v).gt;
        EXPECT_LE(largest_error(one_pair, reference_gt<ZDouble>(problem)), 1e-12);
        // {0, -1}: the defaults (on GPUs, Lx pairs in teams of 512, or 1024 for double messages at nb = 1).
        for (const auto& [pairs, team] : {std::pair{2, 0}, std::pair{3, 96}, std::pair{7, 512},
                                          std::pair{1000, 1024}, std::pair{1, 256}, std::pair{0, -1}}) {
          SCOPED_TRACE(to_string(channel) + ", nb " + std::to_string(nb) + ", rows " + std::to_string(v.rows) +
                       ", steps " + std::to_string(v.steps) + ", frequency warps " +
                       std::to_string(v.frequency_warps) + ", inner blocks of " +
                       std::to_string(chunks) + ", pair groups of " + std::to_string(pairs) + ", teams of " +
                       std::to_string(team));
          v.pair_warps = pairs;
          v.team_threads = team;
          EXPECT_TRUE(test::same_sums(run<ZDouble, ZDouble>(problem, slices, 3, v).gt, one_pair));
          EXPECT_TRUE(test::same_sums(run<ZDouble, ZFloat>(problem, slices, 3, v).gt, one_pair_mixed));
        }
      }
  });
}

// The defaults of batched passes: on GPUs pair groups of a row of momenta (Lx pairs) and one frequency
// warp in every precision, in teams of 1024 threads for messages in complex<double> at nb = 1 and 512
// otherwise; host builds one pair in a RangePolicy. A single message takes no teams.
TEST(Batches, PairGroupDefaultsFollowTheBuild) {
  const Problem problem = small_problem(1, Channel::ph_transverse, 1);  // Lx = 3, Ly = 2
  const Dims& dims = problem.dims;
  Kokkos::View<ZDouble*> slice("slice", dims.entries());
  Kokkos::View<ZFloat*> float_slice("float slice", dims.entries());
  const SliceRange all{0, dims.entries()};
  GtAccumulator<ZDouble, ZFloat> mixed(dims, problem.channel, slice, all);
  GtAccumulator<ZDouble> in_double(dims, problem.channel, slice, all);
  GtAccumulator<ZFloat> in_float(dims, problem.channel, float_slice, all);
#ifdef KOKKOS_ENABLE_CUDA
  // Teams of 1024 for messages in complex<double> at nb = 1 (this problem's), 512 for complex<float>.
  const int pairs = 3, team = 512, double_team = 1024;
#else
  const int pairs = 1, team = 0, double_team = 0;
#endif
  const auto expect_defaults = [&](const auto& accumulate, int expected_team, const char* precision) {
    SCOPED_TRACE(precision);
    EXPECT_EQ(accumulate.pair_warps(), pairs);
    EXPECT_EQ(accumulate.pass_team_threads_in_use(4), expected_team);
    EXPECT_EQ(accumulate.pass_team_threads_in_use(1), 0);
    EXPECT_EQ(accumulate.frequency_warps(), 1);
  };
  mixed.set_batch(4), in_double.set_batch(4), in_float.set_batch(4);
  expect_defaults(mixed, team, "mixed");
  expect_defaults(in_double, double_team, "double");
  expect_defaults(in_float, team, "float");
}

// Where the ph channels read their cross values: on GPUs through G_σ^T, except in batches at nb >= 2,
// whose passes read G_σ directly for less than the copy costs; host builds read G_σ itself. The work
// space counted follows the choice, and a choice set holds for every batch.
TEST(Batches, TransposedReadsDefaultFollowsShapeAndBatch) {
  using Accumulator = GtAccumulator<ZDouble>;
  for (const int nb : {1, 2}) {
    SCOPED_TRACE("nb " + std::to_string(nb));
    const Problem problem = small_problem(nb, Channel::ph_magnetic, 1);
    const Dims& dims = problem.dims;
    Kokkos::View<ZDouble*> slice("slice", dims.entries());
    Accumulator accumulate(dims, problem.channel, slice, SliceRange{0, dims.entries()});
#ifdef KOKKOS_ENABLE_CUDA
    const bool single = true, batched = nb == 1;
#else
    const bool single = false, batched = false;
#endif
    EXPECT_EQ(accumulate.transposed_reads(), single);
    EXPECT_EQ(accumulate.scratch_bytes(), Accumulator::scratch_bytes(dims, problem.channel, 1, single));
    accumulate.set_batch(4);
    EXPECT_EQ(accumulate.transposed_reads(), batched);
    EXPECT_EQ(accumulate.scratch_bytes(), Accumulator::scratch_bytes(dims, problem.channel, 4, batched));
    EXPECT_EQ(accumulate.scratch_bytes(), Accumulator::scratch_bytes(dims, problem.channel, 4));
    // The copy holds G_σ of both spins: the message without its sign.
    const std::size_t copy = (dims.message_entries() - 1) * sizeof(ZDouble);
    EXPECT_EQ(Accumulator::scratch_bytes(dims, problem.channel, 4, true),
              Accumulator::scratch_bytes(dims, problem.channel, 4, false) + 4 * copy);
    for (const bool on : {true, false}) {
      accumulate.set_transposed_reads(on);
      accumulate.set_batch(1);
      EXPECT_EQ(accumulate.transposed_reads(), on);
      accumulate.set_batch(4);
      EXPECT_EQ(accumulate.transposed_reads(), on);
      EXPECT_EQ(accumulate.scratch_bytes(), Accumulator::scratch_bytes(dims, problem.channel, 4, on));
    }
  }
}

// The bubble channels' factor product through cuBLAS (set_factor_product_blas: GPU builds, nb = 1) adds
// the factor pass's sums in another order: batches of 2, 5 and 31 (which the factor pass takes in two
// chunks) of ph_magnetic and ph_charge in double, mixed and float precision, on the uneven slices, whose
// ends lie inside exchange rows (those rows stay with the factor pass), and on one slice of every row;
// each accumulator also gets the padding message, whose factor tables hold NaN. On builds without cuBLAS
// the setting is refused (FactorProductBlasDefaultFollowsBuildAndShape).
TEST(Batches, FactorProductThroughBlasMatchesTheReference) {
  if (!GtAccumulator<ZDouble>::kFactorProductBlasBuild) GTEST_SKIP() << "this build has no cuBLAS (a host build)";
  for (const Channel channel : {Channel::ph_magnetic, Channel::ph_charge}) {
    const Problem problem = small_problem(1, channel, 35);
    const std::size_t n = problem.dims.entries();
    const std::vector<std::complex<double>> reference = reference_gt<ZDouble>(problem);
    const std::vector<std::complex<double>> reference_float = reference_gt<ZFloat>(problem);
    Variant blas;
    blas.factor_blas = 1;
    for (const std::vector<SliceRange>& slices : {uneven_slices(n), std::vector<SliceRange>{{0, n}}})
      for (const int batch : {2, 5, 31}) {
        SCOPED_TRACE(to_string(channel) + ", " + std::to_string(slices.size()) + " slices, batch " +
                     std::to_string(batch));
        EXPECT_LE(largest_error(run<ZDouble, ZDouble>(problem, slices, batch, blas).gt, reference), 1e-12);
        EXPECT_LE(largest_error(run<ZDouble, ZFloat>(problem, slices, batch, blas).gt, reference_float), 1e-12);
        EXPECT_LE(largest_error(run<ZFloat, ZFloat>(problem, slices, batch, blas).gt, reference_float), 5e-6);
      }
  }
}

// On by default where it exists (GPU builds) at nb = 1; refused where it does not and at nb = 2. In use
// for batches of the bubble channels with exclusive updates only (concurrent ones keep one pass).
TEST(Batches, FactorProductBlasDefaultFollowsBuildAndShape) {
  using Accumulator = GtAccumulator<ZDouble, ZFloat>;
  for (const int nb : {1, 2}) {
    SCOPED_TRACE("nb " + std::to_string(nb));
    const Problem problem = small_problem(nb, Channel::ph_charge, 1);
    const Dims& dims = problem.dims;
    Kokkos::View<ZDouble*> slice("slice", dims.entries());
    Accumulator accumulate(dims, problem.channel, slice, SliceRange{0, dims.entries()});
    const bool exists = Accumulator::kFactorProductBlasBuild && nb == 1;
#ifdef KOKKOS_ENABLE_CUDA
    EXPECT_TRUE(Accumulator::kFactorProductBlasBuild);
#else
    EXPECT_FALSE(Accumulator::kFactorProductBlasBuild);
#endif
    EXPECT_EQ(accumulate.factor_product_blas(), exists);
    EXPECT_FALSE(accumulate.factor_product_blas_in_use(1));
    EXPECT_EQ(accumulate.factor_product_blas_in_use(4), exists);
    Accumulator shared(dims, problem.channel, slice, SliceRange{0, dims.entries()}, ExecSpace(), Updates::concurrent);
    EXPECT_FALSE(shared.factor_product_blas_in_use(4));
    Accumulator transverse(dims, Channel::ph_transverse, slice, SliceRange{0, dims.entries()});
    EXPECT_FALSE(transverse.factor_product_blas_in_use(4));
    accumulate.set_factor_product_blas(false);
    EXPECT_FALSE(accumulate.factor_product_blas_in_use(4));
    EXPECT_FALSE(accumulate.factor_product_blas());
    if (exists) {
      accumulate.set_factor_product_blas(true);
      EXPECT_TRUE(accumulate.factor_product_blas());
    } else {
      EXPECT_THROW(accumulate.set_factor_product_blas(true), Error);
      EXPECT_FALSE(accumulate.factor_product_blas());
    }
  }
}

TEST(Batches, UnflushedMessagesAreMissing) {
  const Problem problem = small_problem(1, Channel::ph_magnetic, 3);
  const Dims& dims = problem.dims;
  Kokkos::View<ZDouble*> slice("slice", dims.entries());
  GtAccumulator<ZDouble> accumulate(dims, problem.channel, slice, SliceRange{0, dims.entries()});
  accumulate.set_batch(4);
  const SyntheticWalker walker(dims, problem.seed, problem.measurements);
  Buffer message(data_memory_kind(), dims.message_entries() * sizeof(ZDouble), "message");
  for (std::size_t id = 0; id < 3; ++id) {
    walker.write<ZDouble>(id, message.data());
    accumulate(message.data(), 0);
    Kokkos::fence();
  }
  const auto norm = [&] {
    std::vector<ZDouble> host(dims.entries());
    copy_bytes(host.data(), MemoryKind::host, slice.data(), data_memory_kind(), host.size() * sizeof(ZDouble));
    double sum = 0;
    for (const ZDouble& v : host) sum += std::abs(v.real()) + std::abs(v.imag());
    return sum;
  };
  EXPECT_EQ(accumulate.staged(), 3);
  EXPECT_EQ(norm(), 0.0);
  accumulate.flush();
  Kokkos::fence();
  EXPECT_GT(norm(), 0.0);
}

TEST(Batches, SettingsAreCheckedAndCounted) {
  const Problem problem = small_problem(2, Channel::ph_charge, 1);
  const Dims& dims = problem.dims;
  Kokkos::View<ZDouble*> slice("slice", dims.entries());
  GtAccumulator<ZDouble, ZFloat> accumulate(dims, problem.channel, slice, SliceRange{0, dims.entries()});
  EXPECT_THROW(accumulate.set_inner_block_chunks(-1), Error);
  EXPECT_THROW(accumulate.set_inner_block_chunks(GtAccumulator<ZDouble>::kMaxInnerBlockChunks + 1), Error);
  EXPECT_EQ(accumulate.inner_block_chunks(), (GtAccumulator<ZDouble, ZFloat>::default_inner_block_chunks(dims.nb)));
  accumulate.set_inner_block_chunks(0);
  EXPECT_EQ(accumulate.inner_block_chunks(), 0);
  EXPECT_EQ(accumulate.pass_team_threads(), (GtAccumulator<ZDouble, ZFloat>::default_pass_team_threads(dims.nb)));
  for (const int threads : {-32, 33, GtAccumulator<ZDouble>::kMaxPassTeamThreads + 32})
    EXPECT_THROW(accumulate.set_pass_team_threads(threads), Error);
  accumulate.set_pass_team_threads(96);
  EXPECT_EQ(accumulate.pass_team_threads(), 96);
  EXPECT_THROW(accumulate.set_batch(0), Error);
  EXPECT_THROW(accumulate.set_batch(GtAccumulator<ZDouble>::kMaxBatch + 1), Error);
  accumulate.set_transposed_reads(true);  // a choice that holds for every batch (here nb = 2)
  const std::size_t one = accumulate.scratch_bytes();
  const std::size_t live = allocation_stats().live_bytes;
  accumulate.set_batch(3);
  EXPECT_EQ(accumulate.batch(), 3);
  EXPECT_TRUE(accumulate.transposed_reads());
  // Three slots of G_σ^T and bubble factors, plus three staged messages.
  EXPECT_EQ(accumulate.scratch_bytes(), 3 * one + 3 * dims.message_entries() * sizeof(ZFloat));
  EXPECT_EQ(allocation_stats().live_bytes, live - one + accumulate.scratch_bytes());
  EXPECT_EQ(GtAccumulator<ZDouble>::scratch_bytes(dims, Channel::pp_up_down, 1), 0u);

  ::setenv("RINGCOMM_GT_BATCH", "5", 1);
  EXPECT_EQ((GtAccumulator<ZDouble, ZFloat>::batch_setting(dims, problem.channel)), 5);
  ::setenv("RINGCOMM_GT_BATCH", "0", 1);
  EXPECT_THROW((GtAccumulator<ZDouble, ZFloat>::batch_setting(dims, problem.channel)), Error);
  ::unsetenv("RINGCOMM_GT_BATCH");
  EXPECT_EQ((GtAccumulator<ZDouble, ZFloat>::batch_setting(dims, problem.channel)),
            (GtAccumulator<ZDouble, ZFloat>::default_driver_batch(problem.channel)));
}

// Mixed precision sums in double: against the reference from the same float-rounded G_σ it agrees to
// double precision; against the reference from unrounded G_σ its error is the rounding of G_σ to
// float, which must stay below 5e-7.
TEST(MixedPrecision, SumsInDoubleFromFloatMessages) {
  for (const int nb : {1, 2})
    for (const Channel channel : kAllChannels)
      for (const int batch : {1, 3}) {
        SCOPED_TRACE(to_string(channel) + ", nb " + std::to_string(nb) + ", batch " + std::to_string(batch));
        const Problem problem = small_problem(nb, channel, 5);
        const Outcome out = run<ZDouble, ZFloat>(problem, uneven_slices(problem.dims.entries()), batch);
        EXPECT_LE(largest_error(out.gt, reference_gt<ZFloat>(problem)), 1e-12);
        const double error = largest_error(out.gt, reference_gt<ZDouble>(problem));
        EXPECT_LE(error, 5e-7);
        EXPECT_GT(error, 1e-10);  // the messages really were rounded to float
      }
}

// The drivers: accumulate_with_ring and accumulate_original in mixed precision, batched through
// RINGCOMM_GT_BATCH, against the reference of the rounded G_σ.
TEST(MixedPrecision, DriversBatchAndFlush) {
  const Problem problem = small_problem(2, Channel::ph_magnetic, 7);
  const std::vector<std::complex<double>> reference = reference_gt<ZFloat>(problem);
  ::setenv("RINGCOMM_GT_BATCH", "3", 1);
  const std::vector<ZDouble> original = accumulate_original<ZDouble, ZFloat>(problem, MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) EXPECT_LE(largest_error(original, reference), 1e-12);

  const Topology topology(MPI_COMM_WORLD, comm_size(MPI_COMM_WORLD));
  const std::size_t bytes = problem.dims.message_entries() * sizeof(ZFloat);
  // The transport RINGCOMM_TRANSPORT or `auto` picks: mpi on CPUs, a device-memory one on GPUs.
  const Selection selection = select_transport(requested_transport(), TransportContext{MPI_COMM_WORLD, data_memory_kind()});
  Ring ring(*selection.transport, topology, bytes);
  DistributedArray<ZDouble> gt(topology, problem.dims.entries());
  const RunStats stats = accumulate_with_ring<ZDouble, ZFloat>(problem, topology, ring, gt);
  ::unsetenv("RINGCOMM_GT_BATCH");
  EXPECT_EQ(stats.batch, 3);
  EXPECT_GT(stats.work_bytes, 0u);
  const std::vector<ZDouble> full = gt.gather();
  if (rank == 0) EXPECT_LE(largest_error(full, reference), 1e-12);
}

// The L2 set-aside: RINGCOMM_GT_L2_SET_ASIDE_MIB is parsed and checked; raising never lowers the
// device's set-aside; on CUDA a raise leaves at least what was asked (or says why not), off CUDA nothing
// is touched and -1 reported.
TEST(L2SetAside, SettingIsCheckedAndARaiseNeverLowers) {
  ::setenv("RINGCOMM_GT_L2_SET_ASIDE_MIB", "7", 1);
  EXPECT_EQ(l2_set_aside_setting(), 7);
  ::setenv("RINGCOMM_GT_L2_SET_ASIDE_MIB", "0", 1);
  EXPECT_EQ(l2_set_aside_setting(), 0);
  for (const char* bad : {"-1", "1025", "11MiB"}) {
    ::setenv("RINGCOMM_GT_L2_SET_ASIDE_MIB", bad, 1);
    EXPECT_THROW(l2_set_aside_setting(), Error) << "'" << bad << "'";
  }
  ::unsetenv("RINGCOMM_GT_L2_SET_ASIDE_MIB");
  EXPECT_EQ(l2_set_aside_setting(), kDefaultL2SetAsideMiB);

  const Problem problem = small_problem(1, Channel::pp_up_down, 3);
  Kokkos::View<ZDouble*> slice("slice", problem.dims.entries());
  const GtAccumulator<ZDouble> accumulate(problem.dims, problem.channel, slice, SliceRange{0, problem.dims.entries()});
  const L2SetAside& first = l2_set_aside_once();  // what the constructor did
  const L2SetAside again = raise_l2_set_aside(kDefaultL2SetAsideMiB);
  const L2SetAside smaller = raise_l2_set_aside(1);
#ifdef KOKKOS_ENABLE_CUDA
  ASSERT_EQ(first.problem, "") << "the set-aside could not be raised";
  EXPECT_GE(first.before, 0);
  EXPECT_GE(first.after, std::max(first.before, first.wanted));
  EXPECT_EQ(again.before, first.after);  // nothing else changed it since
  EXPECT_EQ(again.after, again.before);  // already large enough
  EXPECT_EQ(smaller.after, smaller.before);  // never lowered
  // From none (as a GPU may start): a raise must really set it, to at least what it asked for.
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0), cudaSuccess);
  const L2SetAside from_none = raise_l2_set_aside(kDefaultL2SetAsideMiB);
  EXPECT_EQ(from_none.problem, "");
  EXPECT_EQ(from_none.before, 0);
  EXPECT_GT(from_none.wanted, 0) << "the device allows no set-aside at all";
  EXPECT_GE(from_none.after, from_none.wanted);
  std::size_t now = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&now, cudaLimitPersistingL2CacheSize), cudaSuccess);
  EXPECT_EQ(static_cast<std::int64_t>(now), from_none.after);
  // Leave the device as the constructor left it, for the tests after this one.
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(first.after)), cudaSuccess);
#else
  for (const L2SetAside* r : {&first, &again, &smaller}) {
    EXPECT_EQ(r->before, -1);
    EXPECT_EQ(r->after, -1);
    EXPECT_EQ(r->problem, "");
  }
#endif
}

}  // namespace
