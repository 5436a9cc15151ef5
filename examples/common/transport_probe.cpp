#include "transport_probe.hpp"

#include <map>
#include <vector>

#include "ringcomm/collective.hpp"

namespace ringcomm::cli {

TransportAvailability probe_on_all_ranks(const BackendInfo& backend, const TransportContext& ctx) {
  // A bad setting is refused on every rank (SettingError), never reported as the transport's reason.
  const Usability mine = collectively(ctx.world, [&] { return probe_here(backend, ctx); });
  const auto reasons = allgather_strings(ctx.world, mine.usable ? std::string() : mine.reason);
  std::map<std::string, std::vector<int>> ranks_by_reason;
  for (int r = 0; r < static_cast<int>(reasons.size()); ++r)
    if (!reasons[r].empty()) ranks_by_reason[reasons[r]].push_back(r);
  TransportAvailability availability;
  availability.usable = ranks_by_reason.empty();
  for (const auto& [reason, ranks] : ranks_by_reason) {
    if (!availability.reason.empty()) availability.reason += "; ";
    if (ranks.size() != reasons.size()) {
      availability.reason += ranks.size() == 1 ? "on rank " : "on ranks ";
      for (std::size_t i = 0; i < ranks.size(); ++i) availability.reason += (i ? "," : "") + std::to_string(ranks[i]);
      availability.reason += ": ";
    }
    availability.reason += reason;
  }
  return availability;
}

}  // namespace ringcomm::cli
