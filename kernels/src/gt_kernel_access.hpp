#pragma once
// How the G_t kernels read a staged message and add to G_t: G_σ's layout, the message's weight, values
// widened to G_t's precision, and additions to G_t entries that other kernels may share.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace ringcomm::gt::detail {

// G_σ values (message precision) widened to the precision of G_t, in which all arithmetic is done.
template <class To, class From>
KOKKOS_INLINE_FUNCTION To widen(const From& value) {
  return To(value.real(), value.imag());
}

template <class Message>
using MessageView = Kokkos::View<const Message*, Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;

// The weight sign/2 of a staged message whose sign is the value at `sign` of `messages` (after its G_σ
// slots); 0 for padding, whose slots were never written.
template <class Real, class Message>
KOKKOS_INLINE_FUNCTION Real message_weight(const MessageView<Message>& messages, std::uint64_t sign) {
  return Real(0.5) * static_cast<Real>(messages(sign).real());
}

// Position of G_σ[(b,k,w), (b',k',w')] in a G_σ matrix; w, w' on G_t's frequency axis.
struct GLayout {
  int nb;
  int nc;
  int e_shift;      // E
  std::uint32_t m;  // M

  KOKKOS_INLINE_FUNCTION std::uint32_t index(int b, int k, int w) const {
    return static_cast<std::uint32_t>(b + nb * (k + nc * (w + e_shift)));  // < M
  }
  // One 32 × 32 → 64-bit multiply-add.
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(int b, int k, int w, int bp, int kp, int wp) const {
    return index(b, k, w) + static_cast<std::uint64_t>(m) * index(bp, kp, wp);
  }
};

template <class Real>
KOKKOS_INLINE_FUNCTION void add_atomically(Real* target, Real value) {
#if defined(KOKKOS_ENABLE_SERIAL_ATOMICS)
  // Kokkos 3 built with Serial alone turns its atomics into plain adds, but walker threads of one rank
  // do share the slice: a compare-and-swap loop of the compiler's own.
  Real expected;
  __atomic_load(target, &expected, __ATOMIC_RELAXED);
  Real desired = expected + value;
  while (!__atomic_compare_exchange(target, &expected, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    desired = expected + value;
#else
  Kokkos::atomic_add(target, value);
#endif
}

// slice(slot) += term. kAtomic: other kernels may update the same entry at the same time; its real
// and imaginary parts are independent sums, so two scalar atomics do, no 128-bit compare-and-swap.
template <bool kAtomic, class Scalar>
KOKKOS_INLINE_FUNCTION void add_to(const Kokkos::View<Scalar*>& slice, std::uint64_t slot, const Scalar& term) {
  if constexpr (kAtomic) {
    auto* parts = reinterpret_cast<typename Scalar::value_type*>(&slice(slot));
    add_atomically(&parts[0], term.real());
    add_atomically(&parts[1], term.imag());
  } else {
    slice(slot) += term;
  }
}

}  // namespace ringcomm::gt::detail
