// The ring step of the cuda_ipc transport: the sender copies its message straight into the right
// neighbour's slot with its GPU's copy engine (cudaMemcpyAsync into the neighbour's slot block,
// mapped through CUDA IPC), and two MPI notices per step keep the ranks in step.
//
// Every rank of a ring makes the same sequence of start() calls, so at any step all of them receive
// into the same slot index and a sender can name the receiver's slot without asking. A copy lands
// without the receiver taking part, so (as with ucx's puts) it needs the receiver's permission first
// and must tell the receiver when it is done. Step k (k counts every start() of the channel):
//
//   credit k   from the right neighbour: "my slot for step k is free". A rank grants it in start(k),
//              when that slot is free indeed: it was the rank's send slot at step k−1, whose copy
//              finish() saw complete, and it held the message consumed at step k−1, which Ring
//              fences before start(). No copy is enqueued before its credit, so a slot is never
//              overwritten while it is still read, however far the ranks drift apart.
//   arrived k  from the left neighbour: "your step-k message is in place", sent once the event after
//              the copy has completed, i.e. every byte has landed in the receiver's memory.
//
// Both carry k and are checked: MPI keeps the messages of one sender, communicator and tag in order,
// so a notice for another step means the ranks disagree about the sequence of steps.
//
// start() enqueues the copy at once when the credit is already there, and otherwise leaves it to
// finish(), which waits for the credit first. Ring launches the consume of the message being
// forwarded between the two calls, so that launch never waits for a neighbour that is late.
//
// With S = 1 the right neighbour is this rank itself: the copy goes into its own other slot, and
// nothing is mapped (CUDA IPC refuses a process' own allocations).
#include "cuda_ipc_channel.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <exception>
#include <optional>

#include "neighbour_messages.hpp"
#include "peer_copier.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/backend/cuda_device.hpp"
#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/watchdog.hpp"
#include "slot_block.hpp"

namespace ringcomm::cuda_ipc_backend {
namespace {

class CudaIpcChannel final : public Channel {
 public:
  CudaIpcChannel(const ChannelSpec& spec, int device)
      : spec_(spec),
        device_(device),
        comm_(spec.comm),
        alone_(spec.send_to == comm_rank(comm_.get())),
        messages_(comm_.get(), spec) {
    // Every step that can fail on one rank alone is agreed on, so that all ranks leave the
    // constructor together, either with a channel or with the same error.
    collectively(comm_.get(), [&] {
      const ScopedCudaDevice on_gpu(device_);
      own_.emplace(spec_.bytes);
      copier_.emplace();
    });
    if (alone_) {
      for (int s = 0; s < kSlots; ++s) right_slots_[s] = own_->slot(s);
      return;
    }
    const cudaIpcMemHandle_t right_handle = collectively(comm_.get(), [&] {
      const cudaIpcMemHandle_t mine = own_->handle();
      cudaIpcMemHandle_t theirs{};
      messages_.swap(Notice::slot_handle, &mine, spec_.recv_from, &theirs, spec_.send_to, sizeof mine);
      return theirs;
    });
    try {
      collectively(comm_.get(), [&] {
        const ScopedCudaDevice on_gpu(device_);
        right_.emplace(right_handle, spec_.bytes);
      });
    } catch (const Error&) {
      // Where the mapping failed on some rank only, others hold mappings of blocks about to be freed.
      // No copy has been made yet.
      close_mappings(spec_.timeout_seconds, true);
      throw;
    }
    for (int s = 0; s < kSlots; ++s) right_slots_[s] = right_->slot(s);
  }

  // Collective over spec.comm, like the constructor. Memory that a copy may still be landing in is
  // neither unmapped nor freed, and every wait is bounded: by the channel's timeout, or while an error
  // unwinds the stack (the neighbours may be dead or stuck, or this rank's own copy may be, and the
  // error must reach run_main) by a short grace, ample for a copy already on its way.
  ~CudaIpcChannel() override {
    const double limit = std::uncaught_exceptions() > 0 ? std::min(spec_.timeout_seconds, kUnwindingGraceSeconds)
                                                        : spec_.timeout_seconds;
    try {
      close_mappings(limit, copy_landed(limit));
    } catch (const std::exception& e) {
      // MPI failed on the way: keep whatever a copy may still use.
      if (right_) right_->keep_mapped();
      if (own_) own_->keep_allocated();
      warn(std::string("teardown failed (") + e.what() + "); its slots and mapping stay");
    }
  }

  void* slot(int index) override { return own_->slot(index); }
  const ChannelSpec& spec() const override { return spec_; }
  std::size_t extra_bytes() const override { return own_->padding_bytes(); }

  void start(int send, int recv, StreamRef stream) override {
    const ScopedCudaDevice on_gpu(device_);
    ++step_;
    messages_.begin_step(step_);
    // The copy must also wait for the kernels that wrote the message it sends (the walker's, at the
    // first step). Ring has fenced them already; the event makes that a guarantee of this channel.
    if (stream.native != nullptr) copier_->follow(static_cast<cudaStream_t>(stream.native));
    copy_ = PendingCopy{send, recv, false};
    if (messages_.credit_granted()) enqueue_copy();
  }

  void finish(StreamRef) override {
    if (!copy_.enqueued) {
      messages_.await_credit();
      const ScopedCudaDevice on_gpu(device_);
      enqueue_copy();
    }
    await_copy("the copy into the right neighbour's slot to land");
    messages_.announce_arrival();
    messages_.await_step_end();
  }

 private:
  struct PendingCopy {
    int send = 0;
    int recv = 1;
    bool enqueued = true;
  };

  void enqueue_copy() {
    copier_->copy(right_slots_[copy_.recv], own_->slot(copy_.send), spec_.bytes);
    copy_.enqueued = true;
  }

  void await_copy(const char* waiting_for) {
    if (!copier_) return;
    wait_until([&] { return copier_->idle(); }, spec_.timeout_seconds,
               [&] { return channel_stall(spec_, step_, waiting_for, spec_.send_to, spec_.bytes); });
  }

  // Whether this rank's last copy has ended within `limit_seconds` (a copy that failed has ended).
  bool copy_landed(double limit_seconds) {
    if (!copier_) return true;
    try {
      wait_until([&] { return copier_->idle(); }, limit_seconds,
                 [&] { return channel_stall(spec_, step_, "the last copy to end before the channel closes",
                                            spec_.send_to, spec_.bytes); });
    } catch (const TimeoutError&) {
      return false;
    } catch (const Error&) {
      // The copy failed: it writes nothing any more.
    }
    return true;
  }

  // Teardown in the order that keeps every copy's memory alive until the copy has landed: this rank
  // unmaps the right neighbour's block once its own copy into it has ended (`own_copy_landed`) and
  // then tells the neighbour, who may free it from then on; it frees its own block only once the left
  // neighbour has said the same, within `limit_seconds`. Otherwise the mapping stays open, or the
  // block allocated, until the process ends (a warning says which): freeing memory that a copy still
  // lands in would corrupt whatever CUDA put there next.
  void close_mappings(double limit_seconds, bool own_copy_landed) {
    if (!own_copy_landed) {
      if (right_) right_->keep_mapped();
      warn(alone_ ? std::string("its copy between its own slots did not end; they stay")
                  : "its copy into ring position " + std::to_string(spec_.send_to) +
                        "'s slots did not end; the mapping stays open, and that rank keeps the slots");
    }
    right_.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    bool left_unmapped = own_copy_landed;
    if (!alone_ && !finalized) {
      left_unmapped = messages_.trade_unmap_notices(own_copy_landed, limit_seconds);
      if (!left_unmapped)
        warn("ring position " + std::to_string(spec_.recv_from) + " did not confirm within " +
             format_seconds(limit_seconds) + " that it has unmapped this rank's slots, which stay allocated");
    }
    // Without MPI nobody can be asked; the process is ending, and so is every peer's mapping.
    if (!left_unmapped && own_ && !finalized) own_->keep_allocated();
  }

  static std::string format_seconds(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", seconds);
    return text;
  }

  void warn(const std::string& what) const {
    int finalized = 0;
    MPI_Finalized(&finalized);
    std::fprintf(stderr, "ringcomm: warning on rank %d: cuda_ipc channel %d: %s until the process ends\n",
                 finalized ? -1 : comm_rank(MPI_COMM_WORLD), spec_.id, what.c_str());
  }

  static constexpr double kUnwindingGraceSeconds = 0.5;

  ChannelSpec spec_;
  int device_;
  PrivateComm comm_;
  bool alone_;  // S = 1: this rank is its own right neighbour
  NeighbourMessages messages_;
  std::optional<OwnSlots> own_;
  std::optional<PeerCopier> copier_;
  std::optional<MappedSlots> right_;  // empty when alone_
  std::array<void*, kSlots> right_slots_{};
  std::uint64_t step_ = 0;
  PendingCopy copy_;
};

}  // namespace

std::unique_ptr<Channel> open_channel(const ChannelSpec& spec, int device) {
  return std::make_unique<CudaIpcChannel>(spec, device);
}

}  // namespace ringcomm::cuda_ipc_backend
