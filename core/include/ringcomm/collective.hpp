#pragma once
// Agreement between ranks. Bad input must produce the same clear error on every rank and never a
// hang, so every check that one rank could fail alone goes through one of these helpers.
#include <mpi.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ringcomm/error.hpp"
#include "ringcomm/phase.hpp"
#include "ringcomm/watchdog.hpp"

namespace ringcomm {

// Polls `request` (a non-blocking collective, or a point-to-point call) until it completes; after
// phase_timeout_seconds() throws a (local) TimeoutError naming current_phase(), `call` and the size of
// `comm`, which run_main reports before it aborts the job. Every collective of ringcomm outside ring
// steps waits here, so that a rank that never arrives is reported by all the others.
void bounded_wait(MPI_Request& request, const char* call, MPI_Comm comm, MPI_Status* status = MPI_STATUS_IGNORE);
// bounded_wait after a start that returned `code`: throws an Error naming `call` unless it is MPI_SUCCESS.
void bounded_wait_started(int code, MPI_Request& request, const char* call, MPI_Comm comm, MPI_Status* status);

// Starts a non-blocking MPI call, start(MPI_Request*) returning its code, and waits as bounded_wait:
//   bounded("MPI_Iallreduce", comm, [&](MPI_Request* r) { return MPI_Iallreduce(…, comm, r); });
template <class Start>
void bounded(const char* call, MPI_Comm comm, Start&& start, MPI_Status* status = MPI_STATUS_IGNORE) {
  MPI_Request request = MPI_REQUEST_NULL;
  const int code = start(&request);
  bounded_wait_started(code, request, call, comm, status);
}

// Bounded forms of the small collectives programs use: MPI_Iallreduce of `count` values in place,
// and MPI_Ibarrier.
void allreduce_in_place(double* values, int count, MPI_Op op, MPI_Comm comm);
void allreduce_in_place(unsigned long long* values, int count, MPI_Op op, MPI_Comm comm);
inline double allreduce_value(double value, MPI_Op op, MPI_Comm comm) {
  allreduce_in_place(&value, 1, op, comm);
  return value;
}
inline unsigned long long allreduce_value(unsigned long long value, MPI_Op op, MPI_Comm comm) {
  allreduce_in_place(&value, 1, op, comm);
  return value;
}
void barrier(MPI_Comm comm);
// MPI_Sendrecv as MPI_Irecv + MPI_Isend, both waited for as bounded_wait does.
void sendrecv(const void* send, int send_count, MPI_Datatype send_type, int to, void* recv, int recv_count,
              MPI_Datatype recv_type, int from, int tag, MPI_Comm comm);

// This rank's index in `comm`, and how many ranks `comm` has.
int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// Every rank's string, indexed by rank (bounded).
std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& mine);

// Collective: if any rank passes ok == false, every rank throws a collective Error naming each failing
// rank and its reason.
void agree(MPI_Comm comm, bool ok, const std::string& reason_if_not);
// The same, but the error is a SettingError when any rank failed on a bad setting (SettingError), so
// that the caller can still tell a refused setting from anything else.
void agree(MPI_Comm comm, bool ok, const std::string& reason_if_not, bool bad_setting);

// Collective: runs `work` on every rank; if it throws ringcomm::Error on any rank, every rank throws
// (a SettingError when any rank's was one). A TimeoutError is passed on at once: the rank that timed
// out must not enter another collective whose peers may never come (run_main aborts the job after
// printing it).
namespace detail {
// What one rank's part of a collective step came to.
struct Outcome {
  bool ok = true;
  bool bad_setting = false;  // the failure was a SettingError
  std::string reason;
};
// Runs `work`, recording a ringcomm::Error in `outcome`; a TimeoutError is passed on.
template <class Work>
void record_failure(Outcome& outcome, Work&& work) {
  try {
    work();
  } catch (const TimeoutError&) {
    throw;
  } catch (const SettingError& e) {
    outcome = {false, true, e.what()};
  } catch (const Error& e) {
    outcome = {false, false, e.what()};
  }
}
}  // namespace detail

template <class Work>
auto collectively(MPI_Comm comm, Work&& work) -> decltype(work()) {
  detail::Outcome outcome;
  if constexpr (std::is_void_v<decltype(work())>) {
    detail::record_failure(outcome, work);
    agree(comm, outcome.ok, outcome.reason, outcome.bad_setting);
  } else {
    decltype(work()) result{};
    detail::record_failure(outcome, [&] { result = work(); });
    agree(comm, outcome.ok, outcome.reason, outcome.bad_setting);
    return result;
  }
}

// A named value that every rank must hold identically (message size, ring size, transport …).
struct Field {
  std::string name;
  std::string value;
};

// Collective (bounded): one exchange of all fields; any disagreement throws on every rank with the values each
// rank holds, so a user sees at once which rank was started differently. This is the agreement
// mechanism for settings: pass every setting that decides which collectives come next, an unset one
// as a value such as "(unset)", and check them in one call before entering those collectives. Ranks
// may pass different names; a name missing on a rank counts as a disagreement ("(not given)").
void check_identical(MPI_Comm comm, const std::vector<Field>& fields, const std::string& context);

// Collective: agreement before divergence. Every rank passes what decides which collectives it will
// enter next (a command line, whether a setting is set); unless all hold the same strings, every
// rank throws one collective Error listing each differing rank's values (shortened, control bytes
// escaped), before any rank can go down a path the others do not.
void agree_on_strings(MPI_Comm comm, const std::vector<std::string>& values, const std::string& what);

}  // namespace ringcomm
