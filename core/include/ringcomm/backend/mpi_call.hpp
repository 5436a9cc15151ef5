#pragma once
// MPI failures as ringcomm errors, and MPI requests waited for under the watchdog. Shared by the
// backends built on MPI point-to-point calls (mpi, host) and by MPI-IO.
//
// Communicators a backend creates get MPI_ERRORS_RETURN (use_error_codes), so that a failed call
// (a truncated message, a peer that vanished) comes back as a code that check_mpi turns into an
// Error, instead of MPI's default of ending the job with a message that names no ring or step.
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/watchdog.hpp"

namespace ringcomm {

// MPI's own text for an error code (MPI_Error_string).
std::string mpi_error_text(int code);

// Throws a (local) Error "<what> failed: <MPI's text>".
[[noreturn]] void throw_mpi_error(int code, const char* what);
// The same for a call on `count` requests whose `statuses` (or MPI_STATUSES_IGNORE) may hold the
// code of each request (MPI_ERR_IN_STATUS).
[[noreturn]] void throw_request_error(int code, const MPI_Status* statuses, int count, const char* what);

// Throws unless code is MPI_SUCCESS.
inline void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS) throw_mpi_error(code, what);
}

}  // namespace ringcomm

namespace ringcomm::backend {
// RINGCOMM_CHECK(MPI_…(…)): MPI calls return an int code.
inline void check_result(int code, const char* prefix, const char* call) {
  if (code != MPI_SUCCESS) call_failed(prefix, call, mpi_error_text(code));
}
}  // namespace ringcomm::backend

namespace ringcomm {

// Sets MPI_ERRORS_RETURN on `comm`.
void use_error_codes(MPI_Comm comm);

// A duplicate of `parent` for one owner's traffic alone, with MPI_ERRORS_RETURN: a channel that owns
// one never matches messages of another channel (another walker thread's, say) whatever tags both
// use, and never meets it in a collective. Freed with its owner unless MPI has been finalised first.
class PrivateComm {
 public:
  explicit PrivateComm(MPI_Comm parent);
  ~PrivateComm();
  PrivateComm(const PrivateComm&) = delete;
  PrivateComm& operator=(const PrivateComm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// Which of `count` requests are still incomplete (MPI_Request_get_status: nothing is freed).
std::vector<bool> pending_requests(const MPI_Request* requests, int count);

// For a channel torn down after an error: cancels the receives among `requests` that are still
// pending and waits for the cancellation, so that a late message cannot land in buffers about to be
// freed. Completed, inactive and null requests are left alone. The wait is bounded (at most a second,
// or RINGCOMM_TIMEOUT if shorter): a receive that already matched a rendezvous from a stopped sender
// can be neither cancelled nor completed. Returns false when some request is still live: the caller
// must then not free the memory it names (see abandon).
bool cancel_pending_receives(MPI_Request* requests, int count);

// True when none of `count` requests is still in progress (sends included).
bool all_settled(const MPI_Request* requests, int count);

// Keeps `object` (buffers a live transfer may still write into or read from) alive for the rest of
// the process instead of freeing it: after an error the job is ending anyway, and freeing memory
// under a transfer that cannot be stopped would corrupt whatever reuses it.
template <class T>
void abandon(T&& object) {
  new std::decay_t<T>(std::move(object));  // deliberately never deleted
}

// MPI_Testall until all `count` requests completed, bounded by limit_seconds: on expiry throws the
// TimeoutError describe(pending_requests(…)) returns a Stall for. `statuses` may be
// MPI_STATUSES_IGNORE. `what` names the caller in MPI error messages.
template <class Describe>
void wait_for_requests(MPI_Request* requests, int count, MPI_Status* statuses, double limit_seconds, const char* what,
                       Describe&& describe) {
  wait_until(
      [&] {
        int done = 0;
        const int code = MPI_Testall(count, requests, &done, statuses);
        if (code != MPI_SUCCESS) throw_request_error(code, statuses, count, what);
        return done != 0;
      },
      limit_seconds, [&] { return describe(pending_requests(requests, count)); });
}

// One message each way between ring neighbours, for set-up and teardown: sends `mine_bytes` of
// `mine` to `to` and receives `theirs_bytes` into `theirs` from `from`, with `tag` on `comm`, both
// bounded by limit_seconds; on expiry throws the TimeoutError for the Stall describe(peer, receiving)
// returns (`receiving`: the receive is what is still pending). A message of another size, or a failed
// MPI call, is a (local) Error that starts with `context` (e.g. RINGCOMM_TRANSPORT_PREFIX "the setup message").
// After an error the receive is cancelled: `theirs` belongs to the caller.
using NeighbourStall = std::function<Stall(int peer, bool receiving)>;
void swap_with_neighbours(MPI_Comm comm, int tag, const void* mine, std::size_t mine_bytes, int to, void* theirs,
                          std::size_t theirs_bytes, int from, double limit_seconds, const std::string& context,
                          const NeighbourStall& describe);

// The same for messages only their sender knows the length of: the length travels first, then the
// bytes, both under `tag`. Returns what `from` sent.
std::string swap_strings_with_neighbours(MPI_Comm comm, int tag, const std::string& mine, int to, int from,
                                         double limit_seconds, const std::string& context, const NeighbourStall& describe);

}  // namespace ringcomm
