#pragma once
// GtAccumulator's member definitions, instantiated once per precision by accumulator_<precision>.cpp
// (one translation unit each, so that device compilers build them in parallel).
#include "ringcomm/gt/accumulator.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>
#include <string>
#include <vector>

#include "gt_kernel.hpp"
#include "gt_kernel_factor_product.hpp"
#include "gt_kernel_single_message.hpp"
#include "factor_product_blas.hpp"
#include "gt_kernel_warp_tiles.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/gt/l2_set_aside.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm::gt {

namespace {  // one copy per translation unit

Kokkos::View<const int*> to_device(const std::vector<int>& values, const std::string& label) {
  Kokkos::View<int*> device(label, values.size());
  const Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(values.data(),
                                                                                                   values.size());
  Kokkos::deep_copy(device, host);
  return device;
}

// Whether Ω_j = Ω_0 + j for every exchange frequency j (ChannelKernel::consecutive_frequencies).
bool consecutive(const std::vector<int>& frequencies) {
  for (std::size_t j = 1; j < frequencies.size(); ++j)
    if (frequencies[j] != frequencies[0] + static_cast<int>(j)) return false;
  return true;
}

// Entries per side of the bubble factor table: nb²·Nc·2n per exchange.
std::size_t factors_per_exchange(const Dims& dims) {
  return static_cast<std::size_t>(dims.nb) * dims.nb * dims.Nc() * dims.n_freq;
}

constexpr bool has_bubble(Channel channel) { return channel == Channel::ph_magnetic || channel == Channel::ph_charge; }

}  // namespace

// Work space: per staged message (slot) its G_σ^T (ph channels) and bubble factors, and with a batch
// of B > 1 the staged messages themselves. Shared by copies of the accumulator.
template <class Scalar, class MessageScalar>
struct GtAccumulator<Scalar, MessageScalar>::Scratch {
  int batch = 1;
  int staged = 0;  // slots filled and not yet applied
  Kokkos::View<MessageScalar*> messages;
  Kokkos::View<MessageScalar*> transposed;
  Kokkos::View<Scalar*> factors;
  TrackedBytes counted;
#ifdef KOKKOS_ENABLE_CUDA  // the one build that links cuBLAS (kernels/CMakeLists.txt)
  std::unique_ptr<detail::BlasHandle> blas;  // the factor product's cuBLAS handle (ready_factor_product_blas)
#endif
};

// Scalars of one slot's transposed G_σ (both spins) and bubble factors.
inline std::size_t transposed_entries(const Dims& dims, Channel channel, bool transposed_reads) {
  return channel == Channel::pp_up_down || !transposed_reads
             ? 0
             : 2 * static_cast<std::size_t>(dims.M()) * static_cast<std::size_t>(dims.M());
}
inline std::size_t factor_entries(const Dims& dims, Channel channel) {
  return has_bubble(channel) ? 2 * factors_per_exchange(dims) * dims.NQ() * dims.NOmega() : 0;
}

template <class Scalar, class MessageScalar>
std::size_t GtAccumulator<Scalar, MessageScalar>::scratch_bytes(const Dims& dims, Channel channel, int batch,
                                                                bool transposed_reads) {
  const auto slots = static_cast<std::size_t>(std::max(batch, 1));
  const std::size_t staged = batch > 1 ? dims.message_entries() * sizeof(MessageScalar) : 0;
  return slots * (staged + transposed_entries(dims, channel, transposed_reads) * sizeof(MessageScalar) +
                  factor_entries(dims, channel) * sizeof(Scalar));
}

template <class Scalar, class MessageScalar>
std::size_t GtAccumulator<Scalar, MessageScalar>::scratch_bytes(const Dims& dims, Channel channel, int batch) {
  return scratch_bytes(dims, channel, batch, default_transposed_reads(dims.nb, batch));
}

template <class Scalar, class MessageScalar>
std::size_t GtAccumulator<Scalar, MessageScalar>::scratch_bytes() const {
  return scratch_bytes(dims_, channel_, scratch_->batch, transposed_reads());
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::allocate_scratch(int batch) {
  scratch_.reset();  // the old work space goes before the new one comes
  auto scratch = std::make_shared<Scratch>();
  scratch->batch = batch;
  const auto slots = static_cast<std::size_t>(batch);
  const auto uninitialized = [](const char* label) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)); };
  if (batch > 1)
    scratch->messages =
        Kokkos::View<MessageScalar*>(uninitialized("ringcomm::gt::staged messages"), slots * dims_.message_entries());
  const bool transposed_reads = transposed_reads_for(batch);
  if (const std::size_t n = transposed_entries(dims_, channel_, transposed_reads))
    scratch->transposed = Kokkos::View<MessageScalar*>(uninitialized("ringcomm::gt::transposed G"), slots * n);
  if (const std::size_t n = factor_entries(dims_, channel_))
    scratch->factors = Kokkos::View<Scalar*>(uninitialized("ringcomm::gt::bubble factors"), slots * n);
  scratch->counted = TrackedBytes(scratch_bytes(dims_, channel_, batch, transposed_reads));
  scratch_ = std::move(scratch);
  ready_factor_product_blas();
}

// Where the flushes will take the factor product through cuBLAS, makes its handle and runs a first
// product now, when the batch or the setting is chosen, so that setting cuBLAS up is not part of the
// first flush.
template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::ready_factor_product_blas() {
#ifdef KOKKOS_ENABLE_CUDA
  if (!factor_product_blas_in_use(scratch_->batch) || scratch_->blas) return;
  scratch_->blas = std::make_unique<detail::BlasHandle>();
  scratch_->blas->template warm_up<typename Scalar::value_type>(exec_.cuda_stream());
#endif
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_batch(int messages) {
  if (messages < 1 || messages > kMaxBatch)
    throw Error("GtAccumulator: a batch must hold between 1 and " + std::to_string(kMaxBatch) + " messages, not " +
                std::to_string(messages));
  exec_.fence();  // kernels still reading the old work space
  allocate_scratch(messages);
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::batch_setting(const Dims& dims, Channel channel, int accumulators) {
  if (const auto text = settings::env("RINGCOMM_GT_BATCH"))
    return static_cast<int>(settings::parse_integer(*text, "RINGCOMM_GT_BATCH", 1, kMaxBatch));
  int batch = default_driver_batch(channel);
  if (batch > 1) {
    const std::size_t budget = query_memory(data_memory_kind()).free_bytes / 4;
    const auto holders = static_cast<std::size_t>(std::max(accumulators, 1));
    while (batch > 1 && holders * scratch_bytes(dims, channel, batch) > budget) batch /= 2;
  }
  return batch;
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_transposed_reads(bool on) {
  const bool changes = on != transposed_reads();
  transposed_reads_ = on ? 1 : 0;
  if (!changes) return;
  exec_.fence();  // kernels still reading the old work space
  allocate_scratch(scratch_->batch);
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_factor_product_blas(bool on) {
  if (on && !kFactorProductBlasBuild)
    throw Error("GtAccumulator: this build has no cuBLAS for the factor product (host builds use the factor pass)");
  if (on && dims_.nb != 1)
    throw Error("GtAccumulator: the factor product is a plain matrix product at nb = 1 only, not at nb = " +
                std::to_string(dims_.nb));
  factor_product_blas_ = on;
  ready_factor_product_blas();
}

template <class Scalar, class MessageScalar>
bool GtAccumulator<Scalar, MessageScalar>::factor_product_blas_in_use(int messages) const {
  return factor_product_blas_ && has_bubble(channel_) && messages > 1 && updates_ == Updates::exclusive;
}

template <class Scalar, class MessageScalar>
bool GtAccumulator<Scalar, MessageScalar>::transposed_reads() const {
  return transposed_reads_for(scratch_->batch);
}

template <class Scalar, class MessageScalar>
bool GtAccumulator<Scalar, MessageScalar>::transposed_reads_for(int batch) const {
  return transposed_reads_ >= 0 ? transposed_reads_ == 1 : default_transposed_reads(dims_.nb, batch);
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::batch() const {
  return scratch_->batch;
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::staged() const {
  return scratch_->staged;
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::flush() const {
  if (scratch_->staged > 0) apply(scratch_->messages.data(), scratch_->staged);
}

template <class Scalar, class MessageScalar>
GtAccumulator<Scalar, MessageScalar>::GtAccumulator(const Dims& dims, Channel channel, SliceView slice,
                                                    SliceRange range, const ExecSpace& exec, Updates updates)
    : dims_(dims), channel_(channel), slice_(slice), range_(range), exec_(exec), updates_(updates),
      label_("ringcomm::gt::" + to_string(channel)) {
  dims.validate();
  const std::size_t n = dims.entries();
  if (range.begin > range.end || range.end > n)
    throw Error("G_t slice [" + std::to_string(range.begin) + ", " + std::to_string(range.end) +
                ") is not inside G_t's " + std::to_string(n) + " entries (" + dims.describe() + ")");
  if (slice.extent(0) != range.size())
    throw Error("G_t slice view holds " + std::to_string(slice.extent(0)) + " entries but its range holds " +
                std::to_string(range.size()));
  constexpr std::uint64_t limit = std::numeric_limits<std::uint32_t>::max();
  if (detail::inner_size_of(dims) > limit || n / detail::inner_size_of(dims) > limit ||
      static_cast<std::uint64_t>(dims.M()) * static_cast<std::uint64_t>(dims.M()) > limit)
    throw Error("G_t shape " + dims.describe() + " is too large for the kernel's 32-bit index parts "
                "(nb^4*Nc*2n, Nc*2n*N_Q*N_Omega and M^2 must each stay below 2^32)");
  const ClusterTables cluster = make_cluster_tables(dims.Lx, dims.Ly);
  tables_.add = to_device(cluster.add, "ringcomm::gt::add");
  tables_.sub = to_device(cluster.sub, "ringcomm::gt::sub");
  tables_.exchange_momenta = to_device(dims.exchange_momenta, "ringcomm::gt::exchange_momenta");
  tables_.exchange_frequencies = to_device(dims.exchange_frequencies, "ringcomm::gt::exchange_frequencies");
  const std::vector<int>& shift = channel == Channel::pp_up_down ? cluster.sub : cluster.add;
  std::vector<int> exchange_shift;
  for (const int q : dims.exchange_momenta)
    for (int k = 0; k < dims.Nc(); ++k) exchange_shift.push_back(shift[static_cast<std::size_t>(k + dims.Nc() * q)]);
  tables_.exchange_shift = to_device(exchange_shift, "ringcomm::gt::exchange_shift");
  warp_tile_kernel_ = default_warp_tile_kernel(channel);
  single_message_kernel_ = default_single_message_kernel(dims);
  diagonal_loads_ahead_ = default_diagonal_loads_ahead(dims.nb);
  walk_loads_ahead_ = default_walk_loads_ahead(channel);
  walk_tma_stages_ = default_walk_tma_stages(channel, dims.nb);
  factor_product_blas_ = default_factor_product_blas(dims.nb);
  allocate_scratch(1);
  l2_set_aside_once();  // the G_σ reads' "evict last" needs L2 set aside for it (l2_set_aside.hpp)
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::operator()(const void* message, int /*origin*/) const {
  if (message == nullptr) throw Error("GtAccumulator: the message is null");
  if (range_.size() == 0) return;
  const auto* scalars = static_cast<const MessageScalar*>(message);
  Scratch& scratch = *scratch_;
  if (scratch.batch == 1) {
    if (pass_kernel(1) == PassKernel::warp_tiles) return apply_with_warp_tiles(scalars);
    prepare(scalars, 0);
    return apply(scalars, 1);
  }
  const int slot = scratch.staged;
  // The ph channels' transpose stages the message as it reads it; pp_up_down copies it.
  if (!prepare(scalars, slot)) {
    const std::size_t entries = dims_.message_entries();
    const auto first = static_cast<std::size_t>(slot) * entries;
    const Kokkos::View<const MessageScalar*, Kokkos::MemoryUnmanaged> source(scalars, entries);
    Kokkos::deep_copy(exec_, Kokkos::subview(scratch.messages, std::make_pair(first, first + entries)), source);
  }
  if (++scratch.staged == scratch.batch) flush();
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::apply(const MessageScalar* messages, int count) const {
  scratch_->staged = 0;
  switch (channel_) {
    case Channel::pp_up_down: return launch<Channel::pp_up_down>(messages, count);
    case Channel::ph_transverse: return launch<Channel::ph_transverse>(messages, count);
    case Channel::ph_magnetic: return launch<Channel::ph_magnetic>(messages, count);
    case Channel::ph_charge: return launch<Channel::ph_charge>(messages, count);
  }
  throw Error("GtAccumulator: unknown channel " + std::to_string(static_cast<int>(channel_)));
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_warp_tile_kernel(bool on) {
  if (on && (channel_ != Channel::pp_up_down || !std::is_same_v<Scalar, MessageScalar>))
    throw Error("GtAccumulator: the warp-tile kernel is kept for pp_up_down with messages of G_t's type only, not " +
                to_string(channel_) + (std::is_same_v<Scalar, MessageScalar> ? "" : " in mixed precision"));
  warp_tile_kernel_ = on;
}

// One message with the previous kernel (pp_up_down, Scalar == MessageScalar only; see
// set_warp_tile_kernel), set up as it was set up before.
template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::apply_with_warp_tiles(const MessageScalar* message) const {
  if constexpr (std::is_same_v<Scalar, MessageScalar>) {
#ifdef KOKKOS_ENABLE_CUDA
    constexpr int kRowTile = 4;  // the previous default on CUDA
#else
    constexpr int kRowTile = 1;
#endif
    const auto launch = [&](auto kernel) {
      const auto g_size = static_cast<std::size_t>(dims_.M()) * static_cast<std::size_t>(dims_.M());
      using Kernel = decltype(kernel);
      kernel.slice = slice_;
      kernel.order = detail::warp_tiles::slice_order(dims_, range_, kRowTile);
      kernel.at = {dims_.nb, dims_.Nc(), dims_.E(), dims_.M()};
      kernel.tables = tables_;
      kernel.n_freq = dims_.n_freq;
      kernel.up = typename Kernel::MessageView(message, g_size);
      kernel.down = typename Kernel::MessageView(message + g_size, g_size);
      kernel.sign = typename Kernel::MessageView(message + 2 * g_size, 1);
      Kokkos::parallel_for(label_,
                           Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                               exec_, 0, static_cast<std::int64_t>(kernel.order.threads(range_.size()))),
                           kernel);
    };
    if (updates_ == Updates::concurrent) launch(detail::warp_tiles::ChannelKernel<Scalar, Channel::pp_up_down, true>{});
    else launch(detail::warp_tiles::ChannelKernel<Scalar, Channel::pp_up_down, false>{});
  } else {
    (void)message;
    throw Error("GtAccumulator: no warp-tile kernel for mixed precision");
  }
}

// Writes slot `slot`'s G_σ^T and bubble factors from `message`; true when the transpose also staged
// the message itself in the slot (a batch of a ph channel with transposed reads).
template <class Scalar, class MessageScalar>
bool GtAccumulator<Scalar, MessageScalar>::prepare(const MessageScalar* message, int slot) const {
  const int m = dims_.M();
  const auto g_entries = static_cast<std::size_t>(m) * static_cast<std::size_t>(m);
  const bool transposes = channel_ != Channel::pp_up_down && transposed_reads();
  const bool stages = transposes && scratch_->batch > 1;
  if (transposes) {
    using Transpose = detail::TransposeKernel<MessageScalar>;
    const int tiles = (m + Transpose::kTile - 1) / Transpose::kTile;
    const std::size_t n = transposed_entries(dims_, channel_, true), first = n * static_cast<std::size_t>(slot);
    const std::size_t entries = dims_.message_entries(), staged_at = entries * static_cast<std::size_t>(slot);
    Kokkos::View<MessageScalar*> staged_copy;  // empty: the transpose writes G_σ^T only
    if (stages) staged_copy = Kokkos::subview(scratch_->messages, std::make_pair(staged_at, staged_at + entries));
    const Transpose transpose{detail::MessageView<MessageScalar>(message, entries),
                              Kokkos::subview(scratch_->transposed, std::make_pair(first, first + n)), staged_copy, m,
                              tiles};
    Kokkos::TeamPolicy<ExecSpace> policy(exec_, 2 * tiles * tiles, Kokkos::AUTO);
    Kokkos::parallel_for(label_ + "::transpose", policy.set_scratch_size(0, Kokkos::PerTeam(Transpose::scratch_bytes())),
                         transpose);
  }
  if (has_bubble(channel_)) {
    const std::size_t n = factor_entries(dims_, channel_), first = n * static_cast<std::size_t>(slot);
    const auto launch_factors = [&](auto kernel) {
      kernel.factors = Kokkos::subview(scratch_->factors, std::make_pair(first, first + n));
      kernel.at = {dims_.nb, dims_.Nc(), dims_.E(), static_cast<std::uint32_t>(m)};
      kernel.tables = tables_;
      kernel.up = detail::MessageView<MessageScalar>(message, g_entries);
      kernel.down = detail::MessageView<MessageScalar>(message + g_entries, g_entries);
      kernel.n_freq = dims_.n_freq;
      kernel.nq = dims_.NQ();
      kernel.per_side = static_cast<std::int64_t>(factors_per_exchange(dims_));
      Kokkos::parallel_for(label_ + "::factors",
                           Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                               exec_, 0, static_cast<std::int64_t>(n)),
                           kernel);
    };
    if (channel_ == Channel::ph_magnetic) launch_factors(detail::FactorKernel<Scalar, MessageScalar, true>{});
    else launch_factors(detail::FactorKernel<Scalar, MessageScalar, false>{});
  }
  return stages;
}

template <class Scalar, class MessageScalar>
PassKernel GtAccumulator<Scalar, MessageScalar>::pass_kernel(int messages) const {
  if (messages == 1 && scratch_->batch == 1 && warp_tile_kernel_) return PassKernel::warp_tiles;
  if (messages != 1 || !single_message_pass()) return PassKernel::channel;
  if (frequency_steps() == 1) return PassKernel::single_message;
  // The diagonal walk reads one cross value for all its steps, which holds for Ω_j = Ω_0 + j only.
  return consecutive(dims_.exchange_frequencies) ? PassKernel::single_diagonal : PassKernel::channel;
}

template <class Scalar, class MessageScalar>
bool GtAccumulator<Scalar, MessageScalar>::single_message_pass() const {
  return single_message_kernel_ && updates_ == Updates::exclusive && frequency_warps() == 1;
}

template <class Scalar, class MessageScalar>
bool GtAccumulator<Scalar, MessageScalar>::hoists_positions(int messages) const {
  return pass_kernel(messages) == PassKernel::channel && updates_ == Updates::exclusive &&
         (messages > 1 || frequency_steps() > 1 || frequency_warps() > 1);
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::frequency_steps() const {
  if (frequency_steps_ > 0) return frequency_steps_;
  const bool diagonal_walk = scratch_->batch == 1 && !warp_tile_kernel_ && single_message_pass() &&
                             consecutive(dims_.exchange_frequencies);
  return default_frequency_steps(channel_, diagonal_walk, dims_.nb);
}

template <class Scalar, class MessageScalar>
template <Channel kChannel>
void GtAccumulator<Scalar, MessageScalar>::launch(const MessageScalar* messages, int count) const {
  using One = std::integral_constant<int, 1>;
  using Two = std::integral_constant<int, 2>;
  using Four = std::integral_constant<int, 4>;
  using Off = std::false_type;
  using On = std::true_type;
  const int steps = frequency_steps();
  // The single-message kernel with `walk` frequency steps (1: the walk in order), loading ahead or not.
  const auto single = [&](auto walk, auto ahead) {
    launch_with<kChannel, false, 1, decltype(walk)::value, false, false, true, decltype(ahead)::value>(messages, count);
  };
  switch (pass_kernel(count)) {
    case PassKernel::single_message:
      if constexpr (kTmaBuild && tma_walk_channel(kChannel)) {
        const int tma = tma_stages_in_use();
        if (tma == 4) return launch_with<kChannel, false, 1, 1, false, false, true, true, 4>(messages, count);
        if (tma == 8) return launch_with<kChannel, false, 1, 1, false, false, true, true, 8>(messages, count);
      }
      return walk_loads_ahead_ ? single(One{}, On{}) : single(One{}, Off{});
    case PassKernel::single_diagonal:
      if (steps == 2) return diagonal_loads_ahead_ ? single(Two{}, On{}) : single(Two{}, Off{});
      return diagonal_loads_ahead_ ? single(Four{}, On{}) : single(Four{}, Off{});
    default: break;  // the general kernel (warp tiles never come here: operator() runs them)
  }
  // Concurrent updates are atomic and rarely the limit: one shape for them.
  if (updates_ == Updates::concurrent) return launch_with<kChannel, true, 1, 1, false>(messages, count);
  const auto with_rows = [&](auto steps, auto hoisted, auto spread) {
    constexpr int kSteps = decltype(steps)::value;
    constexpr bool kHoisted = decltype(hoisted)::value, kSpread = decltype(spread)::value;
    // Batches of the bubble channels add their factor product in a pass of its own (apply_factor_product);
    // a single message keeps one pass, whose extra G_t traffic nothing would repay.
    const auto rows = [&](auto tile) {
      constexpr int kRows = decltype(tile)::value;
      if constexpr (kHoisted && has_bubble(kChannel))
        if (count > 1) return launch_with<kChannel, false, kRows, kSteps, true, kSpread, false, true, 0, true>(messages, count);
      return launch_with<kChannel, false, kRows, kSteps, kHoisted, kSpread>(messages, count);
    };
    switch (exchange_row_tile()) {
      case 1: return rows(One{});
      case 2: return rows(Two{});
      case 4: return rows(Four{});
      default: return rows(std::integral_constant<int, 8>{});
    }
  };
  // Diagonals spread over warps: one frequency per thread (set_frequency_warps), positions hoisted.
  if (frequency_warps() > 1) return with_rows(One{}, On{}, On{});
  // A single message, one frequency per thread: positions computed where used (the only shape
  // measured faster without a batch to share positions over).
  if (!hoists_positions(count)) return with_rows(One{}, Off{}, Off{});
  switch (steps) {
    case 1: return with_rows(One{}, On{}, Off{});
    case 2: return with_rows(Two{}, On{}, Off{});
    default: return with_rows(Four{}, On{}, Off{});
  }
}

// One pass over the slice for `count` messages, message j at messages + j·message_entries() (slot j
// of the work space).
template <class Scalar, class MessageScalar>
template <Channel kChannel, bool kAtomic, int kRows, int kSteps, bool kHoisted, bool kSpread, bool kSingle,
          bool kLoadsAhead, int kTmaStages, bool kFactorsApart>
void GtAccumulator<Scalar, MessageScalar>::launch_with(const MessageScalar* messages, int count) const {
  // kSingle: the single-message kernel (pass_kernel: one message, exclusive updates), rows in order
  // (SingleMessageKernel) with one frequency step, along frequency diagonals (SingleMessageDiagonalKernel)
  // with kSteps; kLoadsAhead: whether they load the next step's G_t values ahead (walk_loads_ahead,
  // diagonal_loads_ahead). Else ChannelKernel.
  static_assert(!kSingle || (!kAtomic && kRows == 1 && !kHoisted && !kSpread));
  static_assert(kLoadsAhead || kSingle);
  static_assert(!kFactorsApart || (kHoisted && !kAtomic && has_bubble(kChannel)));
  using Channels =
      detail::ChannelKernel<Scalar, MessageScalar, kChannel, kAtomic, kRows, kSteps, kHoisted, kSpread, kFactorsApart>;
  // kTmaStages: the walk in order with the TMA (SingleMessageTmaKernel), as a TeamPolicy.
  static_assert(kTmaStages == 0 || (kSingle && kSteps == 1 && kLoadsAhead));
  using Walk = std::conditional_t<kTmaStages == 0, detail::SingleMessageKernel<Scalar, MessageScalar, kChannel, kLoadsAhead>,
                                  detail::SingleMessageTmaKernel<Scalar, MessageScalar, kChannel, kTmaStages>>;
  using Single = std::conditional_t<kSteps == 1, Walk,
                                    detail::SingleMessageDiagonalKernel<Scalar, MessageScalar, kChannel, kSteps, kLoadsAhead>>;
  using Kernel = std::conditional_t<kSingle, Single, Channels>;
  if (kSingle && count != 1)
    throw Error("GtAccumulator: the single-message kernel was asked for " + std::to_string(count) + " messages");
  const auto g_size = static_cast<std::size_t>(dims_.M()) * static_cast<std::size_t>(dims_.M());
  const std::size_t stride = dims_.message_entries();
  const auto slots = static_cast<std::size_t>(count);
  Kernel kernel;
  kernel.slice = slice_;
  if constexpr (kSingle && kSteps > 1) {
    kernel.order = detail::slice_order(dims_, range_, dims_.NQ(), kSteps, 1, 1, 1);
  } else if constexpr (kSingle) {  // one group per thread: every whole row (no row tiles, no row warps)
    kernel.rows_per_thread = static_cast<std::uint32_t>(dims_.NQ() * dims_.NOmega());
    kernel.order = detail::slice_order(dims_, range_, static_cast<int>(kernel.rows_per_thread), 1, 1, 1, pair_warps_for(true));
  } else {
    // Only the hoisting kernels decode inner blocks (ChannelKernel::operator()).
    kernel.order = detail::slice_order(dims_, range_, kRows, kSteps, row_warps_, kSpread ? frequency_warps() : 1,
                                       pair_warps_for(false, kHoisted), kHoisted ? inner_block_chunks() : 0);
  }
  kernel.consecutive_frequencies = consecutive(dims_.exchange_frequencies);
  kernel.at = {dims_.nb, dims_.Nc(), dims_.E(), static_cast<std::uint32_t>(dims_.M())};
  kernel.tables = tables_;
  kernel.n_freq = dims_.n_freq;
  kernel.messages = detail::MessageView<MessageScalar>(messages, slots * stride);
  kernel.message_stride = stride;
  kernel.count = count;
  kernel.g_size = g_size;
  kernel.transposed = kChannel != Channel::pp_up_down && transposed_reads();
  kernel.set_cross_steps();
  if (kernel.transposed) {
    kernel.cross_source = detail::MessageView<MessageScalar>(scratch_->transposed.data(), slots * 2 * g_size);
    kernel.cross_stride = 2 * g_size;
  } else {
    kernel.cross_source = kernel.messages;
    kernel.cross_stride = stride;
  }
  if constexpr (Kernel::kBubble) {
    const std::size_t per_slot = factor_entries(dims_, channel_);
    kernel.factors = typename Kernel::FactorView(scratch_->factors.data(), slots * per_slot);
    kernel.factor_stride = static_cast<std::uint32_t>(factors_per_exchange(dims_));
    kernel.factor_right = static_cast<std::uint32_t>(per_slot / 2);
    kernel.factor_message = per_slot;
  }
  const auto threads = static_cast<std::int64_t>(kernel.order.threads(range_.size()));
  if constexpr (kTmaStages > 0) {
    constexpr int kTeam = 256;  // 8 warps, each with its own stages
    kernel.thread_count = static_cast<std::uint64_t>(threads);
    const auto league = static_cast<int>((threads + kTeam - 1) / kTeam);
    Kokkos::parallel_for(label_,
                         Kokkos::TeamPolicy<ExecSpace, typename Kernel::Tma>(exec_, league, kTeam)
                             .set_scratch_size(0, Kokkos::PerTeam(Kernel::team_bytes(kTeam))),
                         kernel);
  } else if (kHoisted && !kSingle && pass_team_threads() > 0) {
    if constexpr (kHoisted && !kSingle) {  // (Teams is ChannelKernel's)
      using Teams = Kokkos::TeamPolicy<ExecSpace, typename Kernel::Teams>;
#ifdef KOKKOS_ENABLE_CUDA
      // Not more than the kernel's registers allow a team (the launch fails otherwise).
      const int most = Teams(exec_, 1, 1).team_size_max(kernel, Kokkos::ParallelForTag()) / 32 * 32;
      const int team = std::min(pass_team_threads(), most);
#else
      constexpr int team = 1;  // host teams are one thread: the same threads in the same order
#endif
      kernel.thread_count = static_cast<std::uint64_t>(threads);
      const std::int64_t league = (threads + team - 1) / team;
      if (league > std::numeric_limits<int>::max())  // a TeamPolicy counts its teams in an int
        throw Error("GtAccumulator: " + std::to_string(league) + " teams of " + std::to_string(team) +
                    " threads are more than a TeamPolicy launches; set_pass_team_threads(0) takes a RangePolicy");
      Kokkos::parallel_for(label_, Teams(exec_, static_cast<int>(league), team), kernel);
    }
  } else {
    Kokkos::parallel_for(label_, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec_, 0, threads),
                         kernel);
  }
  if constexpr (kFactorsApart && !kSingle) apply_factor_product(messages, count);
}

// The bubble channels' factor product Σ_j w_j·left_j·right_j of `count` messages (their factor tables
// in slots 0 … count − 1), added to the slice in one pass over it: by cuBLAS's batched matrix product
// for the slice's whole exchange rows where set_factor_product_blas says so, else (and for the partial
// rows at the slice's ends) by FactorProductKernel. A team of that kernel stages as many messages at
// once as its scratch memory holds within the execution space's limit (on GPUs 48 KiB less what Kokkos
// may keep for itself: at nb = 1 in complex<double> 25 messages), larger batches in chunks of even size
// that the team takes in turn (a kernel of its own: the OneChunk and Chunks forms of FactorProductKernel).
template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::apply_factor_product(const MessageScalar* messages, int count) const {
  using Kernel = detail::FactorProductKernel<Scalar, MessageScalar>;
  if (range_.size() == 0) return;
  const std::uint64_t inner = detail::inner_size_of(dims_), pairs = detail::pair_size_of(dims_);
  const std::uint64_t row_size = inner * pairs;
  const std::uint64_t first_row = range_.begin / row_size, last_row = (range_.end - 1) / row_size;
  const auto g_size = static_cast<std::size_t>(dims_.M()) * static_cast<std::size_t>(dims_.M());
  const std::size_t stride = dims_.message_entries(), per_slot = factor_entries(dims_, channel_);
  const std::size_t per_row = factors_per_exchange(dims_);  // F, = inner at nb = 1
  Kernel kernel;
  kernel.slice = slice_;
  kernel.begin = range_.begin;
  kernel.end = range_.end;
  kernel.inner_size = static_cast<std::uint32_t>(inner);
  kernel.pair_size = static_cast<std::uint32_t>(pairs);
  kernel.nb = dims_.nb;
  kernel.choose_shape();
  kernel.message_stride = stride;
  kernel.sign_at = 2 * g_size;
  kernel.factor_stride = static_cast<std::uint32_t>(per_row);
  kernel.factor_right = static_cast<std::uint32_t>(per_slot / 2);
  kernel.factor_message = per_slot;
  kernel.chunk = 1;  // team_bytes() of one message
  const auto limit = static_cast<std::size_t>(Kernel::Policy::scratch_size_max(0));
  const auto most = static_cast<int>(std::max<std::size_t>(1, limit / kernel.team_bytes()));
  const int chunks = (count + most - 1) / most;
  kernel.chunk = (count + chunks - 1) / chunks;
  kernel.count = count;
  kernel.messages = detail::MessageView<MessageScalar>(messages, static_cast<std::size_t>(count) * stride);
  kernel.factors = typename Kernel::FactorView(scratch_->factors.data(), static_cast<std::size_t>(count) * per_slot);
#ifdef KOKKOS_ENABLE_CUDA
  constexpr int kTeam = Kernel::kThreads;
#else
  constexpr int kTeam = 1;  // host teams are one thread, which walks the team's warps in turn
#endif
  // The factor pass over `rows` exchange rows from `row`.
  const auto factor_pass = [&](std::uint64_t row, std::uint64_t rows) {
    if (rows == 0) return;
    kernel.first_row = static_cast<std::uint32_t>(row);
    const auto launch = [&](auto tag) {
      typename Kernel::template TaggedPolicy<decltype(tag)> policy(exec_, static_cast<int>(kernel.league(rows)), kTeam);
      Kokkos::parallel_for(label_ + "::factor_product",
                           policy.set_scratch_size(0, Kokkos::PerTeam(kernel.team_bytes())), kernel);
    };
    if (chunks == 1) launch(typename Kernel::OneChunk{});
    else launch(typename Kernel::Chunks{});
  };
  // The whole rows [whole_begin, whole_end) as matrix products C_x += (w·left_x)·right_xᵀ, C_x the
  // column-major inner × pair matrix of row x, the messages' left and right tables its factors.
  const std::uint64_t whole_begin = (range_.begin + row_size - 1) / row_size;
  const std::uint64_t whole_end = std::max(whole_begin, range_.end / row_size);
  detail::RankUpdate update;
  update.rows = static_cast<std::int64_t>(inner);
  update.cols = static_cast<std::int64_t>(pairs);
  update.depth = count;
  update.a = scratch_->factors.data() + whole_begin * per_row;
  update.lda = static_cast<std::int64_t>(per_slot);
  update.a_stride = static_cast<std::int64_t>(per_row);
  update.b = scratch_->factors.data() + per_slot / 2 + whole_begin * per_row;
  update.ldb = update.lda;
  update.b_stride = update.a_stride;
  update.c = slice_.data() + (whole_begin * row_size - range_.begin);
  update.ldc = update.rows;
  update.c_stride = static_cast<std::int64_t>(row_size);
  update.batches = static_cast<int>(whole_end - whole_begin);
  if (!factor_product_blas_in_use(count) || update.batches == 0)
    return factor_pass(first_row, last_row - first_row + 1);
  factor_pass(first_row, whole_begin - first_row);
#ifdef KOKKOS_ENABLE_CUDA
  detail::WeighFactorRows<Scalar, MessageScalar> weigh;
  weigh.factors = scratch_->factors;
  weigh.messages = kernel.messages;
  weigh.message_stride = stride;
  weigh.sign_at = kernel.sign_at;
  weigh.factor_message = per_slot;
  weigh.factor_right = per_slot / 2;
  weigh.first = whole_begin * per_row;
  weigh.row_entries = (whole_end - whole_begin) * per_row;
  Kokkos::parallel_for(label_ + "::weigh_factors",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                           exec_, 0, static_cast<std::int64_t>(2 * weigh.row_entries) * count),
                       weigh);
  if (!scratch_->blas) scratch_->blas = std::make_unique<detail::BlasHandle>();
  scratch_->blas->template add_products<typename Scalar::value_type>(exec_.cuda_stream(), update);
#endif
  factor_pass(whole_end, last_row + 1 - whole_end);
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_walk_tma_stages(int stages) {
  if (stages != 0 && stages != 4 && stages != 8)
    throw Error("GtAccumulator: the walk copies its G_t values 4 or 8 rows ahead with the TMA, or 0 (never), not " +
                std::to_string(stages));
  walk_tma_stages_ = stages;
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::tma_stages_in_use() const {
  if (!kTmaBuild || !tma_walk_channel(channel_) || walk_tma_stages_ == 0) return 0;
  // The walk in order's thread order (launch_with): whole warps need the partial row before the whole
  // rows and every 32 inner indices to fill warps; one row's 32 values must start 16-byte aligned.
  const detail::SliceOrder order = detail::slice_order(dims_, range_, dims_.NQ() * dims_.NOmega(), 1, 1, 1, pair_warps_for(true));
  constexpr std::uint64_t kWarp = 32;
  const bool whole_warps = order.head_count % kWarp == 0 && order.inner_extended % kWarp == 0;
  const auto first = reinterpret_cast<std::uintptr_t>(slice_.data() + order.head_count);
  const bool aligned = first % 16 == 0 && (order.shape.inner_size.divisor() * sizeof(Scalar)) % 16 == 0;
  return whole_warps && aligned ? walk_tma_stages_ : 0;
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_exchange_row_warps(int warps) {
  if (warps < 1 || warps > kMaxExchangeRowWarps)
    throw Error("GtAccumulator: exchange rows may be spread over 1 to " + std::to_string(kMaxExchangeRowWarps) +
                " warps, not " + std::to_string(warps));
  row_warps_ = warps;
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::exchange_row_tile() const {
  return row_tile_ > 0 ? row_tile_ : default_exchange_row_tile(channel_, scratch_->batch > 1);
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_frequency_steps(int steps) {
  if (steps != 1 && steps != 2 && steps != 4)
    throw Error("GtAccumulator: a thread walks 1, 2 or 4 exchange frequencies, not " + std::to_string(steps));
  if (steps > 1 && frequency_warps_ > 1)
    throw Error("GtAccumulator: a frequency diagonal is walked by " + std::to_string(frequency_warps_) +
                " warps; set_frequency_warps(1) before giving threads " + std::to_string(steps) + " frequency steps");
  frequency_steps_ = steps;
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_frequency_warps(int warps) {
  if (warps != 1 && warps != 2 && warps != 4)
    throw Error("GtAccumulator: 1, 2 or 4 warps walk a frequency diagonal together, not " + std::to_string(warps));
  if (warps > 1 && frequency_steps_ > 1)
    throw Error("GtAccumulator: threads walk " + std::to_string(frequency_steps_) +
                " frequency steps; set_frequency_steps(1) before spreading diagonals over " + std::to_string(warps) +
                " warps");
  frequency_warps_ = warps;
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::frequency_warps() const {
  if (frequency_warps_ > 0) return frequency_warps_;
  return frequency_steps_ > 1 ? 1 : kDefaultFrequencyWarps;
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_pair_warps(int warps) {
  if (warps < 1 || warps > kMaxPairWarps)
    throw Error("GtAccumulator: a pair group holds 1 to " + std::to_string(kMaxPairWarps) + " pairs, not " +
                std::to_string(warps));
  pair_warps_ = warps;
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_pass_team_threads(int threads) {
  if (threads < 0 || threads > kMaxPassTeamThreads || threads % 32 != 0)
    throw Error("GtAccumulator: a batched pass runs in teams of a multiple of 32 threads up to " +
                std::to_string(kMaxPassTeamThreads) + ", or 0 (as Kokkos chooses), not " + std::to_string(threads));
  pass_team_threads_ = threads;
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::pass_team_threads() const {
  return pass_team_threads_ >= 0 ? pass_team_threads_ : default_pass_team_threads(dims_.nb);
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::pass_team_threads_in_use(int messages) const {
  return hoists_positions(messages) ? pass_team_threads() : 0;
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_inner_block_chunks(int chunks) {
  if (chunks < 0 || chunks > kMaxInnerBlockChunks)
    throw Error("GtAccumulator: an inner block holds 0 (all) to " + std::to_string(kMaxInnerBlockChunks) +
                " chunks of 32 inner indices, not " + std::to_string(chunks));
  inner_block_chunks_ = chunks;
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::inner_block_chunks() const {
  return inner_block_chunks_ >= 0 ? inner_block_chunks_ : default_inner_block_chunks(dims_.nb);
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::inner_block_chunks_in_use(int messages) const {
  return hoists_positions(messages) ? inner_block_chunks() : 0;
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::pair_warps() const {
  const int batch = scratch_->batch;
  return pair_warps_for(pass_kernel(batch) == PassKernel::single_message, hoists_positions(batch));
}

template <class Scalar, class MessageScalar>
int GtAccumulator<Scalar, MessageScalar>::pair_warps_for(bool walk_in_order, bool hoisted) const {
  if (walk_in_order && has_bubble(channel_)) return pair_warps_ > 0 ? pair_warps_ : default_pair_warps(dims_.nb);
  if (!walk_in_order && hoisted) return pair_warps_ > 0 ? pair_warps_ : default_block_pair_warps(dims_);
  return 1;  // no pair groups there (SliceOrder::body_entries)
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_exchange_row_tile(int rows) {
  if (rows != 1 && rows != 2 && rows != 4 && rows != 8)
    throw Error("GtAccumulator: an exchange row tile must hold 1, 2, 4 or 8 rows, not " + std::to_string(rows));
  row_tile_ = rows;
}

}  // namespace ringcomm::gt
