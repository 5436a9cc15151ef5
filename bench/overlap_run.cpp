#include "overlap_run.hpp"

#include <algorithm>
#include <functional>
#include <memory>

#include "bench_support.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::bench {

namespace {

template <class Field>
double median_of(const std::vector<Sample>& samples, Field field) {
  std::vector<double> values;
  for (const Sample& s : samples) values.push_back(s.*field);
  return median(values);
}

const char* updates_name(gt::Updates updates) {
  return updates == gt::Updates::concurrent ? "concurrent" : "exclusive";
}

}  // namespace

double VariantSamples::median_seconds() const { return median_of(samples, &Sample::seconds_per_measurement); }
double VariantSamples::median_consume_seconds() const { return median_of(samples, &Sample::consume_seconds_per_round); }
double VariantSamples::median_exchange_seconds() const { return median_of(samples, &Sample::exchange_seconds_per_round); }

const VariantSamples& TransportRun::variant(const std::string& name) const {
  for (const VariantSamples& v : variants)
    if (v.name == name) return v;
  throw Error("overlap: no variant '" + name + "' was measured for " + transport);
}

const VariantSamples& TransportRun::with_threads(int count) const {
  return variant(count == 1 ? "overlap" : "threads_" + std::to_string(count));
}

OverlapFigures figures_of(const TransportRun& run) {
  OverlapFigures f;
  f.compute = run.variant("compute").median_seconds();
  f.communication = run.variant("communication").median_seconds();
  f.bound = std::max(f.compute, f.communication);
  f.overlap = run.variant("overlap").median_seconds();
  f.lock_step = run.variant("lock_step").median_seconds();
  return f;
}

std::vector<ThreadsFigure> threads_figures(const TransportRun& run) {
  const double one_thread = run.with_threads(1).median_seconds();
  std::vector<ThreadsFigure> figures;
  for (const int count : run.threads) {
    ThreadsFigure f;
    f.threads = count;
    f.seconds = run.with_threads(count).median_seconds();
    f.speedup = one_thread / f.seconds;
    figures.push_back(f);
  }
  return figures;
}

template <class Scalar>
TransportRun measure_transport(Transport& transport, const Topology& topology, const OverlapProblem& problem,
                               const SamplingPlan& plan) {
  using OnRing = RingVariant<Scalar>;
  DistributedArray<Scalar> gt(topology, problem.dims.entries(), "overlap G_t");
  ComputeOnly<Scalar> compute(topology, problem, gt);
  OnRing lock_step(transport, topology, problem, gt, 1, StepSchedule::lock_step);
  OnRing overlap(transport, topology, problem, gt, 1, StepSchedule::overlap);
  // Stream-ordered transports take one walker thread only (RingTeam refuses more).
  std::vector<int> thread_counts;
  for (const int count : plan.threads)
    if (count == 1 || !transport.capabilities().stream_ordered) thread_counts.push_back(count);
  std::vector<std::unique_ptr<OnRing>> teams;
  for (const int count : thread_counts)
    if (count > 1) teams.push_back(std::make_unique<OnRing>(transport, topology, problem, gt, count, StepSchedule::overlap));

  TransportRun run;
  run.transport = transport.name();
  run.stream_ordered = transport.capabilities().stream_ordered;
  run.threads = thread_counts;
  std::vector<std::function<Sample()>> take_sample;
  const auto add = [&](VariantSamples v, std::function<Sample()> sample) {
    run.variants.push_back(std::move(v));
    take_sample.push_back(std::move(sample));
  };
  const auto add_ring = [&](const std::string& name, OnRing& ring, typename OnRing::Consume consume) {
    const bool kernel = consume == OnRing::Consume::kernel;
    add({name, kernel ? "G_t kernel" : "nothing", ring.threads(), to_string(ring.schedule()),
         kernel ? updates_name(ring.updates()) : "none", {}},
        [&ring, consume] { return ring.sample(consume); });
  };
  add({"compute", "G_t kernel", 1, "none", "exclusive", {}}, [&] { return compute.sample(); });
  add_ring("communication", overlap, OnRing::Consume::nothing);
  add_ring("lock_step", lock_step, OnRing::Consume::kernel);
  add_ring("overlap", overlap, OnRing::Consume::kernel);
  for (const auto& team : teams) add_ring("threads_" + std::to_string(team->threads()), *team, OnRing::Consume::kernel);

  interleave(take_sample.size(), plan.warmup, [&](std::size_t v, int) { take_sample[v](); });
  interleave(take_sample.size(), plan.samples, [&](std::size_t v, int) { run.variants[v].samples.push_back(take_sample[v]()); });
  return run;
}

template TransportRun measure_transport<Kokkos::complex<double>>(Transport&, const Topology&, const OverlapProblem&,
                                                                 const SamplingPlan&);
template TransportRun measure_transport<Kokkos::complex<float>>(Transport&, const Topology&, const OverlapProblem&,
                                                                const SamplingPlan&);

}  // namespace ringcomm::bench
