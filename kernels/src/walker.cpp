#include "ringcomm/gt/walker.hpp"

#include <cmath>

#include "ringcomm/error.hpp"

namespace ringcomm::gt {

namespace detail {

// Fills message entries [first, g_entries] on the device; entry g_entries is the sign.
template <class Scalar>
struct FillMessage {
  using Real = typename Scalar::value_type;
  Scalar* message;
  MeasurementStream stream;
  std::int64_t g_entries;
  double sign;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t position) const {
    if (position == g_entries) {
      message[position] = Scalar(static_cast<Real>(sign), Real(0));
      return;
    }
    const auto p = static_cast<std::uint64_t>(position);
    message[position] = Scalar(static_cast<Real>(stream.real_part(p)), static_cast<Real>(stream.imag_part(p)));
  }
};

}  // namespace detail

SyntheticWalker::SyntheticWalker(const Dims& dims, std::uint64_t seed, std::size_t measurements)
    : seed_(seed), measurements_(measurements) {
  dims.validate();
  g_entries_ = dims.message_entries() - 1;
  scale_ = 1.0 / std::sqrt(static_cast<double>(dims.M()));
}

MeasurementStream SyntheticWalker::stream(std::size_t id) const {
  return MeasurementStream{splitmix64(splitmix64(seed_) ^ static_cast<std::uint64_t>(id)), scale_};
}

double SyntheticWalker::sign(std::size_t id) const {
  if (is_padding(id)) return 0.0;
  // The word after the last entry's imaginary part decides; 1 in 8 is negative.
  return (stream(id).word(2 * static_cast<std::uint64_t>(g_entries_)) & 7u) == 0 ? -1.0 : 1.0;
}

std::complex<double> SyntheticWalker::entry(std::size_t id, std::size_t position) const {
  const MeasurementStream s = stream(id);
  return {s.real_part(position), s.imag_part(position)};
}

template <class Scalar>
void SyntheticWalker::write(std::size_t id, void* message, const ExecSpace& exec) const {
  if (message == nullptr) throw Error("SyntheticWalker::write: the message buffer is null");
  const auto g_entries = static_cast<std::int64_t>(g_entries_);
  const std::int64_t first = is_padding(id) ? g_entries : 0;
  const detail::FillMessage<Scalar> fill{static_cast<Scalar*>(message), stream(id), g_entries, sign(id)};
  Kokkos::parallel_for("ringcomm::gt::walker",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, first, g_entries + 1),
                       fill);
}

template <class Scalar>
std::vector<Scalar> SyntheticWalker::host_message(std::size_t id) const {
  using Real = typename Scalar::value_type;
  std::vector<Scalar> message(g_entries_ + 1);
  const MeasurementStream s = stream(id);
  if (!is_padding(id))
    for (std::size_t p = 0; p < g_entries_; ++p)
      message[p] = Scalar(static_cast<Real>(s.real_part(p)), static_cast<Real>(s.imag_part(p)));
  message[g_entries_] = Scalar(static_cast<Real>(sign(id)), Real(0));
  return message;
}

template void SyntheticWalker::write<Kokkos::complex<double>>(std::size_t, void*, const ExecSpace&) const;
template void SyntheticWalker::write<Kokkos::complex<float>>(std::size_t, void*, const ExecSpace&) const;
template std::vector<Kokkos::complex<double>> SyntheticWalker::host_message(std::size_t) const;
template std::vector<Kokkos::complex<float>> SyntheticWalker::host_message(std::size_t) const;

}  // namespace ringcomm::gt
