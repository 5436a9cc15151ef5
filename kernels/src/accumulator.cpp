#include "ringcomm/gt/accumulator.hpp"

#include <limits>
#include <string>
#include <vector>

#include "gt_kernel.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::gt {

namespace {

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

detail::SliceOrder slice_order(const Dims& dims, SliceRange range, int row_tile) {
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
  const std::uint64_t row_size = inner_size * pair_size;
  const std::uint64_t first_row = (range.begin + row_size - 1) / row_size;
  const std::uint64_t end_row = range.end / row_size;
  if (first_row < end_row) {
    const std::uint64_t rows = end_row - first_row;
    const std::uint64_t tile = static_cast<std::uint64_t>(row_tile);
    const std::uint64_t chunks = (inner_size + chunk - 1) / chunk;
    const std::uint64_t tiles = (rows + tile - 1) / tile;
    order.first_row = static_cast<std::uint32_t>(first_row);
    order.row_count = static_cast<std::uint32_t>(rows);
    order.row_tile = FastDivisor(static_cast<std::uint32_t>(tile));
    order.inner_chunks = FastDivisor(static_cast<std::uint32_t>(chunks));
    order.tiles_per_pair = FastDivisor(static_cast<std::uint32_t>(tiles));
    order.head_count = first_row * row_size - range.begin;
    order.body_count = rows * row_size;
    order.body_threads = chunk * tile * chunks * tiles * pair_size;
  } else {
    order.head_count = range.size();
  }
  return order;
}

}  // namespace

template <class Scalar>
GtAccumulator<Scalar>::GtAccumulator(const Dims& dims, Channel channel, SliceView slice, SliceRange range,
                                     const ExecSpace& exec, Updates updates)
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
}

template <class Scalar>
void GtAccumulator<Scalar>::operator()(const void* message, int /*origin*/) const {
  if (message == nullptr) throw Error("GtAccumulator: the message is null");
  const auto* scalars = static_cast<const Scalar*>(message);
  switch (channel_) {
    case Channel::pp_up_down: return launch<Channel::pp_up_down>(scalars);
    case Channel::ph_transverse: return launch<Channel::ph_transverse>(scalars);
    case Channel::ph_magnetic: return launch<Channel::ph_magnetic>(scalars);
    case Channel::ph_charge: return launch<Channel::ph_charge>(scalars);
  }
  throw Error("GtAccumulator: unknown channel " + std::to_string(static_cast<int>(channel_)));
}

template <class Scalar>
template <Channel kChannel>
void GtAccumulator<Scalar>::launch(const Scalar* message) const {
  if (range_.size() == 0) return;
  if (updates_ == Updates::concurrent) launch_with<kChannel, true>(message);
  else launch_with<kChannel, false>(message);
}

template <class Scalar>
template <Channel kChannel, bool kAtomic>
void GtAccumulator<Scalar>::launch_with(const Scalar* message) const {
  using Kernel = detail::ChannelKernel<Scalar, kChannel, kAtomic>;
  const auto g_size = static_cast<std::size_t>(dims_.M()) * static_cast<std::size_t>(dims_.M());
  Kernel kernel;
  kernel.slice = slice_;
  kernel.order = slice_order(dims_, range_, row_tile_);
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
}

template <class Scalar>
void GtAccumulator<Scalar>::set_exchange_row_tile(int rows) {
  if (rows < 1 || rows > kMaxExchangeRowTile)
    throw Error("GtAccumulator: an exchange row tile must hold between 1 and " + std::to_string(kMaxExchangeRowTile) +
                " rows, not " + std::to_string(rows));
  row_tile_ = rows;
}

template class GtAccumulator<Kokkos::complex<double>>;
template class GtAccumulator<Kokkos::complex<float>>;

}  // namespace ringcomm::gt
