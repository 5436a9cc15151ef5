#include "verify_sample.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>

#include "ringcomm/collective.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/gt/walker.hpp"

namespace ring_compare {

using namespace ringcomm;
using Complex = std::complex<double>;

std::vector<std::size_t> sample_indices(std::size_t total, std::size_t n, std::uint64_t seed) {
  std::vector<std::size_t> indices(total == 0 ? 0 : n);
  for (std::size_t i = 0; i < indices.size(); ++i)
    indices[i] = static_cast<std::size_t>(gt::splitmix64(seed ^ 0x5eed5a3b1e000000ull ^ (i * 0x9e3779b97f4a7c15ull)) % total);
  return indices;
}

namespace {

// Element-wise sum of every rank's complex values onto rank 0; NaN anywhere stays NaN.
void sum_on_rank0(MPI_Comm world, std::vector<Complex>& values) {
  const int rank = comm_rank(world);
  ringcomm::bounded("MPI_Ireduce", world, [&](MPI_Request* r) {
    return MPI_Ireduce(rank == 0 ? MPI_IN_PLACE : values.data(), values.data(), static_cast<int>(2 * values.size()),
                       MPI_DOUBLE, MPI_SUM, 0, world, r);
  });
}

}  // namespace

template <class Scalar>
SampleCheck check_sample(MPI_Comm world, const gt::Problem& problem, const std::vector<std::size_t>& indices,
                         std::vector<Complex> values) {
  // Each rank recomputes every p-th sampled entry; the shares are summed like the result's.
  const int rank = comm_rank(world), ranks = comm_size(world);
  std::vector<std::size_t> mine;
  for (std::size_t i = static_cast<std::size_t>(rank); i < indices.size(); i += static_cast<std::size_t>(ranks))
    mine.push_back(indices[i]);
  const std::vector<Complex> computed = collectively(world, [&] { return gt::reference_entries<Scalar>(problem, mine); });
  std::vector<Complex> reference(indices.size());
  for (std::size_t j = 0; j < computed.size(); ++j)
    reference[static_cast<std::size_t>(rank) + j * static_cast<std::size_t>(ranks)] = computed[j];
  sum_on_rank0(world, reference);
  sum_on_rank0(world, values);
  SampleCheck check;
  check.entries = indices.size();
  if (rank != 0) return check;
  double largest_reference = 0, largest_difference = 0;
  bool nan = false;  // a NaN result entry is the worst there can be
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const double difference = std::abs(values[i] - reference[i]);
    largest_reference = std::max(largest_reference, std::abs(reference[i]));
    if (std::isnan(difference)) {
      if (!nan) check.worst_entry = indices[i];
      nan = true;
    } else if (!nan && difference > largest_difference) {
      largest_difference = difference;
      check.worst_entry = indices[i];
    }
  }
  if (nan) check.max_relative_error = std::nan("");
  else if (largest_difference == 0) check.max_relative_error = 0;
  else check.max_relative_error = largest_reference > 0 ? largest_difference / largest_reference : INFINITY;
  return check;
}

template <class Scalar>
std::vector<Complex> sampled_share(const DistributedArray<Scalar>& gt, const Topology& topology,
                                   const std::vector<std::size_t>& indices) {
  std::vector<Complex> values(indices.size());
  if (topology.ring_index() != 0) return values;  // after sum_across_rings every sub-ring holds the total
  Kokkos::fence();
  const SliceRange range = gt.range();
  for (std::size_t i = 0; i < indices.size(); ++i)
    if (indices[i] >= range.begin && indices[i] < range.end) {
      Scalar v;  // one entry at a time: the slice may be far larger than host memory allows to mirror
      copy_bytes(&v, MemoryKind::host, gt.local().data() + (indices[i] - range.begin), data_memory_kind(), sizeof v);
      values[i] = Complex(v.real(), v.imag());
    }
  return values;
}

template <class Scalar>
std::vector<Complex> sampled_share(const std::vector<Scalar>& full_on_rank0, const std::vector<std::size_t>& indices) {
  std::vector<Complex> values(indices.size());
  if (full_on_rank0.empty()) return values;
  for (std::size_t i = 0; i < indices.size(); ++i)
    values[i] = Complex(full_on_rank0.at(indices[i]).real(), full_on_rank0.at(indices[i]).imag());
  return values;
}

#define RING_COMPARE_SAMPLE(Scalar)                                                                              \
  template SampleCheck check_sample<Scalar>(MPI_Comm, const gt::Problem&, const std::vector<std::size_t>&,       \
                                            std::vector<Complex>);                                               \
  template std::vector<Complex> sampled_share(const DistributedArray<Scalar>&, const Topology&,                  \
                                              const std::vector<std::size_t>&);                                  \
  template std::vector<Complex> sampled_share(const std::vector<Scalar>&, const std::vector<std::size_t>&);
RING_COMPARE_SAMPLE(Kokkos::complex<double>)
RING_COMPARE_SAMPLE(Kokkos::complex<float>)

}  // namespace ring_compare
