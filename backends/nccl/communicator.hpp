#pragma once
// One NCCL communicator over a channel's sub-ring, owned for the channel's lifetime, and NCCL's
// failures as ringcomm errors.
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <functional>
#include <string>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/watchdog.hpp"

namespace ringcomm::nccl_backend {

// NCCL failures as ringcomm errors, worded by NCCL itself.

// The result code's text and, where NCCL recorded one, its last detailed message.
std::string nccl_error_text(ncclResult_t result);

// Throws when the communicator has failed asynchronously (a kernel hit an error, a peer vanished).
void throw_if_async_error(ncclComm_t comm);

class Communicator {
 public:
  // Collective over `comm`: position 0 creates the unique id and broadcasts it; every rank joins with
  // its rank in `comm`. `name` shows up in NCCL's own logs (NCCL_DEBUG=INFO).
  Communicator(MPI_Comm comm, const std::string& name);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  ncclComm_t get() const { return comm_; }

  // Blocks until `stream` is idle, but throws instead of hanging when the communicator fails
  // meanwhile (an NCCL kernel waiting for a dead peer never finishes on its own), and after
  // timeout_seconds throws the TimeoutError for `stall`. Whatever it throws, it aborts the
  // communicator first (which ends its kernels).
  void wait_idle(cudaStream_t stream, double timeout_seconds, const Stall& stall);
  // The same for the work before `event` (a stream's owner may destroy it before we wait).
  void wait_done(cudaEvent_t event, double timeout_seconds, const Stall& stall);

  // ncclCommAbort: ends the communicator's kernels without waiting for peers; it is unusable after.
  void abort();

 private:
  void wait(const std::function<cudaError_t()>& query, const char* query_name, double timeout_seconds,
            const Stall& stall);

  ncclComm_t comm_ = nullptr;
};

}  // namespace ringcomm::nccl_backend

namespace ringcomm::backend {
// RINGCOMM_CHECK(nccl…(…)) (backend/check.hpp); ncclInProgress is not a failure.
void check_result(ncclResult_t result, const char* prefix, const char* call);
}  // namespace ringcomm::backend
