#pragma once
// A failed CUDA call of this backend as a ringcomm::Error naming the backend, the call and CUDA's own
// words for the failure (cuda_check.hpp).
#include "ringcomm/backend/cuda_check.hpp"

#define CUDA_IPC_CALL(call) ::ringcomm::check_cuda((call), "cuda_ipc transport: " #call)
