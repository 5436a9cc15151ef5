#pragma once
// The ring scheduler (Algorithm 1 of the distributed-G4 paper).
//
// Every rank of a sub-ring starts with its own message (a measurement's G_σ). It consumes it, then
// S−1 times sends what it holds to the right, receives from the left and consumes what arrived. The
// two slots of the channel swap roles each step, so nothing is copied. After S−1 steps every rank
// has consumed all S messages of its sub-ring.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "ringcomm/error.hpp"
#include "ringcomm/topology.hpp"
#include "ringcomm/transport.hpp"

namespace ringcomm {

using ExecSpace = Kokkos::DefaultExecutionSpace;

template <class Exec>
StreamRef stream_of(const Exec& exec) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) return StreamRef{static_cast<void*>(exec.cuda_stream())};
#endif
  (void)exec;
  return {};
}

// The channel that joins this rank to its neighbours in its sub-ring; its waits are bounded by
// RINGCOMM_TIMEOUT (throws a local Error when that is not valid).
ChannelSpec ring_channel_spec(const Topology& topology, std::size_t message_bytes, int channel_id);

class Ring {
 public:
  // Collective over the sub-ring; checks that every rank asks for the same message size and channel.
  Ring(Transport& transport, const Topology& topology, std::size_t message_bytes, int channel_id = 0);

  // Where the rank writes its own next message before calling circulate().
  void* outgoing() { return channel_->slot(own_slot_); }

  std::size_t message_bytes() const { return channel_->spec().bytes; }
  int size() const { return ring_size_; }
  int position() const { return position_; }
  // Memory this ring holds on this rank: its two slots and any transport staging.
  std::size_t buffer_bytes() const { return Channel::kSlots * message_bytes() + channel_->extra_bytes(); }
  Channel& channel() { return *channel_; }
  // How many times circulate() has run to its end.
  std::uint64_t rounds_circulated() const { return rounds_; }

  // Calls consume(const void* message, int origin) for the own message and each received one, where
  // origin is the position in the sub-ring of the rank that produced the message. consume may
  // enqueue work on `exec` without waiting for it; with a stream-ordered transport that work has
  // completed when circulate() returns (Channel::drain).
  //
  // Errors of the transport (a TimeoutError among them) come out with the step, the sub-ring and
  // this rank's position added to their message.
  template <class Consume>
  void circulate(Consume&& consume, const ExecSpace& exec = ExecSpace()) {
    Kokkos::Profiling::pushRegion("ringcomm::circulate");
    const StreamRef stream = stream_of(exec);
    int current = own_slot_;
    consume(static_cast<const void*>(channel_->slot(current)), position_);
    for (int step = 1; step < ring_size_; ++step) {
      const int other = 1 - current;
      Kokkos::Profiling::pushRegion("ringcomm::exchange");
      // A host-completing transport may write `other` as soon as start() runs, while the previous
      // step's work could still be reading it; stream-ordered ones queue behind that work anyway.
      if (!stream_ordered_) exec.fence();
      try {
        channel_->start(current, other, stream);
        channel_->finish(stream);
      } catch (const Error&) {
        rethrow_with_context(step);
      }
      Kokkos::Profiling::popRegion();
      current = other;
      Kokkos::Profiling::pushRegion("ringcomm::consume");
      consume(static_cast<const void*>(channel_->slot(current)), (position_ - step + ring_size_) % ring_size_);
      Kokkos::Profiling::popRegion();
    }
    if (stream_ordered_) {
      try {
        channel_->drain(stream);
      } catch (const Error&) {
        rethrow_with_context(ring_size_ - 1);
      }
    }
    // The slot sent last is free: the next own message goes there, leaving the last received one to
    // whatever work may still read it.
    own_slot_ = 1 - current;
    ++rounds_;
    Kokkos::Profiling::popRegion();
  }

 private:
  // Rethrows the ringcomm::Error in flight with where in the ring it happened.
  [[noreturn]] void rethrow_with_context(int step) const;

  std::unique_ptr<Channel> channel_;
  int ring_index_;
  int ring_size_;
  int position_;
  bool stream_ordered_;
  int own_slot_ = 0;
  std::uint64_t rounds_ = 0;
};

}  // namespace ringcomm
