#pragma once
// Phases of a ringcomm program outside the ring steps, each bounded by RINGCOMM_TIMEOUT.
//
// A ring step waits under wait_until (watchdog.hpp). Everything else that waits for other ranks —
// start-up, channel set-up, agreement, reductions, gathers, checkpoint I/O, MPI-IO — runs inside a
// named phase (PhaseScope), and waits in one of two ways:
//   - a call with a non-blocking form is started and polled against the deadline (bounded_wait in
//     collective.hpp); on expiry it throws a TimeoutError naming the phase, and run_main aborts;
//   - a call without one (MPI_Init_thread, MPI_Comm_split, MPI_File_open, Kokkos::initialize …) runs
//     under a BlockingCallWatch: a watchdog thread prints the diagnosis and ends the job when the call
//     has not returned in time.
// Either way every rank still alive prints which phase and call it waited in; a rank that prints
// nothing is the one that never arrived (MPI does not say which ranks are missing from a collective).
//
// Phase names are single words so that logs and tests can match them: start-up, set-up, agreement,
// ring-step, reduction, gather, checkpoint-save, checkpoint-restore, mpi-io-write, trace-write, shut-down.
#include <cstdint>
#include <string>

namespace ringcomm {

// The innermost phase of this thread while it lives; `phase` must outlive it (a string literal).
// Entering a phase also passes the test hook below.
class PhaseScope {
 public:
  explicit PhaseScope(const char* phase);
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  const char* outer_;
};

// This thread's innermost phase; "agreement" outside every PhaseScope.
const char* current_phase();

// RINGCOMM_TIMEOUT for phase waits, read once: the default when unset, and also when not valid (the
// ring's own check reports a bad value on every rank; a deadline must exist before that check runs).
double phase_timeout_seconds();

// This process's rank in MPI_COMM_WORLD for messages, also before MPI is initialised (from the
// launcher's environment); "?" when unknown.
std::string rank_label();

// For a call that cannot be polled: if it has not returned `limit_seconds` after this object was
// made, a watchdog thread prints "ringcomm: error on rank R: phase P: timed out …" and ends the job
// (MPI_Abort once MPI is up, else _Exit). One thread serves every watch of the process.
class BlockingCallWatch {
 public:
  explicit BlockingCallWatch(const char* call, double limit_seconds = phase_timeout_seconds());
  ~BlockingCallWatch();
  BlockingCallWatch(const BlockingCallWatch&) = delete;
  BlockingCallWatch& operator=(const BlockingCallWatch&) = delete;

 private:
  std::uint64_t id_;
};

// Runs `call()` under a BlockingCallWatch named `what`.
template <class Call>
decltype(auto) watched(const char* what, Call&& call) {
  const BlockingCallWatch watch(what);
  return call();
}

// When the launcher ends this rank with SIGTERM (another rank aborted the job), print the phase it
// was in, so that every live rank says where it was. Installed by Runtime; leaves an application's
// own SIGTERM handler alone.
void report_phase_when_terminated();

// Ends the job from anywhere: MPI_Abort when MPI is initialised and not finalised, else _Exit.
[[noreturn]] void end_job(int status);

namespace test_hook {
// Fault-injection hook for tests (tests/fault_phases.cmake): with RINGCOMM_TEST_STALL_PHASE=<phase>@<rank>,
// world rank <rank> stops when it enters <phase>, after printing
// "ringcomm test hook: rank R stops in phase P at unix time T": the entering thread blocks for good and
// the rank's watchdog stands down, so that only the other ranks report the stall; mpirun's SIGTERM
// ends the rank when the job is aborted (phase.cpp says why this is not SIGSTOP).
// Unset: one comparison per phase entry.
void stall_point(const char* phase);
}  // namespace test_hook

}  // namespace ringcomm
