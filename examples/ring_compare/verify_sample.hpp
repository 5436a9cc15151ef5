#pragma once
// ring_compare --verify-sample N: an independent check of a G_t at any size. N entries chosen at
// random are recomputed with the serial reference formula (gt::reference_entries, not the kernels'
// GtAccumulator), each rank doing a share, and compared with the same entries of the result, of which
// only those N are gathered. Works where the full G_t could never be gathered or the original run.
#include <mpi.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ringcomm/distributed_array.hpp"
#include "ringcomm/gt/accumulate.hpp"

namespace ring_compare {

struct SampleCheck {
  std::size_t entries = 0;
  // max over the sample of |result − reference| divided by the largest |reference| in the sample
  // (as compare()'s linf norm); NaN when any sampled result is NaN.
  double max_relative_error = 0;
  std::size_t worst_entry = 0;  // flat index of the entry with the largest error
};

// The same N indices in [0, total) on every rank, from the problem's seed.
std::vector<std::size_t> sample_indices(std::size_t total, std::size_t n, std::uint64_t seed);

// Collective over `world`: `values` holds this rank's share of the sampled result entries and zeros
// elsewhere (the shares are summed); the verdict is known on world rank 0 only.
template <class Scalar>
SampleCheck check_sample(MPI_Comm world, const ringcomm::gt::Problem& problem, const std::vector<std::size_t>& indices,
                         std::vector<std::complex<double>> values);

// This rank's share of a distributed G_t's sampled entries: those in its slice of sub-ring 0.
template <class Scalar>
std::vector<std::complex<double>> sampled_share(const ringcomm::DistributedArray<Scalar>& gt,
                                                const ringcomm::Topology& topology,
                                                const std::vector<std::size_t>& indices);

// Rank 0's full G_t (the original algorithm's); zeros on the other ranks.
template <class Scalar>
std::vector<std::complex<double>> sampled_share(const std::vector<Scalar>& full_on_rank0,
                                                const std::vector<std::size_t>& indices);

}  // namespace ring_compare
