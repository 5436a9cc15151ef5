#include "simulation.hpp"

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "auxiliary_field_walker.hpp"
#include "gt_file.hpp"
#include "momentum_frequency_transform.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/ringcomm.hpp"

namespace mini_qmc {

namespace {

using GtScalar = Kokkos::complex<double>;

// Sign-weighted sums of one rank's equal-time observables.
struct EqualTimeSums {
  double sign = 0;
  double density = 0;
  double double_occupancy = 0;

  void add(const AuxiliaryFieldWalker& walker, int sites) {
    const Matrix& g_up = walker.equal_time_green(up);
    const Matrix& g_down = walker.equal_time_green(down);
    double n = 0, d = 0;
    for (int i = 0; i < sites; ++i) {
      const double n_up = 1.0 - g_up(i, i), n_down = 1.0 - g_down(i, i);
      n += n_up + n_down;
      d += n_up * n_down;  // Wick's theorem for one field configuration
    }
    const double s = walker.sign();
    sign += s;
    density += s * n / sites;
    double_occupancy += s * d / sites;
  }
};

double max_over_ranks(double value) {
  return ringcomm::allreduce_value(value, MPI_MAX, MPI_COMM_WORLD);
}

// The measurement's message in the layout GtAccumulator reads: G_↑ (M²), G_↓ (M²), sign.
void write_message(const AuxiliaryFieldWalker& walker, const MomentumFrequencyTransform& transform,
                   const ringcomm::gt::Dims& dims, std::vector<GtScalar>& message) {
  const std::size_t matrix_entries = static_cast<std::size_t>(dims.M()) * dims.M();
  transform.apply(walker.time_displaced_green(up), message.data());
  transform.apply(walker.time_displaced_green(down), message.data() + matrix_entries);
  message[2 * matrix_entries] = GtScalar(walker.sign(), 0.0);
}

// One walker thread's Markov chain and what it has measured.
struct Chain {
  AuxiliaryFieldWalker walker;
  std::vector<GtScalar> message;
  EqualTimeSums sums;
  double seconds = 0;
};

struct ScaleSlice {
  Kokkos::View<GtScalar*> slice;
  double factor;
  KOKKOS_INLINE_FUNCTION void operator()(const std::size_t i) const { slice(i) *= factor; }
};

void scale_slice(const ringcomm::DistributedArray<GtScalar>& gt, double factor) {
  Kokkos::parallel_for("mini_qmc: normalise G_t", Kokkos::RangePolicy<ringcomm::ExecSpace>(0, gt.local().extent(0)),
                       ScaleSlice{gt.local(), factor});
  Kokkos::fence();
}

}  // namespace

RunSummary run_simulation(const RunSettings& settings, ringcomm::Session& session) {
  const ringcomm::gt::Dims& dims = settings.dims;
  const MonteCarloSettings& mc = settings.monte_carlo;

  // What ringcomm provides: the distributed G_t and the rings of every walker thread.
  auto& gt = session.array<GtScalar>(dims.entries(), "mini_qmc G_t");
  auto& messages = session.messages<GtScalar>(dims.message_entries());
  const int threads = messages.threads();
  std::vector<ringcomm::gt::GtAccumulator<GtScalar>> accumulate;  // one per walker thread
  for (int thread = 0; thread < threads; ++thread)
    accumulate.emplace_back(dims, settings.channel, gt.local(), gt.range(), messages.exec(thread),
                            threads > 1 ? ringcomm::gt::Updates::concurrent : ringcomm::gt::Updates::exclusive);

  // What a QMC code provides: a walker per thread (chain rank·threads + thread) and the G_σ it measures.
  const HubbardModel model(settings.model);
  const MomentumFrequencyTransform transform(model, dims);
  std::vector<Chain> chains;
  for (int thread = 0; thread < threads; ++thread)
    chains.push_back({AuxiliaryFieldWalker(model, mc.seed, static_cast<std::uint64_t>(session.rank()) * threads + thread,
                                           mc.recompute_every),
                      std::vector<GtScalar>(dims.message_entries()), EqualTimeSums{}, 0.0});

  const double start = MPI_Wtime();
  messages.run(
      static_cast<std::size_t>(mc.measurements),
      [&](const ringcomm::MessageRings<GtScalar>::Message& message, const ringcomm::ProduceContext& context) {
        Chain& chain = chains[static_cast<std::size_t>(context.thread)];
        const double began = MPI_Wtime();
        if (context.round == 0)
          for (int sweep = 0; sweep < mc.warmup_sweeps; ++sweep) chain.walker.sweep();
        for (int sweep = 0; sweep < mc.sweeps_per_measurement; ++sweep) chain.walker.sweep();
        chain.sums.add(chain.walker, model.sites());
        write_message(chain.walker, transform, dims, chain.message);
        ringcomm::copy_into_message(message, chain.message.data(), chain.message.size(), context.exec);
        chain.seconds += MPI_Wtime() - began;
      },
      [&](const ringcomm::MessageRings<GtScalar>::ConstMessage& message, const ringcomm::ConsumeContext& context) {
        accumulate[static_cast<std::size_t>(context.thread)](message.data(), context.origin);
      });
  double walker_seconds = 0;
  EqualTimeSums sums;
  std::uint64_t accepted = 0, proposed = 0;
  double wrap_error = 0;
  for (const Chain& chain : chains) {
    walker_seconds = std::max(walker_seconds, chain.seconds);
    sums.sign += chain.sums.sign, sums.density += chain.sums.density;
    sums.double_occupancy += chain.sums.double_occupancy;
    accepted += chain.walker.acceptance().accepted, proposed += chain.walker.acceptance().proposed;
    wrap_error = std::max(wrap_error, chain.walker.max_wrap_error());
  }
  const double ring_seconds = MPI_Wtime() - start - walker_seconds;

  // Sub-rings hold partial sums; the estimator is Σ sign·G_t / Σ sign over every measurement.
  gt.sum_across_rings();
  double totals[5] = {sums.sign, sums.density, sums.double_occupancy, static_cast<double>(accepted),
                      static_cast<double>(proposed)};
  ringcomm::allreduce_in_place(totals, 5, MPI_SUM, MPI_COMM_WORLD);
  ringcomm::agree(MPI_COMM_WORLD, totals[0] != 0.0,
                  "the signs of all measurements sum to zero: the sign problem is too severe for this run");
  scale_slice(gt, 1.0 / totals[0]);
  gt.write_npy(settings.gt_path, gt_file_shape(dims));

  RunSummary summary;
  summary.transport = session.transport().name();
  summary.topology = session.describe();
  summary.ranks = session.ranks();
  summary.measurements = static_cast<long long>(mc.measurements) * session.ranks() * threads;
  summary.acceptance_rate = totals[4] > 0 ? totals[3] / totals[4] : 0.0;
  summary.average_sign = totals[0] / summary.measurements;
  summary.density = totals[1] / totals[0];
  summary.double_occupancy = totals[2] / totals[0];
  summary.max_wrap_error = max_over_ranks(wrap_error);
  summary.walker_seconds = max_over_ranks(walker_seconds);
  summary.ring_seconds = max_over_ranks(ring_seconds);
  summary.message_bytes = messages.message_bytes();
  summary.gt_entries = dims.entries();
  summary.gt_bytes_per_rank = static_cast<std::size_t>(max_over_ranks(static_cast<double>(gt.bytes_per_rank())));
  return summary;
}

}  // namespace mini_qmc
