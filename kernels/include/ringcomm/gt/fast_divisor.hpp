#pragma once
// Division by a divisor fixed at launch time, as a multiply-high, an add and two shifts.
//
// GPUs have no integer divider: a 32-bit `/` by a run-time value costs some twenty instructions and a
// 64-bit one far more, and decoding a G_t index takes about ten of them. With
//   l = ceil(log2 d),  m = floor(2^32 · (2^l − d) / d) + 1,
// every n < 2^32 has  n / d = (t + ((n − t) >> 1)) >> (l − 1),  t = (m · n) >> 32
// (Granlund & Montgomery, "Division by invariant integers using multiplication", 1994; for d = 1 the
// shifts are 0 and 0). Values of 2^32 and more fall back to ordinary division.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ringcomm/error.hpp"

namespace ringcomm::gt {

class FastDivisor {
 public:
  FastDivisor() = default;
  explicit FastDivisor(std::uint32_t divisor) : divisor_(divisor) {
    if (divisor == 0) throw Error("FastDivisor: division by zero");
    unsigned l = 0;
    while ((std::uint64_t(1) << l) < divisor) ++l;
    magic_ = static_cast<std::uint32_t>(((std::uint64_t(1) << 32) * ((std::uint64_t(1) << l) - divisor)) / divisor + 1);
    shift_after_add_ = l > 0 ? 1 : 0;
    shift_final_ = l > 0 ? l - 1 : 0;
  }

  KOKKOS_INLINE_FUNCTION std::uint32_t divisor() const { return divisor_; }

  KOKKOS_INLINE_FUNCTION std::uint32_t quotient(std::uint32_t n) const {
    const auto t = static_cast<std::uint32_t>((static_cast<std::uint64_t>(magic_) * n) >> 32);
    return (t + ((n - t) >> shift_after_add_)) >> shift_final_;
  }

  // n = quotient · divisor + remainder.
  KOKKOS_INLINE_FUNCTION void divide(std::uint32_t n, std::uint32_t& quotient_out, std::uint32_t& remainder) const {
    quotient_out = quotient(n);
    remainder = n - quotient_out * divisor_;
  }
  KOKKOS_INLINE_FUNCTION void divide(std::uint64_t n, std::uint64_t& quotient_out, std::uint32_t& remainder) const {
    if (n >> 32 == 0) {
      std::uint32_t q = 0;
      divide(static_cast<std::uint32_t>(n), q, remainder);
      quotient_out = q;
    } else {
      quotient_out = n / divisor_;
      remainder = static_cast<std::uint32_t>(n - quotient_out * divisor_);
    }
  }

 private:
  std::uint32_t divisor_ = 1;
  std::uint32_t magic_ = 1;
  unsigned shift_after_add_ = 0;
  unsigned shift_final_ = 0;
};

}  // namespace ringcomm::gt
