// Walker threads, both ring directions, overlapped steps and the automatic ring size: whatever the
// schedule, G_t must match the serial reference, each thread must hold two slots (four for a single
// thread going both ways), and the measurements made must not depend on T. One G_t channel suffices
// here; conformance_gt.cpp covers all channels once.
#include <complex>
#include <sstream>

#include "conformance.hpp"
#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/ring_size_choice.hpp"
#include "ringcomm/ring_team.hpp"

namespace ringcomm::conformance {
namespace {

using Scalar = Kokkos::complex<double>;
using Reference = std::vector<std::complex<double>>;

constexpr double kTolerance = 5e-7;

gt::Problem tiny_problem() {
  gt::Problem problem;
  problem.dims.nb = 1;
  problem.dims.Lx = 2;
  problem.dims.Ly = 2;
  problem.dims.n_freq = 4;
  problem.dims.exchange_momenta = {0, 1};
  problem.dims.exchange_frequencies = {0};
  problem.channel = gt::Channel::ph_magnetic;
  problem.seed = 4242;
  problem.measurements = 11;  // no multiple of p·T for most p and T: padding in every thread's last round
  return problem;
}

std::size_t message_bytes(const gt::Problem& problem) { return problem.dims.message_entries() * sizeof(Scalar); }

bool thread_multiple_provided() {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  return provided >= MPI_THREAD_MULTIPLE;
}

void expect_matches(const std::vector<Scalar>& result, const Reference& reference, const std::string& what) {
  if (comm_rank(MPI_COMM_WORLD) != 0) return;
  ASSERT_EQ(result.size(), reference.size()) << what;
  const gt::ErrorNorms error = gt::compare(result, reference);
  EXPECT_LT(error.l1, kTolerance) << what;
  EXPECT_LT(error.l2, kTolerance) << what;
  EXPECT_LT(error.linf, kTolerance) << what;
}

class GtSchedules : public TransportConformance {
 protected:
  // Accumulates the tiny problem with `schedule` on a ring of S and checks it on rank 0.
  void expect_schedule_matches(const WalkerSchedule& schedule, int S, const Reference& reference) {
    const gt::Problem problem = tiny_problem();
    const Topology topology(MPI_COMM_WORLD, S);
    RingTeam team(transport(), topology, message_bytes(problem), schedule);
    const std::size_t slots_per_thread = schedule.threads == 1 && schedule.directions == Directions::bi ? 4 : 2;
    EXPECT_EQ(team.slots(), slots_per_thread * static_cast<std::size_t>(schedule.threads));
    EXPECT_GE(team.buffer_bytes(), team.slots() * message_bytes(problem));
    DistributedArray<Scalar> g4(topology, problem.dims.entries());
    const gt::RunStats stats = gt::accumulate_with_ring(problem, topology, team, g4);
    EXPECT_EQ(stats.rounds, gt::rounds(problem, comm_size(MPI_COMM_WORLD), schedule.threads));
    EXPECT_GE(stats.measurements_run_per_rank() * static_cast<std::size_t>(comm_size(MPI_COMM_WORLD)),
              problem.measurements);
    g4.sum_across_rings();
    std::ostringstream what;
    what << GetParam() << ", S=" << S << " of " << comm_size(MPI_COMM_WORLD) << " ranks, " << describe(schedule);
    expect_matches(g4.gather(), reference, what.str());
  }

  // A backend whose declaration refuses walker threads takes one: more must fail on every rank, before any ring.
  void expect_threads_refused(int threads) {
    const Topology topology(MPI_COMM_WORLD, comm_size(MPI_COMM_WORLD));
    try {
      RingTeam team(transport(), topology, message_bytes(tiny_problem()), WalkerSchedule{threads});
      ADD_FAILURE() << GetParam() << " accepted " << threads << " walker threads";
    } catch (const Error& e) {
      EXPECT_TRUE(e.collective()) << e.what();
      EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
    }
  }

  static Reference reference() {
    return comm_rank(MPI_COMM_WORLD) == 0 ? gt::reference_gt<Scalar>(tiny_problem()) : Reference();
  }
};

TEST_P(GtSchedules, EveryThreadCountDirectionAndStepScheduleMatchesReference) {
  const Reference expected = reference();
  const int S = comm_size(MPI_COMM_WORLD);
  for (const int threads : {1, 2, 3}) {
    if (threads > 1 && !thread_multiple_provided()) continue;
    if (threads > 1 && !Registry::instance().find(GetParam())->refuses_walker_threads.empty()) {
      expect_threads_refused(threads);
      continue;
    }
    for (const Directions directions : {Directions::uni, Directions::bi})
      for (const StepSchedule steps : {StepSchedule::lock_step, StepSchedule::overlap})
        expect_schedule_matches(WalkerSchedule{threads, directions, steps}, S, expected);
  }
}

TEST_P(GtSchedules, AutomaticRingSizeTakesTheSmallestThatFitsAndMatchesReference) {
  const gt::Problem problem = tiny_problem();
  const int p = comm_size(MPI_COMM_WORLD);
  RingMemoryNeeds needs;
  needs.gt_entries = problem.dims.entries();
  needs.scalar_bytes = sizeof(Scalar);
  needs.message_bytes = message_bytes(problem);
  // A budget that only the whole ring meets, then one that every S meets.
  const std::size_t tight = bytes_per_rank(needs, p);
  const ScopedEnv automatic("RINGCOMM_RING_SIZE", "auto");
  {
    const ScopedEnv budget(kMemoryBudgetSetting, std::to_string(tight));
    EXPECT_EQ(resolve_ring_size(MPI_COMM_WORLD, 1, needs), p);
  }
  const ScopedEnv budget(kMemoryBudgetSetting, std::to_string(bytes_per_rank(needs, 1)));
  const int S = resolve_ring_size(MPI_COMM_WORLD, p, needs);
  EXPECT_EQ(S, 1);
  expect_schedule_matches(WalkerSchedule{}, S, reference());
}

INSTANTIATE_TEST_SUITE_P(EveryTransport, GtSchedules, ::testing::ValuesIn(registered_transport_names()),
                         transport_test_name);

TEST(WalkerSchedule, AlternatesDirectionsBetweenThreadsOrRounds) {
  const WalkerSchedule two_threads{2, Directions::bi, StepSchedule::overlap};
  EXPECT_EQ(direction_of(two_threads, 0, 5), Direction::rightward);
  EXPECT_EQ(direction_of(two_threads, 1, 5), Direction::leftward);
  const WalkerSchedule one_thread{1, Directions::bi, StepSchedule::overlap};
  EXPECT_EQ(direction_of(one_thread, 0, 0), Direction::rightward);
  EXPECT_EQ(direction_of(one_thread, 0, 1), Direction::leftward);
  EXPECT_EQ(directions_of_thread(one_thread, 0).size(), 2u);
  EXPECT_NE(channel_id_of(0, Direction::rightward), channel_id_of(0, Direction::leftward));
  EXPECT_NE(channel_id_of(1, Direction::rightward), channel_id_of(0, Direction::leftward));
}

}  // namespace
}  // namespace ringcomm::conformance
