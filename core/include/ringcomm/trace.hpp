#pragma once
// Instrumentation of the ring's phases: every Phase is a Kokkos Tools region (so connectors and APEX
// see "ringcomm::…" names), optionally adds its host-side duration to a counter, and, while a trace
// is being recorded, becomes a complete event of a Chrome/Perfetto timeline.
//
// Durations are host time (steady_clock). On a GPU build a consume's time is its kernel launch, plus
// the kernel itself only where something waits for it (the fence before a host-completing
// transport's exchange): asynchronous kernels are not timed on the device.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace ringcomm {

// What one Ring has done on this rank since it was opened; the sums of its Phases.
struct RingCounters {
  std::uint64_t rounds = 0;
  std::uint64_t steps = 0;             // exchanges (S−1 per round)
  std::uint64_t bytes_sent = 0;        // message bytes sent to the right neighbour
  double compute_seconds = 0;          // in consume, and fences waiting for consumes
  double communication_seconds = 0;    // in Channel::start/finish/drain: waiting for the neighbours
};

namespace trace {

using Clock = std::chrono::steady_clock;

namespace detail {
extern std::atomic<bool> recording;
void record(const char* name, Clock::time_point begin, Clock::time_point end);
}  // namespace detail

inline bool recording() { return detail::recording.load(std::memory_order_relaxed); }

// Collective over `comm`: starts recording on every rank from a common origin of time (after a
// barrier). At most `max_events` per rank are kept; later ones are counted as dropped.
void start(MPI_Comm comm, std::size_t max_events = std::size_t(1) << 20);

// A copy of `name` that lives as long as the process, for Phases whose names are built at run time.
const char* lasting_name(const std::string& name);

// Collective over `comm`: stops recording and writes all ranks' events into one Chrome trace JSON
// file at `path` on rank 0 (pid = rank, tid = thread of the rank, ts and dur in microseconds).
// Returns the number of events written on rank 0, 0 elsewhere.
std::size_t stop_and_write(MPI_Comm comm, const std::string& path);

}  // namespace trace

// One instrumented phase, from construction to destruction. `name` must outlive the trace (a literal).
class Phase {
 public:
  explicit Phase(const char* name, double* seconds = nullptr) : name_(name), seconds_(seconds) {
    if (Kokkos::Profiling::profileLibraryLoaded()) Kokkos::Profiling::pushRegion(name_);
    begin_ = trace::Clock::now();
  }
  ~Phase() {
    const trace::Clock::time_point end = trace::Clock::now();
    if (seconds_ != nullptr) *seconds_ += std::chrono::duration<double>(end - begin_).count();
    if (trace::recording()) trace::detail::record(name_, begin_, end);
    if (Kokkos::Profiling::profileLibraryLoaded()) Kokkos::Profiling::popRegion();
  }
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  const char* name_;
  double* seconds_;
  trace::Clock::time_point begin_;
};

}  // namespace ringcomm
