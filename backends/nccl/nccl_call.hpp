#pragma once
// NCCL failures as ringcomm errors, worded by NCCL itself.
#include <nccl.h>

#include <string>

namespace ringcomm::nccl_backend {

// The result code's text and, where NCCL recorded one, its last detailed message.
std::string nccl_error_text(ncclResult_t result);

// Throws a (local) ringcomm::Error naming `call` when `result` is a failure.
void check_nccl(ncclResult_t result, const char* call);

// Throws when the communicator has failed asynchronously (a kernel hit an error, a peer vanished).
void throw_if_async_error(ncclComm_t comm);

}  // namespace ringcomm::nccl_backend

#define RINGCOMM_NCCL(call) ::ringcomm::nccl_backend::check_nccl((call), #call)
