#include "ucx_worker.hpp"

#include <vector>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/settings.hpp"
#include "ucx_status.hpp"

namespace ringcomm::ucx_backend {

Worker::Worker(ucp_context_h context, double timeout_seconds, int channel_id)
    : timeout_seconds_(timeout_seconds), channel_id_(channel_id) {
  ucp_worker_params_t params{};
  params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  // A channel is used by one thread at a time, though not necessarily the one that created it.
  params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  check(ucp_worker_create(context, &params, &worker_), "creating a UCP worker");
}

Worker::~Worker() { ucp_worker_destroy(worker_); }

std::string Worker::address() const {
  ucp_address_t* packed = nullptr;
  std::size_t length = 0;
  check(ucp_worker_get_address(worker_, &packed, &length), "packing the UCP worker address");
  std::string bytes(reinterpret_cast<const char*>(packed), length);
  ucp_worker_release_address(worker_, packed);
  return bytes;
}

ucp_ep_h Worker::connect(const std::string& remote_address, const std::string& peer) {
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  params.address = reinterpret_cast<const ucp_address_t*>(remote_address.data());
  ucp_ep_h endpoint = nullptr;
  const ucs_status_t status = ucp_ep_create(worker_, &params, &endpoint);
  if (status == UCS_ERR_UNREACHABLE) {
    const auto tls = settings::env("UCX_TLS");
    fail(status, "connecting to " + peer + " (no UCX transport reaches it; " +
                     (tls ? "UCX_TLS=" + *tls + " may exclude too much" : "see `ucx_info -d`") + ")");
  }
  check(status, "connecting to " + peer);
  return endpoint;
}

Stall Worker::ring_stall(const char* waiting_for) const {
  Stall stall;
  stall.transport = RINGCOMM_BACKEND_STRING;
  stall.waiting_for = waiting_for;
  stall.channel = channel_id_;
  stall.phase = current_phase();
  return stall;
}

void Worker::serve_until(MPI_Request& request) {
  int done = 0;
  wait_until(
      [&] {
        RINGCOMM_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
        return done != 0;
      },
      [&] { return ring_stall("the other ranks of the ring (channel set-up or teardown)"); });
}

void Worker::await_wireup(MPI_Comm comm, ucp_ep_h const* endpoints, int count) {
  std::vector<Operation> flushes;
  for (int i = 0; i < count; ++i) {
    ucp_request_param_t params{};
    flushes.emplace_back(ucp_ep_flush_nbx(endpoints[i], &params));
  }
  ucs_status_t failed = UCS_OK;
  wait_until(
      [&] {
        for (auto& flush : flushes) {
          const ucs_status_t status = flush.poll();
          if (status == UCS_INPROGRESS) return false;
          if (status != UCS_OK) failed = status;
        }
        return true;
      },
      [&] { return ring_stall("the endpoints to the ring neighbours to wire up"); });
  // Peers may still be wiring up towards this worker; it keeps answering until all are done.
  MPI_Request barrier;
  RINGCOMM_CHECK(MPI_Ibarrier(comm, &barrier));
  serve_until(barrier);
  agree(comm, failed == UCS_OK,
        std::string(RINGCOMM_TRANSPORT_PREFIX "wiring up the endpoints to the ring neighbours: ") + ucs_status_string(failed));
}

void Worker::disconnect(MPI_Comm comm, ucp_ep_h* endpoints, int count) {
  std::vector<Operation> closes;
  for (int i = 0; i < count; ++i) {
    if (endpoints[i] == nullptr) continue;
    ucp_request_param_t params{};
    closes.emplace_back(ucp_ep_close_nbx(endpoints[i], &params));
    endpoints[i] = nullptr;
  }
  // A failed close leaves nothing to undo; teardown goes on.
  wait_until(
      [&] {
        for (auto& close : closes)
          if (close.poll() == UCS_INPROGRESS) return false;
        return true;
      },
      [&] { return ring_stall("the endpoints to the ring neighbours to close"); });
  MPI_Request barrier;
  RINGCOMM_CHECK(MPI_Ibarrier(comm, &barrier));
  serve_until(barrier);
}

}  // namespace ringcomm::ucx_backend
