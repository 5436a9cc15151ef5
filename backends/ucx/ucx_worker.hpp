#pragma once
// A UCP worker owned by one channel, its endpoints, and the single place where the channel waits.
#include <mpi.h>
#include <ucp/api/ucp.h>

#include <string>
#include <thread>

namespace ringcomm::ucx_backend {

class Worker {
 public:
  explicit Worker(ucp_context_h context);
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

  // Drives UCX until ready() holds. Every wait of a channel goes through here, so that a watchdog
  // naming `what` can later be added in this one place.
  template <class Ready>
  void wait_until(Ready&& ready, const char* what) {
    (void)what;
    unsigned idle_polls = 0;
    while (!ready()) {
      if (ucp_worker_progress(worker_) != 0) {
        idle_polls = 0;
      } else if (++idle_polls > kIdlePollsBeforeYield) {
        // On an oversubscribed node the peer we wait for may need this core.
        std::this_thread::yield();
      }
    }
  }

 private:
  static constexpr unsigned kIdlePollsBeforeYield = 1000;
  // Drives UCX until `request` (a nonblocking MPI call) completes.
  void serve_until(MPI_Request& request);
  ucp_worker_h worker_ = nullptr;
};

}  // namespace ringcomm::ucx_backend
