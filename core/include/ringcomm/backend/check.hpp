#pragma once
// The one way a backend turns a failed library call into a ringcomm::Error:
//
//   RINGCOMM_CHECK(cudaSetDevice(device));   // throws "<backend> transport: cudaSetDevice(device) failed: …"
//
// works for any result type T with an overload `void check_result(T, const char* prefix, const char* call)`
// in ringcomm::backend that calls call_failed on failure: MPI's int (mpi_call.hpp), cudaError_t
// (cuda_check.hpp), and those a backend adds for its own library (ncclResult_t, ucs_status_t). The backend is named from
// RINGCOMM_BACKEND_NAME, which the build sets for every backend source; elsewhere (benchmarks) the
// message says "ringcomm".
#include <string>

#include "ringcomm/error.hpp"

#define RINGCOMM_DETAIL_STRING2(x) #x
#define RINGCOMM_DETAIL_STRING(x) RINGCOMM_DETAIL_STRING2(x)
#ifdef RINGCOMM_BACKEND_NAME
#define RINGCOMM_BACKEND_STRING RINGCOMM_DETAIL_STRING(RINGCOMM_BACKEND_NAME)
#define RINGCOMM_TRANSPORT_PREFIX RINGCOMM_BACKEND_STRING " transport: "
#else
#define RINGCOMM_BACKEND_STRING "ringcomm"
#define RINGCOMM_TRANSPORT_PREFIX "ringcomm: "
#endif

namespace ringcomm::backend {

// Throws a (local) Error "<prefix><call> failed: <library_text>".
[[noreturn]] inline void call_failed(const char* prefix, const char* call, const std::string& library_text) {
  throw Error(std::string(prefix) + call + " failed: " + library_text);
}

}  // namespace ringcomm::backend

#define RINGCOMM_CHECK(call) ::ringcomm::backend::check_result((call), RINGCOMM_TRANSPORT_PREFIX, #call)
