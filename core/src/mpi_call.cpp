#include "ringcomm/backend/mpi_call.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "ringcomm/backend/mpi_bytes.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/phase.hpp"

namespace ringcomm {

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error code " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

void throw_mpi_error(int code, const char* what) { throw Error(std::string(what) + " failed: " + mpi_error_text(code)); }

void throw_request_error(int code, const MPI_Status* statuses, int count, const char* what) {
  if (code != MPI_ERR_IN_STATUS || statuses == MPI_STATUSES_IGNORE) throw_mpi_error(code, what);
  std::string text;
  for (int i = 0; i < count; ++i) {
    const int request_code = statuses[i].MPI_ERROR;
    if (request_code == MPI_SUCCESS || request_code == MPI_ERR_PENDING) continue;
    text += (text.empty() ? "" : "; ") + std::string("request ") + std::to_string(i) + ": " + mpi_error_text(request_code);
  }
  throw Error(std::string(what) + " failed: " + (text.empty() ? mpi_error_text(code) : text));
}

void use_error_codes(MPI_Comm comm) { check_mpi(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler"); }

PrivateComm::PrivateComm(MPI_Comm parent) {
  check_mpi(watched("MPI_Comm_dup", [&] { return MPI_Comm_dup(parent, &comm_); }), "MPI_Comm_dup");
  use_error_codes(comm_);
}

PrivateComm::~PrivateComm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::vector<bool> pending_requests(const MPI_Request* requests, int count) {
  std::vector<bool> pending(static_cast<std::size_t>(count), false);
  for (int i = 0; i < count; ++i) {
    int done = 1;
    if (requests[i] != MPI_REQUEST_NULL) MPI_Request_get_status(requests[i], &done, MPI_STATUS_IGNORE);
    pending[static_cast<std::size_t>(i)] = done == 0;
  }
  return pending;
}

bool all_settled(const MPI_Request* requests, int count) {
  for (const bool pending : pending_requests(requests, count))
    if (pending) return false;
  return true;
}

bool cancel_pending_receives(MPI_Request* requests, int count) {
  const std::vector<bool> pending = pending_requests(requests, count);
  std::vector<MPI_Request> cancelled;
  for (int i = 0; i < count; ++i) {
    if (!pending[static_cast<std::size_t>(i)]) continue;
    MPI_Cancel(&requests[i]);
    cancelled.push_back(requests[i]);
  }
  if (cancelled.empty()) return true;
  try {
    // MPI_Testall completes (and, for persistent requests, deactivates) the cancelled receives.
    wait_for_requests(requests, count, MPI_STATUSES_IGNORE, std::min(1.0, phase_timeout_seconds()),
                      "cancelling receives", [](const std::vector<bool>&) {
                        Stall stall;
                        stall.waiting_for = "cancelled receives to complete";
                        return stall;
                      });
  } catch (const Error&) {
    return false;
  }
  return true;
}

void swap_with_neighbours(MPI_Comm comm, int tag, const void* mine, std::size_t mine_bytes, int to, void* theirs,
                          std::size_t theirs_bytes, int from, double limit_seconds, const std::string& context,
                          const NeighbourStall& describe) {
  const MpiBytes outgoing(mine_bytes), incoming(theirs_bytes);
  const std::string what = context + ": MPI_Testall";
  std::array<MPI_Request, 2> pair = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  check_mpi(MPI_Irecv(theirs, incoming.count(), incoming.type(), from, tag, comm, &pair[0]), (context + ": MPI_Irecv").c_str());
  std::array<MPI_Status, 2> statuses;
  try {
    check_mpi(MPI_Isend(mine, outgoing.count(), outgoing.type(), to, tag, comm, &pair[1]), (context + ": MPI_Isend").c_str());
    wait_for_requests(pair.data(), 2, statuses.data(), limit_seconds, what.c_str(), [&](const std::vector<bool>& pending) {
      return describe(pending[0] ? from : to, pending[0]);
    });
  } catch (const Error&) {
    cancel_pending_receives(pair.data(), 1);
    throw;
  }
  int received = 0;
  MPI_Get_count(&statuses[0], incoming.type(), &received);
  if (received != incoming.count())
    throw Error(context + " from ring position " + std::to_string(from) + " is not the " + std::to_string(theirs_bytes) +
                " bytes expected (do the ranks run the same build?)");
}

std::string swap_strings_with_neighbours(MPI_Comm comm, int tag, const std::string& mine, int to, int from,
                                         double limit_seconds, const std::string& context, const NeighbourStall& describe) {
  const std::uint64_t my_length = mine.size();
  std::uint64_t their_length = 0;
  swap_with_neighbours(comm, tag, &my_length, sizeof my_length, to, &their_length, sizeof their_length, from,
                       limit_seconds, context + " (its length)", describe);
  std::string theirs(their_length, '\0');
  swap_with_neighbours(comm, tag, mine.data(), mine.size(), to, theirs.data(), theirs.size(), from, limit_seconds, context,
                       describe);
  return theirs;
}

}  // namespace ringcomm
