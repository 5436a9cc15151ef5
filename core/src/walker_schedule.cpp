#include "ringcomm/walker_schedule.hpp"

#include "ringcomm/collective.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm {

const char* to_string(Directions directions) { return directions == Directions::bi ? "bi" : "uni"; }

std::string describe(const WalkerSchedule& schedule) {
  return std::to_string(schedule.threads) + " thread(s), " + to_string(schedule.directions) + "directional, " +
         to_string(schedule.steps);
}

namespace {

// The value in effect and the name to report it under: the override if any, else the variable.
ScheduleOverride setting(const std::optional<ScheduleOverride>& override_value, const char* variable) {
  if (override_value) return *override_value;
  return {variable, settings::env(variable).value_or("")};
}

}  // namespace

WalkerSchedule parse_schedule(const ScheduleOverride& threads, const ScheduleOverride& direction,
                              const ScheduleOverride& overlap) {
  WalkerSchedule schedule;
  if (!threads.value.empty())
    schedule.threads = static_cast<int>(settings::parse_integer(threads.value, threads.source, 1, kMaxWalkerThreads));
  if (!direction.value.empty())
    schedule.directions =
        settings::parse_choice(direction.value, direction.source, {"uni", "bi"}) == "bi" ? Directions::bi : Directions::uni;
  if (!overlap.value.empty()) {
    const std::string choice = settings::parse_choice(overlap.value, overlap.source, {"0", "1", "lock_step", "overlap"});
    schedule.steps = choice == "1" || choice == "overlap" ? StepSchedule::overlap : StepSchedule::lock_step;
  }
  return schedule;
}

WalkerSchedule requested_schedule(MPI_Comm comm, const ScheduleOverrides& overrides) {
  const ScheduleOverride threads = setting(overrides.threads, kThreadsSetting);
  const ScheduleOverride direction = setting(overrides.direction, kDirectionSetting);
  const ScheduleOverride overlap = setting(overrides.overlap, kOverlapSetting);
  check_identical(comm,
                  {{threads.source, threads.value}, {direction.source, direction.value}, {overlap.source, overlap.value}},
                  "the walker schedule");
  return collectively(comm, [&] { return parse_schedule(threads, direction, overlap); });
}

Direction direction_of(const WalkerSchedule& schedule, int thread, std::size_t round) {
  if (schedule.directions == Directions::uni) return Direction::rightward;
  const std::size_t alternation = schedule.threads > 1 ? static_cast<std::size_t>(thread) : round;
  return alternation % 2 == 0 ? Direction::rightward : Direction::leftward;
}

std::vector<Direction> directions_of_thread(const WalkerSchedule& schedule, int thread) {
  if (schedule.directions == Directions::bi && schedule.threads == 1) return {Direction::rightward, Direction::leftward};
  return {direction_of(schedule, thread, 0)};
}

int channel_id_of(int thread, Direction direction) { return 2 * thread + (direction == Direction::leftward ? 1 : 0); }

}  // namespace ringcomm
