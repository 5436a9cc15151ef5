#include "hubbard_model.hpp"

#include <cmath>
#include <string>

#include "ringcomm/error.hpp"

namespace mini_qmc {

namespace {

[[noreturn]] void reject(const std::string& field, double value, const std::string& allowed) {
  throw ringcomm::Error("model." + field + "=" + std::to_string(value) + " is not valid: expected " + allowed);
}

constexpr double kPi = 3.14159265358979323846;

}  // namespace

void HubbardParameters::validate() const {
  if (Lx < 1 || Lx > 16) reject("Lx", Lx, "an integer in [1, 16]");
  if (Ly < 1 || Ly > 16) reject("Ly", Ly, "an integer in [1, 16]");
  if (!(U >= 0.0)) reject("U", U, "U >= 0 (the real Hubbard-Stratonovich field needs a repulsive U)");
  if (!(beta > 0.0)) reject("beta", beta, "beta > 0");
  if (time_slices < 2) reject("time_slices", time_slices, "an integer >= 2");
  if (!std::isfinite(t)) reject("t", t, "a finite hopping");
  if (!std::isfinite(mu)) reject("mu", mu, "a finite chemical potential");
}

HubbardModel::HubbardModel(const HubbardParameters& parameters) : parameters_(parameters) {
  parameters_.validate();
  lambda_ = std::acosh(std::exp(0.5 * delta_tau() * parameters_.U));
  kinetic_propagator_ = propagator(+1.0);
  inverse_kinetic_propagator_ = propagator(-1.0);
}

double HubbardModel::phase(int k, int r) const {
  return 2.0 * kPi * (static_cast<double>(x_of(k) * x_of(r)) / parameters_.Lx +
                      static_cast<double>(y_of(k) * y_of(r)) / parameters_.Ly);
}

double HubbardModel::band_energy(int k) const {
  double energy = 0.0;
  if (parameters_.Lx > 1) energy -= 2.0 * parameters_.t * std::cos(2.0 * kPi * x_of(k) / parameters_.Lx);
  if (parameters_.Ly > 1) energy -= 2.0 * parameters_.t * std::cos(2.0 * kPi * y_of(k) / parameters_.Ly);
  return energy - parameters_.mu;
}

Matrix HubbardModel::propagator(double sign) const {
  // e^{−sΔτK}_ij = (1/Nc) Σ_k e^{i k·(r_i − r_j)} e^{−sΔτ(ε_k − μ)}; ε_k = ε_{−k} makes it real.
  const int n = sites();
  Matrix result(n);
  for (int k = 0; k < n; ++k) {
    const double weight = std::exp(-sign * delta_tau() * band_energy(k)) / n;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) result(i, j) += weight * std::cos(phase(k, i) - phase(k, j));
  }
  return result;
}

}  // namespace mini_qmc
