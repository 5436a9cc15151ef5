// GoogleTest under mpirun: every rank runs every test (tests are collective), only rank 0 prints,
// and the process exit status is the same failure verdict on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include "ringcomm/runtime.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ringcomm::Runtime runtime(argc, argv, MPI_THREAD_MULTIPLE);
  if (runtime.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (local_failed && runtime.rank() != 0)
    std::fprintf(stderr, "rank %d: some tests failed on this rank (see above)\n", runtime.rank());
  return any_failed;
}
