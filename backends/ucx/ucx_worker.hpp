#pragma once
// A UCP worker owned by one channel, its endpoints, and the single place where the channel waits.
#include <mpi.h>
#include <ucp/api/ucp.h>

#include <string>

#include "ringcomm/watchdog.hpp"

namespace ringcomm::ucx_backend {

class Worker {
 public:
  // Every wait of this worker ends in a TimeoutError after timeout_seconds; channel_id names the
  // channel in that error.
  Worker(ucp_context_h context, double timeout_seconds, int channel_id);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  ucp_worker_h handle() const { return worker_; }
  // This worker's address in UCX's packed form, to be handed to the peers out of band.
  std::string address() const;
  // An endpoint to the worker whose packed address is given; it may be this worker itself.
  ucp_ep_h connect(const std::string& remote_address, const std::string& peer);

  // Collective over `comm`: returns once every rank's endpoints are wired up, so that the first
  // ring step neither waits for UCX's connection handshake nor finds a peer not yet listening.
  void await_wireup(MPI_Comm comm, ucp_ep_h const* endpoints, int count);
  // Collective over `comm`: closes the endpoints, then keeps this worker serving its peers until
  // every rank has closed its own, because a peer's close may need answers from this worker.
  void disconnect(MPI_Comm comm, ucp_ep_h* endpoints, int count);

  // Drives UCX until ready() holds. Every wait of a channel goes through here, under the watchdog:
  // after the timeout it throws the TimeoutError for the Stall that describe() returns.
  template <class Ready, class Describe>
  void wait_until(Ready&& ready, Describe&& describe) {
    ringcomm::wait_until(
        [&] {
          if (ready()) return true;
          ucp_worker_progress(worker_);
          return false;
        },
        timeout_seconds_, describe);
  }

 private:
  // A wait of set-up or teardown, which waits for the whole ring rather than one neighbour.
  Stall ring_stall(const char* waiting_for) const;
  // Drives UCX until `request` (a nonblocking MPI call) completes.
  void serve_until(MPI_Request& request);
  ucp_worker_h worker_ = nullptr;
  double timeout_seconds_;
  int channel_id_;
};

}  // namespace ringcomm::ucx_backend
