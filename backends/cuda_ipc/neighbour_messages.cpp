#include "neighbour_messages.hpp"

#include <string>
#include <utility>
#include <vector>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/backend/mpi_call.hpp"

namespace ringcomm::cuda_ipc_backend {
namespace {

constexpr const char* kTestall = RINGCOMM_TRANSPORT_PREFIX "MPI_Testall";

// MPI attaches its tag bound to MPI_COMM_WORLD; it holds for every communicator.
int largest_channel_id() {
  int* tag_bound = nullptr;
  int present = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_bound, &present);
  const int bound = present && tag_bound != nullptr ? *tag_bound : 32767;  // the least MPI promises
  return (bound - (kNotices - 1)) / kNotices;
}

const char* notice_name(Notice notice) {
  switch (notice) {
    case Notice::slot_handle: return "slot handle";
    case Notice::credit: return "credit";
    case Notice::arrived: return "arrival notice";
    case Notice::unmapped: return "unmap notice";
  }
  return "?";
}

}  // namespace

NeighbourMessages::NeighbourMessages(MPI_Comm comm, const ChannelSpec& spec) : comm_(comm), spec_(spec) {
  requests_.fill(MPI_REQUEST_NULL);
  // Channel ids are the same on every rank (verify_channel_spec), so every rank reaches this verdict.
  if (spec.id < 0 || spec.id > largest_channel_id())
    throw Error(RINGCOMM_TRANSPORT_PREFIX "channel id " + std::to_string(spec.id) + " does not fit this MPI's tags (0 to " +
                    std::to_string(largest_channel_id()) + ")",
                true);
}

NeighbourMessages::~NeighbourMessages() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  cancel_pending_receives(requests_.data(), kReceives);
  cancel_pending_receives(unmap_requests_.data(), 1);
  // A 1-byte notice the neighbour never took: MPI delivers or drops it without us.
  if (unmap_requests_[1] != MPI_REQUEST_NULL) MPI_Request_free(&unmap_requests_[1]);
}

int NeighbourMessages::tag(Notice notice) const { return spec_.id * kNotices + static_cast<int>(notice); }

void NeighbourMessages::swap(Notice notice, const void* mine, int to, void* theirs, int from, std::size_t bytes) {
  const std::string name = std::string("the ") + notice_name(notice);
  swap_with_neighbours(comm_, tag(notice), mine, bytes, to, theirs, bytes, from, spec_.timeout_seconds,
                       RINGCOMM_TRANSPORT_PREFIX + name, [&](int peer, bool receiving) {
                         return stall(name + (receiving ? " from" : " to be taken by") + " ring position " +
                                          std::to_string(peer),
                                      peer, 0);
                       });
}

bool NeighbourMessages::trade_unmap_notices(bool unmapped, double limit_seconds) {
  unmap_notices_ = {0, 1};
  RINGCOMM_CHECK(MPI_Irecv(&unmap_notices_[0], 1, MPI_CHAR, spec_.recv_from, tag(Notice::unmapped), comm_,
                           &unmap_requests_[0]));
  if (unmapped)
    RINGCOMM_CHECK(MPI_Isend(&unmap_notices_[1], 1, MPI_CHAR, spec_.send_to, tag(Notice::unmapped), comm_,
                             &unmap_requests_[1]));
  try {
    wait_for_requests(unmap_requests_.data(), 2, MPI_STATUSES_IGNORE, limit_seconds, kTestall,
                      [&](const std::vector<bool>& pending) {
                        return pending[0] ? stall("the unmap notice from ring position " + std::to_string(spec_.recv_from),
                                                  spec_.recv_from, 0)
                                          : stall("the right neighbour to take the unmap notice", spec_.send_to, 0);
                      });
  } catch (const Error&) {
    // Only the left neighbour's notice matters here (MPI_Testall leaves a finished request as it was
    // while another is pending); one of ours not yet taken is let go by the destructor.
    int arrived = 0;
    if (MPI_Test(&unmap_requests_[0], &arrived, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    return arrived != 0;
  }
  return true;
}

void NeighbourMessages::post_receive(Slot slot, Notice notice, int from) {
  RINGCOMM_CHECK(MPI_Irecv(&values_[slot], 1, MPI_UINT64_T, from, tag(notice), comm_, &requests_[slot]));
}

void NeighbourMessages::post_send(Slot slot, Notice notice, int to) {
  values_[slot] = step_;
  RINGCOMM_CHECK(MPI_Isend(&values_[slot], 1, MPI_UINT64_T, to, tag(notice), comm_, &requests_[slot]));
}

void NeighbourMessages::begin_step(std::uint64_t step) {
  step_ = step;
  post_receive(arrived_in, Notice::arrived, spec_.recv_from);
  post_receive(credit_in, Notice::credit, spec_.send_to);
  // This rank's receive slot is free: Ring has fenced the work that read it before this step.
  post_send(credit_out, Notice::credit, spec_.recv_from);
}

bool NeighbourMessages::credit_granted() {
  int done = 0;
  RINGCOMM_CHECK(MPI_Test(&requests_[credit_in], &done, MPI_STATUS_IGNORE));
  if (done) check_step(credit_in, "credit", spec_.send_to);
  return done != 0;
}

void NeighbourMessages::await_credit() {
  wait_for_requests(&requests_[credit_in], 1, MPI_STATUSES_IGNORE, spec_.timeout_seconds, kTestall,
                    [&](auto) { return stall("the right neighbour's credit (its slot to be free)", spec_.send_to, spec_.bytes); });
  check_step(credit_in, "credit", spec_.send_to);
}

void NeighbourMessages::announce_arrival() { post_send(arrived_out, Notice::arrived, spec_.send_to); }

void NeighbourMessages::await_step_end() {
  std::array<MPI_Status, kInFlight> statuses;
  wait_for_requests(requests_.data(), kInFlight, statuses.data(), spec_.timeout_seconds, kTestall,
                    [&](const std::vector<bool>& pending) {
                      if (pending[arrived_in])
                        return stall("the message from the left neighbour", spec_.recv_from, spec_.bytes);
                      return pending[credit_out] ? stall("the left neighbour to take this rank's credit", spec_.recv_from, 0)
                                                 : stall("the right neighbour to take the arrival notice", spec_.send_to, 0);
                    });
  check_step(arrived_in, "arrival notice", spec_.recv_from);
}

void NeighbourMessages::check_step(Slot slot, const char* what, int from) const {
  if (values_[slot] == step_) return;
  throw Error(RINGCOMM_TRANSPORT_PREFIX "the " + std::string(what) + " from ring position " + std::to_string(from) +
              " is for step " + std::to_string(values_[slot]) + " of channel " + std::to_string(spec_.id) +
              ", but this rank is at step " + std::to_string(step_) + " (the ranks run different sequences of steps)");
}

Stall channel_stall(const ChannelSpec& spec, std::uint64_t step, std::string waiting_for, int peer,
                    std::size_t bytes_outstanding) {
  return ringcomm::channel_stall(spec, std::move(waiting_for), peer, bytes_outstanding,
                                 "step " + std::to_string(step) + " of this channel");
}

}  // namespace ringcomm::cuda_ipc_backend
