#pragma once
// The "memory" and "counters" objects of a ring_compare run (README: JSON contract).
#include <vector>

#include "ringcomm/json.hpp"
#include "ringcomm/trace.hpp"

namespace ring_compare {

// What one rank holds for a run, by category (bytes).
struct MemoryUse {
  std::size_t gt_slice = 0;     // this rank's G_t entries
  std::size_t ring_buffers = 0; // message slots: 2 per thread for the ring, 1 for the original
  std::size_t staging = 0;      // Channel::extra_bytes() of every channel
};

// Collective over MPI_COMM_WORLD: each category's maximum over ranks, their sum, and what ringcomm's
// allocation counter and the kernel measured (the high water since reset_allocation_high_water()).
ringcomm::json::Value memory_json(const MemoryUse& mine);

// Collective over MPI_COMM_WORLD: the rate (GB/s, bytes read + written over seconds; the slowest
// rank's) of copying min(bytes, 512 MiB) within the memory that holds G_t (a device-to-device copy on
// GPU builds, a host memcpy on CPU builds); median of five samples of four copies each after one
// warm-up.
double copy_rate_GBps(std::size_t bytes);

// Collective over MPI_COMM_WORLD: one object per thread (ring) of a rank, with the steps and bytes
// of rank 0 (identical everywhere) and each time's maximum and mean over ranks.
ringcomm::json::Value counters_json(const std::vector<ringcomm::RingCounters>& per_thread);

}  // namespace ring_compare
