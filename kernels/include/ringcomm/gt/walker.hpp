#pragma once
// A stand-in for a QMC walker: the message of measurement `id` (G_up, G_down, sign; see
// Dims::message_entries) is a pure function of (seed, id). Entries come from a counter-based hash, so
// any rank can make any measurement, in any order, on host or device, with bit-identical values.
//
// Entry values are uniform in [-1, 1) (real and imaginary part) scaled by 1/sqrt(M), which keeps
// the sums over G_t's products of order one. One measurement in eight has sign -1. Ids at or past
// the number of measurements are padding: only their sign is written, and it is 0.
//
// write() and host_message() are instantiated for Kokkos::complex<double> and Kokkos::complex<float>.
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ringcomm/gt/dims.hpp"
#include "ringcomm/ring.hpp"

namespace ringcomm::gt {

// SplitMix64's output function applied to x + golden ratio: consecutive x give independent words.
KOKKOS_INLINE_FUNCTION std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The random stream of one measurement. Word c of the stream is splitmix64(key + c·golden ratio),
// i.e. SplitMix64's c-th output; the real and imaginary part of message entry p are words 2p, 2p+1.
struct MeasurementStream {
  std::uint64_t key = 0;
  double scale = 1;  // 1/sqrt(M)

  KOKKOS_INLINE_FUNCTION std::uint64_t word(std::uint64_t counter) const {
    return splitmix64(key + counter * 0x9e3779b97f4a7c15ull);
  }
  // Uniform in [-1, 1): the top 54 bits as a signed integer, exactly representable, times 2^-53.
  KOKKOS_INLINE_FUNCTION static double symmetric_unit(std::uint64_t word) {
    const std::int64_t centred = static_cast<std::int64_t>(word >> 10) - (std::int64_t(1) << 53);
    return static_cast<double>(centred) * 0x1p-53;
  }
  KOKKOS_INLINE_FUNCTION double real_part(std::uint64_t position) const {
    return symmetric_unit(word(2 * position)) * scale;
  }
  KOKKOS_INLINE_FUNCTION double imag_part(std::uint64_t position) const {
    return symmetric_unit(word(2 * position + 1)) * scale;
  }
};

class SyntheticWalker {
 public:
  // Throws ringcomm::Error when dims are invalid.
  SyntheticWalker(const Dims& dims, std::uint64_t seed, std::size_t measurements);

  bool is_padding(std::size_t id) const { return id >= measurements_; }
  // +1 or -1 for a measurement, 0 for padding.
  double sign(std::size_t id) const;
  // Entry `position` (< 2M²: G_up then G_down, column-major) of measurement `id`, before rounding.
  std::complex<double> entry(std::size_t id, std::size_t position) const;

  // Writes measurement `id`'s message into `message` (memory of ExecSpace, message_entries()
  // scalars). Enqueued on `exec`; returns without waiting.
  template <class Scalar>
  void write(std::size_t id, void* message, const ExecSpace& exec = ExecSpace()) const;

  // The same message in host memory, computed on the host.
  template <class Scalar>
  std::vector<Scalar> host_message(std::size_t id) const;

  std::size_t measurements() const { return measurements_; }

 private:
  MeasurementStream stream(std::size_t id) const;

  std::uint64_t seed_;
  std::size_t measurements_;
  std::size_t g_entries_;  // 2M²: both spins; the sign follows
  double scale_;
};

}  // namespace ringcomm::gt
