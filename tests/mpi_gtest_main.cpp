// GoogleTest under mpirun: every rank runs every test (tests are collective). Rank 0 prints the
// usual report; other ranks print only their failures, each line prefixed with the rank, so a check
// that fails on one rank alone is still seen. The exit status is the same verdict on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "ringcomm/runtime.hpp"

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : prefix_("[rank " + std::to_string(rank) + "] ") {}

  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::ostringstream text;
    text << prefix_ << (result.file_name() ? result.file_name() : "unknown file") << ":" << result.line_number()
         << ": Failure\n";
    std::istringstream message(result.message());
    for (std::string line; std::getline(message, line);) text << prefix_ << line << "\n";
    emit(text.str());
  }

  void OnTestEnd(const ::testing::TestInfo& test) override {
    if (!test.result()->Failed()) return;
    std::string name = std::string(test.test_suite_name()) + "." + test.name();
    if (test.value_param() != nullptr) name += " (GetParam() = " + std::string(test.value_param()) + ")";
    emit(prefix_ + "[  FAILED  ] " + name + "\n");
  }

 private:
  // One write per report keeps ranks' reports from interleaving line by line.
  static void emit(const std::string& text) {
    std::fflush(stdout);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  }
  std::string prefix_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ringcomm::Runtime runtime(argc, argv, MPI_THREAD_MULTIPLE);
  if (runtime.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(runtime.rank()));
  }
  const int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (local_failed && runtime.rank() != 0)
    std::fprintf(stdout, "[rank %d] some tests failed on this rank (see above)\n", runtime.rank());
  return any_failed;
}
