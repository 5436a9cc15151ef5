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

RunSummary run_simulation(const RunSettings& settings) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const ringcomm::gt::Dims& dims = settings.dims;
  const MonteCarloSettings& mc = settings.monte_carlo;

  // What ringcomm provides: who talks to whom, the transport, the ring and the distributed G_t.
  ringcomm::Topology topology(MPI_COMM_WORLD, ringcomm::requested_ring_size(ranks));
  ringcomm::TransportContext context;
  context.memory = ringcomm::data_memory_kind();
  auto selection = ringcomm::select_transport(ringcomm::requested_transport(), context);
  ringcomm::Ring ring(*selection.transport, topology, dims.message_entries() * sizeof(GtScalar));
  ringcomm::DistributedArray<GtScalar> gt(topology, dims.entries(), "mini_qmc G_t");
  Kokkos::deep_copy(gt.local(), GtScalar(0.0));
  const ringcomm::gt::GtAccumulator<GtScalar> accumulate(dims, settings.channel, gt.local(), gt.range());

  // What a QMC code provides: the walker and the G_σ it measures.
  const HubbardModel model(settings.model);
  const MomentumFrequencyTransform transform(model, dims);
  AuxiliaryFieldWalker walker(model, mc.seed, static_cast<std::uint64_t>(rank), mc.recompute_every);
  std::vector<GtScalar> message(dims.message_entries());
  EqualTimeSums sums;

  double walker_seconds = 0, ring_seconds = 0;
  double start = MPI_Wtime();
  for (int sweep = 0; sweep < mc.warmup_sweeps; ++sweep) walker.sweep();
  for (int measurement = 0; measurement < mc.measurements; ++measurement) {
    for (int sweep = 0; sweep < mc.sweeps_per_measurement; ++sweep) walker.sweep();
    sums.add(walker, model.sites());
    write_message(walker, transform, dims, message);
    // The outgoing slot may still be read by the previous round's last kernels.
    Kokkos::fence();
    ringcomm::copy_bytes(ring.outgoing(), ringcomm::data_memory_kind(), message.data(), ringcomm::MemoryKind::host,
                         ring.message_bytes());
    const double walker_done = MPI_Wtime();
    walker_seconds += walker_done - start;
    ring.circulate(accumulate);
    start = MPI_Wtime();
    ring_seconds += start - walker_done;
  }
  Kokkos::fence();
  ring_seconds += MPI_Wtime() - start;

  // Sub-rings hold partial sums; the estimator is Σ sign·G_t / Σ sign over every measurement.
  gt.sum_across_rings();
  double totals[5] = {sums.sign, sums.density, sums.double_occupancy, static_cast<double>(walker.acceptance().accepted),
                      static_cast<double>(walker.acceptance().proposed)};
  ringcomm::allreduce_in_place(totals, 5, MPI_SUM, MPI_COMM_WORLD);
  ringcomm::agree(MPI_COMM_WORLD, totals[0] != 0.0,
                  "the signs of all measurements sum to zero: the sign problem is too severe for this run");
  scale_slice(gt, 1.0 / totals[0]);
  gt.write_npy(settings.gt_path, gt_file_shape(dims));

  RunSummary summary;
  summary.transport = selection.transport->name();
  summary.topology = topology.describe();
  summary.ranks = ranks;
  summary.measurements = static_cast<long long>(mc.measurements) * ranks;
  summary.acceptance_rate = totals[4] > 0 ? totals[3] / totals[4] : 0.0;
  summary.average_sign = totals[0] / summary.measurements;
  summary.density = totals[1] / totals[0];
  summary.double_occupancy = totals[2] / totals[0];
  summary.max_wrap_error = max_over_ranks(walker.max_wrap_error());
  summary.walker_seconds = max_over_ranks(walker_seconds);
  summary.ring_seconds = max_over_ranks(ring_seconds);
  summary.message_bytes = ring.message_bytes();
  summary.gt_entries = dims.entries();
  summary.gt_bytes_per_rank = static_cast<std::size_t>(max_over_ranks(static_cast<double>(gt.bytes_per_rank())));
  return summary;
}

}  // namespace mini_qmc
