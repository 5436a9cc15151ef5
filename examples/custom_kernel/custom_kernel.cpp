// custom_kernel: a consume functor of one's own next to ringcomm's GtAccumulator, on the same rings.
//
// Each round every walker thread of every rank writes one measurement (G_up, G_down, sign;
// SyntheticWalker stands in for a QMC walker) as its message, and the session's rings feed every
// message of the sub-ring to two consumers at once:
//   - ringcomm's GtAccumulator, which adds to this rank's slice of G_t, and
//   - BubbleAccumulator below, which adds to this rank's slice of a different array: the particle-hole
//     bubble  chi0(q, Ω) = Σ_σ Σ_{k,ω} G_σ(k,ω; k,ω) · G_σ(k+q, ω+Ω; k+q, ω+Ω)  (times the sign),
//     for every cluster momentum q and Ω = 0 … E, split over the ring like G_t.
// Both results are then checked against serial references on rank 0: exit status 1 on a mismatch.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/walker.hpp"
#include "ringcomm/ringcomm.hpp"

namespace {

using Scalar = Kokkos::complex<double>;
using ringcomm::gt::Dims;
using Message = ringcomm::MessageRings<Scalar>::Message;            // what produce writes
using ConstMessage = ringcomm::MessageRings<Scalar>::ConstMessage;  // what consume reads

// Position of the diagonal entry G[(k, w), (k, w)] in a G_σ matrix (nb = 1), w on G_t's frequency axis.
KOKKOS_INLINE_FUNCTION std::size_t diagonal_at(int k, int w, int nc, int e_shift, std::size_t m) {
  const std::size_t row = static_cast<std::size_t>(k + nc * (w + e_shift));
  return row + m * row;
}

// One thread per chi0 entry of the slice: entry = q + Nc·Ω.
struct BubbleKernel {
  Kokkos::View<Scalar*> slice;
  std::size_t first_entry;
  Kokkos::View<const int*> add;  // add[k + Nc·q] = k + q
  ConstMessage message;
  int nc, n_freq, e_shift;
  std::size_t m;

  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i) const {
    const double sign = message(2 * m * m).real();
    if (sign == 0.0) return;  // padding
    const int entry = static_cast<int>(first_entry + i);
    const int q = entry % nc, omega = entry / nc;
    const Scalar* spins[2] = {message.data(), message.data() + m * m};
    Scalar sum(0.0, 0.0);
    for (const Scalar* g : spins)
      for (int w = 0; w < n_freq; ++w)
        for (int k = 0; k < nc; ++k)
          sum += g[diagonal_at(k, w, nc, e_shift, m)] * g[diagonal_at(add(k + nc * q), w + omega, nc, e_shift, m)];
    // Walker threads consume at the same time: real and imaginary parts are added atomically.
    double* parts = reinterpret_cast<double*>(&slice(i));
    Kokkos::atomic_add(parts, sign * sum.real());
    Kokkos::atomic_add(parts + 1, sign * sum.imag());
  }
};

// The consume functor: called by Ring::circulate with each message of the sub-ring.
class BubbleAccumulator {
 public:
  BubbleAccumulator(const Dims& dims, const ringcomm::DistributedArray<Scalar>& chi0) : dims_(dims), chi0_(chi0) {
    const ringcomm::gt::ClusterTables tables = ringcomm::gt::make_cluster_tables(dims.Lx, dims.Ly);
    Kokkos::View<int*> add("cluster add table", tables.add.size());
    Kokkos::deep_copy(add, Kokkos::View<const int*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(tables.add.data(),
                                                                                                 tables.add.size()));
    add_ = add;
  }

  void operator()(const ConstMessage& message, const ringcomm::ConsumeContext& context) const {
    const BubbleKernel kernel{chi0_.local(), chi0_.range().begin, add_,     message, dims_.Nc(),
                              dims_.n_freq,  dims_.E(),           static_cast<std::size_t>(dims_.M())};
    Kokkos::parallel_for("custom_kernel: bubble",
                         Kokkos::RangePolicy<ringcomm::ExecSpace>(context.exec, 0, chi0_.local().extent(0)), kernel);
  }

  static std::size_t entries(const Dims& dims) { return static_cast<std::size_t>(dims.Nc()) * (dims.E() + 1); }

 private:
  Dims dims_;
  const ringcomm::DistributedArray<Scalar>& chi0_;
  Kokkos::View<const int*> add_;
};

// chi0 from the same measurements, serially and in the plainest form.
std::vector<std::complex<double>> reference_bubble(const ringcomm::gt::Problem& problem) {
  const Dims& d = problem.dims;
  const ringcomm::gt::SyntheticWalker walker(d, problem.seed, problem.measurements);
  const auto m = static_cast<std::size_t>(d.M());
  std::vector<std::complex<double>> chi0(BubbleAccumulator::entries(d));
  for (std::size_t id = 0; id < problem.measurements; ++id) {
    const std::vector<Scalar> message = walker.host_message<Scalar>(id);
    auto g = [&](int spin, int kx, int ky, int w) {
      const int k = (kx % d.Lx) + d.Lx * (ky % d.Ly);
      const Scalar value = message[spin * m * m + diagonal_at(k, w, d.Nc(), d.E(), m)];
      return std::complex<double>(value.real(), value.imag());
    };
    for (int omega = 0; omega <= d.E(); ++omega)
      for (int q = 0; q < d.Nc(); ++q)
        for (int spin = 0; spin < 2; ++spin)
          for (int w = 0; w < d.n_freq; ++w)
            for (int k = 0; k < d.Nc(); ++k) {
              const int kx = k % d.Lx, ky = k / d.Lx, qx = q % d.Lx, qy = q / d.Lx;
              chi0[q + d.Nc() * omega] +=
                  message[2 * m * m].real() * g(spin, kx, ky, w) * g(spin, kx + qx, ky + qy, w + omega);
            }
  }
  return chi0;
}

constexpr const char* kHelp =
    "custom_kernel [--rounds N]: runs a consume functor of its own (the particle-hole bubble chi0(q, Omega) from\n"
    "each measurement's G_sigma) next to ringcomm's GtAccumulator on the same rings, and checks both results\n"
    "against serial references; exit status 1 on a mismatch. --rounds: measurements per walker thread and rank\n"
    "(default 4). Run under mpirun; every RINGCOMM_* setting applies (docs/environment.md).\n";

int parse_rounds(int argc, char** argv) {
  int rounds = 4;
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name != "--rounds" || i + 1 >= argc) throw ringcomm::Error("unknown option " + name + " (see --help)");
    rounds = static_cast<int>(ringcomm::settings::parse_integer(argv[++i], "--rounds", 1, 1000));
  }
  return rounds;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::printf("%s", kHelp);  // before MPI and Kokkos, which have --help of their own
      return 0;
    }
  return ringcomm::run(argc, argv, [&](ringcomm::Session& session) {
    const int rounds = ringcomm::collectively(MPI_COMM_WORLD, [&] { return parse_rounds(argc, argv); });
    const int threads = session.schedule().threads;
    ringcomm::gt::Problem problem;
    problem.dims.Lx = 4;
    problem.dims.Ly = 4;
    problem.dims.n_freq = 8;
    problem.dims.exchange_momenta = {0, 10};
    problem.dims.exchange_frequencies = {0, 2};
    problem.channel = ringcomm::gt::Channel::ph_charge;
    problem.seed = 11;
    problem.measurements = static_cast<std::size_t>(rounds) * session.ranks() * threads;
    const Dims& dims = problem.dims;

    auto& gt = session.array<Scalar>(dims.entries(), "G_t");
    auto& chi0 = session.array<Scalar>(BubbleAccumulator::entries(dims), "chi0");
    auto& messages = session.messages<Scalar>(dims.message_entries());
    // One G_t accumulator per walker thread, on that thread's execution space instance.
    std::vector<ringcomm::gt::GtAccumulator<Scalar>> accumulate_gt;
    for (int thread = 0; thread < threads; ++thread)
      accumulate_gt.emplace_back(dims, problem.channel, gt.local(), gt.range(), messages.exec(thread),
                                 threads > 1 ? ringcomm::gt::Updates::concurrent : ringcomm::gt::Updates::exclusive);
    const BubbleAccumulator accumulate_chi0(dims, chi0);

    const ringcomm::gt::SyntheticWalker walker(dims, problem.seed, problem.measurements);
    messages.run(
        rounds,
        [&](const Message& message, const ringcomm::ProduceContext& context) {
          // The session numbers measurements 0 … N−1 over the job, so gt::reference_gt applies.
          walker.write<Scalar>(context.measurement, message.data(), context.exec);
        },
        [&](const ConstMessage& message, const ringcomm::ConsumeContext& context) {
          accumulate_gt[static_cast<std::size_t>(context.thread)](message.data(), context.origin);
          accumulate_chi0(message, context);
        });
    gt.sum_across_rings();
    chi0.sum_across_rings();
    const std::vector<Scalar> gt_all = gt.gather();
    const std::vector<Scalar> chi0_all = chi0.gather();

    bool ok = true;
    std::string failure;
    if (session.rank() == 0) {
      const auto gt_error = ringcomm::gt::compare(gt_all, ringcomm::gt::reference_gt<Scalar>(problem));
      const auto chi0_error = ringcomm::gt::compare(chi0_all, reference_bubble(problem));
      constexpr double kTolerance = 1e-12;  // only the order of the sums differs
      ok = gt_error.linf <= kTolerance && chi0_error.linf <= kTolerance;
      std::printf("custom_kernel: %s, %zu measurements\n", session.describe().c_str(), problem.measurements);
      std::printf("  chi0(q, Omega), %zu entries, against its serial reference: l1 %.2e, l2 %.2e, linf %.2e\n",
                  chi0_all.size(), chi0_error.l1, chi0_error.l2, chi0_error.linf);
      std::printf("  G_t (%s), %zu entries, against gt::reference_gt:       l1 %.2e, l2 %.2e, linf %.2e\n",
                  ringcomm::gt::to_string(problem.channel).c_str(), gt_all.size(), gt_error.l1, gt_error.l2,
                  gt_error.linf);
      std::printf("  %s (tolerance %.0e)\n", ok ? "both match" : "MISMATCH", kTolerance);
      failure = "a ring result differs from its serial reference (errors above)";
    }
    ringcomm::agree(MPI_COMM_WORLD, ok, failure);
    return 0;
  });
}
