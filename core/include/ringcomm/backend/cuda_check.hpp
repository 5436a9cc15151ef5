#pragma once
// CUDA runtime failures as ringcomm errors, for the few files that talk to the CUDA runtime directly
// (GPU transports, staging copies, GPU benchmarks). Header-only so that it costs nothing where CUDA
// is absent: only files compiled against cuda_runtime_api.h include it.
#include <cuda_runtime_api.h>

#include <string>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm {

inline std::string cuda_error_text(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

// `call` is the source text of the failing call, so the message says which one failed.
inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw Error(std::string(call) + " failed: " + cuda_error_text(status));
}

}  // namespace ringcomm

namespace ringcomm::backend {
inline void check_result(cudaError_t status, const char* prefix, const char* call) {
  if (status != cudaSuccess) call_failed(prefix, call, cuda_error_text(status));
}
}  // namespace ringcomm::backend

// For code outside the backends (core, benchmarks); backends use RINGCOMM_CHECK, which names them.
#define RINGCOMM_CUDA(call) ::ringcomm::check_cuda((call), #call)
