#pragma once
// Size arithmetic that cannot wrap: every product of dimensions that sizes a message, a slice or a
// buffer goes through checked_product, so that an absurd option is refused with its name instead of
// wrapping to a small number and overflowing the buffer it sized.
#include <cstddef>
#include <string>

#include "ringcomm/error.hpp"

namespace ringcomm {

// a · b, or a (local) Error saying that `what` overflows when it does not fit std::size_t.
inline std::size_t checked_product(std::size_t a, std::size_t b, const std::string& what) {
  std::size_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    throw Error(what + " overflows: " + std::to_string(a) + " x " + std::to_string(b) + " does not fit in 64 bits");
  return product;
}

// a + b, likewise.
inline std::size_t checked_sum(std::size_t a, std::size_t b, const std::string& what) {
  std::size_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    throw Error(what + " overflows: " + std::to_string(a) + " + " + std::to_string(b) + " does not fit in 64 bits");
  return sum;
}

}  // namespace ringcomm
