#include "momentum_frequency_transform.hpp"

#include <string>

#include "ringcomm/error.hpp"

namespace mini_qmc {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

MomentumFrequencyTransform::MomentumFrequencyTransform(const HubbardModel& model, const ringcomm::gt::Dims& dims)
    : rows_(dims.M()),
      columns_(model.sites() * model.time_slices()),
      extended_shift_(dims.E() + dims.n_freq / 2),
      scale_(model.delta_tau() * model.delta_tau() / (model.parameters().beta * model.sites())) {
  const auto& p = model.parameters();
  if (dims.nb != 1) throw ringcomm::Error("mini_qmc's Hubbard model has one orbital: G_t needs nb = 1");
  if (dims.Lx != p.Lx || dims.Ly != p.Ly)
    throw ringcomm::Error("G_t's cluster must be the model's: " + std::to_string(p.Lx) + "x" + std::to_string(p.Ly));
  if (dims.Nw_ext() > model.time_slices())
    throw ringcomm::Error("g_t needs " + std::to_string(dims.Nw_ext()) +
                          " Matsubara frequencies (n_freq + 2*max(exchange_frequencies)), but a grid of model.time_slices=" +
                          std::to_string(model.time_slices()) + " resolves only that many: raise time_slices or lower n_freq");
  const int nc = model.sites();
  phases_.resize(static_cast<std::size_t>(rows_) * columns_);
  for (int w = 0; w < dims.Nw_ext(); ++w) {
    const double omega = (2 * matsubara_index(w) + 1) * kPi / p.beta;
    for (int k = 0; k < nc; ++k) {
      std::complex<double>* row = &phases_[static_cast<std::size_t>(k + nc * w) * columns_];
      for (int a = 0; a < model.time_slices(); ++a)
        for (int i = 0; i < nc; ++i)
          row[i + nc * a] = std::polar(1.0, omega * a * model.delta_tau() - model.phase(k, i));
    }
  }
}

void MomentumFrequencyTransform::apply(const TimeDisplacedGreen& g, Kokkos::complex<double>* out) const {
  // T·G first (M × N·L, row-major so that both factors of every dot product are contiguous), then
  // (T·G)·T^H.
  const auto n = static_cast<std::size_t>(columns_);
  std::vector<std::complex<double>> left(static_cast<std::size_t>(rows_) * n);
  for (int r = 0; r < rows_; ++r) {
    const std::complex<double>* phase_row = &phases_[r * n];
    for (std::size_t c = 0; c < n; ++c) {
      const double* g_column = &g.values[c * n];
      std::complex<double> sum = 0.0;
      for (std::size_t d = 0; d < n; ++d) sum += phase_row[d] * g_column[d];
      left[r * n + c] = sum;
    }
  }
  for (int s = 0; s < rows_; ++s) {
    const std::complex<double>* phase_row = &phases_[s * n];
    for (int r = 0; r < rows_; ++r) {
      const std::complex<double>* left_row = &left[r * n];
      // Written out: std::complex's operator* guards against inf/nan at a cost of several times the work.
      double re = 0.0, im = 0.0;
      for (std::size_t c = 0; c < n; ++c) {
        re += left_row[c].real() * phase_row[c].real() + left_row[c].imag() * phase_row[c].imag();
        im += left_row[c].imag() * phase_row[c].real() - left_row[c].real() * phase_row[c].imag();
      }
      out[r + static_cast<std::size_t>(rows_) * s] = Kokkos::complex<double>(re * scale_, im * scale_);
    }
  }
}

}  // namespace mini_qmc
