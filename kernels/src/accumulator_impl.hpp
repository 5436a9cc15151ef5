#pragma once
// GtAccumulator's member definitions, instantiated once per precision by accumulator_<precision>.cpp
// (one translation unit each, so that device compilers build them in parallel).
#include "ringcomm/gt/accumulator.hpp"

#include <limits>
#include <string>
#include <vector>

#include "gt_kernel.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"

namespace ringcomm::gt {

namespace {  // one copy per translation unit

Kokkos::View<const int*> to_device(const std::vector<int>& values, const std::string& label) {
  Kokkos::View<int*> device(label, values.size());
  const Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(values.data(),
                                                                                                   values.size());
  Kokkos::deep_copy(device, host);
  return device;
}

std::uint64_t inner_size_of(const Dims& dims) {
  const auto nb = static_cast<std::uint64_t>(dims.nb);
  return nb * nb * nb * nb * static_cast<std::uint64_t>(dims.Nc()) * static_cast<std::uint64_t>(dims.n_freq);
}

detail::SliceOrder slice_order(const Dims& dims, SliceRange range, int rows_per_thread) {
  const std::uint64_t inner_size = inner_size_of(dims);
  const std::uint64_t pair_size = static_cast<std::uint64_t>(dims.Nc()) * static_cast<std::uint64_t>(dims.n_freq);
  constexpr std::uint64_t chunk = detail::SliceOrder::kChunk;
  detail::SliceOrder order{};
  order.shape.nb = FastDivisor(static_cast<std::uint32_t>(dims.nb));
  order.shape.nc = FastDivisor(static_cast<std::uint32_t>(dims.Nc()));
  order.shape.nq = FastDivisor(static_cast<std::uint32_t>(dims.NQ()));
  order.shape.pair_size = FastDivisor(static_cast<std::uint32_t>(pair_size));
  order.shape.inner_size = FastDivisor(static_cast<std::uint32_t>(inner_size));
  order.begin_inner = static_cast<std::uint32_t>(range.begin % inner_size);
  order.begin_outer = static_cast<std::uint32_t>(range.begin / inner_size);
  order.rows_per_thread = static_cast<std::uint32_t>(rows_per_thread);
  const std::uint64_t row_size = inner_size * pair_size;
  const std::uint64_t first_row = (range.begin + row_size - 1) / row_size;
  const std::uint64_t end_row = range.end / row_size;
  if (first_row < end_row) {
    const std::uint64_t rows = end_row - first_row;
    const std::uint64_t per_thread = static_cast<std::uint64_t>(rows_per_thread);
    const std::uint64_t chunks = (inner_size + chunk - 1) / chunk;
    const std::uint64_t groups = (rows + per_thread - 1) / per_thread;
    order.first_row = static_cast<std::uint32_t>(first_row);
    order.row_count = static_cast<std::uint32_t>(rows);
    order.inner_chunks = FastDivisor(static_cast<std::uint32_t>(chunks));
    order.row_groups = FastDivisor(static_cast<std::uint32_t>(groups));
    order.head_count = first_row * row_size - range.begin;
    order.body_count = rows * row_size;
    order.body_threads = chunk * chunks * groups * pair_size;
  } else {
    order.head_count = range.size();
  }
  return order;
}

// Entries per side of the bubble factor table: nb²·Nc·2n per exchange.
std::size_t factors_per_exchange(const Dims& dims) {
  return static_cast<std::size_t>(dims.nb) * dims.nb * dims.Nc() * dims.n_freq;
}

bool has_bubble(Channel channel) { return channel == Channel::ph_magnetic || channel == Channel::ph_charge; }

}  // namespace

// Work space made once per message: G_σ^T (ph channels) and the bubble factors.
template <class Scalar, class MessageScalar>
struct GtAccumulator<Scalar, MessageScalar>::Scratch {
  Kokkos::View<MessageScalar*> transposed;
  Kokkos::View<Scalar*> factors;
  TrackedBytes counted;
};

template <class Scalar, class MessageScalar>
std::size_t GtAccumulator<Scalar, MessageScalar>::scratch_bytes(const Dims& dims, Channel channel) {
  const std::size_t g_entries = 2 * static_cast<std::size_t>(dims.M()) * static_cast<std::size_t>(dims.M());
  const std::size_t transposed = channel == Channel::pp_up_down ? 0 : g_entries * sizeof(MessageScalar);
  const std::size_t factors =
      has_bubble(channel) ? 2 * factors_per_exchange(dims) * dims.NQ() * dims.NOmega() * sizeof(Scalar) : 0;
  return transposed + factors;
}

template <class Scalar, class MessageScalar>
std::size_t GtAccumulator<Scalar, MessageScalar>::scratch_bytes() const {
  return scratch_bytes(dims_, channel_);
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
  if (inner_size_of(dims) > limit || n / inner_size_of(dims) > limit)
    throw Error("G_t shape " + dims.describe() + " is too large for the kernel's 32-bit index parts "
                "(nb^4*Nc*2n and Nc*2n*N_Q*N_Omega must each stay below 2^32)");
  const ClusterTables cluster = make_cluster_tables(dims.Lx, dims.Ly);
  tables_.add = to_device(cluster.add, "ringcomm::gt::add");
  tables_.sub = to_device(cluster.sub, "ringcomm::gt::sub");
  tables_.exchange_momenta = to_device(dims.exchange_momenta, "ringcomm::gt::exchange_momenta");
  tables_.exchange_frequencies = to_device(dims.exchange_frequencies, "ringcomm::gt::exchange_frequencies");
  scratch_ = std::make_shared<Scratch>();
  const std::size_t g_entries = 2 * static_cast<std::size_t>(dims.M()) * static_cast<std::size_t>(dims.M());
  if (channel != Channel::pp_up_down)
    scratch_->transposed = Kokkos::View<MessageScalar*>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ringcomm::gt::transposed G"), g_entries);
  if (has_bubble(channel))
    scratch_->factors = Kokkos::View<Scalar*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ringcomm::gt::bubble factors"),
                                              2 * factors_per_exchange(dims) * dims.NQ() * dims.NOmega());
  scratch_->counted = TrackedBytes(scratch_bytes());
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::operator()(const void* message, int /*origin*/) const {
  if (message == nullptr) throw Error("GtAccumulator: the message is null");
  if (range_.size() == 0) return;
  const auto* scalars = static_cast<const MessageScalar*>(message);
  prepare(scalars);
  switch (channel_) {
    case Channel::pp_up_down: return launch<Channel::pp_up_down>(scalars);
    case Channel::ph_transverse: return launch<Channel::ph_transverse>(scalars);
    case Channel::ph_magnetic: return launch<Channel::ph_magnetic>(scalars);
    case Channel::ph_charge: return launch<Channel::ph_charge>(scalars);
  }
  throw Error("GtAccumulator: unknown channel " + std::to_string(static_cast<int>(channel_)));
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::prepare(const MessageScalar* message) const {
  const int m = dims_.M();
  const auto g_entries = static_cast<std::size_t>(m) * static_cast<std::size_t>(m);
  const detail::MessageView<MessageScalar> g(message, 2 * g_entries);
  if (channel_ != Channel::pp_up_down && transposed_reads_) {
    using Transpose = detail::TransposeKernel<MessageScalar>;
    const int tiles = (m + Transpose::kTile - 1) / Transpose::kTile;
    const Transpose transpose{g, scratch_->transposed, m, tiles};
    Kokkos::TeamPolicy<ExecSpace> policy(exec_, 2 * tiles * tiles, Kokkos::AUTO);
    Kokkos::parallel_for(label_ + "::transpose", policy.set_scratch_size(0, Kokkos::PerTeam(Transpose::scratch_bytes())),
                         transpose);
  }
  if (has_bubble(channel_)) {
    const auto launch_factors = [&](auto kernel) {
      kernel.factors = scratch_->factors;
      kernel.at = {dims_.nb, dims_.Nc(), dims_.E(), static_cast<std::uint32_t>(m)};
      kernel.tables = tables_;
      kernel.up = detail::MessageView<MessageScalar>(message, g_entries);
      kernel.down = detail::MessageView<MessageScalar>(message + g_entries, g_entries);
      kernel.n_freq = dims_.n_freq;
      kernel.nq = dims_.NQ();
      kernel.per_side = static_cast<std::int64_t>(factors_per_exchange(dims_));
      Kokkos::parallel_for(label_ + "::factors",
                           Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                               exec_, 0, static_cast<std::int64_t>(scratch_->factors.extent(0))),
                           kernel);
    };
    if (channel_ == Channel::ph_magnetic) launch_factors(detail::FactorKernel<Scalar, MessageScalar, true>{});
    else launch_factors(detail::FactorKernel<Scalar, MessageScalar, false>{});
  }
}

template <class Scalar, class MessageScalar>
template <Channel kChannel>
void GtAccumulator<Scalar, MessageScalar>::launch(const MessageScalar* message) const {
  // Concurrent updates are atomic and rarely the limit: one tile size for them.
  if (updates_ == Updates::concurrent) return launch_with<kChannel, true, kDefaultExchangeRowTile>(message);
  switch (row_tile_) {
    case 1: return launch_with<kChannel, false, 1>(message);
    case 2: return launch_with<kChannel, false, 2>(message);
    case 4: return launch_with<kChannel, false, 4>(message);
    default: return launch_with<kChannel, false, 8>(message);
  }
}

template <class Scalar, class MessageScalar>
template <Channel kChannel, bool kAtomic, int kRows>
void GtAccumulator<Scalar, MessageScalar>::launch_with(const MessageScalar* message) const {
  using Kernel = detail::ChannelKernel<Scalar, MessageScalar, kChannel, kAtomic, kRows>;
  const auto g_size = static_cast<std::size_t>(dims_.M()) * static_cast<std::size_t>(dims_.M());
  Kernel kernel;
  kernel.slice = slice_;
  kernel.order = slice_order(dims_, range_, kRows);
  kernel.at = {dims_.nb, dims_.Nc(), dims_.E(), static_cast<std::uint32_t>(dims_.M())};
  kernel.tables = tables_;
  kernel.n_freq = dims_.n_freq;
  kernel.up = detail::MessageView<MessageScalar>(message, g_size);
  kernel.down = detail::MessageView<MessageScalar>(message + g_size, g_size);
  kernel.sign = detail::MessageView<MessageScalar>(message + 2 * g_size, 1);
  kernel.transposed = kChannel != Channel::pp_up_down && transposed_reads_;
  const MessageScalar* cross = kernel.transposed ? scratch_->transposed.data() : message;
  kernel.cross_up = detail::MessageView<MessageScalar>(cross, g_size);
  kernel.cross_down = detail::MessageView<MessageScalar>(cross + g_size, g_size);
  if constexpr (Kernel::kBubble) {
    kernel.factors = scratch_->factors;
    kernel.factor_stride = static_cast<std::uint32_t>(factors_per_exchange(dims_));
    kernel.factor_right = static_cast<std::uint32_t>(scratch_->factors.extent(0) / 2);
  }
  Kokkos::parallel_for(label_,
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                           exec_, 0, static_cast<std::int64_t>(kernel.order.threads(range_.size()))),
                       kernel);
}

template <class Scalar, class MessageScalar>
void GtAccumulator<Scalar, MessageScalar>::set_exchange_row_tile(int rows) {
  if (rows != 1 && rows != 2 && rows != 4 && rows != 8)
    throw Error("GtAccumulator: an exchange row tile must hold 1, 2, 4 or 8 rows, not " + std::to_string(rows));
  row_tile_ = rows;
}

}  // namespace ringcomm::gt
