#pragma once
// The rings of a rank's walker threads (walker_schedule.hpp), their execution space instances, and
// the threads themselves.
//
//   RingTeam team(transport, topology, message_bytes, requested_schedule());
//   team.run([&](int thread) {
//     for (std::size_t round = 0; round < rounds; ++round) {
//       Ring& ring = team.ring(thread, round);
//       write_message(ring.outgoing(), …, team.exec(thread));
//       ring.circulate(consume_of_thread, team.exec(thread));
//     }
//   });
//
// Expert layer: a RingTeam reads no settings; it runs the WalkerSchedule it is given (from
// requested_schedule(), which parses RINGCOMM_THREADS, _DIRECTION and _OVERLAP as the Session does).
//
// Consumes of different threads run at the same time and must not race on shared data (G_t: see
// GtAccumulator's Updates::concurrent). Where Kokkos cannot run kernels of several host threads at
// once, kernel_lock() serialises their launches while the exchanges still run concurrently.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "ringcomm/error.hpp"
#include "ringcomm/ring.hpp"
#include "ringcomm/walker_schedule.hpp"

namespace ringcomm {

// True when kernels launched from several host threads on their own execution space instances may
// run at the same time. Kokkos 4 gives each thread an instance of its own (partition_space). Kokkos 3
// cannot: every launch copies its functor's Views, and a Serial-only Kokkos 3 counts View references
// without atomics, so launches from two threads corrupt those counts (seen as "failed decrement
// count" aborts and wrong sums). There every launch is serialised.
bool kernels_run_concurrently();

// Rendezvous of a fixed number of threads; once any thread gives up (break_all), every waiter and
// every later arrival throws, so that one failing thread never leaves the others waiting forever.
class ThreadBarrier {
 public:
  struct Broken : Error {
    Broken() : Error("another walker thread of this rank failed") {}
  };
  explicit ThreadBarrier(int threads) : threads_(threads) {}
  void arrive_and_wait();
  void break_all();

 private:
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  int threads_;
  int waiting_ = 0;
  std::size_t generation_ = 0;
  bool broken_ = false;
};

class RingTeam {
 public:
  // Collective over topology.world(). More than one thread needs MPI_THREAD_MULTIPLE (a collective
  // Error otherwise).
  RingTeam(Transport& transport, const Topology& topology, std::size_t message_bytes, const WalkerSchedule& schedule);
  // One thread on a ring the caller owns.
  explicit RingTeam(Ring& ring);

  int threads() const { return schedule_.threads; }
  const WalkerSchedule& schedule() const { return schedule_; }
  // The ring that carries the `round`-th measurement of `thread`.
  Ring& ring(int thread, std::size_t round);
  const ExecSpace& exec(int thread) const { return execs_[static_cast<std::size_t>(thread)]; }

  std::size_t rings() const { return rings_.size(); }
  // Slots of every ring of every thread: 2 per thread, 4 for a single thread going both ways.
  std::size_t slots() const { return rings_.size() * Channel::kSlots; }
  // Memory of all rings on this rank: T · (2 · message bytes + transport staging) in general.
  std::size_t buffer_bytes() const;
  std::size_t staging_bytes() const;  // the transport staging part of buffer_bytes()
  std::size_t message_bytes() const { return rings_.front()->message_bytes(); }
  // Every ring's counters, thread by thread.
  std::vector<RingCounters> counters() const;
  // Held around each kernel launch where kernels_run_concurrently() is false; otherwise a no-op lock.
  std::unique_lock<std::mutex> kernel_lock();

  // Runs body(thread) for every thread, thread 0 on the caller, and returns when all have ended.
  // The first exception of any thread is rethrown here after the others have ended; `barrier`, if
  // given, is broken on the way so that no thread waits for the failed one at a rendezvous.
  void run(const std::function<void(int)>& body, ThreadBarrier* barrier = nullptr) const;

 private:
  WalkerSchedule schedule_;
  // Thread t's rings at [t·directions, (t+1)·directions), in the order of directions_of_thread().
  std::vector<Ring*> rings_;
  std::vector<std::unique_ptr<Ring>> owned_;
  std::size_t rings_per_thread_ = 1;
  std::vector<ExecSpace> execs_;
  bool serialise_kernels_;
  std::mutex kernel_mutex_;
};

}  // namespace ringcomm
