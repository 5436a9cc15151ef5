#pragma once
// RINGCOMM_RING_SIZE=auto: the ring size chosen from the memory G_t and the rings need per rank.
//
// Among the S dividing p whose slice and ring buffers fit the memory budget, the fastest is taken.
// With the performance model's formulas (model.hpp) a measurement's consume costs the same for every
// S (S messages into N/S entries each) while its exchanges grow with S−1, so the fastest that fits is
// the smallest that fits; fastest_fitting_ring_size() is the one place that would rank candidates
// by predicted time once the model takes measured machine rates.
#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ringcomm {

constexpr const char* kMemoryBudgetSetting = "RINGCOMM_MEMORY_BUDGET";
constexpr double kDefaultMemoryBudgetFraction = 0.8;

struct RingMemoryNeeds {
  std::size_t gt_entries = 0;   // the whole G_t
  std::size_t scalar_bytes = 0;
  std::size_t message_bytes = 0;
  std::size_t rings_per_rank = 1;          // RingTeam::rings(): threads, or 2 for one thread going both ways
  std::size_t staging_bytes_per_ring = 0;  // transport extras where the caller knows them
};

// The largest slice of G_t plus every ring's two slots and staging, on one rank of a ring of S.
std::size_t bytes_per_rank(const RingMemoryNeeds& needs, int ring_size);

// Collective over `comm`: RINGCOMM_MEMORY_BUDGET as bytes ("12G") or as a fraction of the free memory
// where ring buffers and G_t live ("0.5"); unset: kDefaultMemoryBudgetFraction of it. A fraction is
// taken of the least free memory of any rank, so every rank gets the same budget.
std::size_t memory_budget(MPI_Comm comm);

// A parsed RINGCOMM_MEMORY_BUDGET: bytes, or else a fraction of the least free memory of any rank.
struct MemoryBudget {
  std::optional<std::size_t> bytes;  // unset: use `fraction`
  double fraction = kDefaultMemoryBudgetFraction;
};
// The one parser of its values (named `setting` in errors); local.
MemoryBudget parse_memory_budget(const std::string& text, const std::string& setting);
// Collective over `comm`: the budget in bytes (a fraction is taken of the least free memory).
std::size_t memory_budget(MPI_Comm comm, const MemoryBudget& budget);

struct RingSizeChoice {
  int ring_size = 0;
  std::string why;  // one paragraph: the budget, what each S needs, which was taken
};

// Every S dividing `ranks` that fits `budget`, ascending.
std::vector<int> fitting_ring_sizes(const RingMemoryNeeds& needs, int ranks, std::size_t budget);
// The hook for the performance model: the S expected to be fastest among `fitting` (not empty).
int fastest_fitting_ring_size(const std::vector<int>& fitting, const RingMemoryNeeds& needs);

// Collective over `world`. Throws a collective Error listing what each S would need when none fits.
RingSizeChoice choose_ring_size(MPI_Comm world, const RingMemoryNeeds& needs, std::size_t budget);

// Collective over `world`: S from RINGCOMM_RING_SIZE — a number, `auto` (choose_ring_size under
// memory_budget(), explained on world rank 0's stdout), or `fallback` when unset.
int resolve_ring_size(MPI_Comm world, int fallback, const RingMemoryNeeds& needs);

}  // namespace ringcomm
