#pragma once
// Filling G_t from a stream of measurements: with the ring (ringcomm's way), with the "original"
// algorithm (every rank a full G_t, reduced at the end: the paper's baseline), and with the plain
// serial reference that tests trust.
//
// Measurements are numbered 0 … measurements−1. In round r, walker thread t of T on rank q of p makes
// measurement (r·T + t)·p + q; ids past the end are padding (sign 0) so that every rank of a ring
// takes part in every round. The result therefore does not depend on p, S, T or the transport, only
// on rounding.
#include <mpi.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <vector>

#include "ringcomm/checkpoint.hpp"
#include "ringcomm/distributed_array.hpp"
#include "ringcomm/gt/dims.hpp"
#include "ringcomm/ring.hpp"
#include "ringcomm/ring_team.hpp"

namespace ringcomm::gt {

struct Problem {
  Dims dims;
  Channel channel = Channel::pp_up_down;
  std::uint64_t seed = 1;
  std::size_t measurements = 8;
};

// Ring rounds of each walker thread: ⌈measurements / (ranks · threads)⌉.
std::size_t rounds(const Problem& problem, int ranks, int threads = 1);

struct RunStats {
  double seconds = 0;          // wall time of the accumulation loop (max over ranks)
  std::size_t rounds = 0;      // ring rounds of each thread (measurements per thread, padding included)
  int threads = 1;             // walker threads per rank
  std::size_t first_round = 0; // rounds restored from a checkpoint; the loop ran the others
  int batch = 1;               // messages per pass over G_t (GtAccumulator::batch_setting)
  std::size_t work_bytes = 0;  // device memory of the accumulators' work space on this rank
  std::size_t rounds_run() const { return rounds - first_round; }
  // Measurements each rank made in this run (padding included).
  std::size_t measurements_run_per_rank() const { return rounds_run() * static_cast<std::size_t>(threads); }
};

// Called on world rank 0 after each round: (rounds done, rounds total).
using Progress = std::function<void(std::size_t, std::size_t)>;

// Collective over the world. Adds every measurement to `gt`, whose slices then hold the sums over
// their own sub-ring only: with several sub-rings the caller still has to call gt.sum_across_rings()
// (left out so that it can be timed, or skipped, separately). The ring must carry
// Dims::message_entries() scalars. In round r the rank at sub-ring position o makes measurement
// r·p + ring_index·S + o.
//
// The RingTeam form runs team.threads() walker threads, thread t making measurement (r·T + t)·p + q in
// its round r on its own rings (see RingTeam); concurrent threads update the slice atomically.
//
// With checkpoint.enabled(), the run continues from the newest round saved in checkpoint.directory
// (if any; it must come from a run of the same problem, ranks and ring size, or every rank throws),
// and saves every checkpoint.every_rounds rounds (0: about ten times per run) and after the last.
// Saving is part of the timed loop. The accumulators batch messages as GtAccumulator::batch_setting
// says; every batch is flushed before a checkpoint and at the end, so `gt` is complete on return.
//
// MessageScalar is the type of G_σ on the ring: Scalar, or Kokkos::complex<float> with a
// Kokkos::complex<double> G_t (mixed precision; see GtAccumulator).
template <class Scalar, class MessageScalar = Scalar>
RunStats accumulate_with_ring(const Problem& problem, const Topology& topology, Ring& ring,
                              DistributedArray<Scalar>& gt, const Progress& progress = {},
                              const CheckpointSettings& checkpoint = {});
template <class Scalar, class MessageScalar = Scalar>
RunStats accumulate_with_ring(const Problem& problem, const Topology& topology, RingTeam& team,
                              DistributedArray<Scalar>& gt, const Progress& progress = {},
                              const CheckpointSettings& checkpoint = {});

// What a checkpoint of accumulate_with_ring records as the run's shape: a restart must match it.
template <class Scalar, class MessageScalar = Scalar>
std::vector<Field> checkpoint_shape(const Problem& problem, const Topology& topology, const SliceRange& slice,
                                   int threads = 1);

// Collective over `world`: every rank accumulates its measurements into a full G_t, and the sum is
// reduced to world rank 0, which gets it (the others get an empty vector). stats->seconds includes
// the reduction, which is part of this algorithm's cost.
template <class Scalar, class MessageScalar = Scalar>
std::vector<Scalar> accumulate_original(const Problem& problem, MPI_Comm world, RunStats* stats = nullptr,
                                        const Progress& progress = {});

// Serial, double precision, from the same inputs rounded to Scalar as the ring sees them.
template <class Scalar>
std::vector<std::complex<double>> reference_gt(const Problem& problem);

// The same formula for the listed G_t entries only (flat indices in G_t's order), each summed over
// every measurement from G_σ entries computed one by one: cheap at any problem size, so that a sample
// of a paper-size G_t can be checked against it.
template <class Scalar>
std::vector<std::complex<double>> reference_entries(const Problem& problem, const std::vector<std::size_t>& indices);

struct ErrorNorms {
  double l1 = 0;    // Σ|Δ| / Σ|ref|
  double l2 = 0;    // sqrt(Σ|Δ|² / Σ|ref|²)
  double linf = 0;  // max|Δ| / max|ref|
};
template <class Scalar>
ErrorNorms compare(const std::vector<Scalar>& result, const std::vector<std::complex<double>>& reference);

}  // namespace ringcomm::gt
