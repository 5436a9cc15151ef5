#pragma once
// Adds one measurement's contribution to this rank's slice of G_t: the Ring's consume functor.
//
//   GtAccumulator<Scalar> accumulate(dims, channel, gt.local(), gt.range());
//   ring.circulate(accumulate);
//
// Each call launches one kernel on the accumulator's execution space instance and returns at once;
// the kernel reads the sign from the message itself, so nothing waits for the device. A message
// whose sign is 0 (padding) adds nothing, whatever its G_σ slots hold.
//
// Scalar is G_t's type, MessageScalar that of the messages (G_σ). Instantiated for
// <complex<double>>, <complex<float>> and mixed precision <complex<double>, complex<float>>: G_σ in
// single precision (half the bytes on the ring), G_t summed in double; all arithmetic is done in
// Scalar.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "ringcomm/distributed_array.hpp"
#include "ringcomm/gt/dims.hpp"
#include "ringcomm/ring.hpp"

namespace ringcomm::gt {

// The G_t shape and lookup tables a kernel needs, resident in device memory.
struct DeviceTables {
  Kokkos::View<const int*> add;  // ClusterTables::add
  Kokkos::View<const int*> sub;  // ClusterTables::sub
  Kokkos::View<const int*> exchange_momenta;
  Kokkos::View<const int*> exchange_frequencies;
  // k shifted by exchange momentum iQ, at k + Nc·iQ: add(k + Nc·Q) for the ph channels (k + Q), sub(k + Nc·Q)
  // for pp_up_down (Q − k): one lookup where add or sub of exchange_momenta takes two (the single-message walks).
  Kokkos::View<const int*> exchange_shift;
};

// Whether other kernels may update the same slice at the same time (walker threads of one rank).
// Concurrent updates add the real and imaginary parts atomically, which costs speed, so exclusive
// is the default.
enum class Updates { exclusive, concurrent };

// Which kernel applies a pass over the slice (GtAccumulator::pass_kernel):
//   warp_tiles:       the previous pp_up_down kernel (set_warp_tile_kernel), a single message at batch 1;
//   single_message:   the single-message kernel walking exchange rows in order (one frequency step);
//   single_diagonal:  the single-message kernel walking frequency diagonals (frequency steps 2 or 4,
//                     consecutive exchange frequencies);
//   channel:          the general kernel (batches, concurrent updates, frequency warps, or the
//                     single-message kernel off).
enum class PassKernel { warp_tiles, single_message, single_diagonal, channel };
// "tiles", "single", "diagonal", "rows": kernel_bandwidth's names.
inline const char* to_string(PassKernel kernel) {
  switch (kernel) {
    case PassKernel::warp_tiles: return "tiles";
    case PassKernel::single_message: return "single";
    case PassKernel::single_diagonal: return "diagonal";
    case PassKernel::channel: return "rows";
  }
  return "unknown";
}

template <class Scalar, class MessageScalar = Scalar>
class GtAccumulator {
 public:
  using SliceView = Kokkos::View<Scalar*>;
  using Message = MessageScalar;
  // complex<float> messages into a complex<double> G_t, where several defaults differ.
  static constexpr bool mixed_precision() { return sizeof(MessageScalar) < sizeof(Scalar); }

  // `slice` holds G_t entries [range.begin, range.end). Throws ringcomm::Error when dims are invalid
  // or the slice does not match the range.
  GtAccumulator(const Dims& dims, Channel channel, SliceView slice, SliceRange range,
                const ExecSpace& exec = ExecSpace(), Updates updates = Updates::exclusive);

  // `message`: Dims::message_entries() MessageScalars in ExecSpace memory. `origin` (the ring position
  // that made it) is not needed: every message carries its own G_σ and sign. Copies of an accumulator
  // share its work space (scratch_bytes()): use them on one execution space instance only.
  void operator()(const void* message, int origin = 0) const;

  // Each thread of the kernel updates the entries of one inner index and pair for a block of
  // exchange momenta Q (the row tile) and a window of consecutive exchange frequencies Ω (the
  // frequency steps), walking the frequency diagonal on which one of its two G_σ values stays the
  // same (SliceOrder, kernels/src/slice_order.hpp): index decoding and G_σ reads are shared by those
  // entries.
  // Row tile: 1, 2, 4 or 8 momenta; frequency steps: 1, 2 or 4; anything else throws ringcomm::Error.
  // Unless set, the row tile follows the channel, the precision and whether messages come in batches
  // (default_exchange_row_tile), and a thread walks one frequency but where default_frequency_steps
  // says otherwise: walking 2 or 4 reads fewer G_σ values but holds more registers.
  // A single message (batch 1, one frequency warp, exclusive updates) goes to the single-message
  // kernel instead where it is on (set_single_message_kernel; pass_kernel says which kernel runs).
  // Row tiles and row warps do not apply to it; frequency steps of 2 or 4 make it walk frequency
  // diagonals when the exchange frequencies are consecutive.
  static constexpr int kMaxExchangeRowTile = 8;
  // Measured on an H200 at the paper size (docs/results/h200_batched/README.md and
  // docs/results/h200_diagonal_warps/README.md). One message per pass without the single-message
  // kernel: 4 momenta for a complex<double> G_t and 8 for complex<float>, whose entries carry half the
  // bytes for the same index work; 8 also for pp_up_down in double. Batches, whose threads keep every
  // position for all messages: 4, but 2 for the bubble channels ph_magnetic and ph_charge into a
  // complex<double> G_t (double with 4 frequency warps, mixed precision with 2). Measured again for
  // batches of 8 after the kernels' L2 hints (docs/results/h200_walk_stalls/5_batch_rows): with 4 rows
  // double pp_up_down and ph_transverse took 1.6–4.2 % less time than with 2 (but nb = 2 ph_transverse,
  // 0.3 % more), the bubble channels 2.4–18.5 % more. Since their batches add the factor product in
  // a pass of its own, the bubble channels' batched pass reads what ph_transverse's does and takes 4
  // rows too: at B = 16, nb = 1, 4 rows were the fastest of 2, 4 and 8 for double and mixed
  // (docs/results/h200_factor_tiles/4_divisors). CPUs: one.
  static constexpr int default_exchange_row_tile(Channel channel, bool batched = false) {
#ifdef KOKKOS_ENABLE_CUDA
    const bool wide = sizeof(Scalar) > 8;  // complex<double> G_t
    if (batched) return 4;
    if (channel == Channel::pp_up_down && sizeof(MessageScalar) > 8) return 8;
    return wide ? 4 : 8;
#else
    (void)channel, (void)batched;
    return 1;
#endif
  }
  void set_exchange_row_tile(int rows);
  // The row tile for this accumulator's batch: the one set, else default_exchange_row_tile.
  int exchange_row_tile() const;
  void set_frequency_steps(int steps);
  // The steps set, else default_frequency_steps(channel, w, nb) with w: whether single messages take
  // the single-message kernel's diagonal walk here (batch 1, that kernel on, exclusive updates, one
  // frequency warp, consecutive exchange frequencies).
  int frequency_steps() const;
  // Measured on an H200: the diagonal walk with 2 steps runs single messages of pp_up_down and
  // ph_transverse into a complex<double> G_t at nb > 1 faster than the walk in order (double at nb = 2,
  // with its loads ahead: 0.856–0.871 of the copy rate against 0.851–0.861, docs/results/h200_nb2_steps;
  // mixed, without: level within 0.5 %, as measured before in h200_single_message_diagonal); at nb = 1
  // the walk in order wins (with the TMA where it applies, docs/results/h200_tma_walk), and so it does
  // for the bubble channels. For a complex<float> G_t the diagonal walk won with 4 steps (0.71–0.81
  // against 0.63–0.70) until the walk in order found its cross positions by increments; since then the
  // walk in order is as fast or faster there (docs/results/h200_walk_inner/3_float_steps). 1 everywhere
  // else: batches gained from steps in one case only (docs/results), and CPUs resolved no difference.
  static constexpr int default_frequency_steps(Channel channel, bool diagonal_walk, int nb) {
#ifdef KOKKOS_ENABLE_CUDA
    const bool float_gt = sizeof(Scalar) <= 8;  // complex<float>
    if (!diagonal_walk || float_gt || nb == 1) return 1;
    return channel == Channel::pp_up_down || channel == Channel::ph_transverse ? 2 : 1;
#else
    (void)channel, (void)diagonal_walk, (void)nb;
    return 1;
#endif
  }
  // Whether the diagonal walk (frequency steps 2 or 4 with single messages) loads the G_t values of
  // the next exchange momentum before it forms this momentum's terms, so that those loads are in
  // flight meanwhile, at the price of registers (kSteps more G_t values a thread). Changes no bit.
  // Default (default_diagonal_loads_ahead, set by the constructor): on, but off on GPUs for mixed
  // precision (complex<float> messages into a complex<double> G_t) at nb > 1, where an H200 ran the
  // 2-step walk 0.3–1 % faster without (docs/results/h200_nb2_steps). Double at nb = 2 ran 1–2 % faster
  // with them there, where the walk before the 32-bit offsets had run 3–11 % slower with them
  // (docs/results/h200_loads_ahead: the occupancy that their registers cost decided then).
  // complex<float> keeps them: its 4-step walk (set_frequency_steps(4)) was 1–3 % faster with them.
  void set_diagonal_loads_ahead(bool on) { diagonal_loads_ahead_ = on; }
  bool diagonal_loads_ahead() const { return diagonal_loads_ahead_; }
  static constexpr bool default_diagonal_loads_ahead(int nb) {
#ifdef KOKKOS_ENABLE_CUDA
    return nb == 1 || !mixed_precision();
#else
    (void)nb;
    return true;
#endif
  }
  // The same for the walk in order (one frequency step): the next row's G_t value loaded before this
  // row's term is formed. Default (default_walk_loads_ahead, set by the constructor): on. On an H200 the
  // walk with 32-bit offsets ran as fast or faster with them in every kernel_bandwidth case but the
  // mixed-precision bubble channels at nb = 2 (0.5 % slower; docs/results/h200_lean_walk); the walk
  // before it had them on for complex<float> ph_magnetic and ph_charge only (docs/results/h200_loads_ahead).
  // CPUs keep them, as the kernel was written and measured there (docs/results/cpu_single_message_kernel.md).
  void set_walk_loads_ahead(bool on) { walk_loads_ahead_ = on; }
  bool walk_loads_ahead() const { return walk_loads_ahead_; }
  static constexpr bool default_walk_loads_ahead(Channel /*channel*/) { return true; }
  // How many exchange rows ahead the walk in order has each warp's 32 G_t values copied into shared
  // memory by the GPU's Tensor Memory Accelerator (bulk copies, sm_90 and later) instead of loading
  // them ahead into registers and prefetching them into L2: 0 (never), 4 or 8; else ringcomm::Error.
  // Changes no bit. It applies where tma_stages_in_use() says so (pp_up_down and ph_transverse
  // only). Default (default_walk_tma_stages, set by the constructor): where the build has the TMA, at
  // nb = 1 into a complex<double> G_t (double and mixed precision) 8 for ph_transverse and for mixed
  // pp_up_down, 4 for double pp_up_down; else 0. On an H200 at the paper size those ran 1.5–3 % faster
  // with it, the bubble channels and every complex<float> case up to 30 % slower, and nb = 2 gained
  // nothing measurable (docs/results/h200_tma_walk, docs/results/h200_l2_fabric).
  void set_walk_tma_stages(int stages);
  int walk_tma_stages() const { return walk_tma_stages_; }
  static constexpr int default_walk_tma_stages(Channel channel, int nb) {
    if (!kTmaBuild || nb != 1 || sizeof(Scalar) <= 8) return 0;
    return channel == Channel::pp_up_down ? (mixed_precision() ? 8 : 4) : channel == Channel::ph_transverse ? 8 : 0;
  }
  // Whether this build's device code has the TMA: Kokkos built for CUDA and Hopper or later.
#if defined(KOKKOS_ENABLE_CUDA) && (defined(KOKKOS_ARCH_HOPPER) || defined(KOKKOS_ARCH_BLACKWELL))
  static constexpr bool kTmaBuild = true;
#else
  static constexpr bool kTmaBuild = false;
#endif
  // The channels whose walk can take the TMA: not the bubble channels, which ran slower with it.
  static constexpr bool tma_walk_channel(Channel channel) {
    return channel == Channel::pp_up_down || channel == Channel::ph_transverse;
  }
  // The stages the walk in order of this accumulator's single messages takes: walk_tma_stages() where
  // the build has the TMA, the channel can take it (tma_walk_channel) and the slice's whole rows split
  // into whole warps of 16-byte aligned G_t values (the partial row before them a multiple of 32
  // entries, nb⁴·Nc·2n a multiple of 32), else 0 (the walk loads into registers).
  int tma_stages_in_use() const;
  // How many warps of a thread block walk one frequency diagonal together, one exchange frequency
  // each: they read the same cross values at about the same time on one multiprocessor, so all but
  // the first can find them in L1 instead of L2 (what the frequency steps of one thread do, without
  // their registers). Threads whose frequency falls off the diagonal's ends idle ((warps − 1) of
  // 2n + warps − 1 frequencies, on both the inner index and the pair). 1, 2 or 4; else ringcomm::Error,
  // as for more than 1 together with frequency steps above 1 (a thread then walks one frequency).
  // Default (kDefaultFrequencyWarps): 1 everywhere. Single messages ran slower with every variant;
  // batches in double took 4 until their warps of a pair group shared cross values in teams of 512
  // threads (default_block_pair_warps): with those, one warp a diagonal ran 5–7 % faster in ring_compare
  // on an H100 at B = 32 (docs/results/batch_pair_defaults); float and mixed precision ran faster with 1
  // since their batches read all of a message before forming its products (docs/results/h200_batch_loads).
  void set_frequency_warps(int warps);
  int frequency_warps() const;
  static constexpr int kDefaultFrequencyWarps = 1;
  // How many warps of a thread block take the same 32 inner indices and neighbouring blocks of
  // exchange rows, so that the G_σ values they share come from L1. 1 … kMaxExchangeRowWarps, else
  // ringcomm::Error.
  static constexpr int kMaxExchangeRowWarps = 16;
  static constexpr int kDefaultExchangeRowWarps = 1;
  void set_exchange_row_warps(int warps);
  int exchange_row_warps() const { return row_warps_; }
  // ph_magnetic and ph_charge passes that take the single-message walk in order (every message at
  // batch 1 unless frequency steps are set) and the passes of every channel that hoist their positions
  // (batches): how many warps of consecutive pairs take the same 32 inner indices before the next 32
  // are taken (a pair group). In the walk, the left bubble factor of an entry depends on its inner
  // index and exchange only, so the warps of a group share it, through L1 where they run on one
  // multiprocessor; in batches they share cross values (default_block_pair_warps). Changes no bit;
  // other kernels take no pair groups.
  // 1 … kMaxPairWarps, else ringcomm::Error. Walk default (default_pair_warps): on GPUs at nb = 1, 64 for a
  // complex<float> G_t and 4 for complex<double>; at nb > 1, 8 for complex<float>, else 1. On an H200 at
  // the paper size these ran +8.3 % (complex<float>), +1.6 to +1.9 % (double) and +0.3 % (mixed) against
  // 1 pair; the other walks and batches gained in some cases and lost in others (docs/results/
  // h200_pair_warps). At nb = 2 no setting gained more than the spread between processes then; the walk
  // with 32-bit offsets gained 2.5 % with 8 pairs for complex<float> (docs/results/h200_nb2_steps).
  static constexpr int kMaxPairWarps = 1024;
  void set_pair_warps(int warps);
  // The pairs of a pair group in this accumulator's passes of a full batch (1 where it takes none).
  int pair_warps() const;
  static constexpr int default_pair_warps(int nb) {
#ifdef KOKKOS_ENABLE_CUDA
    const bool float_gt = sizeof(Scalar) <= 8;  // complex<float>
    if (nb != 1) return float_gt ? 8 : 1;
    return float_gt ? 64 : 4;
#else
    (void)nb;
    return 1;
#endif
  }
  // The default of the passes that hoist their positions (batches; they number their threads in inner
  // blocks, set_inner_block_chunks). There the warps of a group share cross values: pairs (k2, ω2) and
  // (k2', ω2) at exchange momenta Q and Q' with k2 ± Q = k2' ± Q' read one G_σ row, and a group of the
  // Lx pairs of one row of the cluster's momenta (k = kx + Lx·ky) maps onto one row of momenta under
  // every shift by Q. On GPUs Lx, together with teams of 512 or 1024 threads
  // (default_pass_team_threads) so that a group's warps share one L1; CPUs 1 (no groups). On an H100
  // at the paper size, B = 32, ring_compare took 0.75–0.80 of the time of one pair in a RangePolicy in
  // float, 0.83–0.87 in mixed precision and, with one frequency warp (kDefaultFrequencyWarps),
  // 0.93–0.95 in double (teams of 512); kernel_bandwidth at nb = 2 0.85–0.94
  // (docs/results/batch_pair_defaults, which holds the sweeps; docs/results/batch_pair_groups).
  static int default_block_pair_warps(const Dims& dims) {
#ifdef KOKKOS_ENABLE_CUDA
    return dims.Lx;
#else
    (void)dims;
    return 1;
#endif
  }
  // Threads per team of the passes that hoist their positions (batches): 0 launches them as a
  // RangePolicy, whose thread blocks Kokkos sizes (128 threads for these passes on an H100), so that
  // the warps of a pair group run on different multiprocessors. A multiple of 32 up to
  // kMaxPassTeamThreads, else ringcomm::Error. Changes which multiprocessor runs a thread, never a
  // sum; host teams are one thread whatever the setting. A pass whose kernel's registers allow fewer
  // threads a team (Kokkos's team_size_max; shapes with frequency steps) runs the largest multiple
  // of 32 that they allow. Default (default_pass_team_threads): on GPUs 512 or 1024, CPUs 0
  // (default_block_pair_warps says why).
  static constexpr int kMaxPassTeamThreads = 1024;
  void set_pass_team_threads(int threads);
  int pass_team_threads() const;
  // The threads per team that a pass of `messages` messages asks for with the settings as they are:
  // pass_team_threads() where that pass hoists its positions, else 0 (a RangePolicy). On a GPU a kernel
  // whose registers allow fewer runs fewer (set_pass_team_threads).
  int pass_team_threads_in_use(int messages) const;
  // On GPUs 1024 for messages in complex<double> at nb = 1: on an H100 at the paper size, B = 32, their
  // batched passes took 0.957–0.968 of the time of 512 in every channel (kernel_bandwidth, four runs),
  // teams of 192 to 960 threads 0.975–1.26, and ring_compare 0.950–0.973 of its time (0.962–0.964 at
  // B = 64). Else 512: 1024 took 1.02–1.04 times its time at nb = 2, 1.05–1.08 in mixed precision and
  // 1.19–1.31 in complex<float> (docs/results/h100_status: 5_batch_rows_teams, 6_batch_teams,
  // 7_teams_1024, 8_float_teams).
  static constexpr int default_pass_team_threads(int nb) {
#ifdef KOKKOS_ENABLE_CUDA
    return nb == 1 && sizeof(MessageScalar) > sizeof(Kokkos::complex<float>) ? 1024 : 512;
#else
    (void)nb;
    return 0;
#endif
  }

  // Passes whose threads hoist their G_σ positions (batches, and frequency steps or warps above 1)
  // number their threads in inner blocks: `chunks` chunks of 32 inner indices (b1,b2,b3,b4,k1,ω1)
  // take every pair and exchange row before the next chunks start. The cross values of a block come
  // from the G_σ rows of its k1 ± Q and ω1 ± Ω only, so they stay in L2 while the pairs go by, where
  // all inner indices in flight at once touch every row of all B staged messages. 0 puts all inner
  // indices in one block (the order before). Changes which thread updates which entry, never a sum.
  // 0 … kMaxInnerBlockChunks, else ringcomm::Error. Default (default_inner_block_chunks): on GPUs,
  // for messages in complex<double> 3 chunks at nb = 1 and 18 at nb ≥ 2 (one ω1 at nb = 2 on 36
  // sites), for messages in complex<float> (float and mixed precision) 12 and 36; CPUs 0. On an H200
  // at the paper size (nb = 1) batches of 8 took 7–9 % less time with these than with one block in
  // double, 3–10 % in mixed precision and 4–8 % in float; at nb = 2 (2n = 32) 10–24 % less; each
  // within 1 % of the best block measured. Measured at nb = 1 and 2 only (docs/results/
  // h200_batch_blocks/2_sweep).
  static constexpr int kMaxInnerBlockChunks = 1 << 20;
  void set_inner_block_chunks(int chunks);
  // The chunks set, else default_inner_block_chunks(nb).
  int inner_block_chunks() const;
  // The chunks per inner block that a pass of `messages` messages takes with the settings as they
  // are: inner_block_chunks() where that pass hoists its positions, else 0 (one block).
  int inner_block_chunks_in_use(int messages) const;
  static constexpr int default_inner_block_chunks(int nb) {
#ifdef KOKKOS_ENABLE_CUDA
    const bool float_messages = sizeof(MessageScalar) <= 8;  // complex<float>
    if (nb == 1) return float_messages ? 12 : 3;
    return float_messages ? 36 : 18;
#else
    (void)nb;
    return 0;
#endif
  }

  // Whether the ph channels read the G_σ value whose column follows the inner index from a transposed
  // copy made once per message or from G_σ itself. Changes no bit of the result. On GPUs a single
  // message gains (the reads of a warp become coalesced) and so does a batch at nb = 1, whose direct
  // reads take about twice the time; a batch at nb >= 2 does not: there the passes' direct reads cost
  // less than writing the copy of every staged message, which also takes as much memory as the staged
  // message itself (docs/results/h200_status, 6_batch_direct_h100 and 7_batch_direct_nb2_h100). CPUs,
  // whose caches hold G_σ at the sizes they run, only pay for the copy, so they read G_σ itself.
  static constexpr bool default_transposed_reads(int nb, int batch) {
#ifdef KOKKOS_ENABLE_CUDA
    return batch <= 1 || nb < 2;
#else
    (void)nb;
    (void)batch;
    return false;
#endif
  }
  // Allocates or frees the copy's work space; drops anything staged. The choice holds for every batch.
  void set_transposed_reads(bool on);
  // The setting, else the default for the shape and the batch.
  bool transposed_reads() const;

  // Whether the bubble channels' batches at nb = 1 add their factor product (Σ_j w_j·left_j·right_j:
  // for each exchange row a rank-B update of its inner × pair matrix) with cuBLAS's (cublasLt's) batched
  // complex matrix product rather than with the factor pass of gt_kernel_factor_product.hpp; the rows at the
  // ends of a slice that begins or ends inside one stay with the factor pass. The same sums in another
  // order. At nb ≥ 2 the left factors leave out (b3, b4) of the inner index, so there the product is
  // not a plain matrix product. Default (default_factor_product_blas): on in GPU builds at nb = 1, where
  // on an H100 a B = 32 double batch's product took 3.36 ms against the factor pass's 5.43, and
  // ring_compare at the paper size 0.93–0.97 of the time in double and 0.96 in mixed precision
  // (docs/results/factor_blas). cuBLAS is set up when the batch or this setting is chosen, which takes
  // over a second the first time in a process; the work space its products ask for is counted in
  // allocation_stats(), not in scratch_bytes(). Throws ringcomm::Error when turned on in a build without
  // cuBLAS (host builds) or at nb ≥ 2.
#ifdef KOKKOS_ENABLE_CUDA
  static constexpr bool kFactorProductBlasBuild = true;
#else
  static constexpr bool kFactorProductBlasBuild = false;
#endif
  static constexpr bool default_factor_product_blas(int nb) { return kFactorProductBlasBuild && nb == 1; }
  void set_factor_product_blas(bool on);
  bool factor_product_blas() const { return factor_product_blas_; }
  // Whether a pass of `messages` messages takes its factor product through cuBLAS with the settings as
  // they are: a batch of a bubble channel with exclusive updates (concurrent ones add the factor part
  // in their single pass) and the setting on.
  bool factor_product_blas_in_use(int messages) const;

  // Whether single messages (batch 1, one frequency warp, exclusive updates) are applied by the
  // single-message kernel (gt_kernel_single_message.hpp), whose threads each decode their inner index
  // and pair once and walk every exchange row for them, rather than by the kernel above with one
  // entry per thread. The two agree to rounding. With one frequency step a thread walks the rows in
  // order; with 2 or 4 (frequency_steps(): set, or default_frequency_steps) and consecutive exchange
  // frequencies it walks every momentum of that many frequencies along their diagonal and reads one
  // cross G_σ value for all of them (PassKernel::single_diagonal). Default
  // (default_single_message_kernel): on when G_t has more than one exchange row (N_Q·N_Ω > 1). Then an
  // H200 runs it at 0.62–0.80 of the copy rate against 0.53–0.75 (docs/results/h200_single_message),
  // and a CPU (Serial, 40 rows) in 0.40–0.55 of the time (docs/results/cpu_single_message_kernel.md);
  // with one row there is nothing to walk, and a CPU ran the double bubble channels 11–16 % slower.
  void set_single_message_kernel(bool on) { single_message_kernel_ = on; }
  bool single_message_kernel() const { return single_message_kernel_; }
  static bool default_single_message_kernel(const Dims& dims) { return dims.NQ() * dims.NOmega() > 1; }

  // Whether a pp_up_down accumulator whose messages have G_t's type applies single messages (batch 1)
  // with the previous kernel (gt_kernel_warp_tiles.hpp: warp tiles of 4 exchange rows on CUDA, one
  // entry per thread). It was the faster one for pp_up_down in double until single messages got their
  // own kernel (gt_kernel_single_message.hpp), which an H200 runs as fast at the paper size (0.756
  // against 0.748 of the copy rate) and faster at nb = 2 (0.776 against 0.606–0.701;
  // docs/results/h200_single_message). Default: off. The two kernels agree to rounding. Throws
  // ringcomm::Error when turned on for another channel or for mixed precision.
  void set_warp_tile_kernel(bool on);
  bool warp_tile_kernel() const { return warp_tile_kernel_; }
  static constexpr bool default_warp_tile_kernel(Channel channel) {
    (void)channel;
    return false;
  }

  // Batched accumulation: with a batch of B > 1 messages, each call stages its message (a device
  // copy, with its transposed G_σ and bubble factors) and every B-th call applies the B staged
  // messages in one pass over the slice, so G_t's memory traffic per message drops by B. The slice
  // is then complete only after flush(), which applies what is staged: call it wherever G_t is read
  // (ringcomm::flush_consumer does for any consume functor that has a flush()). B = 1 (the default)
  // applies every message at once and stages nothing. Setting the batch drops anything staged and
  // may allocate (scratch_bytes()); throws ringcomm::Error outside [1, kMaxBatch].
  static constexpr int kMaxBatch = 64;
  void set_batch(int messages);
  // The batch the accumulation drivers (accumulate_with_ring, accumulate_original) use: the
  // environment's RINGCOMM_GT_BATCH when set (1 … kMaxBatch; else ringcomm::Error), otherwise
  // kDefaultDriverBatch on GPU builds, lowered until the work space of `accumulators` accumulators
  // takes at most a quarter of the free device memory, and 1 on host builds (no gain measured there).
#ifdef KOKKOS_ENABLE_CUDA
  // H200, paper size (docs/results/h200_diagonal_warps/README.md): 8 messages per pass is the fastest
  // measured of 1, 4, 8 and 16 for every channel in double and mixed precision but double pp_up_down
  // and ph_transverse, where 16 gains 2–6 % for twice the work space; each staged message costs its
  // G_σ copy, G_σ^T and factors (scratch_bytes). With inner blocks (set_inner_block_chunks) 16 takes
  // 7–12 % less time than 8 per measurement in every channel, double and mixed (ring_compare, one run
  // each, docs/results/h200_batch_blocks/4_batch_sizes), but its work space, 1.6–6.6 GB at the paper
  // size, reaches twice the 3.4 GB G_t slice: 8 stays the default, RINGCOMM_GT_BATCH where memory allows.
  // Batches of 32, 48 and 64 (docs/results/batch_sizes_64) put every channel in mixed precision below
  // 0.6 of the floor from 48 on, for 9.2 GiB of work space in the bubble channels (12.2–24.4 GiB in
  // double, whose bubble channels stay above 0.6 at any of them, docs/results/batch_prepare).
  static constexpr int kDefaultDriverBatch = 8;
#else
  static constexpr int kDefaultDriverBatch = 1;
#endif
  // The same for every channel (measured so); kept per channel for callers that ask per channel.
  static constexpr int default_driver_batch(Channel) { return kDefaultDriverBatch; }
  static int batch_setting(const Dims& dims, Channel channel, int accumulators = 1);
  int batch() const;
  void flush() const;
  // Messages staged and not yet applied.
  int staged() const;

  // Device memory this accumulator holds besides the slice, for its batch: the staged messages
  // (B > 1), the transposed G_σ (ph channels) and the bubble factors (ph_magnetic, ph_charge), each
  // once per staged message. Counted in allocation_stats().
  std::size_t scratch_bytes() const;
  // The same with the default transposed reads (default_transposed_reads) or `transposed_reads`.
  static std::size_t scratch_bytes(const Dims& dims, Channel channel, int batch = 1);
  static std::size_t scratch_bytes(const Dims& dims, Channel channel, int batch, bool transposed_reads);

  // The kernel that applies a pass of `messages` messages over the slice with the settings as they
  // are: the one operator() and flush() run, named so that benchmarks and logs can report it.
  PassKernel pass_kernel(int messages) const;

  Channel channel() const { return channel_; }
  SliceRange range() const { return range_; }
  const Dims& dims() const { return dims_; }

 private:
  template <Channel kChannel>
  void launch(const Message* messages, int count) const;
  template <Channel kChannel, bool kAtomic, int kRows, int kSteps, bool kHoisted, bool kSpread = false,
            bool kSingle = false, bool kLoadsAhead = true, int kTmaStages = 0, bool kFactorsApart = false>
  void launch_with(const Message* messages, int count) const;
  void apply(const Message* messages, int count) const;
  void apply_with_warp_tiles(const Message* message) const;
  void apply_factor_product(const Message* messages, int count) const;
  // Sets cuBLAS up where the flushes will take the factor product through it (see the definition).
  void ready_factor_product_blas();
  // Writes a slot's transposed G_σ and bubble factors; true when that also staged the message.
  bool prepare(const Message* message, int slot) const;
  void allocate_scratch(int batch);
  bool transposed_reads_for(int batch) const;
  // Whether a pass of one message goes to the single-message kernel (in order or diagonal) as far as
  // the settings other than the frequency steps go.
  bool single_message_pass() const;
  // Whether a pass of `messages` messages runs the general kernel with its G_σ positions hoisted out of
  // the loop over messages (a batch, or frequency steps or warps above 1; exclusive updates): the
  // kernels that decode inner blocks.
  bool hoists_positions(int messages) const;
  // The pairs of a pair group of a pass that takes the single-message walk in order, else of the general
  // kernel with its positions hoisted (`hoisted`) or not.
  int pair_warps_for(bool walk_in_order, bool hoisted = false) const;
  struct Scratch;

  Dims dims_;
  Channel channel_;
  SliceView slice_;
  SliceRange range_;
  ExecSpace exec_;
  Updates updates_;
  DeviceTables tables_;
  std::string label_;  // kernel name for profilers
  int row_tile_ = 0;  // 0: default_exchange_row_tile
  int frequency_steps_ = 0;  // 0: default_frequency_steps
  int frequency_warps_ = 0;  // 0: kDefaultFrequencyWarps
  int row_warps_ = kDefaultExchangeRowWarps;
  int pair_warps_ = 0;  // 0: default_pair_warps
  int inner_block_chunks_ = -1;  // -1: default_inner_block_chunks
  int pass_team_threads_ = -1;   // -1: default_pass_team_threads(nb)
  bool warp_tile_kernel_ = false;
  bool single_message_kernel_ = false;  // set by the constructor: default_single_message_kernel
  bool diagonal_loads_ahead_ = true;    // set by the constructor: default_diagonal_loads_ahead
  bool walk_loads_ahead_ = true;        // set by the constructor: default_walk_loads_ahead
  int walk_tma_stages_ = 0;             // set by the constructor: default_walk_tma_stages
  int transposed_reads_ = -1;           // -1: default_transposed_reads(nb, batch); else 0 or 1
  bool factor_product_blas_ = false;    // set by the constructor: default_factor_product_blas
  std::shared_ptr<Scratch> scratch_;
};

}  // namespace ringcomm::gt
