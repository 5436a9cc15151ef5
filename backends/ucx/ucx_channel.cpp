// The ring step of the ucx transport: one-sided puts plus two counters.
//
// A step moves my `send` slot into the right neighbour's slot with the index of my `recv` slot.
// Every rank of a ring makes the same sequence of start() calls, so at any step all of them receive
// into the same slot index and a sender can name the receiver's slot without asking.
//
// A put gives the receiver no notice and needs no permission from it, so each rank owns two
// counters, registered for remote writes. Each counter has exactly one writer, which puts the step
// number k there (k counts every start() of the channel, across rounds):
//
//   credit   written by my right neighbour: "my slot for step k is free". A rank grants it at the
//            start of step k, when that slot is free indeed: it was the rank's send slot at step
//            k-1, whose put finish() saw complete, and held the message consumed at step k-1, which
//            Ring has fenced before calling start(). A sender puts nothing before its credit, so a
//            slot is never overwritten while it is still being read, however far ranks drift apart.
//   arrived  written by my left neighbour: "your step-k message is in place". The sender writes it
//            only once a flush of its endpoint has completed, i.e. the message has landed. A fence
//            (ucp_worker_fence) is not enough: UCX 1.13 fences each transport separately, and UCX
//            moves message and counter on different transports exactly where speed matters
//            (cuda_ipc for device slots, shared memory for the host counters). The flush costs one
//            round trip per step, small beside the messages this transport is meant for.
//
// Readers test `counter == k`, not `>= k`. A counter is never a step ahead of its reader: the writer
// of k+1 needs something that the reader does only after seeing k (credit k+1 is granted after
// arrived k was seen; arrived k+1 is written after credit k+1). So the two writes of one counter
// never race each other, and == k holds exactly when every byte that changed has landed, which keeps
// a transport that splits the 8-byte write from being misread.
//
// RINGCOMM_UCX_PUT_CHUNK splits a message into puts of at most that many bytes (0, the default: one
// put). UCX picks its protocol per put size, and on some machines a large message moves faster as
// several mid-sized puts that UCX can keep in flight at once; the flush covers them all.
//
// With S = 1 the endpoints lead back to this rank's own worker; nothing else changes.
#include "ucx_channel.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

#include "peer_exchange.hpp"
#include "ringcomm/backend/check.hpp"
#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/settings.hpp"
#include "ucx_memory.hpp"
#include "ucx_status.hpp"
#include "ucx_worker.hpp"

namespace ringcomm::ucx_backend {
namespace {

// Each counter has its own cache line, as the two are written by different neighbours.
struct Signals {
  alignas(64) std::uint64_t credit;
  alignas(64) std::uint64_t arrived;
};

std::uint64_t load(const std::uint64_t& counter) { return __atomic_load_n(&counter, __ATOMIC_ACQUIRE); }

std::size_t put_chunk_setting() {
  const auto text = settings::env("RINGCOMM_UCX_PUT_CHUNK");
  return text ? settings::parse_bytes(*text, "RINGCOMM_UCX_PUT_CHUNK") : 0;
}

class UcxChannel final : public Channel {
 public:
  UcxChannel(std::shared_ptr<const Context> context, const ChannelSpec& spec, MemoryKind memory)
      : spec_(spec), comm_(spec.comm), context_(std::move(context)) {
    // Every step that can fail on one rank alone is agreed on, so that all ranks leave the
    // constructor together, either with a channel or with the same error.
    PeerInfo mine;
    collectively(comm_.get(), [&] {
      put_chunk_bytes_ = put_chunk_setting();
      worker_ = std::make_unique<Worker>(context_->handle(), spec_.timeout_seconds, spec_.id);
      signals_region_ = LocalRegion(context_->handle(), MemoryKind::host, sizeof(Signals), "ucx step counters");
      std::memset(signals_region_.data(), 0, sizeof(Signals));
      for (int s = 0; s < kSlots; ++s)
        slots_[s] = LocalRegion(context_->handle(), memory, spec_.bytes, "ucx ring slot " + std::to_string(s));
      mine.worker_address = worker_->address();
      mine.signals = signals_region_.describe();
      for (int s = 0; s < kSlots; ++s) mine.slots[s] = slots_[s].describe();
      mine.slot_bytes = spec_.bytes;
    });
    const NeighbourInfo neighbours = exchange_with_neighbours(comm_.get(), spec_, mine);
    collectively(comm_.get(), [&] {
      right_ = worker_->connect(neighbours.right.worker_address, right_name());
      left_ = worker_->connect(neighbours.left.worker_address, left_name());
      right_signals_ = RemoteRegion(right_, neighbours.right.signals, "the counters of " + right_name());
      left_signals_ = RemoteRegion(left_, neighbours.left.signals, "the counters of " + left_name());
      for (int s = 0; s < kSlots; ++s)
        right_slots_[s] = RemoteRegion(right_, neighbours.right.slots[s], "a slot of " + right_name());
      right_slot_bytes_ = neighbours.right.slot_bytes;
    });
    const std::array<ucp_ep_h, 2> endpoints = {right_, left_};
    worker_->await_wireup(comm_.get(), endpoints.data(), static_cast<int>(endpoints.size()));
  }

  // Collective over spec.comm, like the constructor.
  ~UcxChannel() override {
    // Remote keys belong to their endpoints and go first.
    for (auto& slot : right_slots_) slot = RemoteRegion();
    right_signals_ = RemoteRegion();
    left_signals_ = RemoteRegion();
    int finalized = 0;
    MPI_Finalized(&finalized);
    // Without MPI the peers cannot be waited for, nor while an error unwinds the stack: the peers
    // may be dead or stuck, and the error must reach run_main. Destroying the worker drops the
    // endpoints.
    const bool unwinding = std::uncaught_exceptions() > 0;
    if (!finalized && !unwinding) {
      std::array<ucp_ep_h, 2> endpoints = {right_, left_};
      try {
        // Every rank flushes and closes its endpoints before any passes the barrier: no put is in
        // flight into or out of anyone's slots after it.
        worker_->disconnect(comm_.get(), endpoints.data(), static_cast<int>(endpoints.size()));
        return;
      } catch (const Error& e) {
        // A teardown that timed out: the peers' puts are not known to have ended. Said at once, as
        // the rank may be ended (by a peer's abort) before its next wait times out too.
        std::fprintf(stderr, "ringcomm: error on rank %d: %s (closing ucx channel %d)\n", world_rank(), e.what(),
                     spec_.id);
        std::fflush(stderr);
      }
    }
    keep_memory_still_in_use(unwinding ? kUnwindingGraceSeconds : 0);
  }
  void* slot(int index) override { return slots_[index].data(); }
  const ChannelSpec& spec() const override { return spec_; }
  std::size_t extra_bytes() const override { return sizeof(Signals); }

  void start(int send, int recv, StreamRef) override {
    // Set-up refuses mismatched sizes; this keeps a put within the peer's slot whatever happens.
    if (spec_.bytes > right_slot_bytes_)
      throw Error(RINGCOMM_TRANSPORT_PREFIX "refusing to put " + std::to_string(spec_.bytes) + " bytes into a slot of " +
                  std::to_string(right_slot_bytes_) + " bytes registered by " + right_name() + " (channel " +
                  std::to_string(spec_.id) + ")");
    ++step_;
    credit_source_ = step_;
    credit_put_ = put_counter(left_, left_signals_, offsetof(Signals, credit), credit_source_);
    worker_->wait_until([&] { return load(signals().credit) == step_; },
                        [&] { return stall("credit from the right neighbour", spec_.send_to, spec_.bytes); });

    ucp_request_param_t params{};
    params.op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE | UCP_OP_ATTR_FIELD_MEMH;
    params.memory_type = slots_[send].memory_type();
    params.memh = slots_[send].handle();
    const auto* source = static_cast<const unsigned char*>(slots_[send].data());
    const std::size_t chunk = put_chunk_bytes_ == 0 ? spec_.bytes : put_chunk_bytes_;
    message_puts_.clear();
    for (std::size_t offset = 0; offset < spec_.bytes; offset += chunk) {
      const std::size_t length = std::min(chunk, spec_.bytes - offset);
      message_puts_.emplace_back(ucp_put_nbx(right_, source + offset, length, right_slots_[recv].address(offset),
                                             right_slots_[recv].rkey(), &params));
    }
    ucp_request_param_t flush_params{};
    message_flush_ = Operation(ucp_ep_flush_nbx(right_, &flush_params));
  }

  void finish(StreamRef) override {
    worker_->wait_until(
        [&] {
          for (Operation& put : message_puts_)
            if (!settled(put, "the message put", spec_.send_to)) return false;
          return settled(message_flush_, "the flush after the message put", spec_.send_to);
        },
        [&] { return stall("the put to the right neighbour to land", spec_.send_to, spec_.bytes); });
    arrived_source_ = step_;
    arrived_put_ = put_counter(right_, right_signals_, offsetof(Signals, arrived), arrived_source_);
    worker_->wait_until(
        [&] {
          return settled(credit_put_, "the credit put", spec_.recv_from) &&
                 settled(arrived_put_, "the arrival notice", spec_.send_to) &&
                 load(signals().arrived) == step_;
        },
        [&] {
          return stall("the message from the left neighbour", spec_.recv_from,
                       load(signals().arrived) == step_ ? 0 : spec_.bytes);
        });
  }

 private:
  Signals& signals() { return *static_cast<Signals*>(signals_region_.data()); }

  Stall stall(const char* waiting_for, int peer, std::size_t bytes_outstanding) const {
    return channel_stall(spec_, waiting_for, peer, bytes_outstanding, "step " + std::to_string(step_) + " of this channel");
  }

  // After a failure, the slots and counters are unmapped and freed only where no put can still touch
  // them: this rank's own message put (reading its send slot) must have ended within `grace_seconds`,
  // and every credit it granted must have been answered by the left neighbour's arrival notice (a
  // sender puts only after a credit and announces only after its put has landed). Otherwise they
  // stay until the process ends: freed memory that a put still lands in would corrupt whatever is
  // allocated there next.
  void keep_memory_still_in_use(double grace_seconds) {
    if (!worker_) return;
    bool own_puts_ended = false;
    try {
      ringcomm::wait_until(
          [&] {
            ucp_worker_progress(worker_->handle());
            for (Operation& put : message_puts_)
              if (put.poll() == UCS_INPROGRESS) return false;
            return message_flush_.poll() != UCS_INPROGRESS;
          },
          grace_seconds, [&] { return stall("this rank's last put to end before the channel closes", spec_.send_to, 0); });
      own_puts_ended = true;
    } catch (const Error&) {
    }
    const bool no_put_expected = load(signals().arrived) == credit_source_;
    if (own_puts_ended && no_put_expected) return;
    for (auto& slot : slots_) slot.keep_memory();
    signals_region_.keep_memory();
    // UCP's cleanup would unregister the kept memory (and asserts on it): the context stays too.
    static_cast<void>(new std::shared_ptr<const Context>(context_));
    std::fprintf(stderr,
                 "ringcomm: warning on rank %d: ucx channel %d: %s; its slots and counters stay allocated until the "
                 "process ends\n",
                 world_rank(), spec_.id,
                 own_puts_ended ? "the left neighbour may still put into this rank's slot"
                                : "this rank's put to the right neighbour did not end");
  }

  static int world_rank() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    return finalized ? -1 : comm_rank(MPI_COMM_WORLD);
  }

  static constexpr double kUnwindingGraceSeconds = 0.5;

  std::string right_name() const { return "ring position " + std::to_string(spec_.send_to); }
  std::string left_name() const { return "ring position " + std::to_string(spec_.recv_from); }

  // `source` must stay untouched until the returned operation has settled.
  Operation put_counter(ucp_ep_h endpoint, const RemoteRegion& counters, std::size_t offset,
                        const std::uint64_t& source) {
    ucp_request_param_t params{};
    params.op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    params.memory_type = UCS_MEMORY_TYPE_HOST;
    return Operation(
        ucp_put_nbx(endpoint, &source, sizeof source, counters.address(offset), counters.rkey(), &params));
  }

  // True once `operation` has completed; throws, naming the step and the peer, when it failed.
  bool settled(Operation& operation, const char* what, int peer) {
    const ucs_status_t status = operation.poll();
    if (status == UCS_INPROGRESS) return false;
    if (status != UCS_OK)
      fail(status, std::string(what) + " to ring position " + std::to_string(peer) + " at step " +
                       std::to_string(step_) + " of channel " + std::to_string(spec_.id));
    return true;
  }

  ChannelSpec spec_;
  PrivateComm comm_;
  std::shared_ptr<const Context> context_;
  std::unique_ptr<Worker> worker_;
  LocalRegion signals_region_;
  std::array<LocalRegion, kSlots> slots_;
  ucp_ep_h right_ = nullptr;  // closed by the worker
  ucp_ep_h left_ = nullptr;
  RemoteRegion right_signals_;
  RemoteRegion left_signals_;
  std::array<RemoteRegion, kSlots> right_slots_;
  std::uint64_t right_slot_bytes_ = 0;
  std::size_t put_chunk_bytes_ = 0;

  std::uint64_t step_ = 0;
  std::uint64_t credit_source_ = 0;
  std::uint64_t arrived_source_ = 0;
  Operation credit_put_;
  std::vector<Operation> message_puts_;
  Operation message_flush_;
  Operation arrived_put_;
};

}  // namespace

std::unique_ptr<Channel> open_channel(std::shared_ptr<const Context> context, const ChannelSpec& spec,
                                      MemoryKind memory) {
  return std::make_unique<UcxChannel>(std::move(context), spec, memory);
}

}  // namespace ringcomm::ucx_backend
