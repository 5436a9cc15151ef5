#pragma once
// The single-band Hubbard model on a periodic Lx × Ly cluster in discrete imaginary time, written
// for a Blankenbecler–Scalapino–Sugar (determinant) QMC:
//
//   H = Σ_k (ε_k − μ) n_kσ + U Σ_i (n_i↑ − ½)(n_i↓ − ½),   ε_k = −2t Σ_d cos k_d,
//
// the sum over d running over the directions in which the cluster has more than one site. β is cut
// into L slices of Δτ = β/L. The discrete Hubbard–Stratonovich transformation
//
//   e^{−Δτ U (n↑−½)(n↓−½)} = ½ e^{−ΔτU/4} Σ_{s=±1} e^{λ s (n↑ − n↓)},   cosh λ = e^{ΔτU/2},
//
// replaces the interaction by one Ising field s(i, l) per site and slice. For a field configuration
// the spin-σ propagator of slice l is B_σ(l) = e^{σλ diag(s_l)} · e^{−ΔτK}, and the weight is
// det(1 + B_↑(L)…B_↑(1)) · det(1 + B_↓(L)…B_↓(1)). At μ = 0 the bipartite cluster is particle-hole
// symmetric and the weight is never negative; μ ≠ 0 brings a sign problem.
#include <vector>

#include "dense_matrix.hpp"

namespace mini_qmc {

struct HubbardParameters {
  int Lx = 2;
  int Ly = 2;
  double t = 1.0;    // nearest-neighbour hopping
  double U = 4.0;    // on-site repulsion, >= 0
  double mu = 0.0;   // chemical potential measured from half filling
  double beta = 2.0; // inverse temperature
  int time_slices = 16;

  // Throws ringcomm::Error naming the offending field.
  void validate() const;
};

class HubbardModel {
 public:
  explicit HubbardModel(const HubbardParameters& parameters);

  const HubbardParameters& parameters() const { return parameters_; }
  int sites() const { return parameters_.Lx * parameters_.Ly; }
  int time_slices() const { return parameters_.time_slices; }
  double delta_tau() const { return parameters_.beta / parameters_.time_slices; }
  double lambda() const { return lambda_; }

  // Lattice vector (x, y) of site or momentum index i = x + Lx·y.
  int x_of(int index) const { return index % parameters_.Lx; }
  int y_of(int index) const { return index / parameters_.Lx; }
  // k·r for momentum index k and site index r.
  double phase(int k, int r) const;

  // e^{∓ΔτK}, K = hopping − μ: built from the band, since plane waves diagonalise K on the cluster.
  const Matrix& kinetic_propagator() const { return kinetic_propagator_; }
  const Matrix& inverse_kinetic_propagator() const { return inverse_kinetic_propagator_; }

 private:
  double band_energy(int k) const;  // ε_k − μ
  Matrix propagator(double sign) const;  // e^{−sign·ΔτK}

  HubbardParameters parameters_;
  double lambda_;
  Matrix kinetic_propagator_;
  Matrix inverse_kinetic_propagator_;
};

}  // namespace mini_qmc
