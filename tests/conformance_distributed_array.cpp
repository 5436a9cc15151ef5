// DistributedArray: how G_t is cut into slices, and how sub-rings' slices are summed and gathered.
#include <algorithm>
#include <cstdio>

#include "conformance.hpp"
#include "ringcomm/distributed_array.hpp"
#include "internal/model.hpp"

namespace ringcomm::conformance {
namespace {

TEST(SliceOf, SlicesTileTheRangeAndDifferByAtMostOne) {
  for (const std::size_t total : {1ul, 2ul, 7ul, 64ul, 1000003ul}) {
    for (int parts = 1; parts <= 9; ++parts) {
      std::size_t expected_begin = 0, smallest = total, largest = 0;
      for (int index = 0; index < parts; ++index) {
        const SliceRange slice = slice_of(total, parts, index);
        EXPECT_EQ(slice.begin, expected_begin) << total << " entries, slice " << index << " of " << parts;
        EXPECT_GE(slice.end, slice.begin);
        expected_begin = slice.end;
        smallest = std::min(smallest, slice.size());
        largest = std::max(largest, slice.size());
      }
      EXPECT_EQ(expected_begin, total) << total << " entries in " << parts << " slices";
      EXPECT_LE(largest - smallest, 1u) << total << " entries in " << parts << " slices";
    }
  }
}

template <class Scalar>
Scalar scalar_of(double real, double imag) {
  if constexpr (ScalarLayout<Scalar>::components == 2) return Scalar(real, imag);
  else return Scalar(real);
}

// Small integers: exact in every scalar type, so sums compare exactly.
template <class Scalar>
Scalar entry_value(int ring_index, std::size_t entry) {
  return scalar_of<Scalar>(double(ring_index + 1), double(entry % 251) - double(ring_index));
}

template <class Scalar>
class DistributedArrayTest : public ::testing::Test {};
using Scalars = ::testing::Types<double, float, Kokkos::complex<double>, Kokkos::complex<float>>;
TYPED_TEST_SUITE(DistributedArrayTest, Scalars);

TYPED_TEST(DistributedArrayTest, EachRankHoldsItsSliceAndTheRingTilesTheArray) {
  using Scalar = TypeParam;
  for (const int S : ring_sizes_dividing_world()) {
    const Topology topology(MPI_COMM_WORLD, S);
    for (const std::size_t total : {std::size_t(1), std::size_t(S + 1), std::size_t(10007)}) {
      const std::size_t live_before = allocation_stats().live_bytes;
      DistributedArray<Scalar> array(topology, total);
      const SliceRange mine = array.range();
      EXPECT_EQ(array.total(), total);
      EXPECT_EQ(array.local().extent(0), mine.size());
      EXPECT_EQ(array.bytes_per_rank(), mine.size() * sizeof(Scalar));
      const std::size_t floor_bytes = total / S * sizeof(Scalar), ceil_bytes = (total + S - 1) / S * sizeof(Scalar);
      EXPECT_TRUE(array.bytes_per_rank() == floor_bytes || array.bytes_per_rank() == ceil_bytes)
          << array.bytes_per_rank() << " bytes for " << total << " entries in S=" << S;
      EXPECT_EQ(allocation_stats().live_bytes - live_before, array.bytes_per_rank()) << "the slice is not counted";
      // The performance model's memory per rank is the largest slice, exactly.
      unsigned long long largest_bytes = array.bytes_per_rank();
      MPI_Allreduce(MPI_IN_PLACE, &largest_bytes, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, topology.ring_comm());
      model::ModelInputs inputs;
      inputs.ranks = S;
      inputs.ring_size = S;
      inputs.gt_entries = total;
      inputs.scalar_bytes = sizeof(Scalar);
      inputs.bandwidth_bytes_per_second = inputs.kernel_entries_per_second = 1;
      EXPECT_EQ(model::predict(inputs).gt_bytes_per_rank, largest_bytes) << total << " entries, S=" << S;
      // What the ranks really hold, not what slice_of says they should.
      const auto ranges = allgather_strings(topology.ring_comm(),
                                            std::to_string(mine.begin) + " " + std::to_string(mine.end));
      std::size_t next = 0, smallest = total, largest = 0;
      for (int position = 0; position < S; ++position) {
        std::size_t begin = 0, end = 0;
        std::sscanf(ranges[position].c_str(), "%zu %zu", &begin, &end);
        EXPECT_EQ(begin, next) << "S=" << S << ", total " << total << ", position " << position;
        next = end;
        smallest = std::min(smallest, end - begin);
        largest = std::max(largest, end - begin);
      }
      EXPECT_EQ(next, total) << "S=" << S;
      EXPECT_LE(largest - smallest, 1u) << "S=" << S;
    }
  }
}

TYPED_TEST(DistributedArrayTest, SumAcrossRingsAddsEverySubRingAndGathers) {
  using Scalar = TypeParam;
  const std::size_t total = 5003;
  for (const int S : ring_sizes_dividing_world()) {
    const Topology topology(MPI_COMM_WORLD, S);
    DistributedArray<Scalar> array(topology, total);
    auto local = Kokkos::create_mirror_view(array.local());
    for (std::size_t i = 0; i < array.range().size(); ++i)
      local(i) = entry_value<Scalar>(topology.ring_index(), array.range().begin + i);
    Kokkos::deep_copy(array.local(), local);
    array.sum_across_rings();
    Kokkos::deep_copy(local, array.local());
    auto expected = [&](std::size_t entry) {
      Scalar sum = scalar_of<Scalar>(0, 0);
      for (int r = 0; r < topology.ring_count(); ++r) sum += entry_value<Scalar>(r, entry);
      return sum;
    };
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < array.range().size(); ++i) wrong += local(i) != expected(array.range().begin + i);
    EXPECT_EQ(wrong, 0u) << "S=" << S << ": entries of this rank's slice not summed over " << topology.ring_count()
                         << " sub-rings";
    const std::vector<Scalar> full = array.gather();
    if (topology.world_rank() != 0) {
      EXPECT_TRUE(full.empty());
      continue;
    }
    if (full.size() != total) {
      ADD_FAILURE() << "S=" << S << ": gathered " << full.size() << " entries, expected " << total;
      continue;
    }
    wrong = 0;
    for (std::size_t entry = 0; entry < total; ++entry) wrong += full[entry] != expected(entry);
    EXPECT_EQ(wrong, 0u) << "S=" << S << ": gathered entries wrong";
  }
}

}  // namespace
}  // namespace ringcomm::conformance
