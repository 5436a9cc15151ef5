#pragma once
// What the overlap benchmark reports per transport: its JSON object and the rows of its three tables.
#include <string>
#include <vector>

#include "overlap_run.hpp"
#include "ringcomm/json.hpp"

namespace ringcomm::bench {

// Issue #4: with overlap, a measurement takes at most this times max(compute, communication).
constexpr double kOverlapTarget = 1.1;
// The paper's walker threads and the speed-up it saw with them, for comparison.
constexpr int kPaperThreads = 7;
constexpr double kPaperThreadsSpeedup = 1.3;

json::Value transport_json(const TransportRun& run);

// Seconds per measurement of every variant, the ratio to the target and lock-step / overlap.
std::string overlap_table(const std::vector<TransportRun>& runs);
// Measurements per second per rank for each thread count, and the speed-up over one thread.
std::string threads_table(const std::vector<TransportRun>& runs);
// Host time per round in consumes and in exchanges, from the rings' own counters.
std::string counters_table(const std::vector<TransportRun>& runs);

}  // namespace ringcomm::bench
