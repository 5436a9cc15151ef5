// The serial reference: the channel formulas written out as plainly as possible, sharing no code with
// the kernels beyond the walker's numbers, so that tests comparing the two mean something.
#include <Kokkos_Complex.hpp>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ringcomm/error.hpp"
#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/gt/walker.hpp"

namespace ringcomm::gt {

namespace {

using Complex = std::complex<double>;
enum Spin { up = 0, down = 1 };

// Cluster momenta by their coordinates (deliberately not through ClusterTables, which tests check).
struct Cluster {
  int Lx, Ly;
  int plus(int k, int q) const {
    return (k % Lx + q % Lx) % Lx + Lx * ((k / Lx + q / Lx) % Ly);
  }
  int q_minus(int q, int k) const {
    return (q % Lx - k % Lx + Lx) % Lx + Lx * ((q / Lx - k / Lx + Ly) % Ly);
  }
};

// What every measurement type shares: where G_σ[(b,k,w), (b',k',w')] sits in a spin's M×M block
// (column-major, w and w' on G_t's frequency axis), and D = G_up − G_down, S = G_up + G_down from
// the derived type's G().
template <class Derived>
class MeasurementBase {
 public:
  Complex D(int b, int k, int w, int bp, int kp, int wp) const {
    return g(up, b, k, w, bp, kp, wp) - g(down, b, k, w, bp, kp, wp);
  }
  Complex S(int b, int k, int w, int bp, int kp, int wp) const {
    return g(up, b, k, w, bp, kp, wp) + g(down, b, k, w, bp, kp, wp);
  }

 protected:
  explicit MeasurementBase(const Dims& dims) : dims_(dims) {}
  std::size_t offset(int b, int k, int w, int bp, int kp, int wp) const {
    return row(b, k, w) + static_cast<std::size_t>(dims_.M()) * row(bp, kp, wp);
  }
  const Dims& dims_;

 private:
  Complex g(int spin, int b, int k, int w, int bp, int kp, int wp) const {
    return static_cast<const Derived&>(*this).G(spin, b, k, w, bp, kp, wp);
  }
  std::size_t row(int b, int k, int w) const {
    const int shifted = w + dims_.E();
    return static_cast<std::size_t>(b + dims_.nb * k + dims_.nb * dims_.Nc() * shifted);
  }
};

// One measurement's G_up and G_down in double precision, indexed as the formulas are written.
class Measurement : public MeasurementBase<Measurement> {
 public:
  template <class Scalar>
  Measurement(const Dims& dims, const std::vector<Scalar>& message) : MeasurementBase(dims) {
    const std::size_t m = static_cast<std::size_t>(dims.M());
    for (int spin : {up, down}) {
      g_[spin].resize(m * m);
      for (std::size_t i = 0; i < m * m; ++i) {
        const Scalar& value = message[spin * m * m + i];
        g_[spin][i] = Complex(value.real(), value.imag());
      }
    }
    sign_ = message[2 * m * m].real();
  }

  double sign() const { return sign_; }

  Complex G(int spin, int b, int k, int w, int bp, int kp, int wp) const {
    return g_[spin][offset(b, k, w, bp, kp, wp)];
  }

 private:
  std::vector<Complex> g_[2];
  double sign_ = 0;
};

// One measurement's G_σ entries computed one at a time from the walker's stream, rounded to Scalar
// as the message would hold them: what reference_entries needs to evaluate a few G_t entries of a
// problem whose whole message would be too large to build once per measurement.
template <class Scalar>
class MeasurementEntries : public MeasurementBase<MeasurementEntries<Scalar>> {
 public:
  MeasurementEntries(const Dims& dims, const SyntheticWalker& walker, std::size_t id)
      : MeasurementEntries::MeasurementBase(dims), walker_(walker), id_(id),
        m_(static_cast<std::size_t>(dims.M())), sign_(walker.sign(id)) {}

  double sign() const { return sign_; }

  Complex G(int spin, int b, int k, int w, int bp, int kp, int wp) const {
    using Real = typename Scalar::value_type;
    const std::size_t position = static_cast<std::size_t>(spin) * m_ * m_ + this->offset(b, k, w, bp, kp, wp);
    const Complex exact = walker_.entry(id_, position);
    return Complex(static_cast<Real>(exact.real()), static_cast<Real>(exact.imag()));
  }

 private:
  const SyntheticWalker& walker_;
  std::size_t id_;
  std::size_t m_;
  double sign_;
};

// One measurement's contribution to G_t[b1,b2,b3,b4,k1,w1,k2,w2,Q,Ω] (q and W the exchange values).
// `g` is a Measurement or a MeasurementEntries: anything with sign(), G(), D() and S().
template <class Measured>
Complex contribution(const Measured& g, Channel channel, const Cluster& cluster, int n_freq, int b1,
                     int b2, int b3, int b4, int k1, int w1, int k2, int w2, int q, int W) {
  const double half_s = g.sign() / 2;
  const int opposite[2] = {down, up};
  Complex sum = 0;
  switch (channel) {
    case Channel::pp_up_down: {
      const int Q_k1 = cluster.q_minus(q, k1), Q_k2 = cluster.q_minus(q, k2);
      const int W_w1 = W + n_freq - 1 - w1, W_w2 = W + n_freq - 1 - w2;  // Ω − ω
      for (int s : {up, down})
        sum += half_s * g.G(s, b1, k1, w1, b3, k2, w2) * g.G(opposite[s], b2, Q_k1, W_w1, b4, Q_k2, W_w2);
      return sum;
    }
    case Channel::ph_transverse: {
      const int k1Q = cluster.plus(k1, q), k2Q = cluster.plus(k2, q);
      for (int s : {up, down})
        sum += -half_s * g.G(s, b2, k1, w1, b4, k2, w2) * g.G(opposite[s], b3, k2Q, w2 + W, b1, k1Q, w1 + W);
      return sum;
    }
    case Channel::ph_magnetic: {
      const int k1Q = cluster.plus(k1, q), k2Q = cluster.plus(k2, q);
      sum += half_s * g.D(b2, k1, w1, b1, k1Q, w1 + W) * g.D(b3, k2Q, w2 + W, b4, k2, w2);
      for (int s : {up, down})
        sum += -half_s * g.G(s, b3, k1, w1, b1, k2, w2) * g.G(s, b2, k2Q, w2 + W, b4, k1Q, w1 + W);
      return sum;
    }
    case Channel::ph_charge: {
      const int k1Q = cluster.plus(k1, q), k2Q = cluster.plus(k2, q);
      for (int s : {up, down})
        sum += -half_s * g.G(s, b1, k1, w1, b4, k2, w2) * g.G(s, b2, k2Q, w2 + W, b3, k1Q, w1 + W);
      sum += half_s * g.S(b2, k1, w1, b1, k1Q, w1 + W) * g.S(b3, k2Q, w2 + W, b4, k2, w2);
      return sum;
    }
  }
  throw Error("reference_gt: unknown channel");
}

// max that keeps a NaN, so that a NaN in the result can never pass a comparison.
double max_keeping_nan(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b); }

double ratio(double numerator, double denominator) {
  if (denominator == 0) return numerator == 0 ? 0 : std::numeric_limits<double>::infinity();
  return numerator / denominator;
}

}  // namespace

template <class Scalar>
std::vector<Complex> reference_gt(const Problem& problem) {
  const Dims& d = problem.dims;
  const SyntheticWalker walker(d, problem.seed, problem.measurements);
  const Cluster cluster{d.Lx, d.Ly};
  const int nb = d.nb, Nc = d.Nc(), nw = d.n_freq;
  std::vector<Complex> gt(d.entries());
  for (std::size_t id = 0; id < problem.measurements; ++id) {
    const Measurement g(d, walker.host_message<Scalar>(id));
    std::size_t entry = 0;  // advances in G_t's order: b1 fastest, Ω slowest
    for (int iW = 0; iW < d.NOmega(); ++iW)
      for (int iQ = 0; iQ < d.NQ(); ++iQ)
        for (int w2 = 0; w2 < nw; ++w2)
          for (int k2 = 0; k2 < Nc; ++k2)
            for (int w1 = 0; w1 < nw; ++w1)
              for (int k1 = 0; k1 < Nc; ++k1)
                for (int b4 = 0; b4 < nb; ++b4)
                  for (int b3 = 0; b3 < nb; ++b3)
                    for (int b2 = 0; b2 < nb; ++b2)
                      for (int b1 = 0; b1 < nb; ++b1)
                        gt[entry++] += contribution(g, problem.channel, cluster, nw, b1, b2, b3, b4, k1, w1, k2, w2,
                                                    d.exchange_momenta[iQ], d.exchange_frequencies[iW]);
  }
  return gt;
}

template <class Scalar>
ErrorNorms compare(const std::vector<Scalar>& result, const std::vector<Complex>& reference) {
  if (result.size() != reference.size())
    throw Error("compare: the result has " + std::to_string(result.size()) + " entries, the reference " +
                std::to_string(reference.size()));
  double diff_l1 = 0, diff_l2 = 0, diff_max = 0, ref_l1 = 0, ref_l2 = 0, ref_max = 0;
  for (std::size_t i = 0; i < result.size(); ++i) {
    const double diff = std::abs(Complex(result[i].real(), result[i].imag()) - reference[i]);
    const double ref = std::abs(reference[i]);
    diff_l1 += diff;
    diff_l2 += diff * diff;
    diff_max = max_keeping_nan(diff_max, diff);
    ref_l1 += ref;
    ref_l2 += ref * ref;
    ref_max = std::max(ref_max, ref);
  }
  return ErrorNorms{ratio(diff_l1, ref_l1), std::sqrt(ratio(diff_l2, ref_l2)), ratio(diff_max, ref_max)};
}

template <class Scalar>
std::vector<Complex> reference_entries(const Problem& problem, const std::vector<std::size_t>& indices) {
  const Dims& d = problem.dims;
  const SyntheticWalker walker(d, problem.seed, problem.measurements);
  const Cluster cluster{d.Lx, d.Ly};
  const int nb = d.nb, Nc = d.Nc(), nw = d.n_freq;
  std::vector<Complex> values(indices.size());
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= d.entries())
      throw Error("reference_entries: entry " + std::to_string(indices[i]) + " is outside G_t's " +
                  std::to_string(d.entries()) + " entries");
    // G_t's order, b1 fastest and Ω slowest, taken apart digit by digit.
    std::size_t rest = indices[i];
    auto digit = [&rest](int base) {
      const int value = static_cast<int>(rest % static_cast<std::size_t>(base));
      rest /= static_cast<std::size_t>(base);
      return value;
    };
    const int b1 = digit(nb), b2 = digit(nb), b3 = digit(nb), b4 = digit(nb);
    const int k1 = digit(Nc), w1 = digit(nw), k2 = digit(Nc), w2 = digit(nw);
    const int iQ = digit(d.NQ()), iW = digit(d.NOmega());
    for (std::size_t id = 0; id < problem.measurements; ++id)
      values[i] += contribution(MeasurementEntries<Scalar>(d, walker, id), problem.channel, cluster, nw, b1, b2, b3,
                                b4, k1, w1, k2, w2, d.exchange_momenta[iQ], d.exchange_frequencies[iW]);
  }
  return values;
}

template std::vector<Complex> reference_entries<Kokkos::complex<double>>(const Problem&, const std::vector<std::size_t>&);
template std::vector<Complex> reference_entries<Kokkos::complex<float>>(const Problem&, const std::vector<std::size_t>&);
template std::vector<Complex> reference_gt<Kokkos::complex<double>>(const Problem&);
template std::vector<Complex> reference_gt<Kokkos::complex<float>>(const Problem&);
template ErrorNorms compare(const std::vector<Kokkos::complex<double>>&, const std::vector<Complex>&);
template ErrorNorms compare(const std::vector<Kokkos::complex<float>>&, const std::vector<Complex>&);

}  // namespace ringcomm::gt
