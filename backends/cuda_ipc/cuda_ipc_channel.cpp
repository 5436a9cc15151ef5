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

#include <array>
#include <exception>
#include <optional>

#include "neighbour_messages.hpp"
#include "peer_copier.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/backend/cuda_device.hpp"
#include "ringcomm/backend/mpi_call.hpp"
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
      unmap_right_block();
      throw;
    }
    for (int s = 0; s < kSlots; ++s) right_slots_[s] = right_->slot(s);
  }

  // Collective over spec.comm, like the constructor, unless an error is unwinding the stack: then
  // the neighbours may be dead or stuck, or this rank's own copy may be, and the error must reach
  // run_main, so nothing is waited for.
  ~CudaIpcChannel() override {
    if (std::uncaught_exceptions() > 0) return;
    try {
      // A copy started without its finish() must end before its target is unmapped.
      await_copy("the last copy to end before the channel closes");
    } catch (const Error&) {
      // The copy failed or hangs: nothing better to do than to go on.
    }
    unmap_right_block();
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

  // Unmaps the right neighbour's block and tells it so; returns once the left neighbour has said the
  // same of this rank's block, which may be freed from then on (freeing memory another process still
  // maps is undefined behaviour in CUDA).
  void unmap_right_block() {
    right_.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (alone_ || finalized) return;
    const char unmapped = 1;
    char left_unmapped = 0;
    try {
      messages_.swap(Notice::unmapped, &unmapped, spec_.send_to, &left_unmapped, spec_.recv_from, 1);
    } catch (const Error&) {
      // The left neighbour did not answer within the timeout: it is gone, and with it its mapping.
    }
  }

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
