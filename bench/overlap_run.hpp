#pragma once
// One transport's part of the overlap benchmark: every variant set up side by side and sampled
// interleaved, and the figures issue #4's targets ask for, derived from the medians.
#include <string>
#include <vector>

#include "overlap_variants.hpp"

namespace ringcomm::bench {

struct SamplingPlan {
  int samples = 7;
  int warmup = 1;                  // untimed samples of every variant first
  std::vector<int> threads{1, 2};  // walker-thread counts of the overlap ring; 1 is the overlap variant
};

struct VariantSamples {
  std::string name;      // compute, communication, lock_step, overlap, threads_<T>
  std::string consume;   // "G_t kernel" or "nothing"
  int threads = 1;
  std::string schedule;  // what its rings did; "none" without a ring
  std::string updates;   // the kernel's: exclusive, concurrent (atomic) for several threads, none
  std::vector<Sample> samples;

  double median_seconds() const;
  double median_consume_seconds() const;   // per round, from the ring's counters (NaN without a ring)
  double median_exchange_seconds() const;
};

struct TransportRun {
  std::string transport;
  bool stream_ordered = false;
  std::vector<int> threads;  // as planned
  std::vector<VariantSamples> variants;

  // Throws ringcomm::Error when there is no such variant.
  const VariantSamples& variant(const std::string& name) const;
  const VariantSamples& with_threads(int threads) const;  // "overlap" for 1
};

// Seconds per measurement (medians) and what the targets compare.
struct OverlapFigures {
  double compute = 0;
  double communication = 0;
  double bound = 0;  // max(compute, communication): what a perfect overlap would take
  double overlap = 0;
  double lock_step = 0;
  double overlap_over_bound() const { return overlap / bound; }
  double lock_step_over_overlap() const { return lock_step / overlap; }
};
OverlapFigures figures_of(const TransportRun& run);

struct ThreadsFigure {
  int threads = 1;
  double seconds = 0;  // per measurement
  double measurements_per_second() const { return 1.0 / seconds; }  // per rank
  double speedup = 0;  // over one thread: seconds(T=1) / seconds
};
std::vector<ThreadsFigure> threads_figures(const TransportRun& run);

// Collective over topology.world().
template <class Scalar>
TransportRun measure_transport(Transport& transport, const Topology& topology, const OverlapProblem& problem,
                               const SamplingPlan& plan);

}  // namespace ringcomm::bench
