#pragma once
// UCX status codes as ringcomm errors, and one non-blocking UCP operation in flight.
#include <ucp/api/ucp.h>

#include <string>

#include "ringcomm/backend/check.hpp"

namespace ringcomm::ucx_backend {

// Throws a (local) Error "ucx transport: <what> failed: <UCX's text>" unless status is UCS_OK
// (backend::call_failed; RINGCOMM_CHECK where the call's own text says enough).
void check(ucs_status_t status, const std::string& what);
[[noreturn]] void fail(ucs_status_t status, const std::string& what);

// The result of a UCP *_nbx call. UCP completes many operations inside the call and then hands back
// no request at all; otherwise the request is polled here and returned to UCP once it settles.
class Operation {
 public:
  Operation() = default;
  // Immediate failures are returned by poll(), so that the caller, who knows the step and the peer,
  // words the error.
  explicit Operation(ucs_status_ptr_t result);
  ~Operation();
  Operation(Operation&& other) noexcept;
  Operation& operator=(Operation&& other) noexcept;
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  // UCS_INPROGRESS while pending, then the final status (which stays available).
  ucs_status_t poll();

 private:
  void release();
  void* request_ = nullptr;
  ucs_status_t settled_ = UCS_OK;
};

}  // namespace ringcomm::ucx_backend

namespace ringcomm::backend {
// RINGCOMM_CHECK(ucp_…(…)) (backend/check.hpp).
inline void check_result(ucs_status_t status, const char* prefix, const char* call) {
  if (status != UCS_OK) call_failed(prefix, call, ucs_status_string(status));
}
}  // namespace ringcomm::backend
