#include "ucx_status.hpp"

#include "ringcomm/backend/check.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::ucx_backend {

void fail(ucs_status_t status, const std::string& what) {
  backend::call_failed(RINGCOMM_TRANSPORT_PREFIX, what.c_str(), ucs_status_string(status));
}

void check(ucs_status_t status, const std::string& what) {
  if (status != UCS_OK) fail(status, what);
}

Operation::Operation(ucs_status_ptr_t result) {
  if (UCS_PTR_IS_ERR(result)) settled_ = UCS_PTR_STATUS(result);
  else if (result != nullptr) {
    request_ = result;
    settled_ = UCS_INPROGRESS;
  }
}

Operation::~Operation() { release(); }

Operation::Operation(Operation&& other) noexcept : request_(other.request_), settled_(other.settled_) {
  other.request_ = nullptr;
}

Operation& Operation::operator=(Operation&& other) noexcept {
  if (this != &other) {
    release();
    request_ = other.request_;
    settled_ = other.settled_;
    other.request_ = nullptr;
  }
  return *this;
}

ucs_status_t Operation::poll() {
  if (request_ == nullptr) return settled_;
  settled_ = ucp_request_check_status(request_);
  if (settled_ != UCS_INPROGRESS) release();
  return settled_;
}

void Operation::release() {
  // A request freed while still pending is reclaimed by UCP when it completes.
  if (request_ != nullptr) ucp_request_free(request_);
  request_ = nullptr;
}

}  // namespace ringcomm::ucx_backend
