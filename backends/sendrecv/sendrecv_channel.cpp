// sendrecv's channel: start() posts the receive into one slot and the send of the other, finish()
// waits for both under the watchdog. Everything else comes from the kit: the private communicator,
// byte counts past 2 GiB (MpiBytes), the bounded wait, the error check and the stall diagnosis.
#include "sendrecv_channel.hpp"

#include <array>
#include <vector>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/backend/mpi_bytes.hpp"
#include "ringcomm/backend/mpi_call.hpp"

namespace ringcomm::sendrecv_backend {
namespace {

class SendrecvChannel final : public Channel {
 public:
  explicit SendrecvChannel(const ChannelSpec& spec) : spec_(spec), message_(spec.bytes), comm_(spec.comm) {
    for (Buffer& slot : slots_) slot = Buffer(MemoryKind::host, spec.bytes, "ringcomm sendrecv slot");
  }

  // After an error a receive may still be posted: cancelled, so that no late message lands in a freed slot.
  ~SendrecvChannel() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) cancel_pending_receives(requests_.data(), 1);
  }

  void* slot(int index) override { return slots_[index].data(); }
  const ChannelSpec& spec() const override { return spec_; }

  void start(int send, int recv, StreamRef) override {
    RINGCOMM_CHECK(MPI_Irecv(slots_[recv].data(), message_.count(), message_.type(), spec_.recv_from, 0, comm_.get(),
                             &requests_[0]));
    RINGCOMM_CHECK(MPI_Isend(slots_[send].data(), message_.count(), message_.type(), spec_.send_to, 0, comm_.get(),
                             &requests_[1]));
  }

  void finish(StreamRef) override {
    wait_for_requests(requests_.data(), 2, MPI_STATUSES_IGNORE, spec_.timeout_seconds, RINGCOMM_TRANSPORT_PREFIX "MPI_Testall",
                      [&](const std::vector<bool>& pending) {
                        return channel_stall(spec_, pending[0] ? "the message from the left neighbour"
                                                               : "the right neighbour to take the message",
                                             pending[0] ? spec_.recv_from : spec_.send_to, spec_.bytes);
                      });
  }

 private:
  ChannelSpec spec_;
  MpiBytes message_;
  PrivateComm comm_;
  std::array<Buffer, kSlots> slots_;
  std::array<MPI_Request, 2> requests_{MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // the receive, then the send
};

}  // namespace

std::unique_ptr<Channel> open_channel(const ChannelSpec& spec) { return std::make_unique<SendrecvChannel>(spec); }

}  // namespace ringcomm::sendrecv_backend
