// mpi's channel: matched send/receive of the two slots with MPI persistent requests, on a private
// communicator per channel.
#include "mpi_channel.hpp"

#include <array>
#include <vector>

#include "ringcomm/backend/mpi_bytes.hpp"
#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::mpi_backend {
namespace {

class MpiChannel final : public Channel {
 public:
  // A private communicator per channel keeps threads' traffic apart without tag bookkeeping.
  MpiChannel(const ChannelSpec& spec, MemoryKind memory) : spec_(spec), message_(spec.bytes), comm_(spec.comm) {
    for (int s = 0; s < kSlots; ++s) slots_[s] = Buffer(memory, spec.bytes, "ringcomm mpi slot");
    for (int s = 0; s < kSlots; ++s) {
      RINGCOMM_CHECK(MPI_Send_init(slots_[s].data(), message_.count(), message_.type(), spec.send_to, 0, comm_.get(), &send_[s]));
      RINGCOMM_CHECK(MPI_Recv_init(slots_[s].data(), message_.count(), message_.type(), spec.recv_from, 0, comm_.get(), &recv_[s]));
    }
  }

  ~MpiChannel() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    // After an error: no late message into freed slots. A transfer that cannot be stopped keeps its
    // slots alive (abandon); the job is ending then anyway.
    const bool settled = cancel_pending_receives(recv_.data(), kSlots) && all_settled(send_.data(), kSlots);
    for (int s = 0; s < kSlots; ++s) {
      MPI_Request_free(&send_[s]);
      MPI_Request_free(&recv_[s]);
    }
    if (!settled) abandon(std::move(slots_));
  }

  void* slot(int index) override { return slots_[index].data(); }
  const ChannelSpec& spec() const override { return spec_; }

  void start(int send, int recv, StreamRef) override {
    active_ = {recv_[recv], send_[send]};
    RINGCOMM_CHECK(MPI_Startall(2, active_.data()));
  }

  void finish(StreamRef) override {
    std::array<MPI_Status, 2> status;
    wait_for_requests(active_.data(), 2, status.data(), spec_.timeout_seconds, RINGCOMM_TRANSPORT_PREFIX "MPI_Testall",
                      [&](const std::vector<bool>& pending) { return stall(pending); });
    int received = 0;
    MPI_Get_count(&status[0], message_.type(), &received);
    if (received != message_.count())
      throw Error(RINGCOMM_TRANSPORT_PREFIX "received " + std::to_string(received) + " units from ring position " +
                  std::to_string(spec_.recv_from) + ", expected " + std::to_string(message_.count()));
  }

 private:
  // active_ holds the receive, then the send.
  Stall stall(const std::vector<bool>& pending) const {
    const bool receiving = pending[0], sending = pending[1];
    Stall stall = channel_stall(spec_, receiving && sending ? "the exchange with both neighbours"
                                       : receiving          ? "the message from the left neighbour"
                                                            : "the right neighbour to take the message");
    stall.peer = receiving && !sending ? spec_.recv_from : sending && !receiving ? spec_.send_to : -1;
    stall.bytes_outstanding = (receiving + sending) * spec_.bytes;
    stall.detail = std::string("receive from ring position ") + std::to_string(spec_.recv_from) +
                   (receiving ? " pending" : " complete") + ", send to ring position " + std::to_string(spec_.send_to) +
                   (sending ? " pending" : " complete");
    return stall;
  }

  ChannelSpec spec_;
  MpiBytes message_;
  PrivateComm comm_;  // freed after the requests on it, which the destructor frees
  std::array<Buffer, kSlots> slots_;
  std::array<MPI_Request, kSlots> send_{};
  std::array<MPI_Request, kSlots> recv_{};
  std::array<MPI_Request, 2> active_{};
};

}  // namespace

std::unique_ptr<Channel> open_channel(const ChannelSpec& spec, MemoryKind memory) {
  return std::make_unique<MpiChannel>(spec, memory);
}

}  // namespace ringcomm::mpi_backend
