#pragma once
// One mini_qmc run: every walker thread of every rank runs its own Markov chain; after each
// measurement the session's rings carry its G_↑, G_↓ and sign to every other rank of its sub-ring,
// and GtAccumulator adds them to the rank's slice of G_t.
#include <cstddef>
#include <string>

#include "ringcomm/session.hpp"
#include "run_settings.hpp"

namespace mini_qmc {

struct RunSummary {
  std::string transport;
  std::string topology;
  int ranks = 0;
  long long measurements = 0;      // over all ranks and walker threads
  double acceptance_rate = 0;      // over all ranks
  double average_sign = 0;
  double density = 0;              // ⟨n_↑ + n_↓⟩ per site, sign-weighted
  double double_occupancy = 0;     // ⟨n_↑ n_↓⟩ per site, sign-weighted
  double max_wrap_error = 0;       // largest |G_wrapped − G_fresh| seen on any rank
  double walker_seconds = 0;       // sweeps and G construction, slowest rank
  double ring_seconds = 0;         // the rest of the run (rings and accumulation), slowest rank
  std::size_t message_bytes = 0;
  std::size_t gt_entries = 0;
  std::size_t gt_bytes_per_rank = 0;  // largest slice
};

// Collective over the session's ranks. Writes G_t (normalised by the sum of signs) to
// settings.gt_path. Returns the same summary on every rank.
RunSummary run_simulation(const RunSettings& settings, ringcomm::Session& session);

}  // namespace mini_qmc
