#include "ringcomm/ring_size_choice.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <sstream>

#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/settings.hpp"
#include "ringcomm/topology.hpp"
#include "ringcomm/transport.hpp"

namespace ringcomm {

namespace {

std::vector<int> divisors_of(int n) {
  std::vector<int> found;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) found.push_back(d);
  return found;
}

std::size_t least_free_bytes(MPI_Comm comm) {
  unsigned long long free_bytes = query_memory(data_memory_kind()).free_bytes;
  allreduce_in_place(&free_bytes, 1, MPI_MIN, comm);
  return static_cast<std::size_t>(free_bytes);
}

// A fraction has a decimal point ("0.8", "1.0"); anything else is a byte count.
bool is_fraction(const std::string& text) { return text.find('.') != std::string::npos; }

}  // namespace

std::size_t bytes_per_rank(const RingMemoryNeeds& needs, int ring_size) {
  const auto S = static_cast<std::size_t>(ring_size);
  const std::size_t slice_entries = (needs.gt_entries + S - 1) / S;
  return slice_entries * needs.scalar_bytes +
         needs.rings_per_rank * (Channel::kSlots * needs.message_bytes + needs.staging_bytes_per_ring);
}

MemoryBudget parse_memory_budget(const std::string& text, const std::string& setting) {
  MemoryBudget budget;
  if (is_fraction(text)) budget.fraction = settings::parse_real(text, setting, 0.0, 1.0);
  else budget.bytes = settings::parse_bytes(text, setting);
  return budget;
}

std::size_t memory_budget(MPI_Comm comm, const MemoryBudget& budget) {
  if (budget.bytes) return *budget.bytes;
  return static_cast<std::size_t>(budget.fraction * static_cast<double>(least_free_bytes(comm)));
}

std::size_t memory_budget(MPI_Comm comm) {
  const auto text = settings::env(kMemoryBudgetSetting);
  check_identical(comm, {{kMemoryBudgetSetting, text.value_or("(unset)")}},
                  std::string("the memory budget (") + kMemoryBudgetSetting + ")");
  const MemoryBudget budget =
      collectively(comm, [&] { return text ? parse_memory_budget(*text, kMemoryBudgetSetting) : MemoryBudget{}; });
  return memory_budget(comm, budget);
}

std::vector<int> fitting_ring_sizes(const RingMemoryNeeds& needs, int ranks, std::size_t budget) {
  std::vector<int> fitting;
  for (const int S : divisors_of(ranks))
    if (bytes_per_rank(needs, S) <= budget) fitting.push_back(S);
  return fitting;
}

int fastest_fitting_ring_size(const std::vector<int>& fitting, const RingMemoryNeeds& /*needs*/) {
  return fitting.front();
}

RingSizeChoice choose_ring_size(MPI_Comm world, const RingMemoryNeeds& needs, std::size_t budget) {
  const int ranks = comm_size(world);
  std::ostringstream needed;
  for (const int S : divisors_of(ranks))
    needed << "\n  S=" << S << ": " << format_bytes(static_cast<double>(bytes_per_rank(needs, S))) << " per rank";
  const std::vector<int> fitting = fitting_ring_sizes(needs, ranks, budget);
  const std::string budget_text = format_bytes(static_cast<double>(budget)) + " per rank (" + kMemoryBudgetSetting + ")";
  if (fitting.empty())
    throw Error("RINGCOMM_RING_SIZE=auto: no ring size dividing the " + std::to_string(ranks) + " ranks fits " +
                    budget_text + "; G_t slice plus ring buffers need:" + needed.str(),
                true);
  RingSizeChoice choice;
  choice.ring_size = fastest_fitting_ring_size(fitting, needs);
  choice.why = "RINGCOMM_RING_SIZE=auto chose S=" + std::to_string(choice.ring_size) +
               ": the smallest ring (fewest exchanges per measurement) whose G_t slice and ring buffers fit " +
               budget_text + ":" + needed.str();
  return choice;
}

int resolve_ring_size(MPI_Comm world, int fallback, const RingMemoryNeeds& needs) {
  const auto text = settings::env("RINGCOMM_RING_SIZE");
  // Only whether S is automatic must agree here, since the two paths run different collectives;
  // Topology reports ranks that disagree on a number.
  const bool automatic = text && *text == "auto";
  check_identical(world, {{"ring size", automatic ? "auto" : text ? "a number" : "(unset)"}},
                  "the ring size (RINGCOMM_RING_SIZE)");
  if (!automatic) return requested_ring_size(fallback, world);
  const RingSizeChoice choice = choose_ring_size(world, needs, memory_budget(world));
  if (comm_rank(world) == 0) {
    std::printf("%s\n", choice.why.c_str());
    std::fflush(stdout);
  }
  return choice.ring_size;
}

}  // namespace ringcomm
