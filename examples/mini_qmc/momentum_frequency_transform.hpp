#pragma once
// From the walker's G_σ(i, τ1; j, τ2) to the matrix ringcomm's G_t kernels read (ringcomm/gt/dims.hpp):
//
//   G_σ(k1, ω1; k2, ω2) = Δτ² / (β·Nc) · Σ_{i,a,j,b} e^{−i k1·r_i + i ω1 τ_a} G_σ(i, τ_a; j, τ_b) e^{+i k2·r_j − i ω2 τ_b}
//
// the cluster Fourier transform in space and a plain Riemann sum over the time grid τ_a = aΔτ in time.
// Row and column (k, w) sit at k + Nc·w (nb = 1), w on the extended frequency axis of Nw_ext = 2n + 2E
// points: w ↔ ω = (2ν + 1)π/β with ν = w − E − n. A grid of L slices resolves L distinct fermionic
// frequencies, so Nw_ext ≤ L is required; frequencies near the edge of that range are rough (toy level:
// a real code transforms continuous-time vertices or interpolates).
#include <Kokkos_Complex.hpp>
#include <complex>
#include <vector>

#include "auxiliary_field_walker.hpp"
#include "hubbard_model.hpp"
#include "ringcomm/gt/dims.hpp"

namespace mini_qmc {

class MomentumFrequencyTransform {
 public:
  // Throws ringcomm::Error when dims and model disagree (cluster, nb = 1, Nw_ext ≤ L).
  MomentumFrequencyTransform(const HubbardModel& model, const ringcomm::gt::Dims& dims);

  // Writes the M × M matrix, column-major, to `out`.
  void apply(const TimeDisplacedGreen& g, Kokkos::complex<double>* out) const;

  // ν of extended frequency index w.
  int matsubara_index(int w) const { return w - extended_shift_; }

 private:
  int rows_;      // M = Nc·Nw_ext
  int columns_;   // N·L: the walker's (site, slice) index
  int extended_shift_;  // E + n
  double scale_;  // Δτ² / (β·Nc)
  std::vector<std::complex<double>> phases_;  // row-major M × N·L: e^{−i k·r_i + i ω τ_a}
};

}  // namespace mini_qmc
