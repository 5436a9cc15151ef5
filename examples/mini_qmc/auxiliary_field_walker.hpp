#pragma once
// A determinant QMC walker for HubbardModel: the Ising fields s(i, l), the equal-time Green's
// functions G_σ = (1 + B_σ(l)…B_σ(1) B_σ(L)…B_σ(l+1))⁻¹ and single-spin-flip Metropolis updates.
//
// Flipping s(i, l) multiplies row i of B_σ(l) by e^{−2σλ s(i,l)}; with δ_σ that factor minus one, the
// weight changes by R = Π_σ [1 + δ_σ (1 − G_σ(l)_ii)] (a rank-one determinant ratio). The flip is
// accepted with probability min(1, |R|), which satisfies detailed balance for the weight |det↑ det↓|;
// the sign of R updates the configuration's sign. An accepted flip updates G_σ by Sherman–Morrison,
// G' = G − (δ/R_σ) G[:, i] (e_i − G[i, :]); moving to the next slice "wraps" G → B G B⁻¹.
//
// There is no numerical stabilisation (UDV decompositions): every `recompute_every` slices G is
// rebuilt from scratch and the difference to the wrapped one is recorded (max_wrap_error), which
// stays small for the modest β·(bandwidth + U) a toy needs. A production code stabilises.
#include <array>
#include <cstdint>
#include <vector>

#include "dense_matrix.hpp"
#include "hubbard_model.hpp"

namespace mini_qmc {

enum Spin { up = 0, down = 1 };
constexpr double spin_sign(int spin) { return spin == up ? 1.0 : -1.0; }

// Uniform numbers in [0, 1) from a counter-based generator: reproducible for (seed, stream) on any
// platform, unlike the distributions of <random>.
class UniformStream {
 public:
  UniformStream(std::uint64_t seed, std::uint64_t stream);
  double next();

 private:
  std::uint64_t key_;
  std::uint64_t counter_ = 0;
};

struct AcceptanceCount {
  std::uint64_t proposed = 0;
  std::uint64_t accepted = 0;
  double rate() const { return proposed ? static_cast<double>(accepted) / proposed : 0.0; }
};

// G_σ(τ_a, τ_b)_ij for a, b ∈ [0, L), τ_a = aΔτ, as one (N·L) × (N·L) matrix with row i + N·a and
// column j + N·b (column-major), G(τ1, τ2) = ⟨T c(τ1) c†(τ2)⟩.
struct TimeDisplacedGreen {
  int sites = 0;
  int time_slices = 0;
  std::vector<double> values;
  double operator()(int i, int a, int j, int b) const {
    const std::size_t n = static_cast<std::size_t>(sites) * time_slices;
    return values[(i + static_cast<std::size_t>(sites) * a) + n * (j + static_cast<std::size_t>(sites) * b)];
  }
};

class AuxiliaryFieldWalker {
 public:
  // Fields start random from (seed, stream); different streams give independent Markov chains.
  AuxiliaryFieldWalker(const HubbardModel& model, std::uint64_t seed, std::uint64_t stream, int recompute_every);

  // One Metropolis pass over every field, slice by slice.
  void sweep();

  int sign() const { return sign_; }  // sign of det↑·det↓ for the current fields
  const AcceptanceCount& acceptance() const { return acceptance_; }
  double max_wrap_error() const { return max_wrap_error_; }

  // G_σ at τ = 0 (equal time), for equal-time observables.
  const Matrix& equal_time_green(int spin) const { return green_[spin]; }
  // For a measurement: every (τ1, τ2) pair, from freshly computed equal-time G's.
  TimeDisplacedGreen time_displaced_green(int spin) const;

 private:
  std::vector<double> field_factors(int spin, int slice, double extra_sign) const;  // e^{±σλ s(·, l)}
  Matrix apply_slice(int spin, int slice, const Matrix& m) const;      // B_σ(l)·m
  Matrix apply_inverse_slice(int spin, int slice, const Matrix& m) const;  // m·B_σ(l)⁻¹
  // (1 + B(l)…B(1) B(L)…B(l+1)): its inverse is G at slice l, its determinant sign part of the weight.
  Matrix one_plus_cyclic_product(int spin, int slice) const;
  Matrix fresh_green(int spin, int slice) const;
  void propose_flip(int site, int slice);
  int& field(int site, int slice) { return fields_[site + static_cast<std::size_t>(model_.sites()) * (slice - 1)]; }
  int field(int site, int slice) const { return fields_[site + static_cast<std::size_t>(model_.sites()) * (slice - 1)]; }

  const HubbardModel& model_;
  int recompute_every_;
  UniformStream random_;
  std::vector<int> fields_;     // s(i, l), l = 1 … L
  std::array<Matrix, 2> green_;  // G_σ at the slice being worked on
  int sign_ = 1;
  AcceptanceCount acceptance_;
  double max_wrap_error_ = 0.0;
};

}  // namespace mini_qmc
