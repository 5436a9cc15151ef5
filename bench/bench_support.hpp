#pragma once
// What the benchmarks (pingpong, ring_bandwidth, ring_overhead, overlap) share: opening the
// transports to compare, with the reason for each one that cannot run; message-size ladders; timing a
// loop across ranks, interleaving the variants of a comparison; and a byte pattern that proves a
// message arrived intact.
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ringcomm/json.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/transport.hpp"

namespace ringcomm::bench {

struct TransportUnderTest {
  std::string name;
  std::unique_ptr<Transport> transport;  // null when skipped
  std::string skipped;                   // why it cannot run here, when transport is null
};

// Drives a channel step by step the way a ring does: each step sends the slot received into by the
// step before. drain() returns once every step so far has completed (stream-ordered transports
// leave them queued on the stream; Channel::drain waits for them, bounded by RINGCOMM_TIMEOUT).
class ChannelStepper {
 public:
  explicit ChannelStepper(Channel& channel);
  void step();
  void drain();
  // The slot the next step sends: the one the last step received into.
  int sending() const { return current_; }

 private:
  Channel& channel_;
  StreamRef stream_;
  int current_ = 0;
};

// Collective over `world`. `names` empty: every compiled transport. Each is opened for slots of
// `memory`; one that is not usable on every rank comes back skipped, with the registry's reason.
std::vector<TransportUnderTest> open_transports(MPI_Comm world, const std::vector<std::string>& names,
                                                MemoryKind memory);

// {"transport": name, "skipped": reason}
json::Value skipped_as_json(const TransportUnderTest& t);

// first, first·factor, … up to last, merged with `extra`, ascending and without repeats.
std::vector<std::size_t> size_ladder(std::size_t first, std::size_t last, std::size_t factor,
                                     const std::vector<std::size_t>& extra = {});

// A comma-separated list of sizes such as 1M,170MiB (for --sizes options).
std::vector<std::size_t> parse_size_list(const std::string& text, const std::string& setting);

double median(std::vector<double> values);

// Calls run(variant, sample) for each of `variants` in each of `samples` rounds. Every round starts
// one variant further on, so that none always runs first or after the same neighbour, and drifting
// machine load spreads over all of them alike.
void interleave(std::size_t variants, int samples, const std::function<void(std::size_t variant, int sample)>& run);

// Collective over `comm`: starts together, runs `step` `count` times, then `drain` (waits for
// whatever the steps left queued), and returns the slowest rank's seconds per step.
double seconds_per_step(MPI_Comm comm, long count, const std::function<void()>& step,
                        const std::function<void()>& drain);

// How many steps make a sample of about `sample_seconds`, given one step's time; the same on every
// rank of `comm`.
long steps_for(MPI_Comm comm, double one_step_seconds, double sample_seconds, long at_least, long at_most);

// Waits for everything queued on Kokkos' default execution space.
void fence_data_memory();

// A pattern derived from `seed` and each byte's position, written into `bytes` of data memory.
void fill_pattern(void* data, std::size_t bytes, int seed);
// How many of `bytes` of data memory differ from that pattern.
std::size_t count_mismatches(const void* data, std::size_t bytes, int seed);

double gigabytes_per_second(std::size_t bytes, double seconds);

}  // namespace ringcomm::bench
