#include "ringcomm/backend/gpu_placement.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "ringcomm/collective.hpp"

namespace ringcomm {
namespace {

// Host names and PCI bus ids hold no line breaks, so one line per field is unambiguous.
std::string encode(const RankGpu& rank) {
  return std::to_string(rank.world_rank) + '\n' + rank.host + '\n' + rank.gpu.bus_id + '\n' +
         std::to_string(rank.gpu.visible_gpus);
}

RankGpu decode(const std::string& text) {
  std::istringstream lines(text);
  RankGpu rank;
  std::string number;
  std::getline(lines, number);
  rank.world_rank = std::stoi(number);
  std::getline(lines, rank.host);
  std::getline(lines, rank.gpu.bus_id);
  std::getline(lines, number);
  rank.gpu.visible_gpus = std::stoi(number);
  return rank;
}

// "ranks 0 and 2", "ranks 0, 2 and 5"
std::string ranks_text(const std::vector<int>& ranks) {
  std::ostringstream text;
  text << "ranks";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const bool last = i + 1 == ranks.size();
    text << (i == 0 ? " " : last ? " and " : ", ") << ranks[i];
  }
  return text.str();
}

// What is known of one host from the ranks it runs.
struct HostView {
  int ranks = 0;
  int most_visible = 0;           // a launcher may show a rank only some of the host's GPUs
  std::set<std::string> bus_ids;  // the GPUs its ranks drive
  // The host has at least as many GPUs as any rank sees and as its ranks drive between them.
  int gpus() const { return std::max(most_visible, static_cast<int>(bus_ids.size())); }
};

std::map<std::string, HostView> hosts_of(const std::vector<RankGpu>& ranks) {
  std::map<std::string, HostView> hosts;
  for (const RankGpu& rank : ranks) {
    if (rank.gpu.bus_id.empty()) continue;  // a rank without a GPU is its caller's business
    HostView& host = hosts[rank.host];
    ++host.ranks;
    host.most_visible = std::max(host.most_visible, rank.gpu.visible_gpus);
    host.bus_ids.insert(rank.gpu.bus_id);
  }
  return hosts;
}

}  // namespace

GpuPlacement GpuPlacement::gather(MPI_Comm comm, const GpuIdentity& mine) {
  RankGpu me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me.world_rank);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  me.host.assign(host, static_cast<std::size_t>(length));
  me.gpu = mine;
  GpuPlacement placement;
  for (const std::string& text : allgather_strings(comm, encode(me))) placement.ranks_.push_back(decode(text));
  return placement;
}

std::string GpuPlacement::sharing_problems() const {
  std::map<std::pair<std::string, std::string>, std::vector<int>> ranks_on_gpu;  // (host, bus id) -> ranks
  for (const RankGpu& rank : ranks_)
    if (!rank.gpu.bus_id.empty()) ranks_on_gpu[{rank.host, rank.gpu.bus_id}].push_back(rank.world_rank);
  std::string problems;
  const auto add = [&problems](const std::string& problem) { problems += (problems.empty() ? "" : "; ") + problem; };
  for (const auto& [gpu, ranks] : ranks_on_gpu)
    if (ranks.size() > 1) add(ranks_text(ranks) + " share GPU " + gpu.second + " on " + gpu.first);
  for (const auto& [name, host] : hosts_of(ranks_))
    if (host.ranks > host.gpus())
      add("host " + name + " runs " + std::to_string(host.ranks) + " ranks but has only " + std::to_string(host.gpus()) +
          (host.gpus() == 1 ? " GPU" : " GPUs"));
  return problems;
}

std::string GpuPlacement::one_rank_per_gpu_refusal(const std::string& transport) const {
  const std::string problems = sharing_problems();
  if (problems.empty()) return problems;
  return problems + ": " + transport + " needs one rank per GPU; start one rank per GPU (e.g. mpirun -np " +
         std::to_string(gpus_in_total()) + ")";
}

std::string said_by_ranks(MPI_Comm comm, const std::string& mine) {
  const std::vector<std::string> all = allgather_strings(comm, mine);
  std::string text;
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty()) text += (text.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) + ": " + all[r];
  return text;
}

int GpuPlacement::gpus_in_total() const {
  int total = 0;
  for (const auto& entry : hosts_of(ranks_)) total += entry.second.gpus();
  return total;
}

}  // namespace ringcomm
