#pragma once
// The things overlap.cpp times against each other: consuming a measurement's S messages without any
// communication, and ring rounds of a RingTeam with the real G_t kernel or with a consume that does
// nothing. A "measurement" is what one walker thread of one rank contributes per ring round: S
// consumes and, on a ring, S−1 exchanges.
//
// Every sample ends with a fence of the execution space instances it used, so that its time holds
// all of its kernels even where they run asynchronously (CUDA). Messages carry a non-zero sign:
// padding (sign 0) would make the kernel return at once.
//
// Instantiated for Kokkos::complex<double> and Kokkos::complex<float>.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <vector>

#include "ringcomm/distributed_array.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/dims.hpp"
#include "ringcomm/ring_team.hpp"

namespace ringcomm::bench {

struct OverlapProblem {
  gt::Dims dims;
  gt::Channel channel = gt::Channel::pp_up_down;
  std::size_t measurements = 16;  // per sample and rank
};

// One sample of one variant.
struct Sample {
  double seconds_per_measurement = 0;  // the slowest rank's
  std::size_t measurements = 0;        // per rank: rounds of every thread, so at least the problem's
  // Host time per ring round of a thread in consumes (fences waiting for them included) and in
  // exchanges, from the rings' counters; maximum over ranks. NaN where there is no ring.
  double consume_seconds_per_round = 0;
  double exchange_seconds_per_round = 0;
};

// S consumes of the real kernel per measurement on this rank's slice, alternating between two
// messages as the ring's two slots do; nothing is sent.
template <class Scalar>
class ComputeOnly {
 public:
  ComputeOnly(const Topology& topology, const OverlapProblem& problem, const DistributedArray<Scalar>& gt);
  Sample sample();  // collective over the world

 private:
  const Topology& topology_;
  std::size_t measurements_;
  Kokkos::View<Scalar*> messages_[2];
  gt::GtAccumulator<Scalar> accumulate_;
};

// A RingTeam whose rings go one way, with a G_t accumulator per walker thread (atomic updates when
// several threads share the slice, as in gt::accumulate_with_ring).
template <class Scalar>
class RingVariant {
 public:
  // Collective. Opens the rings and runs one untimed round on each, so that both slots of every
  // channel hold real messages and a transport's connection set-up is not timed.
  RingVariant(Transport& transport, const Topology& topology, const OverlapProblem& problem,
              DistributedArray<Scalar>& gt, int threads, StepSchedule steps);

  enum class Consume { kernel, nothing };
  // Collective: ⌈measurements / threads⌉ rounds on every thread.
  Sample sample(Consume consume);

  int threads() const { return team_.threads(); }
  // What the rings do, which may differ from what was asked for (see Ring::schedule).
  StepSchedule schedule() { return team_.ring(0, 0).schedule(); }
  gt::Updates updates() const { return updates_; }

 private:
  void prime(const OverlapProblem& problem);
  RingCounters total_counters() const;

  const Topology& topology_;
  std::size_t rounds_;
  RingTeam team_;
  gt::Updates updates_;
  std::vector<gt::GtAccumulator<Scalar>> accumulators_;
};

}  // namespace ringcomm::bench
