#pragma once
// Whether two G_t results hold the same sums, computed in the same order, entry by entry.
//
// Host builds without fused multiply-add (x86-64 without -mfma: CI) round every product and sum on
// its own, so the same sums give the same bits whichever thread or code path computed them, and the
// check is bit for bit. Device compilers fuse a·b + c into one rounding where they see fit and may
// decide differently in two code paths that compute the same entry (a slice's partial rows and its
// whole rows, measured on an H200): there every entry must agree to 8 units in the last place of the
// largest entry, which a term read from a wrong index, dropped or counted twice still exceeds by
// orders of magnitude.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace ringcomm::test {

#if defined(KOKKOS_ENABLE_CUDA) || defined(__FP_FAST_FMA) || defined(__FP_FAST_FMAF)
inline constexpr bool kMultiplyAddsMayFuse = true;
#else
inline constexpr bool kMultiplyAddsMayFuse = false;
#endif

template <class Scalar>
::testing::AssertionResult same_sums(const std::vector<Scalar>& a, const std::vector<Scalar>& b) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << a.size() << " entries against " << b.size();
  if (!kMultiplyAddsMayFuse) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (std::memcmp(&a[i], &b[i], sizeof(Scalar)) != 0)
        return ::testing::AssertionFailure() << "entry " << i << " differs in its bits: (" << a[i].real() << ", "
                                             << a[i].imag() << ") against (" << b[i].real() << ", " << b[i].imag()
                                             << ")";
    return ::testing::AssertionSuccess();
  }
  using Real = typename Scalar::value_type;
  double largest = 0;
  for (const Scalar& x : b) largest = std::max({largest, std::abs(double(x.real())), std::abs(double(x.imag()))});
  const double bound = 8 * double(std::numeric_limits<Real>::epsilon()) * largest;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double difference = std::max(std::abs(double(a[i].real()) - double(b[i].real())),
                                       std::abs(double(a[i].imag()) - double(b[i].imag())));
    if (!(difference <= bound))  // NaN fails too
      return ::testing::AssertionFailure() << "entry " << i << " differs by " << difference << " > " << bound
                                           << " (8 ulp of the largest entry)";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ringcomm::test
