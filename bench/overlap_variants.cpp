#include "overlap_variants.hpp"

#include <mpi.h>

#include <cmath>

#include "bench_support.hpp"
#include "ringcomm/gt/walker.hpp"

namespace ringcomm::bench {

namespace {

// Measurement ids only have to differ and be real (not padding), so the walker gets room for all.
constexpr std::size_t kWalkerMeasurements = std::size_t(1) << 40;

WalkerSchedule one_way(int threads, StepSchedule steps) {
  WalkerSchedule schedule;
  schedule.threads = threads;
  schedule.directions = Directions::uni;
  schedule.steps = steps;
  return schedule;
}

// Collective: the slowest rank's seconds for `work` once, all ranks starting together.
double slowest_seconds(MPI_Comm world, const std::function<void()>& work) {
  return seconds_per_step(world, 1, work, [] {});
}

}  // namespace

template <class Scalar>
ComputeOnly<Scalar>::ComputeOnly(const Topology& topology, const OverlapProblem& problem,
                                 const DistributedArray<Scalar>& gt)
    : topology_(topology),
      measurements_(problem.measurements),
      accumulate_(problem.dims, problem.channel, gt.local(), gt.range()) {
  const gt::SyntheticWalker walker(problem.dims, 1, kWalkerMeasurements);
  for (std::size_t i = 0; i < 2; ++i) {
    messages_[i] = Kokkos::View<Scalar*>("overlap compute-only message", problem.dims.message_entries());
    walker.write<Scalar>(static_cast<std::size_t>(topology.world_rank()) * 2 + i, messages_[i].data());
  }
  Kokkos::fence();
}

template <class Scalar>
Sample ComputeOnly<Scalar>::sample() {
  const int consumes = topology_.ring_size();
  const ExecSpace exec;
  const auto all_measurements = [&] {
    for (std::size_t m = 0; m < measurements_; ++m) {
      for (int c = 0; c < consumes; ++c) accumulate_(messages_[c % 2].data(), c);
      exec.fence();
    }
  };
  Sample s;
  s.measurements = measurements_;
  s.seconds_per_measurement = slowest_seconds(topology_.world(), all_measurements) / static_cast<double>(measurements_);
  s.consume_seconds_per_round = NAN;
  s.exchange_seconds_per_round = NAN;
  return s;
}

template <class Scalar>
RingVariant<Scalar>::RingVariant(Transport& transport, const Topology& topology, const OverlapProblem& problem,
                                 DistributedArray<Scalar>& gt, int threads, StepSchedule steps)
    : topology_(topology),
      rounds_((problem.measurements + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads)),
      team_(transport, topology, problem.dims.message_entries() * sizeof(Scalar), one_way(threads, steps)),
      updates_(threads > 1 ? gt::Updates::concurrent : gt::Updates::exclusive) {
  for (int thread = 0; thread < threads; ++thread)
    accumulators_.emplace_back(problem.dims, problem.channel, gt.local(), gt.range(), team_.exec(thread), updates_);
  prime(problem);
}

template <class Scalar>
void RingVariant<Scalar>::prime(const OverlapProblem& problem) {
  const gt::SyntheticWalker walker(problem.dims, 1, kWalkerMeasurements);
  const auto nothing = [](const void*, int) {};
  // One thread after another on every rank in the same order: rings of different threads are
  // independent channels, so this cannot deadlock.
  for (int thread = 0; thread < threads(); ++thread) {
    const ExecSpace& exec = team_.exec(thread);
    const std::size_t id = static_cast<std::size_t>(topology_.world_rank() * threads() + thread);
    Ring& ring = team_.ring(thread, 0);
    walker.write<Scalar>(id, ring.outgoing(), exec);
    ring.circulate(nothing, exec);
    // After a round, outgoing() is the slot last sent, which already holds a real message, except on
    // a ring of one rank: there it is the slot no message has reached yet.
    walker.write<Scalar>(id, ring.outgoing(), exec);
    exec.fence();
  }
}

template <class Scalar>
RingCounters RingVariant<Scalar>::total_counters() const {
  RingCounters sum;
  for (const RingCounters& c : team_.counters()) {
    sum.rounds += c.rounds;
    sum.compute_seconds += c.compute_seconds;
    sum.communication_seconds += c.communication_seconds;
  }
  return sum;
}

template <class Scalar>
Sample RingVariant<Scalar>::sample(Consume consume) {
  const RingCounters before = total_counters();
  const auto all_rounds = [&] {
    team_.run([&](int thread) {
      const ExecSpace& exec = team_.exec(thread);
      const gt::GtAccumulator<Scalar>& accumulate = accumulators_[static_cast<std::size_t>(thread)];
      const auto kernel = [&](const void* message, int origin) {
        const auto launching = team_.kernel_lock();
        accumulate(message, origin);
      };
      const auto nothing = [](const void*, int) {};
      for (std::size_t round = 0; round < rounds_; ++round) {
        Ring& ring = team_.ring(thread, round);
        if (consume == Consume::kernel) ring.circulate(kernel, exec);
        else ring.circulate(nothing, exec);
        // Only this thread's instance: a device-wide fence could wait for another thread's
        // stream-ordered exchange, whose peer may be waiting for ours.
        exec.fence();
      }
    });
  };
  Sample s;
  s.measurements = rounds_ * static_cast<std::size_t>(threads());
  s.seconds_per_measurement = slowest_seconds(topology_.world(), all_rounds) / static_cast<double>(s.measurements);
  const RingCounters after = total_counters();
  const double rounds = static_cast<double>(after.rounds - before.rounds);
  double per_round[2] = {(after.compute_seconds - before.compute_seconds) / rounds,
                         (after.communication_seconds - before.communication_seconds) / rounds};
  MPI_Allreduce(MPI_IN_PLACE, per_round, 2, MPI_DOUBLE, MPI_MAX, topology_.world());
  s.consume_seconds_per_round = per_round[0];
  s.exchange_seconds_per_round = per_round[1];
  return s;
}

template class ComputeOnly<Kokkos::complex<double>>;
template class ComputeOnly<Kokkos::complex<float>>;
template class RingVariant<Kokkos::complex<double>>;
template class RingVariant<Kokkos::complex<float>>;

}  // namespace ringcomm::bench
