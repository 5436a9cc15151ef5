// mpi: matched send/receive with MPI persistent requests. Device slots are handed to MPI directly,
// which is only correct when the MPI is CUDA-aware ("GPUDirect"); otherwise this backend refuses.
#include <array>
#include <vector>

#include "gpu_awareness.hpp"
#include "ringcomm/backend.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/mpi_bytes.hpp"
#include "ringcomm/mpi_call.hpp"

namespace ringcomm::mpi_backend {
namespace {

class MpiChannel final : public Channel {
 public:
  // A private communicator per channel keeps threads' traffic apart without tag bookkeeping.
  MpiChannel(const ChannelSpec& spec, MemoryKind memory) : spec_(spec), message_(spec.bytes), comm_(spec.comm) {
    for (int s = 0; s < kSlots; ++s) slots_[s] = Buffer(memory, spec.bytes, "ringcomm mpi slot");
    for (int s = 0; s < kSlots; ++s) {
      check_mpi(MPI_Send_init(slots_[s].data(), message_.count(), message_.type(), spec.send_to, 0, comm_.get(), &send_[s]),
                "mpi transport: MPI_Send_init");
      check_mpi(MPI_Recv_init(slots_[s].data(), message_.count(), message_.type(), spec.recv_from, 0, comm_.get(), &recv_[s]),
                "mpi transport: MPI_Recv_init");
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
    check_mpi(MPI_Startall(2, active_.data()), "mpi transport: MPI_Startall");
  }

  void finish(StreamRef) override {
    std::array<MPI_Status, 2> status;
    wait_for_requests(active_.data(), 2, status.data(), spec_.timeout_seconds, "mpi transport: MPI_Testall",
                      [&](const std::vector<bool>& pending) { return stall(pending); });
    int received = 0;
    MPI_Get_count(&status[0], message_.type(), &received);
    if (received != message_.count())
      throw Error("mpi transport: received " + std::to_string(received) + " units from ring position " +
                  std::to_string(spec_.recv_from) + ", expected " + std::to_string(message_.count()));
  }

 private:
  // active_ holds the receive, then the send.
  Stall stall(const std::vector<bool>& pending) const {
    Stall stall;
    stall.transport = "mpi";
    stall.channel = spec_.id;
    const bool receiving = pending[0], sending = pending[1];
    stall.waiting_for = receiving && sending ? "the exchange with both neighbours"
                        : receiving          ? "the message from the left neighbour"
                                             : "the right neighbour to take the message";
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

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MemoryKind memory) : memory_(memory) {}
  std::string name() const override { return "mpi"; }
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.device_memory = memory_ == MemoryKind::device;
    return caps;
  }
  std::unique_ptr<Channel> open_channel(const ChannelSpec& spec) override {
    verify_channel_spec(spec, name());
    return std::make_unique<MpiChannel>(spec, memory_);
  }

 private:
  MemoryKind memory_;
};

Usability probe(const TransportContext& ctx) {
  if (ctx.memory != MemoryKind::device) return Usability::yes();
  const GpuAwareness gpu = probe_gpu_awareness();
  if (gpu.aware) return Usability::yes();
  return Usability::no("ring buffers are in device memory and this MPI is not CUDA-aware (" + gpu.how +
                       "); use RINGCOMM_TRANSPORT=host (staged through pinned host memory) or ucx");
}

std::vector<std::string> details(const TransportContext&) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string library(version);  // Open MPI counts the terminating NUL in `length`
  (void)length;
  if (const auto newline = library.find('\n'); newline != std::string::npos) library.resize(newline);
  const GpuAwareness gpu = probe_gpu_awareness();
  return {"library: " + library, std::string("CUDA-aware: ") + (gpu.aware ? "yes" : "no") + " (" + gpu.how + ")"};
}

}  // namespace
}  // namespace ringcomm::mpi_backend

RINGCOMM_REGISTER_BACKEND(mpi) {
  using namespace ringcomm;
  BackendInfo info;
  info.name = "mpi";
  info.summary = "MPI persistent send/receive; device pointers only with a CUDA-aware MPI";
  info.auto_preference = 30;
  info.probe = mpi_backend::probe;
  info.create = [](const TransportContext& ctx) { return std::make_unique<mpi_backend::MpiTransport>(ctx.memory); };
  info.details = mpi_backend::details;
  registry.add(std::move(info));
}
