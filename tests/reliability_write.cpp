// DistributedArray::write_npy: the .npy file the ranks of sub-ring 0 write together (MPI-IO) must
// hold exactly the values every sub-ring's parts sum to, computed here entry by entry (not through
// gather(), which shares the slicing the writer relies on).
#include <cstring>
#include <fstream>

#include "conformance.hpp"
#include "reliability.hpp"
#include "ringcomm/distributed_array.hpp"
#include "ringcomm/npy_format.hpp"

namespace ringcomm::reliability {
namespace {

// Sub-ring r's part of entry i.
template <class Scalar>
Scalar part(std::size_t i, int ring) {
  const double entry = double(i);
  return Scalar(entry * 0.5 + ring, -entry / 3 - ring);
}

// Every sub-ring adds its part, so the file is only right after sum_across_rings.
template <class Scalar>
void fill_parts(DistributedArray<Scalar>& array, const Topology& topology) {
  auto host = Kokkos::create_mirror_view(array.local());
  for (std::size_t i = 0; i < host.extent(0); ++i) host(i) = part<Scalar>(array.range().begin + i, topology.ring_index());
  Kokkos::deep_copy(array.local(), host);
}

// The whole array as the sum over sub-rings must make it. With at most two sub-rings here the sum
// of two values is the same whichever order MPI adds them in, so the comparison can be exact.
template <class Scalar>
std::vector<Scalar> expected_sum(std::size_t total, int rings) {
  std::vector<Scalar> expected(total);
  for (std::size_t i = 0; i < total; ++i) {
    expected[i] = part<Scalar>(i, 0);  // not 0 + part: that would turn entry 0's -0.0 into +0.0
    for (int ring = 1; ring < rings; ++ring) expected[i] += part<Scalar>(i, ring);
  }
  return expected;
}

// p = 4 gives S = 2 (two sub-rings); other rank counts use one ring.
int ring_size_for_test() { return comm_size(MPI_COMM_WORLD) == 4 ? 2 : comm_size(MPI_COMM_WORLD); }

template <class Scalar>
void expect_file_holds_the_sum(std::size_t total, const std::vector<std::size_t>& shape) {
  const SharedScratch scratch("write");
  const std::string path = scratch.path() + "/gt.npy";
  const Topology topology(MPI_COMM_WORLD, ring_size_for_test());
  DistributedArray<Scalar> array(topology, total);
  fill_parts(array, topology);
  array.sum_across_rings();
  array.write_npy(path, shape);
  if (topology.world_rank() != 0) return;
  ASSERT_LE(topology.ring_count(), 2) << "expected_sum is exact for at most two sub-rings";
  const std::vector<Scalar> expected = expected_sum<Scalar>(total, topology.ring_count());
  const npy::Array file = npy::read(path);
  EXPECT_EQ(file.descr, ScalarLayout<Scalar>::npy_descr);
  EXPECT_EQ(file.shape, shape.empty() ? std::vector<std::size_t>{total} : shape);
  ASSERT_EQ(file.data.size(), expected.size() * sizeof(Scalar));
  std::size_t differing = 0;
  for (std::size_t i = 0; i < total; ++i)
    differing += std::memcmp(file.data.data() + i * sizeof(Scalar), &expected[i], sizeof(Scalar)) != 0;
  EXPECT_EQ(differing, 0u) << "entries of the written array differ from the sum of the sub-rings' parts";
}

TEST(WriteNpy, OneDimensionalComplexDoubleHoldsTheSumOfTheSubRingsExactly) {
  expect_file_holds_the_sum<Kokkos::complex<double>>(10007, {});
}

TEST(WriteNpy, ComplexFloatInTheShapeOfGtHoldsTheSumOfTheSubRingsExactly) {
  expect_file_holds_the_sum<Kokkos::complex<float>>(2 * 3 * 4 * 5 * 7, {2, 3, 4, 5, 7});
}

TEST(WriteNpy, AnOlderLongerFileIsCutToTheNewLength) {
  const SharedScratch scratch("write");
  const std::string path = scratch.path() + "/gt.npy";
  const Topology topology(MPI_COMM_WORLD, ring_size_for_test());
  DistributedArray<Kokkos::complex<double>> big(topology, 5000), small(topology, 100);
  big.write_npy(path);
  small.write_npy(path);
  if (topology.world_rank() == 0) EXPECT_EQ(npy::read(path).shape, std::vector<std::size_t>{100});
}

TEST(WriteNpy, AShapeThatDoesNotHoldTheArrayIsRefusedByEveryRank) {
  const Topology topology(MPI_COMM_WORLD, ring_size_for_test());
  DistributedArray<Kokkos::complex<double>> array(topology, 100);
  try {
    array.write_npy("unused.npy", {10, 11});
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("the shape holds 110 values but the array has 100"), std::string::npos)
        << e.what();
  }
}

TEST(WriteNpy, AFileThatCannotBeCreatedIsReportedByEveryRank) {
  const Topology topology(MPI_COMM_WORLD, ring_size_for_test());
  DistributedArray<Kokkos::complex<double>> array(topology, 100);
  try {
    array.write_npy("/nonexistent-folder/gt.npy");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("writing /nonexistent-folder/gt.npy with MPI-IO: MPI_File_open failed"),
              std::string::npos)
        << e.what();
  }
}

TEST(ReadNpy, RefusesWhatItCannotRead) {
  const SharedScratch scratch("read");
  if (comm_rank(MPI_COMM_WORLD) != 0) return;
  const std::string path = scratch.path() + "/bad.npy";
  std::ofstream(path) << "not numpy";
  EXPECT_THROW(npy::read(path), Error);
  EXPECT_THROW(npy::read(scratch.path() + "/missing.npy"), Error);
}

}  // namespace
}  // namespace ringcomm::reliability
