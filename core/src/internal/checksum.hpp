#pragma once
// FNV-1a, 64 bits (Fowler, Noll, Vo): a checksum of files ringcomm writes and reads back
// (checkpoints), to tell a damaged file from a good one. Any change of a single byte changes it.
// Not a defence against deliberate tampering.
#include <cstddef>
#include <cstdint>

namespace ringcomm {

class Fnv1a64 {
 public:
  void update(const void* data, std::size_t bytes) {
    const auto* byte = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) {
      state_ ^= byte[i];
      state_ *= kPrime;
    }
  }
  std::uint64_t value() const { return state_; }

 private:
  static constexpr std::uint64_t kOffsetBasis = 14695981039346656037ull;
  static constexpr std::uint64_t kPrime = 1099511628211ull;
  std::uint64_t state_ = kOffsetBasis;
};

}  // namespace ringcomm
