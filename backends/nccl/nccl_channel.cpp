// nccl's channel: each ring step is one ncclSend to the right and one ncclRecv from the left,
// grouped, on a stream of the channel's own that events tie to the stream of the caller's Kokkos execution space
// instance: the exchange starts once the work queued there before start() is done, and the work
// queued there after finish() starts once the exchange is done. No step waits on the host, and work
// queued between start() and finish() (the overlap schedule's consume) runs alongside the exchange.
#include "nccl_channel.hpp"

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>

#include "communicator.hpp"
#include "ringcomm/backend/check.hpp"
#include "ringcomm/backend/cuda_check.hpp"
#include "ringcomm/backend/cuda_device.hpp"
#include "ringcomm/backend/gpu_placement.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm::nccl_backend {
namespace {

// NCCL needs every rank of a communicator on its own GPU; two ranks on one GPU make its
// initialisation fail with a message that does not say what to change. This check says it first.
// Collective over `comm`. Throws the same collective Error on every rank when ranks of `comm` share
// a GPU, naming them, the GPU and — when a host runs more of them than it has GPUs — that too.
// `device` is this rank's CUDA device ordinal.
void require_one_rank_per_gpu(MPI_Comm comm, int device) {
  const GpuIdentity mine = collectively(comm, [&] { return identify_cuda_device(device); });
  const GpuPlacement placement = GpuPlacement::gather(comm, mine);
  if (const std::string refusal = placement.one_rank_per_gpu_refusal("NCCL"); !refusal.empty())
    throw Error(refusal, true);
}

int device_holding(const void* pointer) {
  cudaPointerAttributes attributes{};
  RINGCOMM_CHECK(cudaPointerGetAttributes(&attributes, pointer));
  return attributes.device;
}

// RINGCOMM_NCCL_REGISTER=1 registers the two slots with the communicator (ncclCommRegister), which lets
// NCCL skip its internal copies where it supports that; NCCL needs all ranks to agree on it.
bool register_slots_requested(MPI_Comm comm) {
  const std::string value = settings::env("RINGCOMM_NCCL_REGISTER").value_or("0");
  check_identical(comm, {{"RINGCOMM_NCCL_REGISTER", value}}, "NCCL buffer registration");
  return collectively(comm, [&] { return settings::parse_choice(value, "RINGCOMM_NCCL_REGISTER", {"0", "1"}) == "1"; });
}

// A forced NCCL failure for the fault tests (scripts/gpu_suite.sh): RINGCOMM_TEST_NCCL_ABORT=R:K makes
// world rank R abort its communicator at the K-th start() of each channel and fail as from an NCCL
// error, so that the other ranks' handling of a failed peer communicator can be watched. It must be
// the same on every rank (Open MPI passes the environment to all of them). Unset: nothing happens.
class FaultHook {
 public:
  static constexpr const char* kSetting = "RINGCOMM_TEST_NCCL_ABORT";
  FaultHook() {
    const auto text = settings::env(kSetting);
    if (!text) return;
    const auto colon = text->find(':');
    if (colon == std::string::npos)
      throw Error(std::string(kSetting) + "='" + *text + "': expected RANK:STEP, e.g. 1:3", true);
    const long long rank = settings::parse_integer(text->substr(0, colon), kSetting, 0, 1 << 30);
    step_ = static_cast<std::uint64_t>(settings::parse_integer(text->substr(colon + 1), kSetting, 1, 1LL << 40));
    if (rank != comm_rank(MPI_COMM_WORLD)) step_ = 0;
  }
  bool applies_at(std::uint64_t step) const { return step_ != 0 && step == step_; }

 private:
  std::uint64_t step_ = 0;  // 0: never
};

class NcclChannel final : public Channel {
 public:
  explicit NcclChannel(const ChannelSpec& spec) : spec_(spec) {
    // Every step that can fail on one rank alone is agreed on, so a failure never leaves peers
    // waiting in the next collective.
    collectively(spec.comm, [&] {
      for (int s = 0; s < kSlots; ++s) slots_[s] = Buffer(MemoryKind::device, spec.bytes, "ringcomm nccl slot");
      device_ = device_holding(slots_[0].data());
      // A thread that never chose a device would have NCCL set up on device 0.
      RINGCOMM_CHECK(cudaSetDevice(device_));
      RINGCOMM_CHECK(cudaEventCreateWithFlags(&exchanged_, cudaEventDisableTiming));
      RINGCOMM_CHECK(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
      // The highest priority lets NCCL's few blocks onto the SMs ahead of the rest of a large
      // consume kernel queued on the other stream, instead of after it.
      int lowest = 0, highest = 0;
      RINGCOMM_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
      RINGCOMM_CHECK(cudaStreamCreateWithPriority(&exchange_stream_, cudaStreamNonBlocking, highest));
    });
    require_one_rank_per_gpu(spec.comm, device_);
    const bool register_slots = register_slots_requested(spec.comm);
    communicator_ = std::make_unique<Communicator>(spec.comm, "ringcomm channel " + std::to_string(spec.id));
    if (register_slots)
      collectively(spec.comm, [&] {
        for (int s = 0; s < kSlots; ++s)
          RINGCOMM_CHECK(ncclCommRegister(communicator_->get(), slots_[s].data(), spec.bytes, &registrations_[s]));
      });
    connect_peers();
  }

  ~NcclChannel() override {
    try {
      // While an error unwinds the stack the peers may be gone: no waiting for them then.
      if (std::uncaught_exceptions() > 0) communicator_->abort();
      else if (started_) communicator_->wait_done(exchanged_, spec_.timeout_seconds, stall("the last exchanges to end"));
      for (void* handle : registrations_)
        if (handle != nullptr && communicator_->get() != nullptr) ncclCommDeregister(communicator_->get(), handle);
    } catch (const Error&) {
      // The communicator has failed; destroying it aborts it rather than waiting for its peers.
    }
    communicator_.reset();  // before the slots and the stream it may still reference
    if (exchange_stream_ != nullptr) cudaStreamDestroy(exchange_stream_);
    if (ready_ != nullptr) cudaEventDestroy(ready_);
    if (exchanged_ != nullptr) cudaEventDestroy(exchanged_);
  }

  void* slot(int index) override { return slots_[index].data(); }
  const ChannelSpec& spec() const override { return spec_; }

  void start(int send, int recv, StreamRef stream) override {
    aborting_on_error([&] {
      ++step_;
      if (fault_.applies_at(step_)) abort_for_test();
      int current = -1;
      RINGCOMM_CHECK(cudaGetDevice(&current));
      if (current != device_) RINGCOMM_CHECK(cudaSetDevice(device_));
      RINGCOMM_CHECK(cudaEventRecord(ready_, caller(stream)));
      RINGCOMM_CHECK(cudaStreamWaitEvent(exchange_stream_, ready_, 0));
      enqueue_exchange(send, recv, exchange_stream_);
      // The destructor waits for this event, which outlives the streams of the caller (a RingTeam
      // drops its execution space instances before its rings).
      RINGCOMM_CHECK(cudaEventRecord(exchanged_, exchange_stream_));
      started_ = true;
    });
  }

  // Stream-ordered: whatever the caller queues on the stream from now on runs after the exchange.
  // Only failures NCCL has noticed so far can be reported here.
  void finish(StreamRef stream) override {
    aborting_on_error([&] {
      throw_if_async_error(communicator_->get());
      RINGCOMM_CHECK(cudaStreamWaitEvent(caller(stream), exchanged_, 0));
    });
  }

  // The one host wait of a round (Ring::circulate calls it last): bounded, and on expiry or any
  // failure the communicator is aborted, so that no later fence waits for an NCCL kernel that never
  // ends. The caller's stream waits for the last exchange, and so for all before it.
  void drain(StreamRef stream) override {
    communicator_->wait_idle(caller(stream), spec_.timeout_seconds,
                             stall("this round's exchanges and the work queued behind them"));
  }

 private:
  // Runs `step`; when it throws, aborts the communicator before the error leaves the channel. NCCL
  // kernels already queued may wait for a peer forever, and the stack that the error unwinds frees
  // device memory on its way (G_t, the kernels' tables) with cudaFree, which waits for every kernel
  // of the device: without the abort, that wait never ends.
  template <class Step>
  void aborting_on_error(Step&& step) {
    try {
      step();
    } catch (...) {
      communicator_->abort();
      throw;
    }
  }

  // The test hook (see FaultHook): this rank's communicator fails as if NCCL had hit an error.
  [[noreturn]] void abort_for_test() {
    communicator_->abort();
    throw Error(RINGCOMM_TRANSPORT_PREFIX "ncclCommAbort by the test hook " + std::string(FaultHook::kSetting) + " at step " +
                std::to_string(step_) + " of channel " + std::to_string(spec_.id) + " on this rank");
  }

  // A caller without an execution space instance of its own queues on the legacy default stream.
  static cudaStream_t caller(StreamRef stream) { return static_cast<cudaStream_t>(stream.native); }

  void enqueue_exchange(int send, int recv, cudaStream_t stream) {
    ncclComm_t comm = communicator_->get();
    RINGCOMM_CHECK(ncclGroupStart());
    RINGCOMM_CHECK(ncclSend(slots_[send].data(), spec_.bytes, ncclUint8, spec_.send_to, comm, stream));
    RINGCOMM_CHECK(ncclRecv(slots_[recv].data(), spec_.bytes, ncclUint8, spec_.recv_from, comm, stream));
    RINGCOMM_CHECK(ncclGroupEnd());
  }

  // NCCL connects to a peer at the first exchange with it, which takes tens of milliseconds and would
  // land in the first ring round. One exchange of the slots, whose contents mean nothing yet, moves
  // that cost into open_channel().
  void connect_peers() {
    collectively(spec_.comm, [&] {
      enqueue_exchange(0, 1, exchange_stream_);
      communicator_->wait_idle(exchange_stream_, spec_.timeout_seconds,
                               stall("the first exchange, which connects the peers"));
    });
  }

  Stall stall(const char* waiting_for) const {
    return channel_stall(spec_, waiting_for);
  }

  ChannelSpec spec_;
  std::array<Buffer, kSlots> slots_;
  int device_ = 0;
  std::unique_ptr<Communicator> communicator_;
  std::array<void*, kSlots> registrations_{};
  cudaStream_t exchange_stream_ = nullptr;
  cudaEvent_t ready_ = nullptr;      // recorded on the caller's stream before each exchange
  cudaEvent_t exchanged_ = nullptr;  // recorded on exchange_stream_ after each exchange
  bool started_ = false;
  std::uint64_t step_ = 0;  // start() calls so far
  FaultHook fault_;
};

}  // namespace

std::unique_ptr<Channel> open_channel(const ChannelSpec& spec) { return std::make_unique<NcclChannel>(spec); }

}  // namespace ringcomm::nccl_backend
