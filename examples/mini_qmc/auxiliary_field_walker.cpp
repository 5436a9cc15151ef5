#include "auxiliary_field_walker.hpp"

#include <cmath>

#include "ringcomm/gt/walker.hpp"  // splitmix64

namespace mini_qmc {

UniformStream::UniformStream(std::uint64_t seed, std::uint64_t stream)
    : key_(ringcomm::gt::splitmix64(ringcomm::gt::splitmix64(seed) ^ (stream * 0xd1b54a32d192ed03ull))) {}

double UniformStream::next() {
  const std::uint64_t word = ringcomm::gt::splitmix64(key_ + counter_++ * 0x9e3779b97f4a7c15ull);
  return static_cast<double>(word >> 11) * 0x1p-53;  // the top 53 bits: exactly representable
}

AuxiliaryFieldWalker::AuxiliaryFieldWalker(const HubbardModel& model, std::uint64_t seed, std::uint64_t stream,
                                           int recompute_every)
    : model_(model),
      recompute_every_(recompute_every < 1 ? 1 : recompute_every),
      random_(seed, stream),
      fields_(static_cast<std::size_t>(model.sites()) * model.time_slices()) {
  for (int& s : fields_) s = random_.next() < 0.5 ? -1 : 1;
  const int last = model_.time_slices();
  for (int spin : {up, down}) {
    const LuDecomposition lu(one_plus_cyclic_product(spin, last));
    sign_ *= lu.determinant_sign();
    green_[spin] = lu.inverse();
  }
}

std::vector<double> AuxiliaryFieldWalker::field_factors(int spin, int slice, double extra_sign) const {
  std::vector<double> factors(model_.sites());
  const double exponent = extra_sign * spin_sign(spin) * model_.lambda();
  for (int i = 0; i < model_.sites(); ++i) factors[i] = std::exp(exponent * field(i, slice));
  return factors;
}

Matrix AuxiliaryFieldWalker::apply_slice(int spin, int slice, const Matrix& m) const {
  return scale_rows(field_factors(spin, slice, +1.0), model_.kinetic_propagator() * m);
}

Matrix AuxiliaryFieldWalker::apply_inverse_slice(int spin, int slice, const Matrix& m) const {
  return scale_columns(m * model_.inverse_kinetic_propagator(), field_factors(spin, slice, -1.0));
}

Matrix AuxiliaryFieldWalker::one_plus_cyclic_product(int spin, int slice) const {
  const int slices = model_.time_slices();
  Matrix product = Matrix::identity(model_.sites());
  for (int step = 1; step <= slices; ++step) {
    const int l = (slice + step - 1) % slices + 1;  // slice+1, …, L, 1, …, slice
    product = apply_slice(spin, l, product);
  }
  return product + Matrix::identity(model_.sites());
}

Matrix AuxiliaryFieldWalker::fresh_green(int spin, int slice) const {
  return LuDecomposition(one_plus_cyclic_product(spin, slice)).inverse();
}

void AuxiliaryFieldWalker::propose_flip(int site, int slice) {
  const int s = field(site, slice);
  double delta[2];
  double ratio[2];
  for (int spin : {up, down}) {
    delta[spin] = std::exp(-2.0 * spin_sign(spin) * model_.lambda() * s) - 1.0;
    ratio[spin] = 1.0 + delta[spin] * (1.0 - green_[spin](site, site));
  }
  const double weight_ratio = ratio[up] * ratio[down];
  ++acceptance_.proposed;
  if (random_.next() >= std::fabs(weight_ratio)) return;
  ++acceptance_.accepted;
  field(site, slice) = -s;
  if (weight_ratio < 0) sign_ = -sign_;
  const int n = model_.sites();
  for (int spin : {up, down}) {
    Matrix& g = green_[spin];
    const double factor = delta[spin] / ratio[spin];
    std::vector<double> column(n), row(n);
    for (int x = 0; x < n; ++x) {
      column[x] = g(x, site) * factor;
      row[x] = (x == site ? 1.0 : 0.0) - g(site, x);
    }
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) g(x, y) -= column[x] * row[y];
  }
}

void AuxiliaryFieldWalker::sweep() {
  // green_ holds G at slice L (≡ τ = 0) between sweeps.
  const int slices = model_.time_slices();
  for (int slice = 1; slice <= slices; ++slice) {
    for (int spin : {up, down}) {
      Matrix wrapped = apply_inverse_slice(spin, slice, apply_slice(spin, slice, green_[spin]));
      if (slice % recompute_every_ == 0) {
        Matrix fresh = fresh_green(spin, slice);
        max_wrap_error_ = std::fmax(max_wrap_error_, max_abs_difference(wrapped, fresh));
        wrapped = std::move(fresh);
      }
      green_[spin] = std::move(wrapped);
    }
    for (int site = 0; site < model_.sites(); ++site) propose_flip(site, slice);
  }
}

TimeDisplacedGreen AuxiliaryFieldWalker::time_displaced_green(int spin) const {
  const int n = model_.sites();
  const int slices = model_.time_slices();
  // Equal-time G at τ_a = aΔτ is G at slice a, with slice 0 ≡ slice L.
  std::vector<Matrix> equal_time(slices);
  for (int a = 0; a < slices; ++a) equal_time[a] = fresh_green(spin, a == 0 ? slices : a);

  TimeDisplacedGreen result{n, slices, std::vector<double>(static_cast<std::size_t>(n * slices) * (n * slices))};
  auto store = [&](int a, int b, const Matrix& block) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        result.values[(i + static_cast<std::size_t>(n) * a) +
                      static_cast<std::size_t>(n) * slices * (j + static_cast<std::size_t>(n) * b)] = block(i, j);
  };
  for (int b = 0; b < slices; ++b) {
    // τ1 ≥ τ2: G(τ_a, τ_b) = B(a)…B(b+1) G(τ_b).
    Matrix later = equal_time[b];
    store(b, b, later);
    for (int a = b + 1; a < slices; ++a) {
      later = apply_slice(spin, a, later);
      store(a, b, later);
    }
  }
  for (int a = 0; a < slices; ++a) {
    // τ1 < τ2: G(τ_a, τ_b) = −(1 − G(τ_a)) B(a+1)⁻¹…B(b)⁻¹.
    Matrix earlier = equal_time[a] - Matrix::identity(n);
    for (int b = a + 1; b < slices; ++b) {
      earlier = apply_inverse_slice(spin, b, earlier);
      store(a, b, earlier);
    }
  }
  return result;
}

}  // namespace mini_qmc
