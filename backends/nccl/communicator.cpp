#include "communicator.hpp"

#include "ringcomm/collective.hpp"
#include "ringcomm/backend/cuda_check.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::nccl_backend {

std::string nccl_error_text(ncclResult_t result) {
  std::string text = ncclGetErrorString(result);
  // NCCL ignores the communicator argument here; the message is the calling thread's last one.
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
  return text;
}

void throw_if_async_error(ncclComm_t comm) {
  ncclResult_t state = ncclSuccess;
  RINGCOMM_CHECK(ncclCommGetAsyncError(comm, &state));
  if (state != ncclSuccess && state != ncclInProgress)
    throw Error(RINGCOMM_TRANSPORT_PREFIX "communication failed asynchronously: " + nccl_error_text(state) +
                "; a peer may have failed (see its output)");
}

Communicator::Communicator(MPI_Comm comm, const std::string& name) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id{};
  collectively(comm, [&] {
    if (rank == 0) RINGCOMM_CHECK(ncclGetUniqueId(&id));
  });
  bounded("MPI_Ibcast", comm, [&](MPI_Request* r) { return MPI_Ibcast(&id, sizeof id, MPI_BYTE, 0, comm, r); });
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  config.commName = name.c_str();
  try {
    collectively(comm, [&] { RINGCOMM_CHECK(ncclCommInitRankConfig(&comm_, size, id, rank, &config)); });
  } catch (...) {
    // Ranks whose part succeeded hold a communicator their failed peers never completed.
    if (comm_ != nullptr) ncclCommAbort(comm_);
    comm_ = nullptr;
    throw;
  }
}

Communicator::~Communicator() {
  if (comm_ == nullptr) return;
  // Finalize flushes outstanding operations and then frees; on a failed communicator it would wait
  // forever, so that one is aborted.
  ncclResult_t state = ncclSuccess;
  const bool healthy = ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state == ncclSuccess &&
                       ncclCommFinalize(comm_) == ncclSuccess;
  if (healthy) ncclCommDestroy(comm_);
  else ncclCommAbort(comm_);
}

void Communicator::wait_idle(cudaStream_t stream, double timeout_seconds, const Stall& stall) {
  wait([&] { return cudaStreamQuery(stream); }, "cudaStreamQuery", timeout_seconds, stall);
}

void Communicator::wait_done(cudaEvent_t event, double timeout_seconds, const Stall& stall) {
  wait([&] { return cudaEventQuery(event); }, "cudaEventQuery", timeout_seconds, stall);
}

void Communicator::wait(const std::function<cudaError_t()>& query, const char* query_name, double timeout_seconds,
                        const Stall& stall) {
  try {
    wait_until(
        [&] {
          const cudaError_t status = query();
          if (status == cudaSuccess) return true;
          if (status != cudaErrorNotReady) backend::check_result(status, RINGCOMM_TRANSPORT_PREFIX, query_name);
          throw_if_async_error(comm_);
          return false;
        },
        timeout_seconds, [&] { return stall; });
  } catch (...) {
    // Whatever ended the wait (the deadline, an asynchronous NCCL error, a failed CUDA call), the
    // communicator's kernels may still be waiting for a peer. They must end before the error unwinds
    // the stack: the destructors on the way free device memory (cudaFree waits for the whole device),
    // which would wait for those kernels forever.
    abort();
    throw;
  }
}

void Communicator::abort() {
  if (comm_ != nullptr) ncclCommAbort(comm_);
  comm_ = nullptr;
}

}  // namespace ringcomm::nccl_backend

namespace ringcomm::backend {

void check_result(ncclResult_t result, const char* prefix, const char* call) {
  if (result != ncclSuccess && result != ncclInProgress) call_failed(prefix, call, nccl_backend::nccl_error_text(result));
}

}  // namespace ringcomm::backend
