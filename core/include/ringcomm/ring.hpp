#pragma once
// The ring scheduler (Algorithm 1 of the distributed-G4 paper).
//
// Every rank of a sub-ring starts with its own message (a measurement's G_σ). It consumes it, then
// S−1 times sends what it holds to the right, receives from the left and consumes what arrived. The
// two slots of the channel swap roles each step, so nothing is copied. After S−1 steps every rank
// has consumed all S messages of its sub-ring.
//
// A ring may run leftward instead (send left, receive from the right), so that two rings of a rank
// keep both directions of every link busy, and may overlap each step's exchange with the consume of
// the message it forwards (StepSchedule::overlap).
//
// Expert layer: a Ring applies no walker settings. It runs the schedule and direction of its
// RingOptions (lock-step and rightward unless told otherwise) whatever RINGCOMM_OVERLAP or
// RINGCOMM_DIRECTION say, and reads only RINGCOMM_TIMEOUT. ringcomm::Session (session.hpp) applies
// every setting. A Ring keeps a reference to its Transport: keep the transport alive longer.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "ringcomm/error.hpp"
#include "ringcomm/phase.hpp"
#include "ringcomm/topology.hpp"
#include "ringcomm/trace.hpp"
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

// Which way messages travel around the sub-ring.
enum class Direction { rightward, leftward };
const char* to_string(Direction direction);

// How a step's exchange and consume follow each other.
//   lock_step: exchange, then consume what arrived (the paper's Algorithm 1).
//   overlap:   consume the message being forwarded while the next one arrives; a step costs about
//              max(exchange, consume) instead of their sum.
enum class StepSchedule { lock_step, overlap };
const char* to_string(StepSchedule schedule);

struct RingOptions {
  int channel_id = 0;  // every rank must use the same id for the same ring
  Direction direction = Direction::rightward;
  StepSchedule schedule = StepSchedule::lock_step;
};

// The channel that joins this rank to its neighbours in its sub-ring; its waits are bounded by
// RINGCOMM_TIMEOUT (throws a local Error when that is not valid).
ChannelSpec ring_channel_spec(const Topology& topology, std::size_t message_bytes, int channel_id,
                              Direction direction = Direction::rightward);

class Ring {
 public:
  // Collective over the sub-ring; checks that every rank asks for the same message size and channel.
  Ring(Transport& transport, const Topology& topology, std::size_t message_bytes, int channel_id = 0);
  Ring(Transport& transport, const Topology& topology, std::size_t message_bytes, const RingOptions& options);

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
  Direction direction() const { return direction_; }
  // The schedule circulate() follows (RingOptions::schedule).
  StepSchedule schedule() const { return schedule_; }

  // Calls consume(const void* message, int origin) for the own message and each received one, where
  // origin is the position in the sub-ring of the rank that produced the message. consume may
  // enqueue work on `exec` without waiting for it; with a stream-ordered transport that work has
  // completed when circulate() returns (Channel::drain).
  //
  // Errors of the transport (a TimeoutError among them) come out with the step, the sub-ring and
  // this rank's position added to their message.
  template <class Consume>
  void circulate(Consume&& consume, const ExecSpace& exec = ExecSpace()) {
    const PhaseScope phase("ring-step");
    if (schedule_ == StepSchedule::overlap) circulate_overlapped(consume, exec);
    else circulate_lock_step(consume, exec);
  }

  // Steps, bytes and host time in compute and communication since this ring was opened.
  const RingCounters& counters() const { return counters_; }

  // A consume functor may hold messages back and apply several at once (gt::GtAccumulator with a
  // batch); it then has a flush() that applies what it holds. flush(consume) calls it when there is
  // one, and does nothing otherwise: call it wherever the results must be complete (end of the run,
  // before checkpoints, sum_across_rings, gather or write). circulate() never flushes, so that a batch
  // may span rounds.
  template <class Consume>
  static void flush(Consume& consume) {
    if constexpr (has_flush<Consume>::value) consume.flush();
  }

 private:
  template <class T, class = void>
  struct has_flush : std::false_type {};
  template <class T>
  struct has_flush<T, std::void_t<decltype(std::declval<T&>().flush())>> : std::true_type {};

  template <class Consume>
  void circulate_lock_step(Consume& consume, const ExecSpace& exec) {
    const Phase whole_round("ringcomm::circulate");
    const StreamRef stream = stream_of(exec);
    int current = own_slot_;
    consume_slot(consume, current, 0);
    for (int step = 1; step < ring_size_; ++step) {
      const int other = 1 - current;
      {
        const Phase exchange("ringcomm::exchange");
        // A host-completing transport may write `other` as soon as start() runs, while the previous
        // step's work could still be reading it; stream-ordered ones queue behind that work anyway.
        if (!stream_ordered_) fence_consumes(exec);
        start_step(step, current, other, stream);
        finish_step(step, stream);
      }
      current = other;
      consume_slot(consume, current, step);
    }
    if (stream_ordered_) drain_round(stream);
    end_round(current);
  }

  // Step k forwards the message that arrived at step k−1 (the own one at k = 1) while the consume of
  // that same message runs, and receives the next into the other slot; the last arrival is consumed
  // after the loop. With two slots, the slot received into at step k is the one consumed during step
  // k−1, so that consume must be complete before the exchange of step k writes it (and, at k = 1, the
  // walker that wrote the own message, which start() sends). Forwarding and consuming only read the
  // slot, so they may run at the same time.
  //
  // Host-completing transports get that order from a host fence at the top of each step.
  // Stream-ordered ones get it from the stream: start() orders the exchange after everything queued
  // on `exec` so far (the consume of step k−1 included) but runs it on a stream of the channel's own,
  // so the consume queued next runs alongside it, and finish() makes `exec` wait for the exchange.
  // The host then never blocks until the drain at the end of the round.
  template <class Consume>
  void circulate_overlapped(Consume& consume, const ExecSpace& exec) {
    const Phase whole_round("ringcomm::circulate");
    const StreamRef stream = stream_of(exec);
    int current = own_slot_;
    for (int step = 1; step < ring_size_; ++step) {
      const int other = 1 - current;
      if (!stream_ordered_) fence_consumes(exec);
      start_step(step, current, other, stream);
      consume_slot(consume, current, step - 1);
      finish_step(step, stream);
      current = other;
    }
    consume_slot(consume, current, ring_size_ - 1);
    if (stream_ordered_) drain_round(stream);
    end_round(current);
  }

  void drain_round(StreamRef stream) {
    const Phase drain("ringcomm::drain", &counters_.communication_seconds);
    try {
      channel_->drain(stream);
    } catch (const Error&) {
      rethrow_with_context(ring_size_ - 1);
    }
  }

  template <class Consume>
  void consume_slot(Consume& consume, int slot, int step) {
    const Phase phase("ringcomm::consume", &counters_.compute_seconds);
    consume(static_cast<const void*>(channel_->slot(slot)), origin(step));
  }

  void fence_consumes(const ExecSpace& exec) {
    const Phase fence("ringcomm::consume::fence", &counters_.compute_seconds);
    exec.fence();
  }

  void start_step(int step, int send, int recv, StreamRef stream) {
    const Phase start("ringcomm::exchange::start", &counters_.communication_seconds);
    try {
      channel_->start(send, recv, stream);
    } catch (const Error&) {
      rethrow_with_context(step);
    }
  }

  void finish_step(int step, StreamRef stream) {
    {
      const Phase finish("ringcomm::exchange::finish", &counters_.communication_seconds);
      try {
        channel_->finish(stream);
      } catch (const Error&) {
        rethrow_with_context(step);
      }
    }
    ++counters_.steps;
    counters_.bytes_sent += message_bytes();
  }

  // The slot sent last is free: the next own message goes there, leaving the last received one to
  // whatever work may still read it.
  void end_round(int last_received) {
    own_slot_ = 1 - last_received;
    ++rounds_;
    ++counters_.rounds;
  }

  // Ring position of the rank whose message arrives at `step` (0: this rank's own).
  int origin(int step) const {
    const int offset = direction_ == Direction::rightward ? -step : step;
    return ((position_ + offset) % ring_size_ + ring_size_) % ring_size_;
  }

  // Rethrows the ringcomm::Error in flight with where in the ring it happened.
  [[noreturn]] void rethrow_with_context(int step) const;

  std::unique_ptr<Channel> channel_;
  int ring_index_;
  int ring_size_;
  int position_;
  bool stream_ordered_;
  Direction direction_;
  StepSchedule schedule_;
  int own_slot_ = 0;
  std::uint64_t rounds_ = 0;
  RingCounters counters_;
};

}  // namespace ringcomm
