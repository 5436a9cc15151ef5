#pragma once
// How a rank drives its rings: T walker threads, each with rings of its own; which way their
// messages travel; and whether exchanges overlap consumes. Read from RINGCOMM_THREADS,
// RINGCOMM_DIRECTION and RINGCOMM_OVERLAP (docs/environment.md).
//
// Thread t of every rank uses the same channel ids, so it exchanges only with thread t of its
// neighbours. With directions = bi, even threads send rightward and odd ones leftward, so that both
// directions of every link carry traffic; a single thread alternates instead (even rounds
// rightward, odd rounds leftward), which needs one ring per direction and thus four slots.
#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ringcomm/ring.hpp"

namespace ringcomm {

enum class Directions { uni, bi };
const char* to_string(Directions directions);

struct WalkerSchedule {
  int threads = 1;
  Directions directions = Directions::uni;
  // Overlap by default: it never costs more than lock-step (same slots, one fence per step) and hides
  // whichever of exchange and consume is shorter wherever the transport progresses on its own.
  StepSchedule steps = StepSchedule::overlap;
};

std::string describe(const WalkerSchedule& schedule);

constexpr int kMaxWalkerThreads = 256;
constexpr const char* kThreadsSetting = "RINGCOMM_THREADS";
constexpr const char* kDirectionSetting = "RINGCOMM_DIRECTION";
constexpr const char* kOverlapSetting = "RINGCOMM_OVERLAP";

// Values from elsewhere (a program's command line) that replace the environment's, named in errors
// by `source` (e.g. "--threads"). A C++ caller that knows its schedule builds a WalkerSchedule instead.
struct ScheduleOverride {
  std::string source;
  std::string value;
};
struct ScheduleOverrides {
  std::optional<ScheduleOverride> threads, direction, overlap;
};

// Collective over `comm`: the schedule from the environment and `overrides`, identical on every rank,
// or the same collective Error on all of them.
WalkerSchedule requested_schedule(MPI_Comm comm = MPI_COMM_WORLD, const ScheduleOverrides& overrides = {});
// The one parser of the three values (empty value: the default); local.
WalkerSchedule parse_schedule(const ScheduleOverride& threads, const ScheduleOverride& direction,
                              const ScheduleOverride& overlap);

// The direction of the `round`-th measurement of `thread`.
Direction direction_of(const WalkerSchedule& schedule, int thread, std::size_t round);
// Every direction `thread` uses: one, or both for a single thread going both ways.
std::vector<Direction> directions_of_thread(const WalkerSchedule& schedule, int thread);
// Distinct for every (thread, direction), the same on every rank.
int channel_id_of(int thread, Direction direction);

}  // namespace ringcomm
