#include "measurement.hpp"

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <vector>

#include "ringcomm/collective.hpp"
#include "ringcomm/memory.hpp"

namespace ring_compare {

using ringcomm::json::Value;

namespace {

double reduced(double value, MPI_Op op) {
  return ringcomm::allreduce_value(value, op, MPI_COMM_WORLD);
}

std::size_t largest(std::size_t value) {
  return static_cast<std::size_t>(ringcomm::allreduce_value(static_cast<unsigned long long>(value), MPI_MAX, MPI_COMM_WORLD));
}

double mean(double value) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  return reduced(value, MPI_SUM) / ranks;
}

}  // namespace

double copy_rate_GBps(std::size_t bytes) {
  const std::size_t count = std::max<std::size_t>(1, std::min(bytes, std::size_t(512) << 20) / sizeof(double));
  Kokkos::View<double*> from("ring_compare copy source", count), to("ring_compare copy target", count);
  // Several copies back to back per sample, so that the launch and the fence, which a pass over G_t
  // in a run of many measurements does not wait for, are not counted as copy time. On an H100 one
  // 512 MiB copy a sample measured 2748-2894 GB/s, four 2887-2965, about kernel_bandwidth's copy of
  // a whole G_t (docs/results/h100_status): the floor came out 3.2 % too long in the median, and noisy.
  constexpr int kCopiesPerSample = 4;
  const Kokkos::DefaultExecutionSpace exec;
  std::vector<double> samples;
  for (int i = 0; i < 6; ++i) {
    exec.fence();
    const double start = MPI_Wtime();
    for (int copy = 0; copy < kCopiesPerSample; ++copy) Kokkos::deep_copy(exec, to, from);
    exec.fence();
    if (i > 0) samples.push_back((MPI_Wtime() - start) / kCopiesPerSample);
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  const double mine = 2.0 * static_cast<double>(count * sizeof(double)) / samples[samples.size() / 2] / 1e9;
  return reduced(mine, MPI_MIN);
}

Value memory_json(const MemoryUse& mine) {
  const ringcomm::AllocationStats tracked = ringcomm::allocation_stats();
  Value m = Value::object();
  m["gt_slice_bytes"] = largest(mine.gt_slice);
  m["ring_buffer_bytes"] = largest(mine.ring_buffers);
  m["staging_bytes"] = largest(mine.staging);
  m["total_bytes"] = largest(mine.gt_slice + mine.ring_buffers + mine.staging);
  m["tracked_high_water_bytes"] = largest(tracked.high_water_bytes);
  m["process_peak_resident_bytes"] = largest(ringcomm::process_peak_resident_bytes());
  return m;
}

Value counters_json(const std::vector<ringcomm::RingCounters>& per_thread) {
  Value threads = Value::array();
  for (const ringcomm::RingCounters& c : per_thread) {
    Value t = Value::object();
    t["rounds"] = c.rounds;
    t["steps"] = c.steps;
    t["bytes_sent"] = c.bytes_sent;
    t["compute_seconds_max"] = reduced(c.compute_seconds, MPI_MAX);
    t["compute_seconds_mean"] = mean(c.compute_seconds);
    t["communication_seconds_max"] = reduced(c.communication_seconds, MPI_MAX);
    t["communication_seconds_mean"] = mean(c.communication_seconds);
    threads.push_back(t);
  }
  return threads;
}

}  // namespace ring_compare
