#pragma once
// The small host messages a cuda_ipc channel trades with its two ring neighbours over MPI: its slot
// handle at set-up, two notices per ring step (see cuda_ipc_channel.cpp for the protocol), and a
// last one at teardown. Every wait is bounded by the channel's timeout.
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "ringcomm/transport.hpp"

namespace ringcomm::cuda_ipc_backend {

// What a message says. With the channel id it makes the MPI tag, so that a message can only ever be
// matched by a receive for the same channel and purpose.
enum class Notice : int {
  slot_handle,  // set-up: "this is my slot block", to the left neighbour, who copies into it
  credit,       // step k: "my slot for step k is free", to the left neighbour
  arrived,      // step k: "your step-k message is in place", to the right neighbour
  unmapped,     // teardown: "I have unmapped your slots", to the right neighbour, who may free them
};
constexpr int kNotices = 4;

// What a wait of channel `spec` at step `step` was waiting for, for its TimeoutError.
Stall channel_stall(const ChannelSpec& spec, std::uint64_t step, std::string waiting_for, int peer,
                    std::size_t bytes_outstanding);

class NeighbourMessages {
 public:
  // `comm` is the channel's private communicator (rank numbers as in spec). Throws a collective Error
  // when the channel id is too large for MPI's tags (the same on every rank, as ids are).
  NeighbourMessages(MPI_Comm comm, const ChannelSpec& spec);
  // Cancels receives still posted, which only an error can leave behind.
  ~NeighbourMessages();
  NeighbourMessages(const NeighbourMessages&) = delete;
  NeighbourMessages& operator=(const NeighbourMessages&) = delete;

  // Sends `bytes` of `mine` to `to` and receives as many into `theirs` from `from`, marked `notice`;
  // returns when both are done. For set-up and teardown.
  void swap(Notice notice, const void* mine, int to, void* theirs, int from, std::size_t bytes);

  // Teardown: tells the right neighbour that its slots are unmapped here when `unmapped` (not when a
  // copy into them may still be landing: it must then keep them), and waits up to `limit_seconds` for
  // the left neighbour to say the same of this rank's slots. Returns whether it did; never throws for
  // a neighbour that is silent.
  bool trade_unmap_notices(bool unmapped, double limit_seconds);

  // Step `step` of the channel: posts the receives of the right neighbour's credit and the left
  // neighbour's arrival notice, and grants the left neighbour its credit.
  void begin_step(std::uint64_t step);
  // Whether the right neighbour's credit for this step is here, without waiting.
  bool credit_granted();
  // Waits for that credit.
  void await_credit();
  // Tells the right neighbour its message has landed.
  void announce_arrival();
  // Waits for the left neighbour's arrival notice and for the neighbours to take this rank's notices.
  void await_step_end();

 private:
  // Receives first, so that teardown can cancel them alone.
  enum Slot { credit_in, arrived_in, credit_out, arrived_out, kInFlight };
  static constexpr int kReceives = 2;

  int tag(Notice notice) const;
  void post_receive(Slot slot, Notice notice, int from);
  void post_send(Slot slot, Notice notice, int to);
  // Throws unless the notice that arrived in `slot` names the current step.
  void check_step(Slot slot, const char* what, int from) const;
  Stall stall(std::string waiting_for, int peer, std::size_t bytes_outstanding) const {
    return channel_stall(spec_, step_, std::move(waiting_for), peer, bytes_outstanding);
  }

  MPI_Comm comm_;
  ChannelSpec spec_;
  std::uint64_t step_ = 0;
  std::array<MPI_Request, kInFlight> requests_;
  std::array<std::uint64_t, kInFlight> values_{};  // what each request sends or receives: a step number
  // The teardown notices: members, so that a notice still in flight when the wait gives up never
  // points into a stack frame that is gone.
  std::array<MPI_Request, 2> unmap_requests_{MPI_REQUEST_NULL, MPI_REQUEST_NULL};  // receive, send
  std::array<char, 2> unmap_notices_{};
};

}  // namespace ringcomm::cuda_ipc_backend
