// The core pieces of issue #15 on their own: a wait outside the ring step times out naming its
// phase, collectively() passes a timeout on instead of agreeing on it, agree_on_strings lists what
// each rank holds (shortened, control bytes escaped), and size products refuse to wrap.
// Run with RINGCOMM_TIMEOUT=1 (tests/fault_regressions.cmake).
#include <gtest/gtest.h>

#include <chrono>
#include <climits>

#include "ringcomm/checked_math.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/phase.hpp"

namespace ringcomm {
namespace {

std::string error_of(const std::function<void()>& work) {
  try {
    work();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(BoundedWait, AReceiveThatNeverMatchesTimesOutNamingThePhaseAndTheCall) {
  MPI_Request request = MPI_REQUEST_NULL;
  int value = 0;
  MPI_Irecv(&value, 1, MPI_INT, 0, 77, MPI_COMM_SELF, &request);
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  {
    const PhaseScope phase("gather");
    try {
      bounded_wait(request, "MPI_Irecv", MPI_COMM_SELF);
    } catch (const TimeoutError& e) {
      message = e.what();
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(message.find("phase gather: timed out after 1 s (RINGCOMM_TIMEOUT) waiting for MPI_Irecv"),
            std::string::npos)
      << message;
  EXPECT_GE(seconds, 0.99);
  EXPECT_LT(seconds, 3.0);
  MPI_Cancel(&request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
}

// A rank that timed out must not enter the agreement: its peers may never come. Before, collectively()
// turned the timeout into a collective error after an unbounded MPI_Allreduce.
TEST(Collectively, PassesATimeoutOnWithoutAgreeing) {
  Stall stall;
  stall.waiting_for = "a neighbour";
  EXPECT_THROW(collectively(MPI_COMM_SELF, [&] { throw TimeoutError(stall, 1); }), TimeoutError);
  // Any other error is agreed on as before.
  try {
    collectively(MPI_COMM_SELF, [] { throw Error("bad value"); });
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective());
  }
}

TEST(AgreeOnStrings, SameValuesPassAndDifferentOnesAreListedPerRank) {
  const int rank = comm_rank(MPI_COMM_WORLD);
  EXPECT_NO_THROW(agree_on_strings(MPI_COMM_WORLD, {"--json", "x.json"}, "the command line"));
  if (comm_size(MPI_COMM_WORLD) < 2) return;
  const std::string long_value(200, 'a');
  const std::vector<std::string> mine = rank == 0 ? std::vector<std::string>{"--dump", "d\x01" + long_value}
                                                  : std::vector<std::string>{};
  const std::string message = error_of([&] { agree_on_strings(MPI_COMM_WORLD, mine, "the command line"); });
  EXPECT_NE(message.find("ranks disagree on the command line"), std::string::npos) << message;
  EXPECT_NE(message.find("rank 0: --dump d\\x01aaa"), std::string::npos) << message;
  EXPECT_NE(message.find("(202 characters)"), std::string::npos) << message;
  EXPECT_NE(message.find(": (nothing)"), std::string::npos) << message;
}

TEST(CheckedProduct, RefusesToWrapAndNamesWhat) {
  EXPECT_EQ(checked_product(std::size_t(1) << 31, 4, "x"), std::size_t(1) << 33);
  const std::string message = error_of([] { checked_product(std::size_t(1) << 61, 16, "the ring message in bytes"); });
  EXPECT_NE(message.find("the ring message in bytes overflows"), std::string::npos) << message;
}

}  // namespace
}  // namespace ringcomm
