#include "nccl_call.hpp"

#include "ringcomm/error.hpp"

namespace ringcomm::nccl_backend {

std::string nccl_error_text(ncclResult_t result) {
  std::string text = ncclGetErrorString(result);
  // NCCL ignores the communicator argument here; the message is the calling thread's last one.
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
  return text;
}

void check_nccl(ncclResult_t result, const char* call) {
  if (result != ncclSuccess && result != ncclInProgress)
    throw Error(std::string("nccl transport: ") + call + " failed: " + nccl_error_text(result));
}

void throw_if_async_error(ncclComm_t comm) {
  ncclResult_t state = ncclSuccess;
  check_nccl(ncclCommGetAsyncError(comm, &state), "ncclCommGetAsyncError");
  if (state != ncclSuccess && state != ncclInProgress)
    throw Error("nccl transport: communication failed asynchronously: " + nccl_error_text(state) +
                "; a peer may have failed (see its output)");
}

}  // namespace ringcomm::nccl_backend
