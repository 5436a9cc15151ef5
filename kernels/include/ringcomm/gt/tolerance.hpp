#pragma once
// How far a G_t may be from its double-precision reference (relative l1, l2 and linf norms of
// compare(), or the largest relative error of sampled entries), by scalar type. The one table every
// test and ring_compare judge results by, so that double is never checked at float's tolerance.
//
// The bounds sit between what each type reaches and what the next weaker one would: a double kernel
// reaches ~1e-16 and one that computed in float 6.7e-8–1.3e-7, so 1e-12 catches it; float reaches
// ~1e-7 with O(10) products per entry. Mixed (complex<float> messages summed into a complex<double>
// G_t) keeps only the float rounding of its inputs and must do better than float accumulation.
#include <Kokkos_Complex.hpp>
#include <string>
#include <type_traits>

#include "ringcomm/error.hpp"

namespace ringcomm::gt {

struct ScalarTolerance {
  const char* scalar;  // as ring_compare's --scalar names it
  double relative;
};

inline constexpr ScalarTolerance kScalarTolerances[] = {
    {"double", 1e-12},
    {"float", 5e-6},
    {"mixed", 5e-7},
};

// Throws ringcomm::Error for a scalar name not in the table.
inline double relative_tolerance(const std::string& scalar) {
  for (const auto& entry : kScalarTolerances)
    if (scalar == entry.scalar) return entry.relative;
  throw Error("no tolerance is known for the scalar type '" + scalar + "'");
}

// By the type G_t is computed in when messages and G_t share it.
template <class Scalar>
double relative_tolerance() {
  if constexpr (std::is_same_v<Scalar, Kokkos::complex<double>>) return relative_tolerance("double");
  else if constexpr (std::is_same_v<Scalar, Kokkos::complex<float>>) return relative_tolerance("float");
  else static_assert(!sizeof(Scalar), "no tolerance for this scalar type: add it to kScalarTolerances");
}

}  // namespace ringcomm::gt
