// G_t accumulated through each transport's ring, summed across sub-rings and gathered, must match
// the serial reference for every channel, orbital count, scalar and ring size; so must the original
// (full G_t per rank) algorithm. The measurement count is no multiple of most rank counts, so the
// padding measurements of the last round are exercised.
#include <complex>
#include <sstream>

#include "conformance.hpp"
#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/gt/tolerance.hpp"

namespace ringcomm::conformance {
namespace {

using gt::Problem;
using Reference = std::vector<std::complex<double>>;

constexpr std::size_t kMeasurements = 7;

// By type (ringcomm/gt/tolerance.hpp): 1e-12 for double, 5e-6 for float.
template <class Scalar>
double tolerance() { return gt::relative_tolerance<Scalar>(); }

std::vector<Problem> tiny_problems() {
  std::vector<Problem> problems;
  for (const auto& name : gt::channel_names())
    for (const int nb : {1, 2}) {
      Problem problem;
      problem.dims.nb = nb;
      problem.dims.Lx = 2;
      problem.dims.Ly = 2;
      problem.dims.n_freq = 4;
      problem.dims.exchange_momenta = {0, 1};
      problem.dims.exchange_frequencies = {0, 1};
      problem.channel = gt::parse_channel(name, "channel");
      problem.seed = 977 + nb;
      problem.measurements = kMeasurements;
      problems.push_back(problem);
    }
  return problems;
}

std::string describe(const Problem& problem) {
  return gt::to_string(problem.channel) + ", " + problem.dims.describe() + ", " +
         std::to_string(problem.measurements) + " measurements";
}

// Rank 0 alone holds results; the other ranks have nothing to check.
template <class Scalar>
void expect_close(const std::vector<Scalar>& result, const Reference& reference, const std::string& what) {
  if (comm_rank(MPI_COMM_WORLD) != 0) return;
  if (result.size() != reference.size()) {
    ADD_FAILURE() << what << ": " << result.size() << " entries, the reference has " << reference.size();
    return;
  }
  const gt::ErrorNorms error = gt::compare(result, reference);
  const double bound = tolerance<Scalar>();
  EXPECT_LT(error.l1, bound) << what;
  EXPECT_LT(error.l2, bound) << what;
  EXPECT_LT(error.linf, bound) << what;
}

template <class Scalar>
Reference reference_on_rank0(const Problem& problem) {
  return comm_rank(MPI_COMM_WORLD) == 0 ? gt::reference_gt<Scalar>(problem) : Reference();
}

class GtThroughRing : public TransportConformance {
 protected:
  // Message: the type of G_σ on the ring; the reference starts from G_σ rounded to it, so mixed
  // precision (complex<float> messages, complex<double> G_t) must match to double's tolerance.
  template <class Scalar, class Message = Scalar>
  void expect_ring_matches_reference() {
    for (const Problem& problem : tiny_problems()) {
      const Reference reference = reference_on_rank0<Message>(problem);
      for (const int S : ring_sizes_dividing_world()) {
        const Topology topology(MPI_COMM_WORLD, S);
        Ring ring(transport(), topology, problem.dims.message_entries() * sizeof(Message));
        DistributedArray<Scalar> g4(topology, problem.dims.entries());
        const gt::RunStats stats = gt::accumulate_with_ring<Scalar, Message>(problem, topology, ring, g4);
        EXPECT_EQ(stats.rounds, gt::rounds(problem, comm_size(MPI_COMM_WORLD)));
        g4.sum_across_rings();
        std::ostringstream what;
        what << GetParam() << " ring, S=" << S << " of " << comm_size(MPI_COMM_WORLD) << " ranks, "
             << describe(problem);
        expect_close(g4.gather(), reference, what.str());
      }
    }
  }
};

TEST_P(GtThroughRing, ComplexDoubleMatchesSerialReference) {
  expect_ring_matches_reference<Kokkos::complex<double>>();
}

TEST_P(GtThroughRing, ComplexFloatMatchesSerialReference) {
  expect_ring_matches_reference<Kokkos::complex<float>>();
}

TEST_P(GtThroughRing, MixedPrecisionMatchesSerialReference) {
  expect_ring_matches_reference<Kokkos::complex<double>, Kokkos::complex<float>>();
}

INSTANTIATE_TEST_SUITE_P(EveryTransport, GtThroughRing, ::testing::ValuesIn(registered_transport_names()),
                         transport_test_name);

template <class Scalar>
class GtOriginal : public ::testing::Test {};
using GtScalars = ::testing::Types<Kokkos::complex<double>, Kokkos::complex<float>>;
TYPED_TEST_SUITE(GtOriginal, GtScalars);

TYPED_TEST(GtOriginal, MatchesSerialReference) {
  for (const Problem& problem : tiny_problems()) {
    const auto result = gt::accumulate_original<TypeParam>(problem, MPI_COMM_WORLD);
    expect_close(result, reference_on_rank0<TypeParam>(problem),
                 "original algorithm on " + std::to_string(comm_size(MPI_COMM_WORLD)) + " ranks, " +
                     describe(problem));
  }
}

}  // namespace
}  // namespace ringcomm::conformance
